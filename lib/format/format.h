/* format.h — on-disk layout of ringprof recordings (format version 2; version 1 still reads). */
#ifndef RP_FORMAT_H
#define RP_FORMAT_H

#include <stdint.h>
#include <linux/perf_event.h>

/*
 * A recording is a sequence of units, each unit being
 *
 *	[zstd skippable frame holding struct rp_frame_desc][one zstd frame]
 *
 * so `zstd -t` and `zstdcat` accept a complete recording (they skip skippable frames).
 * The descriptor says how long the zstd frame is, which time range its records cover and
 * carries its own CRC; the zstd frame carries zstd's content checksum. A reader that finds
 * a damaged unit skips it and resynchronises on the next descriptor magic.
 *
 * The decompressed content of a frame is a sequence of records, each starting with a
 * struct perf_event_header whose size covers the whole record, a multiple of 8. Records
 * never span frames. Kernel records (PERF_RECORD_*) are stored exactly as the kernel wrote
 * them, with the sample_type and sample_id_all layout given by the header record. Our own
 * records have types >= RP_REC_BASE and carry their time as the first u64 after the header.
 *
 * Frame 0 starts with the RP_REC_HEADER record. Everything is little-endian as written by
 * the recording host; the format is only written and read on little-endian hosts.
 *
 * Version 2 adds compact samples. A recorder whose sample_type is RP_COMPACT_SAMPLE_TYPE
 * (optionally with PERF_SAMPLE_CALLCHAIN) may store its samples not as PERF_RECORD_SAMPLE
 * but as RP_REC_SAMPLES batches that refer to stacks by number; each distinct stack (the
 * sample's misc, ip and callchain) is defined once in an RP_REC_STACKS batch, earlier in the
 * file than any batch that uses it, so every prefix of a file is self-contained. A stack
 * whose id is already defined replaces the old definition from there on (a recorder starts
 * numbering again when its table fills or a frame could not be written). Readers turn the
 * two back into PERF_RECORD_SAMPLEs; version 1 files have only those.
 *
 * Version 2.1 adds several events (record -e A -e B). A file with one event is written
 * as in 2.0. With several, the header describes event 0 (and a 2.1 recorder says minor
 * RP_FORMAT_MINOR_EVENTS; later ones say their own); each other event i is described by an
 *RP_REC_EVENT record right after the header, in every file. Event 0's samples are stored as in 2.0
 *(RP_REC_SAMPLES), so a 2.0 reader shows a correct profile of the first event; the others' in
 * RP_REC_EVSAMPLES batches, which carry the event index and which 2.0 readers skip. Samples
 * are never stored as PERF_RECORD_SAMPLE in such a file, and side-band records have the
 * header's sample_id layout (the recorder drops the PERF_SAMPLE_IDENTIFIER the kernel needed
 * to tell the events apart in one ring).
 *
 * Version 2.2 adds RP_REC_STACKGEN. A recorder numbers its stacks from 0 again now and then
 * (--stack-interval, a full table, a frame that could not be written), and each numbering is
 * a generation. In a 2.0 file a sample batch whose new definitions were in a damaged frame
 * would be read against the previous generation's: wrong callchains, silently. A 2.2
 * recorder says the generation in force at the start of every frame that follows the header
 * and wherever it starts a new one, so a reader forgets the old definitions even when the
 * frame that held the new ones is lost, and such samples keep no callchain instead of a
 * wrong one. Readers of 2.0 and 2.1 skip the record and read the rest as before.
 *
 * Version 2.3 adds RP_CONTEXT_JOINED inside user chains (below): callers that were inferred
 * from the thread's previous stack are told apart from those read. Older readers stop the
 * chain at the marker.
 *
 * Version 2.4 adds the digest of what a file holds to RP_REC_BUILDID (a longer record: older
 * readers read its first 64 bytes as before) and writes captured symbols as RP_REC_SYMTAB_D,
 * keyed by build-id and digest (older readers skip it and go without captured symbols).
 *
 * Version 2.5 adds RP_CONTEXT_FPCHAIN inside user chains (below): a walk that stopped short
 * continued by the kernel's frame-pointer chain of the same sample, told apart from what was
 * unwound from the stack copy. Older readers stop the chain at the marker.
 */

