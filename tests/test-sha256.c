/* test-sha256.c — unit test of lib/base/sha256.c: the FIPS 180-4 example vectors, a million
 * 'a's fed in uneven pieces, and every length around the block boundaries against a
 * reference kept in the test (computed once with Python's hashlib); each with the CPU's SHA
 * instructions where it has them and in portable C, and the two on random lengths and
 * offsets. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "base/sha256.h"
#include "base/buildid.h"

static const char *hex_of(const void *data, size_t len, size_t piece)
{
	static char out[2 * SHA256_LEN + 1];
	uint8_t d[SHA256_LEN];
	struct sha256 s;
	const char *p = data;

	sha256_init(&s);
	for (size_t off = 0; off < len; off += piece)
		sha256_update(&s, p + off, len - off < piece ? len - off : piece);
	sha256_final(&s, d);
	buildid_to_hex(d, sizeof(d), out);
	return out;
}

static void vectors(void)
{
	static char million[1000000];
	static char ramp[200];

	test_ctx = "FIPS 180-4 examples";
	CHECK_STR(hex_of("", 0, 1),
		  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	CHECK_STR(hex_of("abc", 3, 3),
		  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	CHECK_STR(hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, 7),
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', sizeof(million));
	CHECK_STR(hex_of(million, sizeof(million), 777),
		  "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

	test_ctx = "lengths at the block boundaries, whole and in pieces";
	for (size_t i = 0; i < sizeof(ramp); i++)
		ramp[i] = (char)i;
	/* bytes 0..N-1, N = 55, 56, 63, 64, 65, 119, 120, 128, by Python's hashlib */
	CHECK_STR(hex_of(ramp, 55, 55),
		  "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59");
	CHECK_STR(hex_of(ramp, 55, 13),
		  "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59");
	CHECK_STR(hex_of(ramp, 56, 56),
		  "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562");
	CHECK_STR(hex_of(ramp, 56, 13),
		  "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562");
	CHECK_STR(hex_of(ramp, 63, 63),
		  "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488");
	CHECK_STR(hex_of(ramp, 63, 13),
		  "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488");
	CHECK_STR(hex_of(ramp, 64, 64),
		  "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108");
	CHECK_STR(hex_of(ramp, 64, 13),
		  "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108");
	CHECK_STR(hex_of(ramp, 65, 65),
		  "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781");
	CHECK_STR(hex_of(ramp, 65, 13),
		  "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781");
	CHECK_STR(hex_of(ramp, 119, 119),
		  "da18797ed7c3a777f0847f429724a2d8cd5138e6ed2895c3fa1a6d39d18f7ec6");
	CHECK_STR(hex_of(ramp, 119, 13),
		  "da18797ed7c3a777f0847f429724a2d8cd5138e6ed2895c3fa1a6d39d18f7ec6");
	CHECK_STR(hex_of(ramp, 120, 120),
		  "f52b23db1fbb6ded89ef42a23ce0c8922c45f25c50b568a93bf1c075420bbb7c");
	CHECK_STR(hex_of(ramp, 120, 13),
		  "f52b23db1fbb6ded89ef42a23ce0c8922c45f25c50b568a93bf1c075420bbb7c");
	CHECK_STR(hex_of(ramp, 128, 128),
		  "471fb943aa23c511f6f72f8d1652d9c880cfa392ad80503120547703e56a2be5");
	CHECK_STR(hex_of(ramp, 128, 13),
		  "471fb943aa23c511f6f72f8d1652d9c880cfa392ad80503120547703e56a2be5");
}

int main(void)
{
	static unsigned char buf[70000];
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	bool fast;

	sha256_portable(false);
	fast = sha256_accelerated();
	printf("# SHA instructions: %s\n", fast ? "yes, both paths tested" : "no, portable C only");
	vectors();
	sha256_portable(true);
	CHECK(!sha256_accelerated());
	vectors();

	test_ctx = "the CPU's instructions and portable C agree";
	for (size_t i = 0; i < sizeof(buf); i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = (unsigned char)x;
	}
	for (int round = 0; round < 64; round++) {
		size_t off = (size_t)(x % 61), len, piece;
		char a[2 * SHA256_LEN + 1];

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		len = (size_t)(x % (sizeof(buf) - 64));
		piece = 1 + (size_t)((x >> 20) % 300);
		sha256_portable(true);
		strcpy(a, hex_of(buf + off, len, piece));
		sha256_portable(false);
		CHECK_STR(hex_of(buf + off, len, len ? len : 1), a);
	}
	return check_done("test-sha256");
}
