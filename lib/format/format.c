/* format.c — codecs of ringprof's own records: header, kernel symbols, CPU statistics, finish. */
#include <errno.h>
#include <string.h>

#include "format/format.h"

const struct rp_header_rec *format_header(const struct perf_event_header *h)
{
	const struct rp_header_rec *hr = (const void *)h;

	if (h->type != RP_REC_HEADER || h->size < sizeof(*hr) ||
	    memcmp(hr->magic, RP_HEADER_MAGIC, 8) != 0)
		return NULL;
	return hr;
}

int format_cpu_stats(const struct perf_event_header *h, struct rp_cpu_stats_rec *ret)
{
	if (h->type != RP_REC_CPU_STATS || h->size < sizeof(*ret))
		return -EINVAL;
	memcpy(ret, h, sizeof(*ret));
	return 0;
}

int format_finish(const struct perf_event_header *h, struct rp_finish_rec *ret)
{
	if (h->type != RP_REC_FINISH || h->size < sizeof(*ret))
		return -EINVAL;
	memcpy(ret, h, sizeof(*ret));
	return 0;
}

int format_buildid(const struct perf_event_header *h, struct rp_buildid_rec *ret)
{
	if (h->type != RP_REC_BUILDID || h->size < RP_BUILDID_V1_SIZE)
		return -EINVAL;
	memset(ret, 0, sizeof(*ret));
	memcpy(ret, h, h->size < sizeof(*ret) ? RP_BUILDID_V1_SIZE : sizeof(*ret));
	if (h->size < sizeof(*ret) || ret->digest_len != RP_DIGEST_LEN)
		ret->digest_len = 0;
	return ret->len && ret->len <= sizeof(ret->build_id) ? 0 : -EINVAL;
}

int format_taskcg(const struct perf_event_header *h, struct rp_taskcg_rec *ret)
{
	if (h->type != RP_REC_TASKCG || h->size < sizeof(*ret))
		return -EINVAL;
	memcpy(ret, h, sizeof(*ret));
	return 0;
}

void format_taskcg_put(struct rp_taskcg_rec *ret, uint64_t time, uint32_t pid, uint32_t tid,
		       uint64_t cgroup)
{
	*ret = (struct rp_taskcg_rec){ .hdr = { .type = RP_REC_TASKCG, .size = sizeof(*ret) },
				       .time = time,
				       .pid = pid,
				       .tid = tid,
				       .cgroup = cgroup };
}

int format_stackgen(const struct perf_event_header *h, struct rp_stackgen_rec *ret)
{
	if (h->type != RP_REC_STACKGEN || h->size < sizeof(*ret))
		return -EINVAL;
	memcpy(ret, h, sizeof(*ret));
	return 0;
}

void format_stackgen_put(struct rp_stackgen_rec *ret, uint64_t time, uint32_t gen)
{
	*ret = (struct rp_stackgen_rec){ .hdr = { .type = RP_REC_STACKGEN, .size = sizeof(*ret) },
					 .time = time,
					 .gen = gen };
}

int format_image(const struct perf_event_header *h, const char **ret_name,
		 const unsigned char **ret_image, size_t *ret_len)
{
	const struct rp_image_rec *ir = (const void *)h;

	if (h->type != RP_REC_IMAGE || h->size < sizeof(*ir) || ir->len > h->size - sizeof(*ir) ||
	    !memchr(ir->name, '\0', sizeof(ir->name)))
		return -EINVAL;
	*ret_name = ir->name;
	*ret_image = (const unsigned char *)(ir + 1);
	*ret_len = ir->len;
	return 0;
}

int format_event(const struct perf_event_header *h, struct rp_event_rec *ret)
{
	if (h->type != RP_REC_EVENT || h->size < sizeof(*ret))
		return -EINVAL;
	memcpy(ret, h, sizeof(*ret));
	if (ret->index == 0 || ret->index >= RP_MAX_EVENTS)
		return -EINVAL;
	ret->event_name[sizeof(ret->event_name) - 1] = '\0';
	if (ret->attr_size > sizeof(ret->attr))
		ret->attr_size = sizeof(ret->attr);
	return 0;
}

size_t format_ksym_put(unsigned char *dst, uint64_t addr, char type, const char *name,
		       size_t name_len, const char *module, size_t module_len)
{
	memcpy(dst, &addr, 8);
	dst[8] = (unsigned char)type;
	memcpy(dst + 9, name, name_len);
	dst[9 + name_len] = '\0';
	if (module_len)
		memcpy(dst + 10 + name_len, module, module_len);
	dst[10 + name_len + module_len] = '\0';
	return format_ksym_size(name_len, module_len);
}

size_t format_ksym_len(const unsigned char *entry)
{
	size_t nl = strlen((const char *)entry + 9);

	return format_ksym_size(nl, strlen((const char *)entry + 10 + nl));
}

