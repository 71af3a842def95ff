/* test-perfrec.c — unit test of lib/perfrec.c: sample layouts for every known sample_type,
 * sample_id trailers, record times, type names and strings inside records. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format/format.h"
#include "format/perfrec.h"

/* The known sample_type bits in the order the kernel lays out their fields in a sample. */
static const uint64_t sample_bits[] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,	       PERF_SAMPLE_TID,	      PERF_SAMPLE_TIME,
	PERF_SAMPLE_ADDR,	PERF_SAMPLE_ID,	       PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
	PERF_SAMPLE_PERIOD,	PERF_SAMPLE_CALLCHAIN,
};
#define N_SAMPLE_BITS (sizeof(sample_bits) / sizeof(sample_bits[0]))

/* The sample_id trailer bits in trailer order. */
static const uint64_t id_bits[] = {
	PERF_SAMPLE_TID,       PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
	PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,	 PERF_SAMPLE_IDENTIFIER,
};
#define N_ID_BITS (sizeof(id_bits) / sizeof(id_bits[0]))

#define V_IDENTIFIER 0x1d1d1d1d1d1d1d1dull
#define V_IP 0xffffffff81234560ull
#define V_PID 4242u
#define V_TID 4243u
#define V_TIME 123456789012345ull
#define V_ADDR 0xadd0add0ull
#define V_ID 0x1d00ull
#define V_STREAM 0x57ea3ull
#define V_CPU 7u
#define V_PERIOD 100003ull
#define V_MISC (PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP)

static uint64_t subset(const uint64_t *bits, size_t n, unsigned int mask)
{
	uint64_t st = 0;

	for (size_t i = 0; i < n; i++)
		if (mask & (1u << i))
			st |= bits[i];
	return st;
}

/* Write a record header at p. */
static void set_header(void *p, uint32_t type, size_t size)
{
	struct perf_event_header h = { type, 0, (uint16_t)size };

	memcpy(p, &h, sizeof(h));
}

/* A heap copy of exactly size bytes, so ASan sees any read past the record. */
static struct perf_event_header *exact(const void *rec, size_t size)
{
	struct perf_event_header *h = malloc(size ? size : 1);

	if (!h) {
		fprintf(stderr, "test-record: out of memory\n");
		exit(1);
	}
	memcpy(h, rec, size);
	return h;
}

/*
 * Lay out a sample for st as the kernel does, with nr callchain entries, into buf (u64
 * words). Returns its size; *ret_ips is the word index of the first callchain entry.
 */
static size_t build_sample(uint64_t *buf, uint64_t st, uint64_t nr, size_t *ret_ips)
{
	struct perf_event_header *h = (void *)buf;
	size_t n = 1;

	if (st & PERF_SAMPLE_IDENTIFIER)
		buf[n++] = V_IDENTIFIER;
	if (st & PERF_SAMPLE_IP)
		buf[n++] = V_IP;
	if (st & PERF_SAMPLE_TID)
		buf[n++] = V_PID | (uint64_t)V_TID << 32;
	if (st & PERF_SAMPLE_TIME)
		buf[n++] = V_TIME;
	if (st & PERF_SAMPLE_ADDR)
		buf[n++] = V_ADDR;
	if (st & PERF_SAMPLE_ID)
		buf[n++] = V_ID;
	if (st & PERF_SAMPLE_STREAM_ID)
		buf[n++] = V_STREAM;
	if (st & PERF_SAMPLE_CPU)
		buf[n++] = V_CPU | 0xdeadull << 32; /* res is not the cpu */
	if (st & PERF_SAMPLE_PERIOD)
		buf[n++] = V_PERIOD;
	*ret_ips = 0;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		buf[n++] = nr;
		*ret_ips = n;
		for (uint64_t i = 0; i < nr; i++)
			buf[n++] = 0x400000 + 0x10 * i;
	}
	h->type = PERF_RECORD_SAMPLE;
	h->misc = V_MISC;
	h->size = (uint16_t)(n * 8);
	return n * 8;
}

/* Every combination of the known bits, with and without callchain entries: every field
 * decoded, absent ones 0; every shorter copy refused, with no read past its end. */
