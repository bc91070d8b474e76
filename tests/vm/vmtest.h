/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the VM tests (tests/vm/test-*.c): raw ioctl helpers on the
 * real device, snapshots of a filter for "unchanged" checks, and the
 * PASS:/FAIL: reporting that scripts/check counts.
 *
 * A test case is a function returning NULL when it passed or a message
 * saying what went wrong; the EXPECT macros build that message.
 */
#ifndef KBLOOM_VMTEST_H
#define KBLOOM_VMTEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "batch-of.h"
#include "crc32c.h"
#include "le_bytes.h"
#include "../../include/uapi/linux/kbloom.h"

#define VT_CONTROL	"/dev/kbloom-control"
#define VT_SYSFS	"/sys/class/kbloom"
#define VT_PARAMS	"/sys/module/kbloom/parameters"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/*
 * The filter types, one row each: a typed case runs once for every row
 * that has the capabilities it needs, so a new type is one row here.
 */
#define VT_DELETES	(1U << 0)	/* DELETE works; else EOPNOTSUPP */
#define VT_GROWS	(1U << 1)	/* may be scalable; else EINVAL */

struct vt_type {
	const char *name;
	uint32_t type;
	uint32_t caps;
	uint32_t cells;		/* cells of a 64-byte block: bits, counters, masks */
	uint32_t k10_min, k10_max;	/* best k at 10 cells a key */
	uint32_t generations;	/* a window's g; 0 for the other types */
};

/*
 * The window row has g = 5: P = 8 planes a cell (so 64 cells a 64-byte
 * block, and three planes no generation ever uses, which must stay 0), and
 * P / (g - 1) = 2 memory bits a key of the window per cell of one
 * generation, so "c cells a key" is a whole bits_per_key (vt_key_bits()).
 * Each generation is a 512-cell blocked filter: the bits row's best k.
 */
static const struct vt_type vt_types[] = {
	{ "bits", KBLOOM_TYPE_BITS, VT_GROWS, 512, 6, 7, 0 },
	{ "counting", KBLOOM_TYPE_COUNTING, VT_DELETES | VT_GROWS, 128, 5, 7,
	  0 },
	{ "window", KBLOOM_TYPE_WINDOW, 0, 64, 6, 7, 5 },
};

/* The row of a type number, or NULL. */
static inline const struct vt_type *vt_type_of(uint32_t type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vt_types); i++)
		if (vt_types[i].type == type)
			return &vt_types[i];
	return NULL;
}

/* The generations a create of that type needs: the row's, 0 if none. */
static inline uint32_t vt_generations_of(uint32_t type)
{
	const struct vt_type *t = vt_type_of(type);

	return t ? t->generations : 0;
}

/*
 * The generations a filter's capacity covers: a window's capacity counts
 * the keys of g - 1 of them (its guaranteed window), the others' one.
 */
static inline uint32_t vt_window_gens(const struct vt_type *t)
{
	return t->generations ? t->generations - 1 : 1;
}

/* Every row of vt_types[] that has all of the capabilities need. */
#define vt_for_each_type(t, need)					\
	for ((t) = vt_types; (t) < vt_types + ARRAY_SIZE(vt_types); (t)++) \
		if (((t)->caps & (need)) == (need))

/*
 * Bits of memory one cell takes: 1 in a bits filter, 4 in a counting one,
 * P (one a plane) in a window.
 */
static inline uint32_t vt_cell_bits(const struct vt_type *t)
{
	return 512 / t->cells;
}

/*
 * The count a cell sticks at: 1 for a bit, 15 for a 4-bit counter, and 1
 * for a window, whose generation sees one bit of each cell.
 */
static inline uint32_t vt_cell_max(const struct vt_type *t)
{
	return t->generations ? 1 : (1U << vt_cell_bits(t)) - 1;
}

/*
 * The 64-byte blocks of a window's key block, P (the planes of a cell:
 * the least power of two above g); 1 for the other types.  A window's
 * nblocks is a multiple of it.
 */
static inline uint32_t vt_planes(const struct vt_type *t)
{
	uint32_t p = 1;

	if (!t->generations)
		return 1;
	while (p <= t->generations)
		p *= 2;
	return p;
}

