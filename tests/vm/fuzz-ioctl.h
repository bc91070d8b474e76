/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the fuzzer share (fuzz-ioctl.c: the driver; in
 * fuzz/: oracle.c, the outcome of every call and the good filters;
 * args.c, what the operations pass; control.c, filter.c, image.c and
 * mmap.c, the operations on the control node, on filter nodes, on images
 * and on mappings; kapi.c and bpf.c, the in-kernel API and the BPF
 * kfuncs): the
 * operation table, the per-worker state and statistics, and the
 * functions of each part.
 */
#ifndef KBLOOM_FUZZ_IOCTL_H
#define KBLOOM_FUZZ_IOCTL_H

#include "stress-map.h"

#define MAX_PROCS	16
/*
 * Filters "fz-0".."fz-7" and "fz-shared", used by all workers.  The parent
 * opens fz-shared before forking, so the workers also share one open file
 * (one struct file used from several processes at once).
 */
#define POOL		9
#define SHARED_SLOT	(POOL - 1)
#define MAX_FDS		8	/* pool nodes a worker keeps open */
#define MAX_IMAGES	4
#define IMAGE_CAP	(256 << 10)
#define NR_ERRNO	134
#define KEYBUF_BYTES	(1200 << 10)
#define MAX_KEYS	KBLOOM_BATCH_MAX
/* Pool filters often share this geometry, so merges and loads succeed. */
#define TEMPLATE_BITS	(1 << 15)
#define TEMPLATE_K	7
#define TEMPLATE_SEED	1
/* Template windows: 8 planes a cell, so TEMPLATE_BITS is whole key blocks. */
#define TEMPLATE_GENERATIONS	4

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
/*
 * Each worker's own filter, sized so a lost key would show: bits for even
 * workers, counting (which needs 4 times the memory) for odd ones, whose
 * deletes of their own keys must never lose another key.
 */
#define GOOD_TYPE(w)	((w) & 1 ? KBLOOM_TYPE_COUNTING : KBLOOM_TYPE_BITS)
#define GOOD_BITS(w)	((w) & 1 ? 1 << 20 : 1 << 18)
#define GOOD_K		7
#define GOOD_SEED	0x600d0000ULL
#define GOOD_MAX_KEYS	20000
#define PAGE		4096
/* kmod/core/kbloom_core.h: the most bits per key a creator may ask for. */
#define MAX_BITS_PER_KEY	64
#define MAX_MAPS	8	/* live mappings a worker keeps */

/* The mapping operations (fuzz/mmap.c), in the table below. */
#define FZ_MAP_OPS(X)							\
	X(map, 12) X(map_unmap, 6) X(map_protect, 6) X(map_remap, 5)	\
	X(map_touch, 15) X(good_map_check, 12)

/*
 * The kernel-side operations: the in-kernel API through the companion
 * module (fuzz/kapi.c), then BPF programs calling the kfuncs (fuzz/bpf.c).
 */
#define FZ_KERNEL_OPS(X)						\
	X(kapi_hold, 6) X(kapi_hold_id, 5) X(kapi_put, 6) X(kapi_range, 10) \
	X(kapi_bad, 3) X(kapi_churn, 2) X(kapi_garbage, 4) X(kapi_stale, 1) \
	X(good_kapi, 6) X(bpf_run, 10) X(bpf_load, 1) X(good_bpf, 5)
#define FZ_KAPI_FIRST	OP_kapi_hold
#define FZ_BPF_FIRST	OP_bpf_run
#define FZ_KERNEL_LAST	OP_good_bpf