#define RP_FORMAT_MAJOR 2
#define RP_FORMAT_MINOR 5	 /* what this code writes */
#define RP_FORMAT_MINOR_EVENTS 1 /* the minor that added several events */
#define RP_FORMAT_MAJOR_MIN 1	 /* oldest version this code reads */

/* Limits every layer takes from here. */
#define RP_RECORD_MAX 65535u	 /* a record's size is 16 bits (perf_event_header.size) */
#define RP_RECORD_MAX8 65528u	 /* the largest record size that is a multiple of 8 */
#define RP_STACK_USER_MAX 65528u /* the largest user stack copy the kernel takes */
#define RP_MAX_CPUS 4096	 /* CPUs a recording can name */
/* The lowest kernel address: chain words from it up are the kernel's (or context markers). */
#define RP_KERNEL_FLOOR 0xffff800000000000ull

#define RP_SKIPPABLE_MAGIC 0x184D2A5EU /* zstd skippable frame, nibble 0xE */
#define RP_DESC_MAGIC 0x44465052U      /* "RPFD" */
#define RP_HEADER_MAGIC "RINGPROF"

/* Bounds a reader enforces before trusting a length from a file. */
#define RP_FRAME_RAW_MAX (64u << 20)
#define RP_FRAME_Z_MAX (72u << 20)

/*
 * Frame descriptor. Time bounds are CLOCK_MONOTONIC ns of the recording host:
 * every record in the frame has t_lo <= time <= t_hi, and every record in any later
 * frame has time >= t_safe (the reader's ordering watermark: records older than it may
 * be emitted once this frame is read).
 */
struct rp_frame_desc {
	uint32_t skip_magic; /* RP_SKIPPABLE_MAGIC */
	uint32_t skip_size;  /* sizeof(struct rp_frame_desc) - 8 */
	uint32_t magic;	     /* RP_DESC_MAGIC */
	uint16_t major;
	uint16_t minor;
	uint64_t seq; /* frame number within the file, from 0 */
	uint64_t t_lo;
	uint64_t t_hi;
	uint64_t t_safe;
	uint64_t sample_type; /* copy of the header's, so frames stay readable without frame 0 */
	uint32_t n_records;
	uint32_t raw_size; /* decompressed size */
	uint32_t zsize;	   /* size of the zstd frame that follows */
	uint32_t crc;	   /* CRC-32C of all bytes before this field */
};
_Static_assert(sizeof(struct rp_frame_desc) == 72, "rp_frame_desc is 72 bytes");

/* Our own record types; kernel types are far below. */
enum rp_record_type {
	RP_REC_BASE = 0x10000,
	RP_REC_HEADER = 0x10001,    /* struct rp_header_rec */
	RP_REC_KSYMS = 0x10002,	    /* struct rp_ksyms_rec: a batch of kernel symbols */
	RP_REC_CPU_STATS = 0x10003, /* struct rp_cpu_stats_rec: per-CPU accounting at the end */
	RP_REC_FINISH = 0x10004,    /* struct rp_finish_rec: clean end of recording */
	RP_REC_STACKS = 0x10005,  /* struct rp_stacks_rec: stacks, each defined once (version 2) */
	RP_REC_SAMPLES = 0x10006, /* struct rp_samples_rec: packed samples of one CPU (version 2) */
	RP_REC_IMAGE = 0x10007,	  /* struct rp_image_rec: a code image with no file ([vdso]) */
	RP_REC_EVENT = 0x10008,	  /* struct rp_event_rec: one more event (version 2.1) */
	RP_REC_EVSAMPLES = 0x10009, /* struct rp_evsamples_rec: packed samples of one CPU and one
				     * event other than event 0 (version 2.1) */
	RP_REC_BUILDID = 0x1000a,   /* struct rp_buildid_rec: the build-id of a mapped file, read
				     * in user space (the kernel is not asked for build-ids) */
	RP_REC_TASKCG = 0x1000b, /* struct rp_taskcg_rec: the cgroup a thread is in from now on */
	/* 0x1000c is reserved (cgroup paths are stored as PERF_RECORD_CGROUP, see
	 * rp_taskcg_rec) */
	RP_REC_SYMTAB = 0x1000d,   /* struct rp_symtab_rec: part of a binary's function symbols,
				    * captured while recording */
	RP_REC_STACKGEN = 0x1000e, /* struct rp_stackgen_rec: which numbering of stacks is in
				    * force (version 2.2) */
	RP_REC_SYMTAB_D = 0x1000f, /* struct rp_symtab_d_rec: RP_REC_SYMTAB with the digest of
				    * the file the symbols come from (version 2.4); readers that
				    * do not know it skip it */
};