size_t format_ksyms_seal(struct rp_ksyms_rec *rec, uint64_t time, uint32_t n, size_t payload)
{
	size_t size = (sizeof(*rec) + payload + 7) & ~(size_t)7;

	memset((unsigned char *)rec + sizeof(*rec) + payload, 0, size - sizeof(*rec) - payload);
	memset(rec, 0, sizeof(*rec));
	rec->hdr.type = RP_REC_KSYMS;
	rec->hdr.size = (uint16_t)size;
	rec->time = time;
	rec->n = n;
	return size;
}

int format_ksyms_open(struct format_ksyms_cursor *c, const void *rec, size_t size)
{
	struct rp_ksyms_rec k;
	size_t end = size;

	if (!rec || size < sizeof(k))
		return -EINVAL;
	memcpy(&k, rec, sizeof(k));
	if (k.hdr.type != RP_REC_KSYMS || k.hdr.size < sizeof(k))
		return -EINVAL;
	if (k.hdr.size < size)
		end = k.hdr.size;
	c->p = (const unsigned char *)rec + sizeof(k);
	c->end = (const unsigned char *)rec + end;
	c->left = k.n;
	return k.hdr.size > size; /* cut: parse what is there */
}

int format_ksyms_next(struct format_ksyms_cursor *c, struct format_ksym *ret)
{
	const char *name, *mod, *nul;

	if (!c->left)
		return 0;
	if (c->end - c->p < 8 + 1 + 2)
		goto bad;
	memcpy(&ret->addr, c->p, 8);
	ret->type = (char)c->p[8];
	name = (const char *)c->p + 9;
	nul = memchr(name, '\0', (size_t)((const char *)c->end - name));
	if (!nul)
		goto bad;
	mod = nul + 1;
	nul = memchr(mod, '\0', (size_t)((const char *)c->end - mod));
	if (!nul)
		goto bad;
	ret->name = name;
	ret->name_len = (size_t)(mod - 1 - name);
	ret->module = mod;
	ret->module_len = (size_t)(nul - mod);
	ret->size = (size_t)((const unsigned char *)nul + 1 - c->p);
	c->p += ret->size;
	c->left--;
	return 1;
bad:
	c->left = 0;
	return -EINVAL;
}

int format_symtab(const struct perf_event_header *h, struct rp_symtab_rec *ret, uint8_t *digest,
		  size_t *ret_digest_len, const unsigned char **ret_run, size_t *ret_run_size)
{
	/* RP_REC_SYMTAB_D: the fixed part reads as an RP_REC_SYMTAB's, then the digest. */
	size_t fixed = h->type == RP_REC_SYMTAB_D ? sizeof(struct rp_symtab_d_rec)
						  : sizeof(struct rp_symtab_rec);
	struct rp_symtab_rec r;

	if ((h->type != RP_REC_SYMTAB && h->type != RP_REC_SYMTAB_D) || h->size < fixed)
		return -EINVAL;
	memcpy(&r, h, sizeof(r));
	if (!r.len || r.len > sizeof(r.build_id) || r.part >= r.n_parts)
		return -EINVAL;
	*ret_digest_len = 0;
	if (h->type == RP_REC_SYMTAB_D) {
		memcpy(digest, ((const struct rp_symtab_d_rec *)(const void *)h)->digest,
		       RP_DIGEST_LEN);
		*ret_digest_len = RP_DIGEST_LEN;
	}
	*ret = r;
	*ret_run = (const unsigned char *)h + fixed;
	*ret_run_size = h->size - fixed;
	return 0;
}

/* One name per stored stop reason: the report's header, --stats, --dump and the [cut: ...]
 * frames all say it so. */
static const char *const stop_names[RP_UNWIND_STOP_N][2] = {
	[RP_UNWIND_COMPLETE] = { "complete", "complete" },
	[RP_UNWIND_STACK_END] = { "stack copy exhausted", "stack-copy-exhausted" },
	[RP_UNWIND_NO_INFO] = { "no unwind information", "no-unwind-information" },
	[RP_UNWIND_PENDING] = { "table pending", "table-pending" },
	[RP_UNWIND_BAD_FRAME] = { "bad frame", "bad-frame" },
	[RP_UNWIND_MAX_DEPTH] = { "depth limit", "depth-limit" },
	[RP_UNWIND_JOINED] = { "completed by joining", "completed-by-joining" },
	[RP_UNWIND_FPCHAIN] = { "continued by frame pointers", "continued-by-frame-pointers" },
};

const char *format_unwind_stop_name(uint64_t reason)
{
	return reason < RP_UNWIND_STOP_N ? stop_names[reason][0] : "unknown stop reason";
}

const char *format_unwind_stop_token(uint64_t reason)
{
	return reason < RP_UNWIND_STOP_N ? stop_names[reason][1] : "unknown";
}
