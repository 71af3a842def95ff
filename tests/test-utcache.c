/* test-utcache.c — unit test of capture/utcache.c: tables kept on disk by build-id and digest
 * (a file claiming the same build-id with other contents gets none of them), and a table an
 * older builder wrote (utab_hdr.builder) dropped, so that it is built again. */
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/utcache.h"
#include "check.h"
#include "unwind/utab.h"

/* A sealed table of two rules and rows (an END rule over [0x1000, 0x1010)) with this build-id
 * and builder revision. */
struct small_table {
	struct utab_hdr h;
	struct utab_rule rules[2];
	struct utab_row rows[2];
};

static void make_table(struct small_table *t, const uint8_t *bid, uint32_t builder)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->h.magic, UTAB_MAGIC, 8);
	t->h.version = UTAB_VERSION;
	t->h.hdr_size = sizeof(t->h);
	t->h.n_rules = 2;
	t->h.n_rows = 2;
	t->h.build_id_len = 20;
	memcpy(t->h.build_id, bid, 20);
	t->h.builder = builder;
	t->rules[1] = (struct utab_rule){ .cfa = UTAB_CFA_END, .ra_off = -8 };
	t->rows[0] = (struct utab_row){ 0x1000, 1 };
	t->rows[1] = (struct utab_row){ 0x1010, 0 };
	utab_seal(t);
}

int main(void)
{
	char dir[] = "/tmp/rp-test-utcache.XXXXXX", why[160], path[192];
	uint8_t cur[20], old[20], dig[16], forged[16];
	struct small_table t;
	struct utcache c;
	struct utab u;
	size_t size = 0;
	void *buf;

	memset(cur, 0xc1, sizeof(cur));
	memset(old, 0x01, sizeof(old));
	memset(dig, 0xd1, sizeof(dig));
	memset(forged, 0xf0, sizeof(forged));
	if (!CHECK(mkdtemp(dir) != NULL))
		return check_done("test-utcache");
	if (!CHECK_INT(utcache_open(&c, dir, 1 << 20, why, sizeof(why)), 0))
		return check_done("test-utcache");

	/* This builder's table comes back, checked. */
	make_table(&t, cur, UTAB_BUILDER_REV);
	utcache_store(&c, cur, 20, dig, &t, sizeof(t));
	CHECK_INT(c.stores, 1);
	buf = utcache_load(&c, cur, 20, dig, &u, &size);
	if (CHECK(buf != NULL, "the current builder's table is loaded")) {
		CHECK_INT(size, sizeof(t));
		CHECK_INT(u.hdr->builder, UTAB_BUILDER_REV);
		CHECK(utab_find(&u, 0x1008) && utab_find(&u, 0x1008)->cfa == UTAB_CFA_END);
	}
	free(buf);
	CHECK_INT(c.hits, 1);

	/* The same table stored again (built again while the cache's copy was on its way): the
	 * file stays, marked used; another table under the name replaces it. */
	{
		struct stat a, b;

		snprintf(path, sizeof(path), "%s/%s-%s.utab", dir,
			 "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1",
			 "d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1");
		CHECK_INT(stat(path, &a), 0);
		utimensat(AT_FDCWD, path, (struct timespec[]){ { 1, 0 }, { 1, 0 } }, 0);
		utcache_store(&c, cur, 20, dig, &t, sizeof(t));
		CHECK_INT(c.stores, 1);
		CHECK_INT(c.kept, 1);
		CHECK(stat(path, &b) == 0 && b.st_ino == a.st_ino, "the same file");
		CHECK(b.st_mtime > 1, "its mtime refreshed");
		((unsigned char *)&t)[sizeof(t) - 1] ^= 1;
		utcache_store(&c, cur, 20, dig, &t, sizeof(t));
		((unsigned char *)&t)[sizeof(t) - 1] ^= 1;
		CHECK_INT(c.stores, 2);
		CHECK_INT(c.kept, 1);
		CHECK(stat(path, &b) == 0 && b.st_ino != a.st_ino, "other bytes: written anew");
		utcache_store(&c, cur, 20, dig, &t, sizeof(t)); /* the good one back */
	}

	/* The same build-id with another digest (a file that copied the build-id note): none. */
	CHECK(utcache_load(&c, cur, 20, forged, &u, &size) == NULL,
	      "a table is not served to a file with another digest");
	CHECK(utcache_load(&c, cur, 20, NULL, &u, &size) == NULL, "nor without a digest");
	CHECK_INT(c.hits, 1);
	CHECK_INT(c.refused, 0);

	/* An older builder's (revision 0: before the field) is valid, but dropped and removed. */
	make_table(&t, old, 0);
	CHECK_INT(utab_check(&t, sizeof(t), &u, why, sizeof(why)), 0);
	utcache_store(&c, old, 20, dig, &t, sizeof(t));
	buf = utcache_load(&c, old, 20, dig, &u, &size);
	CHECK(buf == NULL, "an older builder's table is not used");
	free(buf);
	CHECK_INT(c.refused, 1);
	snprintf(path, sizeof(path), "%s/%s-%s.utab", dir,
		 "0101010101010101010101010101010101010101", "d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1");
	CHECK(access(path, F_OK) != 0, "%s removed", path);
	CHECK(utcache_load(&c, old, 20, dig, &u, &size) == NULL);
	CHECK_INT(c.refused, 1);

	utcache_done(&c);
	snprintf(path, sizeof(path), "%s/%s-%s.utab", dir,
		 "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1", "d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1");
	CHECK(unlink(path) == 0, "%s was the file's name", path);
	rmdir(dir);
	return check_done("test-utcache");
}
