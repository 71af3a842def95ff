/* html-counts.h — the page's samples over time: the timeline's series (every bucket, by command
 * and unit) and the stacks' counts, per bucket or, past a budget of counts, per a wider step
 * that the range selection snaps to. */
#ifndef RP_REPORT_HTML_COUNTS_H
#define RP_REPORT_HTML_COUNTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct html_timeline;

/* How many counts the page keeps by default (about a byte each in the page). */
#define HTML_MAX_COUNTS 1250000u

/* The samples of one stack of one command and unit in one bucket of the timeline. */
struct html_count {
	uint32_t bucket; /* the timeline's bucket */
	uint32_t stack;	 /* page stack */
	uint32_t comm;	 /* its page command */
	uint32_t unit;	 /* page unit */
	uint64_t samples, weight;
};

/* A step of the range selection: FACTOR buckets of the timeline, its edges at multiples of its
 * width; bucket b is in step (b + SHIFT) / FACTOR. */
struct html_step {
	uint32_t factor, shift;
};

/* The step of FACTOR buckets of TL. */
struct html_step html_step_of(const struct html_timeline *tl, uint32_t factor);

/*
 * The narrowest step (1, 2, 5, 10, 20, 50, ... buckets of TL) at which the N counts C, merged
 * by (stack, unit, step), are at most MAX (0: no limit); the widest (one step for the whole
 * timeline) if none is. Sorts C.
 */
struct html_step html_step_choose(struct html_count *c, size_t n, const struct html_timeline *tl,
				  uint64_t max);

/*
 * The N counts C (sorted and merged in place) into the page's data (html_col_*()): the mean
 * weight of a sample ("weight_unit"); the timeline's series per bucket, command and unit
 * ("tl_*" columns); the step ("range_step", "range_shift": html_step_choose() with MAX); and
 * the counts per step, stack and unit in step order ("count_*" columns). 0 or -ENOMEM.
 */
int html_counts_write(FILE *f, struct html_count *c, size_t n, const struct html_timeline *tl,
		      uint64_t max);

#endif