static void test_sample_layouts(void)
{
	static const uint64_t nrs[] = { 0, 1, 5 };
	uint64_t buf[64];
	unsigned int n_checked = 0;

	for (unsigned int mask = 0; mask < 1u << N_SAMPLE_BITS; mask++) {
		uint64_t st = subset(sample_bits, N_SAMPLE_BITS, mask);

		for (size_t k = 0; k < sizeof(nrs) / sizeof(nrs[0]); k++) {
			struct perfrec_sample s;
			struct perf_event_header *h;
			size_t ips, size;
			int err;

			if (k && !(st & PERF_SAMPLE_CALLCHAIN))
				break;
			size = build_sample(buf, st, nrs[k], &ips);
			h = exact(buf, size);
			memset(&s, 0xa5, sizeof(s));
			err = perfrec_parse_sample(h, st, &s);
			n_checked++;
			if (!CHECK(err == 0, "sample_type %#llx nr %llu: %d",
				   (unsigned long long)st, (unsigned long long)nrs[k], err)) {
				free(h);
				continue;
			}
			CHECK(s.ip == (st & PERF_SAMPLE_IP ? V_IP : 0) &&
				  s.id.pid == (st & PERF_SAMPLE_TID ? V_PID : 0) &&
				  s.id.tid == (st & PERF_SAMPLE_TID ? V_TID : 0) &&
				  s.id.time == (st & PERF_SAMPLE_TIME ? V_TIME : 0) &&
				  s.id.cpu == (st & PERF_SAMPLE_CPU ? V_CPU : 0) &&
				  s.period == (st & PERF_SAMPLE_PERIOD ? V_PERIOD : 0) &&
				  s.misc == V_MISC,
			      "sample_type %#llx: ip %#llx pid %u tid %u time %llu cpu %u "
			      "period %llu misc %#x",
			      (unsigned long long)st, (unsigned long long)s.ip, s.id.pid, s.id.tid,
			      (unsigned long long)s.id.time, s.id.cpu, (unsigned long long)s.period,
			      s.misc);
			if (st & PERF_SAMPLE_CALLCHAIN) {
				bool ips_ok = s.nr == nrs[k] &&
					      s.ips == (const uint64_t *)(const void *)h + ips;

				for (uint64_t i = 0; ips_ok && i < s.nr; i++)
					ips_ok = s.ips[i] == 0x400000 + 0x10 * i;
				CHECK(ips_ok,
				      "sample_type %#llx: nr %llu (want %llu), ips %p (want %p)",
				      (unsigned long long)st, (unsigned long long)s.nr,
				      (unsigned long long)nrs[k], (const void *)s.ips,
				      (const void *)((const uint64_t *)(const void *)h + ips));
			} else {
				CHECK(s.nr == 0, "sample_type %#llx without callchain: nr %llu",
				      (unsigned long long)st, (unsigned long long)s.nr);
			}
			CHECK(perfrec_time(h, st) == (st & PERF_SAMPLE_TIME ? V_TIME : 0),
			      "sample_type %#llx: perfrec_time %llu", (unsigned long long)st,
			      (unsigned long long)perfrec_time(h, st));
			free(h);

			/* Cut short by one or more words: refused, and perfrec_time stays inside. */
			for (size_t cut = 8; cut < size; cut += 8) {
				struct perfrec_sample old;

				h = exact(buf, cut);
				h->size = (uint16_t)cut;
				memset(&s, 0xa5, sizeof(s));
				old = s;
				err = perfrec_parse_sample(h, st, &s);
				CHECK(err == -EINVAL && !memcmp(&s, &old, sizeof(s)),
				      "sample_type %#llx nr %llu cut to %zu of %zu bytes: %d "
				      "(ret %s)",
				      (unsigned long long)st, (unsigned long long)nrs[k], cut, size,
				      err, memcmp(&s, &old, sizeof(s)) ? "written" : "untouched");
				perfrec_time(h, st);
				free(h);
			}
		}
	}
	printf("test-record: %u sample layouts\n", n_checked);
}

