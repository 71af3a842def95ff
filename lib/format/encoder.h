/* encoder.h — format 2's encoder: the recorder's samples in, STACKS, SAMPLES and KSYMS records
 * out. Runs in the drain loop: no allocation and no parsing after encoder_new(). */
#ifndef RP_ENCODER_H
#define RP_ENCODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksyms;
struct perfrec_sample;
struct writer;

struct encoder;

/*
 * An encoder for samples of n_cpus CPU slots and n_events events (one open batch each; event
 * 0's are RP_REC_SAMPLES, the others' RP_REC_EVSAMPLES). ksyms is borrowed and must
 * outlive the encoder: the kernel symbols that new stacks hit are written from it (with the
 * symbol after each, which bounds it for the reader); an empty one writes none. NULL on ENOMEM.
 */
struct encoder *encoder_new(size_t n_cpus, size_t n_events, const struct ksyms *ksyms);
/* Accepts NULL; returns NULL. */
struct encoder *encoder_free(struct encoder *e);

/* Write to w from now on (borrowed until the next encoder_begin), after the file's header
 * records: every later frame starts with the stack numbering in force (rp_stackgen_rec).
 * Stacks and kernel symbols are defined again in every file. */
void encoder_begin(struct encoder *e, struct writer *w);

/* Store s (of event index event, drained from CPU slot ci) compactly: its stack by number, defined
 * first when new, its other fields packed into the slot's batch. False when it must be stored as it
 * is (a stack longer than a record can hold). */
bool encoder_add(struct encoder *e, size_t ci, size_t event, const struct perfrec_sample *s);
/* Write slot ci's batches (every event's), after the stack definitions and kernel symbols it needs. */
void encoder_flush(struct encoder *e, size_t ci);

/* Number stacks from 0 again and write kernel symbols again as they are hit: bounds what a
 * damaged frame costs. Every slot must have been flushed. */
void encoder_restart(struct encoder *e);

#endif