struct fz_kernel_stats {
	uint64_t cmds;		/* commands written to the companion */
	uint64_t companion_nomem;	/* ... that its allocations failed */
	uint64_t keys;		/* keys its key ranges did */
	uint64_t holds;		/* references it took */
	uint64_t enodev;	/* key ranges that met a destroyed filter */
	uint64_t edeadlk;	/* key ranges of adds refused */
	uint64_t dead_held;	/* filters destroyed while it held them */
	uint64_t good_added;	/* good keys added through it */
	uint64_t good_checked;	/* good keys it checked */
	uint64_t churn_rounds;	/* timer rounds of the churns stopped */
	uint64_t bpf_runs;	/* test_runs of programs calling kfuncs */
	uint64_t bpf_nulls;	/* acquires that found no filter */
	uint64_t bpf_enodev;	/* kfunc calls that met a destroyed one */
	uint64_t bpf_loads;	/* objects loaded during the run */
	uint64_t bpf_good_added, bpf_good_checked;
};

struct bpf_object;
struct kbt_globals;

/* A worker's side of fuzz/kapi.c and fuzz/bpf.c. */
struct fz_kernel {
	int cmd_fd, res_fd;	/* the companion's cmd and result */
	int lock_fd;		/* its turn, see fuzz/kapi.c */
	uint64_t kapi_added;	/* good keys "k<worker>-<i>", i below this */
	uint32_t stale[8];	/* ids of filters it destroyed */
	int nstale;
	struct bpf_object *obj;	/* bpf/test.bpf.c, loaded */
	struct kbt_globals *g;	/* its globals, mapped */
	uint64_t bpf_added;	/* good keys added by syscall_add */
};

/* A live mapping of a pool filter: pages [off, off + len / PAGE). */
struct fz_map {
	uint8_t *addr;
	size_t len;
	uint64_t off;		/* in pages, from the mapping's start */
	uint64_t map_pages;	/* the whole filter's mapping, in pages */
	uint64_t last_seq;	/* sequence never falls */
	bool dead;		/* KBLOOM_MAP_DEAD seen: must stay */
	/*
	 * A scalable filter's, or maybe one: its length moves as it grows
	 * and CLEAR or a load frees sub-filters, past which a read is SIGBUS.
	 */
	bool scalable;
};

struct fz_map_stats {
	uint64_t pages_read, headers_read, dead_reads;
	uint64_t keys_checked, retries, compared, signals, most_live;
};

#define OPS(X)								\
	X(create, 40) X(create_bad, 30) X(create_badptr, 5)		\
	X(destroy, 10) X(destroy_bad, 10) X(ctl_random, 15) X(ctl_rw, 3) \
	X(open, 40) X(close, 20) X(add, 80) X(check, 80) X(delete, 30) \
	X(batch_bad, 50) X(batch_badptr, 25) X(clear, 15) X(merge, 15)	\
	X(intersect, 10) X(combine_bad, 15) X(info, 30) X(info_badptr, 5) \
	X(subfilter, 15)						\
	X(report, 15) X(report_bad, 10) X(read, 15) X(read_bad, 10)	\
	X(write, 10) X(write_mutated, 20) X(seek, 20) X(dev_random, 30) \
	X(sysfs, 5) X(unload, 1) X(good_add, 20) X(good_check, 30)	\
	X(good_restore, 3) X(good_bad_image, 5) X(good_merge, 2)	\
	X(good_delete, 10) X(rotate, 20) X(window_info, 15)		\
	FZ_MAP_OPS(X) FZ_KERNEL_OPS(X)

#define OP_ENUM(name, weight) OP_##name,
#define OP_NAME(name, weight) #name,
#define OP_WEIGHT(name, weight) weight,
enum op { OPS(OP_ENUM) NR_OPS, OP_final = NR_OPS, NR_SLOTS };
extern const char *const op_names[NR_SLOTS];

/* Kinds of failure, each reported as its own PASS:/FAIL: line. */
enum fail_kind {
	F_ERRNO,	/* an errno the ABI does not allow for that call */
	F_FALSE_NEG,	/* a key added to a good filter was not found */
	F_RESULT,	/* a successful call returned something impossible */
	F_UNLOAD,	/* the module unloaded while in use */
	F_USABLE,	/* a filter did not work after the run */
	F_HANG,		/* a call did not return in time */
	F_MAPPED,	/* a read of a live mapping faulted, or its header lied */
	NR_FAIL_KINDS
};
extern const char *const fail_names[NR_FAIL_KINDS];