/*
 * bits_per_key for c cells a key in a generation: a window's key of its
 * capacity is one of g - 1 generations' keys, each cell P bits of memory.
 */
static inline uint32_t vt_key_bits(const struct vt_type *t, uint32_t c)
{
	return c * vt_cell_bits(t) / vt_window_gens(t);
}

typedef const char *(*vt_case_fn)(void);
typedef const char *(*vt_typed_fn)(const struct vt_type *t);

/*
 * A case runs once (fn) or once per type (typed, reported as
 * <suite>/<name>/<type>) for the types that have the capabilities need.
 */
struct vt_case {
	const char *name;
	vt_case_fn fn;
	vt_typed_fn typed;
	uint32_t need;
};

#define VT_CASE(f)		{ #f, f, NULL, 0 }
#define VT_NAMED(name, f)	{ name, f, NULL, 0 }
#define VT_TYPED(f)		{ #f, NULL, f, 0 }
#define VT_TYPED_NEED(f, n)	{ #f, NULL, f, n }
#define VT_TYPED_AS(name, f, n)	{ name, NULL, f, n }

static char vt_msg[512];
static char vt_skip_msg[512];
static int vt_failed;
static int vt_passed;
static int vt_skipped;

static inline const char *vt_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

#define VT_FORMAT(buf, fmt)				\
	({							\
		va_list ap;					\
								\
		va_start(ap, fmt);				\
		vsnprintf(buf, sizeof(buf), fmt, ap);		\
		va_end(ap);					\
		(const char *)(buf);				\
	})

static inline const char *vt_fail(const char *fmt, ...)
{
	return VT_FORMAT(vt_msg, fmt);
}

/*
 * A case that needs something the machine running it lacks (memory, say)
 * returns vt_skip(reason): reported as SKIP, never as PASS.
 */
static inline const char *vt_skip(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static inline const char *vt_skip(const char *fmt, ...)
{
	return VT_FORMAT(vt_skip_msg, fmt);
}

static inline const char *vt_errno_name(int e)
{
	static char other[32];

	switch (e) {
	case 0: return "success";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case EAGAIN: return "EAGAIN";
	case EBADF: return "EBADF";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EEXIST: return "EEXIST";
	case EXDEV: return "EXDEV";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case ENOSPC: return "ENOSPC";
	case ESPIPE: return "ESPIPE";
	case E2BIG: return "E2BIG";
	case ENOEXEC: return "ENOEXEC";
	case EPROTO: return "EPROTO";
	case ENODATA: return "ENODATA";
	case EMSGSIZE: return "EMSGSIZE";
	case EBADMSG: return "EBADMSG";
	case ESTALE: return "ESTALE";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	}
	snprintf(other, sizeof(other), "errno %d", e);
	return other;
}

#define EXPECT(cond, ...)						\
	do {								\
		if (!(cond))						\
			return vt_fail(__VA_ARGS__);			\
	} while (0)

/* expr must fail with -1 and errno want. */
#define EXPECT_ERRNO(expr, want)					\
	do {								\
		long vt_r;						\
		errno = 0;						\
		vt_r = (long)(expr);					\
		if (vt_r != -1 || errno != (want))			\
			return vt_fail("line %d: %s: got %ld (%s), want %s", \
				       __LINE__, #expr, vt_r,		\
				       vt_errno_name(errno),		\
				       vt_errno_name(want));		\
	} while (0)

/* expr must return 0 (or, with EXPECT_OK_GE, anything >= 0). */
#define EXPECT_OK(expr)							\
	do {								\
		long vt_r;						\
		errno = 0;						\
		vt_r = (long)(expr);					\
		if (vt_r != 0)						\
			return vt_fail("line %d: %s: got %ld (%s)",	\
				       __LINE__, #expr, vt_r,		\
				       vt_errno_name(errno));		\
	} while (0)

/* A sub-check returning a message, e.g. a snapshot comparison. */
#define EXPECT_NULL(expr)						\
	do {								\
		const char *vt_m = (expr);				\
		if (vt_m)						\
			return vt_m;					\
	} while (0)

static inline void vt_report(const char *suite, const char *name,
			     const char *msg)
{
	if (msg == vt_skip_msg) {
		printf("SKIP: %s/%s: %s\n", suite, name, msg);
		vt_skipped++;
	} else if (msg) {
		printf("FAIL: %s/%s: %s\n", suite, name, msg);
		vt_failed++;
	} else {
		printf("PASS: %s/%s\n", suite, name);
		vt_passed++;
	}
	fflush(stdout);
}

static inline void vt_summary(const char *suite)
{
	if (vt_skipped)
		fprintf(stderr, "%s: %d passed, %d failed, %d skipped\n",
			suite, vt_passed, vt_failed, vt_skipped);
	else
		fprintf(stderr, "%s: %d passed, %d failed\n", suite,
			vt_passed, vt_failed);
}

/* Reports one run of a typed case as <suite>/<name>/<type>. */
static inline void vt_report_typed(const char *suite, const char *name,
				   const struct vt_type *t, const char *msg)
{
	char full[160];

	snprintf(full, sizeof(full), "%s/%s", name, t->name);
	vt_report(suite, full, msg);
}

static inline int vt_run(const char *suite, const struct vt_case *cases,
			 size_t n)
{
	const struct vt_type *t;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!cases[i].typed) {
			vt_report(suite, cases[i].name, cases[i].fn());
			continue;
		}
		vt_for_each_type(t, cases[i].need)
			vt_report_typed(suite, cases[i].name, t,
					cases[i].typed(t));
	}
	vt_summary(suite);
	return vt_failed ? 1 : 0;
}

