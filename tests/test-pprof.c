/* test-pprof.c — the pprof encoder on the golden recording: the profile decodes, every id it
 * uses is defined, its values add up to the session's totals (also with filters), the labels
 * and build-ids are there. tests/report-pprof.sh checks it with the real pprof. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "golden.h"
#include "profile/pprof.h"
#include "profile/pprof.pb-c.h"
#include "profile/session.h"

typedef Perftools__Profiles__Profile Profile;

/* The gzip member BUF decompressed and decoded; NULL when either fails. */
static Profile *decode(const uint8_t *buf, size_t len)
{
	size_t cap = 64 * len + 4096;
	uint8_t *out = malloc(cap);
	z_stream z = { 0 };
	Profile *p = NULL;

	if (!out || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(out);
		return NULL;
	}
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (CHECK(inflate(&z, Z_FINISH) == Z_STREAM_END, "the profile is one complete gzip member"))
		p = perftools__profiles__profile__unpack(NULL, z.total_out, out);
	inflateEnd(&z);
	free(out);
	return p;
}

static const char *string(const Profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "(out of range)";
}

/* Ids are 1 .. n in order (the encoder numbers them so); every reference resolves. */
static void check_ids(const Profile *p)
{
	for (size_t i = 0; i < p->n_mapping; i++)
		CHECK_U64(p->mapping[i]->id, i + 1);
	for (size_t i = 0; i < p->n_function; i++)
		CHECK_U64(p->function[i]->id, i + 1);
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];

		CHECK_U64(l->id, i + 1);
		CHECK(l->mapping_id >= 1 && l->mapping_id <= p->n_mapping);
		for (size_t k = 0; k < l->n_line; k++)
			CHECK(l->line[k]->function_id >= 1 &&
			      l->line[k]->function_id <= p->n_function);
	}
	for (size_t i = 0; i < p->n_sample; i++)
		for (size_t k = 0; k < p->sample[i]->n_location_id; k++)
			CHECK(p->sample[i]->location_id[k] >= 1 &&
			      p->sample[i]->location_id[k] <= p->n_location);
}

/* What the profile holds, summed. */
struct seen {
	uint64_t samples, period;
	bool comm_worker, comm_other, pid_label, build_id, worker_spin;
};

static void scan(const Profile *p, struct seen *ret)
{
	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *smp = p->sample[i];

		if (!CHECK_INT(smp->n_value, 2))
			continue;
		ret->samples += (uint64_t)smp->value[0];
		ret->period += (uint64_t)smp->value[1];
		for (size_t k = 0; k < smp->n_label; k++) {
			const char *key = string(p, smp->label[k]->key);

			ret->pid_label |= strcmp(key, "pid") == 0 && smp->label[k]->num > 0;
			if (strcmp(key, "comm") == 0 &&
			    strcmp(string(p, smp->label[k]->str), "rp-worker") == 0)
				ret->comm_worker = true;
			else if (strcmp(key, "comm") == 0)
				ret->comm_other = true;
		}
	}
	for (size_t i = 0; i < p->n_mapping; i++)
		ret->build_id |= strlen(string(p, p->mapping[i]->build_id)) == 40 &&
				 strstr(string(p, p->mapping[i]->filename), "rp-workload");
	for (size_t i = 0; i < p->n_function; i++)
		ret->worker_spin |= strcmp(string(p, p->function[i]->name), "worker_spin") == 0;
}

/* Read the golden recording (only rp-worker's samples with ONLY_WORKER), encode, decode and
 * check. */
static void run(bool only_worker)
{
	static const char *const worker[] = { "rp-worker" };
	struct session_opts so = { .symfs = symfs, .debuginfod_timeout = 5 };
	const struct session_totals *t;
	struct session *s;
	struct seen seen;
	uint8_t *buf = NULL;
	size_t len = 0;
	char why[256];
	Profile *p;

	test_ctx = only_worker ? "--comm rp-worker" : "everything";
	if (only_worker) {
		so.filter.comms = worker;
		so.filter.n_comms = 1;
	}
	s = session_new(&so);
	if (!CHECK(s) || !CHECK(session_add_file(s, rec_path, why, sizeof(why)) >= 0, "%s", why) ||
	    !CHECK_INT(session_finish(s), 0) || !CHECK_INT(pprof_encode(s, NULL, &buf, &len), 0)) {
		session_free(s);
		return;
	}
	t = session_totals(s);
	CHECK(len > 20 && buf[0] == 0x1f && buf[1] == 0x8b, "gzip magic");
	p = decode(buf, len);
	if (CHECK(p, "the profile decodes")) {
		CHECK(p->n_string_table > 0 && strcmp(p->string_table[0], "") == 0);
		CHECK_INT(p->n_sample_type, 2);
		CHECK_STR(string(p, p->sample_type[0]->type), "samples");
		check_ids(p);
		scan(p, &seen);
		CHECK(t->samples > 0);
		CHECK_U64(seen.samples, t->samples);
		CHECK_U64(seen.period, t->period);
		CHECK(seen.comm_worker && seen.pid_label && seen.worker_spin);
		CHECK(seen.comm_other == !only_worker, "other commands' samples %s",
		      only_worker ? "filtered out" : "kept");
		CHECK(seen.build_id, "rp-workload's mapping has its build-id in hex");
		CHECK(p->time_nanos > 1600000000LL * 1000000000LL, "time_nanos is wall clock");
		perftools__profiles__profile__free_unpacked(p, NULL);
	}
	free(buf);
	session_free(s);
}

int main(void)
{
	find_golden();
	run(false);
	run(true);
	return check_done("test-pprof");
}