/* Recording flags in rp_header_rec.flags. */
enum {
	RP_HDR_SYSTEM_WIDE = 1u << 0,
	RP_HDR_KERNEL = 1u << 1, /* kernel samples were allowed (exclude_kernel = 0) */
	RP_HDR_CALLCHAIN = 1u << 2,
	RP_HDR_SWITCH = 1u << 3,
	RP_HDR_KSYMS = 1u << 4,	     /* a kallsyms snapshot follows */
	RP_HDR_BUILD_ID = 1u << 5,   /* the kernel was asked for build-ids in MMAP2 */
	RP_HDR_FREQ = 1u << 6,	     /* frequency mode, else fixed period */
	RP_HDR_COMMAND = 1u << 7,    /* a command was started and followed */
	RP_HDR_KSYMS_USED = 1u << 8, /* kernel symbols are written as samples first need them
				      * (each with the symbol after it, which bounds it) rather
				      * than as a whole snapshot (format 2) */
	RP_HDR_UNWIND = 1u << 9,     /* user stacks were unwound while recording (--call-graph
				      * dwarf): each user callchain ends in an RP_CONTEXT_UNWIND
				      * marker saying why it ends */
	/* Kernel samples were allowed but /proc/kallsyms gave the recorder no addresses
	 * (kernel.kptr_restrict without CAP_SYSLOG): kernel frames cannot be named. */
	RP_HDR_KSYMS_HIDDEN = 1u << 12,
	/* Recorded in a PID namespace other than the initial one: tasks outside it have pid 0
	 * in the samples, and their side-band was dropped. */
	RP_HDR_PIDNS = 1u << 13,
	/* Samples have cgroups: RP_REC_TASKCG records say which thread is in which cgroup, and
	 * PERF_RECORD_CGROUP records (the kernel's, and synthesized ones for the cgroups that
	 * existed at start, with cpu RP_CPU_SYNTH) name them. */
	RP_HDR_CGROUP = 1u << 14,
	/* --off-cpu sampled at most a rate of switch-outs per CPU (every switch record is kept):
	 * the rate in Hz is in reserved[RP_HDR_OFFCPU_RATE_WORD]. */
	RP_HDR_OFFCPU_RATE = 1u << 16,
};
#define RP_HDR_OFFCPU_RATE_WORD 3

/*
 * The last word of a callchain unwound while recording: RP_CONTEXT_UNWIND + the reason the
 * walk stopped (enum rp_unwind_stop). It lies in the kernel's range of context markers
 * (>= PERF_CONTEXT_MAX) but is none of the kernel's, so a reader that does not know it stops
 * the chain there, as it does at any unknown context.
 */
#define RP_CONTEXT_UNWIND ((uint64_t)-4064)
#define RP_CONTEXT_UNWIND_N 32 /* markers reserved: RP_CONTEXT_UNWIND + 0..31 */
/* Why a walk stopped, as stored (values only added; lib/unwind/walk.h's enum uw_stop, the
 * walker's result, has the same values: capture/unwinder.c checks that it does). */
enum rp_unwind_stop {
	RP_UNWIND_COMPLETE = 0,	 /* reached the outermost frame */
	RP_UNWIND_STACK_END = 1, /* the next read fell outside the stack copy */
	RP_UNWIND_NO_INFO = 2,	 /* no unwind information for the pc, no frame-pointer step */
	RP_UNWIND_PENDING = 3,	 /* the pc's table had not come when the sample was stored */
	RP_UNWIND_BAD_FRAME = 4, /* a rule the walker does not follow, or a frame that goes back */
	RP_UNWIND_MAX_DEPTH = 5, /* the frame limit, with a caller left */
	RP_UNWIND_JOINED = 6,	 /* cut by the copy, completed from the thread's earlier stacks
				  * (the callers after RP_CONTEXT_JOINED were inferred) */
	RP_UNWIND_FPCHAIN = 7,	 /* stopped short, continued by the kernel's frame-pointer chain
				  * (the callers after RP_CONTEXT_FPCHAIN) */
	RP_UNWIND_STOP_N
};
/* The one name of a stop reason ("complete", "stack copy exhausted", ...; "unknown stop reason"
 * past the known ones), and the same words joined by '-' for --dump ("stack-copy-exhausted"). */