/* ---- measurements ---- */

/* Seconds on the monotonic clock. */
static inline double vt_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Nanoseconds on the monotonic clock. */
static inline uint64_t vt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline int vt_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n), n >= 1 (a copy is sorted; v stays as it is). */
static inline double vt_median(const double *v, int n)
{
	double *s = malloc(n * sizeof(*s)), m;

	if (!s)
		return v[0];
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), vt_cmp_double);
	m = n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

/* ---- control node ---- */

static inline int vt_ctl(int flags)
{
	return open(VT_CONTROL, flags | O_CLOEXEC);
}

static inline void vt_create_req(struct kbloom_create *req, const char *name,
				 uint64_t capacity, uint32_t fp_ppb)
{
	memset(req, 0, sizeof(*req));
	strncpy(req->name, name, sizeof(req->name) - 1);
	req->capacity = capacity;
	req->fp_ppb = fp_ppb;
}

/* A request of type t: its type and the generations it needs. */
static inline void vt_req_type(struct kbloom_create *req,
			       const struct vt_type *t)
{
	req->type = t->type;
	req->generations = t->generations;
}

static inline int vt_create_raw(const struct kbloom_create *req)
{
	int fd = vt_ctl(O_RDWR);
	int ret, saved;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, KBLOOM_CTL_CREATE, req);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

/* A filter by capacity and rate, with a fixed seed (0: random). */
static inline int vt_create(const char *name, uint64_t capacity,
			    uint32_t fp_ppb, uint64_t seed)
{
	struct kbloom_create req;

	vt_create_req(&req, name, capacity, fp_ppb);
	if (seed) {
		req.flags = KBLOOM_CREATE_SEED;
		req.seed = seed;
	}
	return vt_create_raw(&req);
}

