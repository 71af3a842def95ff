/* ring-barrier.h — the memory-ordering contract between the kernel and a perf ring reader. */
#ifndef RINGPROF_RING_BARRIER_H
#define RINGPROF_RING_BARRIER_H

#include <stdint.h>
#include <linux/perf_event.h>

/*
 * The contract, from kernel/events/ring_buffer.c:perf_output_put_handle():
 *
 *   kernel (producer)                 user (consumer)
 *
 *   if (LOAD ->data_tail) {           LOAD ->data_head
 *                (A)                  acquire / smp_rmb()     (C)
 *     STORE $data                     LOAD $data
 *     smp_wmb()  (B)                  release / smp_mb()      (D)
 *     STORE ->data_head               STORE ->data_tail
 *   }
 *
 * A pairs with D: the kernel must not overwrite bytes until our reads of them are done, so
 * D has to order the data LOADS before the tail STORE. smp_wmb() would not do that; a full
 * barrier or a store-release does.
 * B pairs with C: once we see a head value, the record bytes below it are visible to us.
 *
 * Acquire and release are what perf's own tools/include/linux/ring_buffer.h uses on x86-64
 * and arm64. volatile or compiler-only barriers are not enough on arm64. data_head and
 * data_tail are 8-byte aligned u64s, so on 64-bit ABIs these accesses never tear.
 */

/* LOAD ->data_head, then (C): later loads of record bytes cannot move before it. */
static inline uint64_t ring_load_head(const struct perf_event_mmap_page *pc)
{
	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
}

/* (D), then STORE ->data_tail: every earlier load of record bytes completes first. */
static inline void ring_store_tail(struct perf_event_mmap_page *pc, uint64_t tail)
{
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
}

#endif