const char *format_unwind_stop_name(uint64_t reason);
const char *format_unwind_stop_token(uint64_t reason);
/*
 * Inside a user chain unwound while recording (format 2.3): the return addresses before it
 * were read from the sample's stack copy; those after it were not (the copy ended first) but
 * are the callers that the same thread's previous stack had above the same frame (the same
 * pc and stack pointer), and the chain ends in RP_CONTEXT_UNWIND + RP_UNWIND_JOINED. A
 * reader that does not know it keeps what was read and stops there.
 */
#define RP_CONTEXT_JOINED ((uint64_t)-4065)
/*
 * Inside a user chain unwound while recording (format 2.5): the walk of the stack copy stopped
 * short (a frame it could not unwind, such as Go's switch from the system stack to the
 * goroutine's, or the end of the copy), and the kernel's own walk of the saved frame pointers,
 * taken with the same sample, agreed with every return address the walk had read: the
 * callers after the marker are the kernel's chain's from there on. They were read, not
 * inferred, but by following frame pointers: a function that keeps none is missing there (at
 * Go's switch, the direct caller of systemstack). The chain ends in RP_CONTEXT_UNWIND +
 * RP_UNWIND_FPCHAIN.
 */
#define RP_CONTEXT_FPCHAIN ((uint64_t)-4066)

/* Synthesized records (from /proc at start) carry this CPU number in their sample_id. */
#define RP_CPU_SYNTH 0xffffffffu

/*
 * The file header record. Strings are NUL-terminated within their arrays; cmdline runs
 * from the end of the fixed part to the end of the record (NUL-padded to 8 bytes).
 */
struct rp_header_rec {
	struct perf_event_header hdr; /* type RP_REC_HEADER */
	uint64_t time;		      /* CLOCK_MONOTONIC ns when recording started */
	char magic[8];		      /* RP_HEADER_MAGIC, not NUL-terminated */
	uint16_t major;
	uint16_t minor;
	uint32_t flags;		 /* RP_HDR_* */
	int64_t realtime_offset; /* CLOCK_REALTIME - CLOCK_MONOTONIC in ns at start */
	int32_t clockid;
	uint32_t n_cpus_online;
	uint32_t n_cpus_recorded;
	uint32_t page_size;
	uint64_t sample_type;
	uint64_t freq_requested; /* Hz asked for (0 with a fixed period) */
	uint64_t freq;		 /* Hz used (after capping to perf_event_max_sample_rate) */
	uint64_t period;	 /* fixed period when not in frequency mode */
	uint32_t event_type;	 /* perf_event_attr.type */
	uint32_t attr_size;	 /* valid bytes in attr */
	uint64_t event_config;
	uint8_t attr[256]; /* struct perf_event_attr as opened */
	char event_name[64];
	char hostname[72];
	char release[72];
	char arch[24];
	char boot_id[40];
	uint64_t reserved[4];
	/* char cmdline[]; */
};
_Static_assert(sizeof(struct rp_header_rec) == 664, "rp_header_rec is 664 bytes");

/*
 * Kernel symbols: n entries packed after the fixed part, each
 *	u64 addr (unaligned, use memcpy); char type; char name[] NUL; char module[] NUL
 * with module empty for the core kernel. Written and read only through format_ksym_*().
 * type is kallsyms' letter, or RP_KSYM_BOUND for an entry written only because it ends the
 * symbol before it (a recorder that writes symbols as samples need them, RP_HDR_KSYMS_USED):
 * the recording has nothing that needed its own name, so a reader names nothing by it —
 * what lies past its address may belong to a symbol that was not written.
 */
#define RP_KSYM_BOUND '^'
struct rp_ksyms_rec {
	struct perf_event_header hdr; /* type RP_REC_KSYMS */
	uint64_t time;
	uint32_t n;
	uint32_t reserved;
};
_Static_assert(sizeof(struct rp_ksyms_rec) == 24, "rp_ksyms_rec is 24 bytes");