static void test_sample_errors(void)
{
	static const uint64_t unknown[] = { PERF_SAMPLE_RAW,	      PERF_SAMPLE_READ,
					    PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_REGS_USER,
					    PERF_SAMPLE_WEIGHT,	      1ull << 63 };
	static const uint64_t bad_nr[] = { 4, 5, 1000, 1ull << 61, 1ull << 62, UINT64_MAX };
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
		      PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	uint64_t buf[64];
	struct perfrec_sample s;
	struct perf_event_header *h;
	size_t ips, size;
	int err;

	/* A callchain whose nr claims more entries than the record holds. */
	size = build_sample(buf, st, 3, &ips);
	for (size_t i = 0; i < sizeof(bad_nr) / sizeof(bad_nr[0]); i++) {
		buf[ips - 1] = bad_nr[i];
		h = exact(buf, size);
		err = perfrec_parse_sample(h, st, &s);
		CHECK(err == -EINVAL, "nr %llu in a record holding 3 entries: %d",
		      (unsigned long long)bad_nr[i], err);
		free(h);
	}
	buf[ips - 1] = 2; /* fewer than there is room for: the rest is ignored */
	h = exact(buf, size);
	err = perfrec_parse_sample(h, st, &s);
	CHECK(err == 0 && s.nr == 2 && s.ips[1] == 0x400010, "nr 2 of room for 3: %d, nr %llu", err,
	      (unsigned long long)s.nr);
	free(h);

	/* Bits we cannot lay out. */
	size = build_sample(buf, st, 3, &ips);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		h = exact(buf, size);
		err = perfrec_parse_sample(h, st | unknown[i], &s);
		CHECK(err == -EINVAL, "sample_type with unknown bit %#llx: %d",
		      (unsigned long long)unknown[i], err);
		free(h);
	}

	/* A header claiming less than itself. */
	for (uint16_t hs = 0; hs < 8; hs++) {
		h = exact(buf, 8);
		h->size = hs;
		err = perfrec_parse_sample(h, 0, &s);
		CHECK(err == -EINVAL, "sample of size %u: %d", hs, err);
		err = perfrec_parse_sample(h, PERF_SAMPLE_IP, &s);
		CHECK(err == -EINVAL, "sample of size %u with an ip: %d", hs, err);
		CHECK(perfrec_time(h, PERF_SAMPLE_TIME) == 0, "perfrec_time of a %u-byte sample",
		      hs);
		free(h);
	}
}

/* Expected trailer words for st, in order. */
static size_t trailer_words(uint64_t st, const struct perfrec_id *id, uint64_t *w)
{
	size_t n = 0;

	if (st & PERF_SAMPLE_TID)
		w[n++] = id->pid | (uint64_t)id->tid << 32;
	if (st & PERF_SAMPLE_TIME)
		w[n++] = id->time;
	if (st & PERF_SAMPLE_ID)
		w[n++] = 0;
	if (st & PERF_SAMPLE_STREAM_ID)
		w[n++] = 0;
	if (st & PERF_SAMPLE_CPU)
		w[n++] = id->cpu;
	if (st & PERF_SAMPLE_IDENTIFIER)
		w[n++] = 0;
	return n;
}

/* Side-band records with sample_id trailers written by perfrec_id_write, for every
 * combination of the trailer bits plus sample-only bits that must not matter. */
static void test_trailers(void)
{
	static const uint32_t types[] = { PERF_RECORD_COMM, PERF_RECORD_EXIT, PERF_RECORD_MMAP2,
					  PERF_RECORD_LOST, PERF_RECORD_SWITCH_CPU_WIDE };
	static const uint64_t noise[] = { 0, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
					  PERF_SAMPLE_PERIOD | PERF_SAMPLE_ADDR };
	const struct perfrec_id id = { 31337, 31338, 987654321987ull, 5 };
	unsigned int n_checked = 0;

	for (unsigned int mask = 0; mask < 1u << N_ID_BITS; mask++) {
		for (size_t ni = 0; ni < sizeof(noise) / sizeof(noise[0]); ni++) {
			uint64_t st = subset(id_bits, N_ID_BITS, mask) | noise[ni];
			uint64_t want[8], buf[16];
			size_t n = trailer_words(st, &id, want), tsize = perfrec_id_size(st);
			size_t body = 8 + 8 * (mask % 3), size = body + tsize;
			struct perf_event_header *h;
			struct perfrec_id got;
			int err;

			if (!CHECK(tsize == 8 * n, "perfrec_id_size(%#llx) = %zu, want %zu",
				   (unsigned long long)st, tsize, 8 * n))
				continue;
			memset(buf, 0x77, sizeof(buf));
			set_header(buf, types[mask % 5], size);
			perfrec_id_write((char *)buf + body, st, &id);
			CHECK(!memcmp((char *)buf + body, want, tsize) &&
				  buf[(body + tsize) / 8] == 0x7777777777777777ull,
			      "perfrec_id_write(%#llx) wrote the wrong trailer, or past it",
			      (unsigned long long)st);
			h = exact(buf, size);
			memset(&got, 0xa5, sizeof(got));
			err = perfrec_parse_id(h, st, &got);
			CHECK(err == 0 && got.pid == (st & PERF_SAMPLE_TID ? id.pid : 0) &&
				  got.tid == (st & PERF_SAMPLE_TID ? id.tid : 0) &&
				  got.time == (st & PERF_SAMPLE_TIME ? id.time : 0) &&
				  got.cpu == (st & PERF_SAMPLE_CPU ? id.cpu : 0),
			      "perfrec_parse_id(%#llx) of a %u record: %d, pid %u tid %u "
			      "time %llu cpu %u",
			      (unsigned long long)st, h->type, err, got.pid, got.tid,
			      (unsigned long long)got.time, got.cpu);
			CHECK(perfrec_time(h, st) == (st & PERF_SAMPLE_TIME ? id.time : 0),
			      "perfrec_time(%#llx): %llu", (unsigned long long)st,
			      (unsigned long long)perfrec_time(h, st));
			free(h);
			n_checked++;

			/* Too short to hold the trailer behind its header. */
			for (size_t cut = 8; tsize && cut < 8 + tsize; cut += 8) {
				h = exact(buf, cut);
				h->size = (uint16_t)cut;
				got = id;
				err = perfrec_parse_id(h, st, &got);
				CHECK(err == -EINVAL && got.time == id.time && got.pid == id.pid,
				      "perfrec_parse_id(%#llx) of a %zu-byte record: %d (ret %s)",
				      (unsigned long long)st, cut, err,
				      got.time == id.time ? "untouched" : "written");
				CHECK(perfrec_time(h, st) == 0,
				      "perfrec_time(%#llx) of a %zu-byte record: %llu",
				      (unsigned long long)st, cut,
				      (unsigned long long)perfrec_time(h, st));
				free(h);
			}
		}
	}
	printf("test-record: %u trailers\n", n_checked);
}