static inline int vt_destroy(const char *name)
{
	struct kbloom_name req;
	int fd = vt_ctl(O_RDWR);
	int ret, saved;

	if (fd < 0)
		return -1;
	memset(&req, 0, sizeof(req));
	strncpy(req.name, name, sizeof(req.name) - 1);
	ret = ioctl(fd, KBLOOM_CTL_DESTROY, &req);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

/*
 * Closes fd (when open) and destroys name; returns msg, or a failure when
 * the destroy failed and nothing else did, so cases can tail-call it.
 */
static inline const char *vt_done(int fd, const char *name, const char *msg)
{
	if (fd >= 0)
		close(fd);
	if (vt_destroy(name) && !msg)
		return vt_fail("destroy %s: %s", name, vt_errno_name(errno));
	return msg;
}

/* The VM's memory (MemTotal), in bytes; 0 if it cannot be read. */
static inline uint64_t vt_mem_total(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/*
 * Creates name afresh (destroying any filter of that name first): for
 * capacity keys at 1 %, or of bits (and k, 0 for the best) when bits is
 * not 0, with a fixed seed.  0, or -1 with errno set.
 *
 * The capacity is of keys the case adds without rotating.  A window
 * holds those in its current generation, and its own capacity counts the
 * keys of g - 1 of them, so a window is made for capacity * (g - 1):
 * each generation holds capacity keys at the window's share of the rate.
 */
static inline int vt_create_typed(const char *name, uint32_t type,
				  uint64_t capacity, uint64_t bits, uint32_t k,
				  uint64_t seed)
{
	const struct vt_type *t = vt_type_of(type);
	struct kbloom_create req;

	vt_destroy(name);
	if (t)
		capacity *= vt_window_gens(t);
	vt_create_req(&req, name, capacity, bits ? 0 : 10000000U);
	req.bits = bits;
	req.k = k;
	req.type = type;
	req.generations = vt_generations_of(type);
	req.flags = KBLOOM_CREATE_SEED;
	req.seed = seed;
	return vt_create_raw(&req);
}

static inline int vt_open(const char *name, int flags)
{
	char path[128];

	snprintf(path, sizeof(path), "/dev/kbloom/%s", name);
	return open(path, flags | O_CLOEXEC);
}

/* vt_create_typed(), then the new filter opened read-write: an fd or -1. */
static inline int vt_fresh(const char *name, uint32_t type, uint64_t capacity,
			   uint64_t bits, uint32_t k, uint64_t seed)
{
	if (vt_create_typed(name, type, capacity, bits, k, seed))
		return -1;
	return vt_open(name, O_RDWR);
}

/*
 * A fresh filter of type t with another type's geometry (or its own
 * type's): the blocks, k and seed of info.  An fd or -1.
 */
static inline int vt_fresh_like(const char *name, uint32_t type,
				const struct kbloom_info *info)
{
	return vt_fresh(name, type, 0, info->nblocks * 512, info->k,
			info->seed);
}

/* ---- keys ---- */

/* n keys "<prefix>-<i>" for i in [first, first + n), back to back. */
struct vt_keys {
	char *bytes;
	uint32_t *lens;
	uint64_t keys_len;
	uint32_t count;
};

static inline void vt_keys_free(struct vt_keys *k)
{
	free(k->bytes);
	free(k->lens);
	memset(k, 0, sizeof(*k));
}

static inline int vt_keys_make(struct vt_keys *k, const char *prefix,
			       uint64_t first, uint32_t n)
{
	size_t cap = (size_t)n * (strlen(prefix) + 24);
	uint32_t i;

	k->bytes = malloc(cap ? cap : 1);
	k->lens = calloc(n ? n : 1, sizeof(uint32_t));
	k->keys_len = 0;
	k->count = n;
	if (!k->bytes || !k->lens)
		return -1;
	for (i = 0; i < n; i++) {
		int len = sprintf(k->bytes + k->keys_len, "%s-%llu", prefix,
				  (unsigned long long)(first + i));

		k->lens[i] = len;
		k->keys_len += len;
	}
	return 0;
}

static inline void vt_batch(struct kbloom_batch *b, const struct vt_keys *k,
			    uint64_t *results)
{
	KB_BATCH_OF(b, k, results);
}

/* ADD or CHECK a key set; returns hits, or -1 with errno. */
static inline long vt_keys_op(int fd, unsigned long cmd,
			      const struct vt_keys *k, uint64_t *results)
{
	struct kbloom_batch b;

	vt_batch(&b, k, results);
	if (ioctl(fd, cmd, &b))
		return -1;
	return b.hits;
}

/* cmd on the keys "<prefix>-<first>" onwards; hits, or -1 with errno. */
static inline long vt_prefix_op(int fd, unsigned long cmd, const char *prefix,
				uint64_t first, uint32_t n)
{
	struct vt_keys k;
	long ret;

	if (vt_keys_make(&k, prefix, first, n))
		return -1;
	ret = vt_keys_op(fd, cmd, &k, NULL);
	vt_keys_free(&k);
	return ret;
}

static inline long vt_add_prefix(int fd, const char *prefix, uint64_t first,
				 uint32_t n)
{
	return vt_prefix_op(fd, KBLOOM_IOC_ADD, prefix, first, n);
}

static inline long vt_check_prefix(int fd, const char *prefix, uint64_t first,
				   uint32_t n)
{
	return vt_prefix_op(fd, KBLOOM_IOC_CHECK, prefix, first, n);
}

static inline long vt_delete_prefix(int fd, const char *prefix,
				    uint64_t first, uint32_t n)
{
	return vt_prefix_op(fd, KBLOOM_IOC_DELETE, prefix, first, n);
}

/* MERGE or INTERSECT other into fd. */
static inline int vt_combine(int fd, unsigned long cmd, int other)
{
	struct kbloom_other o = { .fd = other };

	return ioctl(fd, cmd, &o);
}

/* A page no access may touch, for EFAULT paths (8 if none can be had). */
static inline void *vt_unmapped_page(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? (void *)8 : p;
}

static inline int vt_info(int fd, struct kbloom_info *info)
{
	memset(info, 0xa5, sizeof(*info));
	return ioctl(fd, KBLOOM_IOC_GET_INFO, info);
}

static inline size_t vt_popcount(const uint64_t *words, uint32_t nbits)
{
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < nbits; i++)
		n += (words[i / 64] >> (i % 64)) & 1;
	return n;
}

/* ---- images ---- */

/*
 * What comes before the cells in the module's images (version 3): the
 * header and the window part, which header_bytes counts.
 */
#define VT_IMAGE_HDR	(sizeof(struct kbloom_image_header) +		\
			 sizeof(struct kbloom_image_window))