/* Per-CPU accounting, written once per recorded CPU when the recording ends. */
struct rp_cpu_stats_rec {
	struct perf_event_header hdr; /* type RP_REC_CPU_STATS */
	uint64_t time;
	uint32_t cpu;
	uint32_t reserved;
	uint64_t samples;	  /* SAMPLE records drained from this CPU's ring */
	uint64_t lost;		  /* sum of PERF_RECORD_LOST.lost seen in the ring */
	uint64_t lost_unreported; /* PERF_FORMAT_LOST total minus lost (never got a LOST record) */
	uint64_t throttles;
	uint64_t unthrottles;
	uint64_t bad; /* records with impossible sizes found in the ring */
};
_Static_assert(sizeof(struct rp_cpu_stats_rec) == 72, "rp_cpu_stats_rec is 72 bytes");

/*
 * A code image that has no file to read later: the vdso, which the recorder copies from its
 * own address space (the kernel maps the same image into every 64-bit process of a boot).
 * len bytes of it follow the fixed part, then zero padding to 8. Written once per file,
 * after the header; the report symbolizes [vdso] frames with it.
 */
struct rp_image_rec {
	struct perf_event_header hdr; /* type RP_REC_IMAGE */
	uint64_t time;
	char name[24]; /* the mapping's name, "[vdso]" */
	uint32_t len;
	uint32_t reserved;
	/* unsigned char image[]; */
};
_Static_assert(sizeof(struct rp_image_rec) == 48, "rp_image_rec is 48 bytes");
#define RP_IMAGE_MAX (RP_RECORD_MAX - 48u - 7u) /* a record's size is 16 bits */

/*
 * The build-id of the file with this device and inode, read by the unprivileged helper from
 * the file the recorder opened for a mapping (checked to be that inode). MMAP2 records without
 * a build-id name their file by device and inode: a reader gives those of this file its
 * build-id, also when this record comes after them (it is written when the helper answers).
 * Every file repeats the build-ids of the files its mappings use. An inode number may be given
 * to another file once the first is deleted: the generation tells them apart where known.
 */
struct rp_buildid_rec {
	struct perf_event_header hdr; /* type RP_REC_BUILDID */
	uint64_t time;
	uint32_t maj, min;
	uint64_t ino;
	uint64_t ino_gen;   /* the inode's generation as MMAP2 gave it; 0: unknown (from /proc) */
	uint8_t len;	    /* 1..20 */
	uint8_t digest_len; /* RP_DIGEST_LEN, or 0: not known (and before format 2.4) */
	uint8_t reserved[2];
	uint8_t build_id[20];
	/* Format 2.4: what the file holds, which its build-id only claims (the first bytes of
	 * the SHA-256 the helper computes of its headers, call-frame, symbol and PLT sections,
	 * lib/elf/elfdigest.h). Captured symbols are kept by build-id and digest: a file that
	 * copied another's build-id note does not give that binary its names. Records of
	 * earlier files end before it (RP_BUILDID_V1_SIZE bytes). */
	uint8_t digest[16];
};
_Static_assert(sizeof(struct rp_buildid_rec) == 80, "rp_buildid_rec is 80 bytes");
#define RP_BUILDID_V1_SIZE 64
#define RP_DIGEST_LEN 16

/*
 * The cgroup (v2) a thread is in from time on, until the next such record of the tid. The
 * kernel puts the cgroup id in every sample (PERF_SAMPLE_CGROUP); the recorder stores it only
 * when it changes for a thread (its first sample in a file, or a move), which keeps the
 * compact sample batches as they were. Where the kernel cannot, the start-up synthesis writes
 * one per thread from /proc/PID/cgroup, and new threads inherit their parent's. The id is
 * the cgroup directory's inode number, as the kernel's cgroup id; the path of an id comes
 * from a PERF_RECORD_CGROUP record (kernel: new cgroups; synthesized: those at start).
 */
struct rp_taskcg_rec {
	struct perf_event_header hdr; /* type RP_REC_TASKCG */
	uint64_t time;
	uint32_t pid, tid;
	uint64_t cgroup;
};
_Static_assert(sizeof(struct rp_taskcg_rec) == 32, "rp_taskcg_rec is 32 bytes");