/* What each worker shares with the parent. */
struct wstats {
	uint64_t ops[NR_SLOTS];
	uint64_t syscalls;
	uint64_t errs[NR_SLOTS][NR_ERRNO + 1];	/* [0]: success */
	volatile uint64_t op_started_ms;	/* 0 between calls */
	volatile uint32_t cur_op;
	volatile uint32_t finished;
	uint64_t fails[NR_FAIL_KINDS];
	char fail_msg[NR_FAIL_KINDS][240];
	uint64_t good_keys, good_checked, unload_refused;
	uint64_t images_loaded, images_rejected;
	uint64_t opened_other;	/* a node's open reached another filter */
	struct fz_map_stats map;	/* fuzz/mmap.c */
	struct fz_kernel_stats kern;	/* fuzz/kapi.c, fuzz/bpf.c */
};

struct pool_fd {
	int fd;
	int slot;		/* pool index, see pool_name() */
	int acc;		/* O_RDONLY, O_WRONLY or O_RDWR */
	int type;		/* KBLOOM_TYPE_*, -1 when not known */
	/*
	 * The file all workers share: their reads and writes interleave on
	 * one position and one image stream, so any image errno or ESPIPE
	 * may come back and a "whole" image read may be a splice.
	 */
	bool shared;
	uint64_t map_pages;	/* what mmap() may cover, 0 when not known */
	int scalable;		/* 1: it grows, 0: fixed, -1: not known */
};

struct worker {
	int id;
	bool fault;
	int fail_fd;		/* /proc/self/make-it-fail, under -F */
	struct st_rng rng;
	struct wstats *st;
	int ctl, ctl_ro;
	struct pool_fd fds[MAX_FDS];
	int nfds;
	int good_fd;
	char good_name[KBLOOM_NAME_MAX];
	uint64_t good_added;	/* keys [good_deleted, good_added) are in */
	uint64_t good_deleted;
	uint8_t *img[MAX_IMAGES];
	size_t img_len[MAX_IMAGES];
	int nimg;
	uint8_t *iobuf;		/* images being read or written */
	char *keybuf;
	uint32_t *lens;
	uint64_t *results;
	uint8_t *guard;		/* a PROT_NONE page after a writable one */
	uint8_t *noaccess;	/* a PROT_NONE page */
	uint8_t *rdonly;	/* a read-only page */
	struct fz_map maps[MAX_MAPS];	/* live mappings of pool filters */
	int nmaps;
	struct st_map good_map;	/* the good filter, mapped on demand */
	struct fz_kernel kern;	/* fuzz/kapi.c, fuzz/bpf.c */
};

/* A set of errnos (all below 128), 0 meaning success. */
typedef unsigned __int128 errset;

static inline errset errset_of(const int *list)
{
	errset set = 0;

	for (; *list >= 0; list++)
		set |= (errset)1 << *list;
	return set;
}

#define ALLOW(...) errset_of((const int[]){ __VA_ARGS__, -1 })

/* fuzz-ioctl.c */
void fz_fault_pause(struct worker *w, bool pause);

