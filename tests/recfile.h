/* recfile.h — pieces of a recording that unit tests write through the writer themselves. */
#ifndef RP_TEST_RECFILE_H
#define RP_TEST_RECFILE_H

#include <stdint.h>
#include <string.h>

#include "format/format.h"
#include "format/writer.h"

/* The HEADER record at time 100 of a recording whose samples have sample_type st, the
 * writer's safe time set to it. */
static inline void recfile_put_header(struct writer *w, uint64_t st)
{
	struct rp_header_rec hr;

	memset(&hr, 0, sizeof(hr));
	hr.hdr.type = RP_REC_HEADER;
	hr.hdr.size = sizeof(hr);
	hr.time = 100;
	memcpy(hr.magic, RP_HEADER_MAGIC, 8);
	hr.major = RP_FORMAT_MAJOR;
	hr.sample_type = st;
	writer_set_safe_time(w, 100);
	writer_add(w, &hr, sizeof(hr));
}

#endif
