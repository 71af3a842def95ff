/* crc32c.c — table-driven CRC-32C; only frame descriptors are checksummed, so speed is moot. */
#include "base/crc32c.h"

static uint32_t table[256];

static void table_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		table[i] = c;
	}
}

uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	static int ready;
	const unsigned char *p = buf;

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		table_init();
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