/* fuzz/oracle.c */
void record_fail(struct worker *w, enum fail_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * What INTERSECT may return on p, otherwise: a scalable filter refuses it
 * with EOPNOTSUPP (after ENODEV).
 */
errset scalable_gate(const struct pool_fd *p, errset otherwise);
int outcome(struct worker *w, enum op op, int e, errset allowed,
	    const char *what);
int sys_err(long ret);
void good_verify_window(struct worker *w, enum op op);
void good_verify_all(struct worker *w, enum op op);
void do_good_add(struct worker *w);
void do_good_delete(struct worker *w);
void do_good_restore(struct worker *w);
void do_good_bad_image(struct worker *w);
void do_good_merge(struct worker *w);

/* fuzz/args.c */
void pool_name(char *name, int slot);
struct pool_fd *pick_fd(struct worker *w);
bool can_read(const struct pool_fd *p);
bool can_write(const struct pool_fd *p);
void random_keys(struct worker *w, struct st_keys *k);
void *bad_ptr_kind(struct worker *w, size_t size, bool output,
		   bool straddle);
void *bad_ptr(struct worker *w, size_t size, bool output);
void bad_name(struct worker *w, char *name);
void valid_create(struct worker *w, struct kbloom_create *req);
int mutate_create(struct worker *w, struct kbloom_create *req);
void drop_fd(struct worker *w, struct pool_fd *p);
void check_results(struct worker *w, enum op op, const uint64_t *res,
		   uint32_t count, uint32_t hits);

/* fuzz/image.c */
int read_image(struct worker *w, enum op op, int fd, errset allowed,
	       size_t *len);
bool image_sane(struct worker *w, enum op op, const uint8_t *img,
		size_t len);
int write_image(struct worker *w, enum op op, int fd,
		const uint8_t *buf, size_t len, errset allowed);
void do_read(struct worker *w);
void do_read_bad(struct worker *w);
void do_write(struct worker *w, enum op op);
void do_seek(struct worker *w);

/* fuzz/control.c */
void do_create(struct worker *w);
void do_create_bad(struct worker *w);
void do_create_badptr(struct worker *w);
void do_destroy(struct worker *w);
void do_destroy_bad(struct worker *w);
unsigned long random_cmd(struct worker *w);
void do_ctl_random(struct worker *w);
void do_ctl_rw(struct worker *w);
void do_unload(struct worker *w);

/* fuzz/filter.c */
void do_open(struct worker *w);
void do_close(struct worker *w);
void do_add_check(struct worker *w, enum op op);
void do_batch_bad(struct worker *w);
void do_batch_badptr(struct worker *w);
void do_clear(struct worker *w);
void do_combine(struct worker *w, enum op op);
void do_combine_bad(struct worker *w);
void do_info(struct worker *w);
void do_info_badptr(struct worker *w);
void do_subfilter(struct worker *w);
void do_report(struct worker *w, enum op op);
void do_dev_random(struct worker *w);
void do_sysfs(struct worker *w);
void do_rotate(struct worker *w);
void do_window_info(struct worker *w);

/* fuzz/mmap.c, kapi.c and bpf.c: do_<name>() for each of their operations. */
#define OP_DECL(name, weight) void do_##name(struct worker *w);
FZ_MAP_OPS(OP_DECL)
FZ_KERNEL_OPS(OP_DECL)

/* fuzz/mmap.c */
void fz_map_setup(struct worker *w);
void fz_map_final(struct worker *w);
void fz_map_print(const struct wstats *stats, int nprocs);

/* fuzz/kapi.c: the kernel side, both parts */
void fz_kernel_init(const char *suite, const char *ko, int nprocs,
		    unsigned int *weights);
void fz_kernel_setup(struct worker *w);
void fz_kernel_final(struct worker *w);
void fz_kernel_print(const struct wstats *stats, int nprocs);
int fz_kernel_finish(const char *suite, const struct wstats *stats,
		     int nprocs);

/* What fuzz/kapi.c and fuzz/bpf.c share: ids, names, the good filters. */
#define KF_INT_MAX	0x7fffffffU	/* ids are 1..INT_MAX */
uint32_t kf_good_id(int worker);
void kf_bad_name(struct worker *w, char *name, size_t size);
uint32_t kf_sysfs_id(struct worker *w, enum op op, const char *name);
uint32_t kf_random_id(struct worker *w);

/* fuzz/bpf.c, for fz_kernel_*(): what the run has of BPF, and why not. */
extern bool kf_bpf, kf_bpf_failed, kf_bpf_off;
extern const char *kf_bpf_why;
uint64_t kf_bpf_init(const char *suite);
void kf_bpf_setup(struct worker *w);
void kf_bpf_final(struct worker *w);

#endif /* KBLOOM_FUZZ_IOCTL_H */