/*
 * The numbering of stacks in force from here on (version 2.2): generation gen. Stack ids in
 * later STACKS and SAMPLES batches mean what this generation's definitions say; a reader that
 * meets a generation other than the one it has forgets the definitions it holds. The first
 * record of every frame after the header is one (time: the frame's t_lo).
 */
struct rp_stackgen_rec {
	struct perf_event_header hdr; /* type RP_REC_STACKGEN */
	uint64_t time;
	uint32_t gen;
	uint32_t reserved; /* 0 */
};
_Static_assert(sizeof(struct rp_stackgen_rec) == 24, "rp_stackgen_rec is 24 bytes");

/*
 * Function symbols of the binary with this build-id, captured while recording (the helper
 * reads them from .symtab, else .dynsym and .gnu_debugdata), so that a report can name the
 * binary's frames when the file on its host is gone or was replaced. A table too large for
 * one record (sizes are 16 bits) is written as n_parts records, part 0 .. n_parts - 1, each
 * standing alone. After the fixed part, n entries sorted by start (base/symx.h; the first
 * one's start is relative to 0): varint start delta, varint size, name NUL; starts are file
 * offsets in the binary. Then zero padding to 8. Written once per file and build-id. n 0
 * with RP_SYMTAB_SKIPPED: the table was larger than the recorder stores.
 */
struct rp_symtab_rec {
	struct perf_event_header hdr; /* type RP_REC_SYMTAB */
	uint64_t time;
	uint8_t len; /* build-id length, 1..20 */
	uint8_t reserved[3];
	uint8_t build_id[20];
	uint16_t part, n_parts;
	uint32_t n;	    /* entries in this record */
	uint32_t flags;	    /* RP_SYMTAB_* */
	uint32_t reserved2; /* 0 */
			    /* unsigned char entries[]; */
};
_Static_assert(sizeof(struct rp_symtab_rec) == 56, "rp_symtab_rec is 56 bytes");
enum {
	RP_SYMTAB_SYMTAB = 1u << 0,	   /* from .symtab */
	RP_SYMTAB_DYNSYM = 1u << 1,	   /* from .dynsym */
	RP_SYMTAB_GNU_DEBUGDATA = 1u << 2, /* from .gnu_debugdata (MiniDebugInfo) */
	RP_SYMTAB_SKIPPED = 1u << 8,	   /* not stored: larger than the recorder's bound */
};
#define RP_SYMTAB_PAYLOAD_MAX (RP_RECORD_MAX8 - 72u) /* entry bytes one record holds */

/* The same with the digest of the file the symbols come from (rp_buildid_rec.digest): the
 * entries follow it. What the recorder writes from format 2.4 on. */
struct rp_symtab_d_rec {
	struct rp_symtab_rec s; /* s.hdr.type RP_REC_SYMTAB_D */
	uint8_t digest[16];
	/* unsigned char entries[]; */
};
_Static_assert(sizeof(struct rp_symtab_d_rec) == 72, "rp_symtab_d_rec is 72 bytes");

/* Written last on a clean stop; its absence means the recorder did not finish. */
struct rp_finish_rec {
	struct perf_event_header hdr; /* type RP_REC_FINISH */
	uint64_t time;		      /* CLOCK_MONOTONIC ns when recording stopped */
	uint64_t samples;
	uint64_t lost;		  /* all CPUs, lost + lost_unreported */
	uint64_t dropped_records; /* drained but not written (disk full, write errors) */
	int32_t exit_status;	  /* of the command, -1 when none */
	uint32_t reserved;
};
_Static_assert(sizeof(struct rp_finish_rec) == 48, "rp_finish_rec is 48 bytes");

