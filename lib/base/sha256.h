/* sha256.h — SHA-256 (FIPS 180-4), for digests a file's owner cannot steer: the key under
 * which unwind tables and captured symbols are kept next to the build-id the file claims. */
#ifndef RP_SHA256_H
#define RP_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;	     /* hashed so far */
	unsigned char b[64]; /* the block being filled */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN]);
/* Whether the CPU's SHA instructions do the work (x86-64 with SHA-NI), else portable C. */
bool sha256_accelerated(void);
/* Tests: on, the portable C only; off, the CPU's instructions again where there are some. */
void sha256_portable(bool on);

#endif