static inline uint64_t vt_image_bytes(uint64_t nblocks)
{
	return VT_IMAGE_HDR + nblocks * 64 + 4;
}

/* Reads the whole image from offset 0 in reads of step bytes. */
static inline uint8_t *vt_read_image(int fd, size_t step, size_t *len)
{
	size_t cap = 1 << 16, have = 0;
	uint8_t *buf = malloc(cap);
	ssize_t n;

	if (!buf || lseek(fd, 0, SEEK_SET) != 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (have + step > cap) {
			uint8_t *bigger;

			cap = (have + step) * 2;
			bigger = realloc(buf, cap);
			if (!bigger) {
				free(buf);
				return NULL;
			}
			buf = bigger;
		}
		n = read(fd, buf + have, step);
		if (n < 0) {
			int saved = errno;

			free(buf);
			errno = saved;
			return NULL;
		}
		if (n == 0)
			break;
		have += n;
	}
	*len = have;
	return buf;
}

/* Writes a whole image from offset 0 in writes of step bytes. */
static inline int vt_write_image(int fd, const uint8_t *img, size_t len,
				 size_t step)
{
	size_t done = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	while (done < len) {
		size_t take = len - done < step ? len - done : step;

		n = write(fd, img + done, take);
		if (n < 0)
			return -1;
		done += n;
	}
	return 0;
}

/* An image's cells holding value, or any but 0 when value is 0. */
static inline uint64_t vt_image_cells_at(const uint8_t *img, size_t len,
					 const struct vt_type *t,
					 uint32_t value)
{
	uint32_t w = vt_cell_bits(t), mask = (1U << w) - 1, b, c;
	size_t i, end = len - 4;
	uint64_t n = 0;

	for (i = VT_IMAGE_HDR; i < end; i++)
		for (b = 0; b < 8; b += w) {
			c = (img[i] >> b) & mask;
			n += value ? c == value : c != 0;
		}
	return n;
}

/* An image's non-zero cells (set bits, counters above 0): its bits_set. */
static inline uint64_t vt_image_cells(const uint8_t *img, size_t len,
				      const struct vt_type *t)
{
	return vt_image_cells_at(img, len, t, 0);
}

