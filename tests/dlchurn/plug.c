/* plug.c — a plugin for tests/record-dlopen.sh: PLUG_ becomes alpha_ or beta_, so that two
 * libraries of different code (and build-ids) are loaded in turn at the same address. Built
 * -O2 without frame pointers: their callers come only from their unwind tables. */
#include <stdint.h>
#define NOI __attribute__((noipa))
static volatile uint64_t sink;
NOI static uint64_t PLUG_burn(uint64_t x, int n) { for (int i = 0; i < n; i++) x = x * 6364136223846793005ULL + 1442695040888963407ULL + (x >> 29); return x; }
NOI static uint64_t PLUG_inner(uint64_t x) { uint64_t r = PLUG_burn(x, 200000); sink = r; return r + 1; }
NOI uint64_t plugin_work(uint64_t x) { uint64_t r = PLUG_inner(x); sink += r; return r * 3; }