/* The sample fields compact samples can hold (plus PERF_SAMPLE_CALLCHAIN, optional). */
#define RP_COMPACT_SAMPLE_TYPE                                                                     \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/*
 * Stacks first_id, first_id + 1, ... first_id + n - 1. After the fixed part, n entries:
 *
 *	u16 misc                 the samples' misc (cpumode)
 *	varint nr << 1 | dup
 *	u64 words[nr]            little-endian, unaligned
 *
 * A stack is the sample's ip and its callchain as the kernel gave it (context markers
 * included; empty without PERF_SAMPLE_CALLCHAIN). With dup the ip is words[1] and the
 * callchain is words (the kernel's chain repeats the ip after its context marker); else the
 * ip is words[0] and the callchain words[1..nr). Then zero bytes up to hdr.size. time is 0:
 * definitions are not events (readers take them in file order, not time order).
 */
struct rp_stacks_rec {
	struct perf_event_header hdr; /* type RP_REC_STACKS */
	uint64_t time;
	uint32_t first_id;
	uint32_t n;
	/* unsigned char entries[]; */
};
_Static_assert(sizeof(struct rp_stacks_rec) == 24, "rp_stacks_rec is 24 bytes");
/* Words in a stack (ip + callchain); longer ones are stored as PERF_RECORD_SAMPLEs. */
#define RP_STACK_MAX_WORDS 8000u
#define RP_STACK_MAX_ID (1u << 24)

/*
 * Samples of one CPU, in ring order, as four columns of unsigned LEB128 varints. After the
 * fixed part: the byte lengths of the first three columns (varints), then the columns
 * (time, key, task, period), the last one running up to the zero padding. Per sample:
 *
 *	time column:   zigzag(time - previous time - previous period)
 *	key column:    id << 2 | task << 1 | period   (id: the stack; task, period: flags)
 *	task column:   when task is set: k, then pid and tid when k is 0; otherwise the task
 *	               is the k-th (from 1) of the batch's last SBATCH_MRU (8) distinct tasks,
 *	               most recent first (always set for the first sample)
 *	period column: the period, when period is set
 *
 * "previous" is the sample before in the batch; for the first one the previous time is .time
 * and the previous period 0. (With a fixed-period clock event consecutive samples are one
 * period apart: the time column then holds the timer's jitter, small numbers.)
 */
struct rp_samples_rec {
	struct perf_event_header hdr; /* type RP_REC_SAMPLES */
	uint64_t time;		      /* of the first sample */
	uint32_t cpu;
	uint32_t n;
	/* unsigned char packed[]; */
};
_Static_assert(sizeof(struct rp_samples_rec) == 24, "rp_samples_rec is 24 bytes");

/* The most events a file describes (event indexes 0 .. RP_MAX_EVENTS - 1). */
#define RP_MAX_EVENTS 64

/*
 * Event index (1 .. n_events - 1) of a file with several events; event 0 is the header's.
 * Written after the header with the header's time, so readers meet every description before
 * the samples that refer to it. freq and period are what the event samples at (a tracepoint
 * samples every hit: period 1), flags its RP_EVENT_* bits.
 */
struct rp_event_rec {
	struct perf_event_header hdr; /* type RP_REC_EVENT */
	uint64_t time;
	uint32_t index;
	uint32_t n_events; /* in the file, event 0 included */
	uint32_t event_type;
	uint32_t attr_size; /* valid bytes in attr */
	uint64_t event_config;
	uint64_t freq;
	uint64_t period;
	uint8_t attr[256]; /* struct perf_event_attr as opened */
	char event_name[64];
	uint64_t reserved[2];
};
_Static_assert(sizeof(struct rp_event_rec) == 392, "rp_event_rec is 392 bytes");

/* The packed samples of one CPU and event: rp_samples_rec's layout with the event index
 * added, the columns following as in rp_samples_rec. */
/* An event as a reader describes it: its name and rate (freq 0: a fixed period). */
struct rp_event_desc {
	char name[64];
	uint64_t freq, period;
};

struct rp_evsamples_rec {
	struct perf_event_header hdr; /* type RP_REC_EVSAMPLES */
	uint64_t time;		      /* of the first sample */
	uint32_t cpu;
	uint32_t n;
	uint32_t event; /* 1 .. n_events - 1 */
	uint32_t reserved;
	/* unsigned char packed[]; */
};
_Static_assert(sizeof(struct rp_evsamples_rec) == 32, "rp_evsamples_rec is 32 bytes");

/* ---- codecs of our own records (format.c): the only code that reads or writes their fields ---- */

#include <stdbool.h>
#include <stddef.h>

/* The header record h, when it is one (size, magic); NULL otherwise. */
const struct rp_header_rec *format_header(const struct perf_event_header *h);

/* A copy of a CPU_STATS or FINISH record: 0, or -EINVAL when h is too short to be one. */
int format_cpu_stats(const struct perf_event_header *h, struct rp_cpu_stats_rec *ret);
int format_finish(const struct perf_event_header *h, struct rp_finish_rec *ret);
/* An image record's name (NUL-terminated within the record) and bytes, both pointing into
 * h; -EINVAL when h is not a well-formed one. */
int format_image(const struct perf_event_header *h, const char **ret_name,
		 const unsigned char **ret_image, size_t *ret_len);

/* A copy of a BUILDID record (one of an earlier format, without the digest, reads with
 * digest_len 0): 0, or -EINVAL when h is too short or its length is 0 or above 20. */
int format_buildid(const struct perf_event_header *h, struct rp_buildid_rec *ret);

/* A copy of a TASKCG record: 0, or -EINVAL when h is too short to be one. */
int format_taskcg(const struct perf_event_header *h, struct rp_taskcg_rec *ret);
/* Fill *ret as a TASKCG record (header included). */
void format_taskcg_put(struct rp_taskcg_rec *ret, uint64_t time, uint32_t pid, uint32_t tid,
		       uint64_t cgroup);
/* A SYMTAB or SYMTAB_D record: its fixed part copied to *ret and its entries in *ret_run,
 * *ret_run_size bytes pointing into h: a symx run (base 0) of which readers take ret->n entries
 * (the zero padding follows them) and check each; an RP_REC_SYMTAB_D's digest into digest
 * (RP_DIGEST_LEN bytes) with *ret_digest_len RP_DIGEST_LEN, else *ret_digest_len 0. -EINVAL
 * when h is too short, the build-id length is 0 or above 20, or part >= n_parts. */
int format_symtab(const struct perf_event_header *h, struct rp_symtab_rec *ret, uint8_t *digest,
		  size_t *ret_digest_len, const unsigned char **ret_run, size_t *ret_run_size);

/* A copy of a STACKGEN record: 0, or -EINVAL when h is too short to be one. */
int format_stackgen(const struct perf_event_header *h, struct rp_stackgen_rec *ret);
/* Fill *ret as a STACKGEN record (header included). */
void format_stackgen_put(struct rp_stackgen_rec *ret, uint64_t time, uint32_t gen);

/* A copy of an EVENT record, its name terminated: 0, or -EINVAL when h is too short to be
 * one or its index is outside 1 .. RP_MAX_EVENTS - 1. */
int format_event(const struct perf_event_header *h, struct rp_event_rec *ret);

/* One KSYMS entry. name and module point into the record (module "" for the core kernel). */
struct format_ksym {
	uint64_t addr;
	char type;
	const char *name, *module;
	size_t name_len, module_len;
	size_t size; /* bytes of the entry */
};

/* Bytes of an entry with these name and module lengths. */
static inline size_t format_ksym_size(size_t name_len, size_t module_len)
{
	return 8 + 1 + name_len + 1 + module_len + 1;
}
/* Size of an entry this process encoded (trusted: not for entries read from a file). */
size_t format_ksym_len(const unsigned char *entry);
/* Encode one entry at dst (format_ksym_size() bytes); returns that size. */
size_t format_ksym_put(unsigned char *dst, uint64_t addr, char type, const char *name,
		       size_t name_len, const char *module, size_t module_len);
/* Make rec (PAYLOAD bytes of n entries already after its fixed part) a KSYMS record: header,
 * time and count set, zero padding to 8 bytes. Returns the record's size. */
size_t format_ksyms_seal(struct rp_ksyms_rec *rec, uint64_t time, uint32_t n, size_t payload);

/* Reading the entries of a KSYMS record. */
struct format_ksyms_cursor {
	const unsigned char *p, *end;
	uint32_t left; /* entries the record claims are still to come */
};
/* Start reading the record at rec, of which SIZE bytes are present. 0; 1 when the record
 * claims more bytes than are present (it was cut: read what is there); -EINVAL when it is not
 * a KSYMS record of at least its fixed size. */
int format_ksyms_open(struct format_ksyms_cursor *c, const void *rec, size_t size);
/* 1 and *ret, 0 after the last entry the record claims, -EINVAL when the next entry is cut
 * short (no room for its address and type, or a name without its terminator). */
int format_ksyms_next(struct format_ksyms_cursor *c, struct format_ksym *ret);

#endif
