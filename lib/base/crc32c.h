/* crc32c.h — CRC-32C (Castagnoli) used to protect frame descriptors. */
#ifndef RP_CRC32C_H
#define RP_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC of buf[0..len) continued from crc (start with 0). */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

#endif
