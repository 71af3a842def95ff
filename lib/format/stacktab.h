/* stacktab.h — the recorder's table of distinct stacks (format 2 numbers each stack once per
 * file): fixed memory, no allocation once created, for the drain loop. */
#ifndef RP_STACKTAB_H
#define RP_STACKTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stacktab;

/* A table for at most max_stacks stacks holding max_words words in all. NULL on ENOMEM.
 * Pages are touched only as the table fills. */
struct stacktab *stacktab_new(uint32_t max_stacks, size_t max_words);
/* Accepts NULL; returns NULL. */
struct stacktab *stacktab_free(struct stacktab *t);
/* Forget every stack: ids start again from 0. */
void stacktab_reset(struct stacktab *t);
uint32_t stacktab_count(const struct stacktab *t);

/*
 * The id of the stack (misc, ip, chain[0..nr)), defining it when it is new (*added is then
 * true and the caller must write its definition before any sample that uses it). -1 when
 * the table is full (reset it and retry) or the stack is longer than a record can hold.
 * chain need not be aligned.
 */
int64_t stacktab_intern(struct stacktab *t, uint16_t misc, uint64_t ip, const uint64_t *chain,
			uint64_t nr, bool *added);

#endif
