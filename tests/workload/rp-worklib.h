/* rp-worklib.h — librp-worklib.so: a CPU-burning function that lives in a shared library. */
#ifndef RP_WORKLIB_H
#define RP_WORKLIB_H

#include <stdint.h>

/*
 * Run N_ITER rounds of an integer mixing function starting from SEED and return the result;
 * feed it back as the next SEED so no work is dead.  Pure computation: no allocation, no
 * system calls, so all of its samples land in this library's own code.
 */
uint64_t worklib_spin(uint64_t seed, uint64_t n_iter);

#endif