/* Our own records carry their time right after the header, whatever the sample_type. */
static void test_own_records(void)
{
	static const uint32_t types[] = { RP_REC_HEADER, RP_REC_KSYMS, RP_REC_CPU_STATS,
					  RP_REC_FINISH, RP_REC_BASE + 0x100 };
	static const size_t sizes[] = {
		sizeof(struct rp_header_rec),
		sizeof(struct rp_ksyms_rec),
		sizeof(struct rp_cpu_stats_rec),
		sizeof(struct rp_finish_rec),
		16,
	};
	static const uint64_t sts[] = { 0, PERF_SAMPLE_TIME,
					PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
					    PERF_SAMPLE_IDENTIFIER };
	uint64_t buf[128];

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		for (size_t j = 0; j < sizeof(sts) / sizeof(sts[0]); j++) {
			struct perf_event_header *h;
			struct perfrec_id id;
			uint64_t t = 5000000000ull + i * 10 + j;
			int err;

			memset(buf, 0x33, sizeof(buf));
			set_header(buf, types[i], sizes[i]);
			buf[1] = t;
			h = exact(buf, sizes[i]);
			CHECK(perfrec_time(h, sts[j]) == t,
			      "perfrec_time of type %#x, st %#llx: %llu", types[i],
			      (unsigned long long)sts[j],
			      (unsigned long long)perfrec_time(h, sts[j]));
			memset(&id, 0xa5, sizeof(id));
			err = perfrec_parse_id(h, sts[j], &id);
			CHECK(err == 0 && id.time == t && id.cpu == RP_CPU_SYNTH && id.pid == 0 &&
				  id.tid == 0,
			      "perfrec_parse_id of type %#x: %d, time %llu cpu %#x pid %u tid %u",
			      types[i], err, (unsigned long long)id.time, id.cpu, id.pid, id.tid);
			free(h);

			/* A bare header has no time to give. */
			h = exact(buf, 8);
			h->size = 8;
			CHECK(perfrec_time(h, sts[j]) == 0 &&
				  perfrec_parse_id(h, sts[j], &id) == -EINVAL,
			      "type %#x of 8 bytes: time %llu", types[i],
			      (unsigned long long)perfrec_time(h, sts[j]));
			free(h);
		}
	}
}