/*
 * A window's image says how long ago it last rotated, which no call
 * changes but time does: for comparisons of images read at different
 * times, that field and the CRC that covers it are zeroed.
 */
static inline void vt_image_timeless(uint8_t *img, size_t len)
{
	size_t at = sizeof(struct kbloom_image_header) +
		    offsetof(struct kbloom_image_window, elapsed_ms);

	if (len < VT_IMAGE_HDR + 4)
		return;
	memset(img + at, 0, 8);
	memset(img + len - 4, 0, 4);
}

/* Two images of len bytes hold the same state (vt_image_timeless()). */
static inline bool vt_image_same(const uint8_t *a, const uint8_t *b,
				 size_t len)
{
	size_t at = sizeof(struct kbloom_image_header) +
		    offsetof(struct kbloom_image_window, elapsed_ms);

	if (len < VT_IMAGE_HDR + 4)
		return !memcmp(a, b, len);
	return !memcmp(a, b, at) &&
	       !memcmp(a + at + 8, b + at + 8, len - at - 8 - 4);
}

/*
 * Everything observable of a filter: GET_INFO and its image.  Taking one
 * does not change the filter (reads touch no counter).
 */
struct vt_snap {
	struct kbloom_info info;
	uint8_t *img;
	size_t img_len;
};

static inline const char *vt_snap_take(int fd, struct vt_snap *s)
{
	memset(s, 0, sizeof(*s));
	if (vt_info(fd, &s->info))
		return vt_fail("snapshot: GET_INFO: %s", vt_errno_name(errno));
	s->img = vt_read_image(fd, 1 << 16, &s->img_len);
	if (!s->img)
		return vt_fail("snapshot: read image: %s",
			       vt_errno_name(errno));
	vt_image_timeless(s->img, s->img_len);
	return NULL;
}

static inline void vt_snap_free(struct vt_snap *s)
{
	free(s->img);
	s->img = NULL;
}

/* NULL when the filter behind fd still matches the snapshot. */
static inline const char *vt_snap_same(int fd, struct vt_snap *before)
{
	struct vt_snap now;
	const char *msg;
	bool same;

	msg = vt_snap_take(fd, &now);
	if (msg) {
		vt_snap_free(before);
		return msg;
	}
	same = !memcmp(&now.info, &before->info, sizeof(now.info)) &&
	       now.img_len == before->img_len &&
	       !memcmp(now.img, before->img, now.img_len);
	vt_snap_free(&now);
	vt_snap_free(before);
	return same ? NULL : "filter changed by a rejected call";
}

/*
 * The start of every rejection case: fd on a fresh filter of type t for
 * 1000 keys at 1 % holding "base-0" to "base-99", a snapshot of it, and
 * b, a batch of the first n of those keys.
 */
struct vt_held {
	const char *name;
	const struct vt_type *t;
	int fd;
	struct vt_snap snap;
	struct vt_keys k;
	struct kbloom_batch b;
};

static inline const char *vt_held_make(struct vt_held *h, const char *name,
				       const struct vt_type *t, uint64_t seed,
				       uint32_t n)
{
	memset(h, 0, sizeof(*h));
	h->name = name;
	h->t = t;
	h->fd = vt_fresh(name, t->type, 1000, 0, 0, seed);
	if (h->fd < 0)
		return vt_fail("create %s: %s", name, vt_errno_name(errno));
	if (vt_add_prefix(h->fd, "base", 0, 100) < 0)
		return vt_fail("add: %s", vt_errno_name(errno));
	if (vt_keys_make(&h->k, "base", 0, n))
		return vt_fail("malloc");
	vt_batch(&h->b, &h->k, NULL);
	return vt_snap_take(h->fd, &h->snap);
}

/*
 * Ends a rejection case: msg if it failed, else whether the filter is
 * still as the snapshot saw it; frees h and destroys name.
 */
static inline const char *vt_held_done(struct vt_held *h, const char *name,
				       const char *msg)
{
	vt_keys_free(&h->k);
	if (msg)
		vt_snap_free(&h->snap);
	else
		msg = vt_snap_same(h->fd, &h->snap);
	return vt_done(h->fd, name, msg);
}