static void test_type_names(void)
{
	static const struct {
		uint32_t type;
		const char *name;
	} names[] = {
		{ PERF_RECORD_MMAP, "MMAP" },
		{ PERF_RECORD_LOST, "LOST" },
		{ PERF_RECORD_COMM, "COMM" },
		{ PERF_RECORD_EXIT, "EXIT" },
		{ PERF_RECORD_THROTTLE, "THROTTLE" },
		{ PERF_RECORD_UNTHROTTLE, "UNTHROTTLE" },
		{ PERF_RECORD_FORK, "FORK" },
		{ PERF_RECORD_READ, "READ" },
		{ PERF_RECORD_SAMPLE, "SAMPLE" },
		{ PERF_RECORD_MMAP2, "MMAP2" },
		{ PERF_RECORD_AUX, "AUX" },
		{ PERF_RECORD_ITRACE_START, "ITRACE_START" },
		{ PERF_RECORD_LOST_SAMPLES, "LOST_SAMPLES" },
		{ PERF_RECORD_SWITCH, "SWITCH" },
		{ PERF_RECORD_SWITCH_CPU_WIDE, "SWITCH" },
		{ PERF_RECORD_NAMESPACES, "NAMESPACES" },
		{ PERF_RECORD_KSYMBOL, "KSYMBOL" },
		{ PERF_RECORD_BPF_EVENT, "BPF_EVENT" },
		{ PERF_RECORD_CGROUP, "CGROUP" },
		{ PERF_RECORD_TEXT_POKE, "TEXT_POKE" },
		{ RP_REC_HEADER, "HEADER" },
		{ RP_REC_KSYMS, "KSYMS" },
		{ RP_REC_CPU_STATS, "CPU_STATS" },
		{ RP_REC_FINISH, "FINISH" },
	};
	static const uint32_t unknown[] = {
		0, 22, 64, 1000, 0xffff, RP_REC_BASE, RP_REC_FINISH + 1, 0x7fffffff, 0xffffffff
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *n = perfrec_type_name(names[i].type);

		CHECK(n && !strcmp(n, names[i].name), "perfrec_type_name(%u) = %s, want %s",
		      names[i].type, n ? n : "NULL", names[i].name);
	}
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		CHECK(!perfrec_type_name(unknown[i]), "perfrec_type_name(%#x) = %s, want NULL",
		      unknown[i], perfrec_type_name(unknown[i]));
}

/* A COMM record: header, pid, tid, comm (len bytes, NUL-padded to 8), trailer. */
static struct perf_event_header *make_comm(const char *comm, size_t len, uint64_t st,
					   size_t *ret_end)
{
	const struct perfrec_id id = { 1, 1, 77, 0 };
	size_t body = 16 + ((len + 7) & ~(size_t)7), size = body + perfrec_id_size(st);
	uint64_t buf[16];
	struct perf_event_header *h = (void *)buf;

	memset(buf, 0, sizeof(buf));
	h->type = PERF_RECORD_COMM;
	h->size = (uint16_t)size;
	memcpy((char *)buf + 16, comm, len);
	perfrec_id_write((char *)buf + body, st, &id);
	*ret_end = body;
	return exact(buf, size);
}

static void test_strings(void)
{
	uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	struct perf_event_header *h;
	const char *s;
	size_t end;

	h = make_comm("bash", 5, st, &end);
	s = perfrec_string(h, 16, end);
	CHECK(s == (const char *)h + 16 && !strcmp(s, "bash"), "\"bash\": %s", s ? s : "NULL");
	CHECK(!perfrec_string(h, 16, h->size + 8), "end past the record accepted");
	CHECK(!perfrec_string(h, end, end) && !perfrec_string(h, end + 8, end),
	      "a string starting at or after its end accepted");
	free(h);

	/* Terminated in the last byte before the trailer. */
	h = make_comm("1234567", 8, st, &end);
	s = perfrec_string(h, 16, end);
	CHECK(s && !strcmp(s, "1234567"), "7 characters and NUL in 8 bytes: %s", s ? s : "NULL");
	free(h);

	/* Not terminated before the trailer, whose zeros must not count. */
	h = make_comm("12345678", 8, st, &end);
	CHECK(!perfrec_string(h, 16, end), "string running into the trailer accepted");
	CHECK(perfrec_string(h, 16, h->size) != NULL,
	      "the same bytes up to the end of the record (time's zero bytes end it)");
	free(h);
	h = make_comm("abcdefghijklmnop", 16, 0, &end);
	CHECK(end == h->size && !perfrec_string(h, 16, end),
	      "unterminated string at the end of a record without trailer accepted");
	free(h);

	/* The empty string is a string. */
	h = make_comm("", 1, st, &end);
	s = perfrec_string(h, 16, end);
	CHECK(s && !*s, "empty string: %s", s ? s : "NULL");
	free(h);
}

int main(void)
{
	test_sample_layouts();
	test_sample_errors();
	test_trailers();
	test_own_records();
	test_type_names();
	test_strings();
	return check_done("test-record");
}