/* fn(h) on a vt_held_make() filter named name, then vt_held_done(). */
static inline const char *vt_held_run(const char *name,
				      const struct vt_type *t, uint64_t seed,
				      uint32_t n,
				      const char *(*fn)(struct vt_held *h))
{
	struct vt_held h;
	const char *msg = vt_held_make(&h, name, t, seed, n);

	return vt_held_done(&h, name, msg ? msg : fn(&h));
}

/*
 * A typed case fn: fn_held(h) on a filter of that name holding keys,
 * which must be as it was afterwards (n keys in h->b, SEED its seed).
 */
#define VT_HELD_CASE(fn, n)						\
	static const char *fn(const struct vt_type *t)			\
	{								\
		return vt_held_run(#fn, t, SEED, n, fn##_held);		\
	}

/* ---- sysfs and module parameters ---- */

static inline int vt_read_u64_file(const char *path, uint64_t *v)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

static inline int vt_sysfs_u64(const char *name, const char *attr, uint64_t *v)
{
	char path[256];

	snprintf(path, sizeof(path), VT_SYSFS "/%s/%s", name, attr);
	return vt_read_u64_file(path, v);
}

/* Every statistic of name's sysfs directory equals its GET_INFO field. */
static inline const char *vt_sysfs_matches_info(const char *name,
						const struct kbloom_info *info)
{
	static const struct {
		const char *attr;
		size_t offset;
		bool wide;
	} fields[] = {
#define F64(f) { #f, offsetof(struct kbloom_info, f), true }
#define F32(f) { #f, offsetof(struct kbloom_info, f), false }
		F64(capacity), F64(nblocks), F64(bits), F64(bytes), F64(seed),
		F64(add_calls), F64(add_new), F64(check_calls),
		F64(check_hits), F64(delete_calls), F64(delete_hits),
		F64(bits_set), F64(est_keys),
		F64(reported_fp), F64(reported_tp), F64(reported_tn),
		F64(held_bytes), F32(k), F32(type), F32(fp_target_ppb), F32(fp_design_ppb),
		F32(fp_now_ppb), F32(fill_ppb), F32(observed_fp_ppb),
		F32(saturated), F32(expansion), F32(subfilters),
#undef F64
#undef F32
	};
	uint64_t v, want;
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const uint8_t *p = (const uint8_t *)info + fields[i].offset;

		if (fields[i].wide)
			memcpy(&want, p, 8);
		else
			want = *(const uint32_t *)p;
		EXPECT_OK(vt_sysfs_u64(name, fields[i].attr, &v));
		EXPECT(v == want, "%s: sysfs %llu, GET_INFO %llu",
		       fields[i].attr, (unsigned long long)v,
		       (unsigned long long)want);
	}
	return NULL;
}

static inline int vt_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A module parameter (/sys/module/kbloom/parameters/<name>). */
static inline int vt_param_get(const char *name, uint64_t *v)
{
	char path[128];

	snprintf(path, sizeof(path), VT_PARAMS "/%s", name);
	return vt_read_u64_file(path, v);
}

static inline int vt_param_set(const char *name, uint64_t v)
{
	char path[128], text[32];

	snprintf(path, sizeof(path), VT_PARAMS "/%s", name);
	snprintf(text, sizeof(text), "%llu", (unsigned long long)v);
	return vt_write_file(path, text);
}

/*
 * max_filter_bytes raised, if need be, to hold a filter of bytes of cells
 * and the rest it holds (16 MiB more); *saved gets the value to put back
 * with vt_param_set().  The caps count all a filter holds, so the
 * default cap of 1 GiB does not hold 1 GiB of cells.  0 or -1.
 */
static inline int vt_room_for(uint64_t bytes, uint64_t *saved)
{
	if (vt_param_get("max_filter_bytes", saved))
		return -1;
	if (*saved >= bytes + (16ULL << 20))
		return 0;
	return vt_param_set("max_filter_bytes", bytes + (16ULL << 20));
}

#endif /* KBLOOM_VMTEST_H */
