// SPDX-License-Identifier: GPL-2.0
/*
 * Counting filters through the real device: create, batched add, check
 * and delete with their result bitmaps and hits, the rejections of DELETE
 * (each errno, filter unchanged), DELETE refused on a bits filter, the
 * delete counters in GET_INFO and sysfs, merge and intersect, and images
 * copied with cat, byte for byte what the filter core (linked in here)
 * builds from the same keys.
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include "vmtest.h"
#include "kbloom_core.h"

#define SEED	0xc0417e45eed0001ULL
#define FP_1PC	10000000U

static int create_typed(const char *name, uint64_t capacity, uint32_t type)
{
	struct kbloom_create req;

	vt_destroy(name);
	vt_create_req(&req, name, capacity, FP_1PC);
	req.flags = KBLOOM_CREATE_SEED;
	req.seed = SEED;
	req.type = type;
	return vt_create_raw(&req);
}

/* A fresh counting filter for one case, opened read-write. */
static int fresh_counting(const char *name, uint64_t capacity)
{
	if (create_typed(name, capacity, KBLOOM_TYPE_COUNTING))
		return -1;
	return vt_open(name, O_RDWR);
}

/*
 * A fresh bits filter with a counting filter's blocks, k and seed, opened
 * read-write: the same geometry of another kind.
 */
static int fresh_bits_twin(const char *name, const struct kbloom_info *of)
{
	struct kbloom_create req;

	vt_destroy(name);
	vt_create_req(&req, name, 0, 0);
	req.bits = of->nblocks * 512;
	req.k = of->k;
	req.flags = KBLOOM_CREATE_SEED;
	req.seed = SEED;
	if (vt_create_raw(&req))
		return -1;
	return vt_open(name, O_RDWR);
}

static long delete_prefix(int fd, const char *prefix, uint64_t first,
			  uint32_t n)
{
	struct vt_keys k;
	long ret;

	if (vt_keys_make(&k, prefix, first, n))
		return -1;
	ret = vt_keys_op(fd, KBLOOM_IOC_DELETE, &k, NULL);
	vt_keys_free(&k);
	return ret;
}

/* ---- create ---- */

static const char *create_by_rate(void)
{
	struct kbloom_info info, bits_info;
	uint64_t v;
	int fd, bits_fd;

	fd = fresh_counting("cnt-rate", 100000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.type == KBLOOM_TYPE_COUNTING, "type %u", info.type);
	EXPECT(info.bits == info.nblocks * 512 &&
	       info.bytes == info.nblocks * 64, "bits %llu bytes %llu",
	       (unsigned long long)info.bits,
	       (unsigned long long)info.bytes);
	EXPECT(info.fp_design_ppb > 0 && info.fp_design_ppb <= FP_1PC,
	       "design %u", info.fp_design_ppb);
	EXPECT(!info.delete_calls && !info.delete_hits && !info.pad &&
	       !info.reserved[0] && !info.reserved[4], "not zeroed");
	EXPECT_OK(vt_sysfs_u64("cnt-rate", "type", &v));
	EXPECT(v == KBLOOM_TYPE_COUNTING, "sysfs type %llu",
	       (unsigned long long)v);

	/* Four bits a counter, and smaller blocks: over 4 times the bytes. */
	EXPECT_OK(create_typed("cnt-rate-bits", 100000, KBLOOM_TYPE_BITS));
	bits_fd = vt_open("cnt-rate-bits", O_RDONLY);
	EXPECT(bits_fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(bits_fd, &bits_info));
	close(bits_fd);
	vt_destroy("cnt-rate-bits");
	EXPECT(info.bytes > 4 * bits_info.bytes &&
	       info.bytes < 5 * bits_info.bytes,
	       "counting %llu bytes, bits %llu",
	       (unsigned long long)info.bytes,
	       (unsigned long long)bits_info.bytes);
	return vt_done(fd, "cnt-rate", NULL);
}

static const char *create_by_bits(void)
{
	struct kbloom_create req;
	struct kbloom_info info;
	int fd;

	vt_destroy("cnt-bits");
	vt_create_req(&req, "cnt-bits", 1000, 0);
	req.type = KBLOOM_TYPE_COUNTING;
	req.bits_per_key = 40;	/* bits of memory: 10 counters a key */
	EXPECT_OK(vt_create_raw(&req));
	fd = vt_open("cnt-bits", O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.nblocks == 79 && info.type == KBLOOM_TYPE_COUNTING &&
	       info.k >= 5 && info.k <= 7, "nblocks %llu k %u",
	       (unsigned long long)info.nblocks, info.k);
	close(fd);
	EXPECT_OK(vt_destroy("cnt-bits"));

	vt_create_req(&req, "cnt-bits", 0, 0);
	req.type = KBLOOM_TYPE_COUNTING;
	req.bits = 1000;
	req.k = 4;
	EXPECT_OK(vt_create_raw(&req));
	fd = vt_open("cnt-bits", O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.nblocks == 2 && info.k == 4, "nblocks %llu k %u",
	       (unsigned long long)info.nblocks, info.k);
	return vt_done(fd, "cnt-bits", NULL);
}

static const char *reject_unknown_type(void)
{
	static const uint32_t types[] = { 2, 3, 0x80000000U, UINT32_MAX };
	struct kbloom_create req;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		vt_create_req(&req, "cnt-type", 1000, FP_1PC);
		req.type = types[i];
		EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	}
	EXPECT(access("/dev/kbloom/cnt-type", F_OK), "filter created");
	return NULL;
}

/* ---- ADD, CHECK, DELETE ---- */

static const char *add_check_delete_round_trip(void)
{
	uint64_t results[(1000 + 63) / 64];
	struct kbloom_info info;
	struct vt_keys all, first, again;
	long hits, second;
	uint32_t i;
	int fd;

	fd = fresh_counting("cnt-rt", 1000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(vt_keys_make(&all, "k", 0, 1000));
	EXPECT_OK(vt_keys_make(&first, "k", 0, 500));
	EXPECT_OK(vt_keys_make(&again, "k", 0, 100));

	memset(results, 0xff, sizeof(results));
	hits = vt_keys_op(fd, KBLOOM_IOC_ADD, &all, results);
	EXPECT(hits > 950 && hits <= 1000 &&
	       (long)vt_popcount(results, 1000) == hits &&
	       !(results[15] >> (1000 % 64)), "add hits %ld", hits);
	/* A second add of 100 keys increments, but takes none from 0. */
	hits = vt_keys_op(fd, KBLOOM_IOC_ADD, &again, results);
	EXPECT(hits == 0 && vt_popcount(results, 100) == 0,
	       "second add hits %ld", hits);

	memset(results, 0xff, sizeof(results));
	hits = vt_keys_op(fd, KBLOOM_IOC_DELETE, &first, results);
	EXPECT(hits == 500 && vt_popcount(results, 500) == 500 &&
	       !(results[7] >> (500 % 64)), "delete hits %ld, results %zu",
	       hits, vt_popcount(results, 500));

	/* The other half is all there; the first half mostly gone. */
	hits = vt_keys_op(fd, KBLOOM_IOC_CHECK, &all, results);
	for (i = 500; i < 1000; i++)
		EXPECT((results[i / 64] >> (i % 64)) & 1,
		       "key %u lost by deleting others", i);
	EXPECT((size_t)hits == vt_popcount(results, 1000) && hits >= 500 &&
	       hits < 500 + 100 + 30, "check hits %ld", hits);
	/* Keys 0..99 were added twice: one delete left them in. */
	for (i = 0; i < 100; i++)
		EXPECT((results[i / 64] >> (i % 64)) & 1,
		       "key %u added twice, deleted once, is gone", i);

	/* Deleting the twice-added keys again removes them too. */
	second = vt_keys_op(fd, KBLOOM_IOC_DELETE, &again, results);
	EXPECT(second == 100 && vt_popcount(results, 100) == 100,
	       "second delete hits %ld", second);
	EXPECT(vt_keys_op(fd, KBLOOM_IOC_CHECK, &again, NULL) < 10,
	       "deleted keys still present");

	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.delete_calls == 600 && info.delete_hits == 600 &&
	       info.add_calls == 1100 && info.check_calls == 1100,
	       "counters: add %llu delete %llu/%llu check %llu",
	       (unsigned long long)info.add_calls,
	       (unsigned long long)info.delete_calls,
	       (unsigned long long)info.delete_hits,
	       (unsigned long long)info.check_calls);
	EXPECT(info.est_keys > 450 && info.est_keys < 550, "est_keys %llu",
	       (unsigned long long)info.est_keys);
	vt_keys_free(&all);
	vt_keys_free(&first);
	vt_keys_free(&again);
	return vt_done(fd, "cnt-rt", NULL);
}

/*
 * The largest batch crosses every chunk seam in the module: deleting every
 * key it added takes every counter back to 0.
 */
static const char *delete_largest_batch(void)
{
	uint32_t n = KBLOOM_BATCH_MAX;
	uint64_t *results = calloc(n / 64, 8);
	struct kbloom_info info;
	struct vt_keys k;
	long hits;
	int fd;

	EXPECT(results, "malloc");
	EXPECT_OK(vt_keys_make(&k, "a-rather-long-key-prefix-to-fill-chunks",
			       0, n));
	fd = fresh_counting("cnt-big", 200000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	hits = vt_keys_op(fd, KBLOOM_IOC_ADD, &k, NULL);
	EXPECT(hits > 0, "add: %ld (%s)", hits, vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.bits_set > 0, "nothing set");
	hits = vt_keys_op(fd, KBLOOM_IOC_DELETE, &k, results);
	EXPECT(hits == n && vt_popcount(results, n) == n,
	       "delete found %ld of %u", hits, n);
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(!info.bits_set && !info.est_keys && !info.fp_now_ppb,
	       "%llu counters left above 0",
	       (unsigned long long)info.bits_set);
	vt_keys_free(&k);
	free(results);
	return vt_done(fd, "cnt-big", NULL);
}

/* Counters stick at 15: a key added 20 times survives 40 deletes. */
static const char *sticky_counters(void)
{
	struct vt_keys one;
	int i, fd;
	long hits = 0;

	fd = fresh_counting("cnt-sticky", 1000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(vt_keys_make(&one, "sticky", 0, 1));
	for (i = 0; i < 20; i++)
		EXPECT(vt_keys_op(fd, KBLOOM_IOC_ADD, &one, NULL) >= 0,
		       "add: %s", vt_errno_name(errno));
	for (i = 0; i < 40; i++)
		hits += vt_keys_op(fd, KBLOOM_IOC_DELETE, &one, NULL);
	EXPECT(hits == 40, "%ld of 40 deletes found it", hits);
	EXPECT(vt_keys_op(fd, KBLOOM_IOC_CHECK, &one, NULL) == 1,
	       "saturated key lost");
	vt_keys_free(&one);
	return vt_done(fd, "cnt-sticky", NULL);
}

/* DELETE on a bits filter: EOPNOTSUPP, before the batch is looked at. */
static const char *delete_on_bits_eopnotsupp(void)
{
	struct kbloom_batch b;
	struct vt_keys k;
	struct vt_snap snap;
	const char *msg;
	uint64_t v;
	int fd;

	EXPECT_OK(create_typed("cnt-onbits", 1000, KBLOOM_TYPE_BITS));
	fd = vt_open("cnt-onbits", O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "b", 0, 100) > 0, "add");
	msg = vt_snap_take(fd, &snap);
	if (msg)
		return vt_done(fd, "cnt-onbits", msg);
	EXPECT_OK(vt_keys_make(&k, "b", 0, 100));
	vt_batch(&b, &k, NULL);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_DELETE, &b), EOPNOTSUPP);
	b.flags = 1;
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_DELETE, &b), EOPNOTSUPP);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_DELETE, NULL), EOPNOTSUPP);
	vt_keys_free(&k);
	EXPECT_OK(vt_sysfs_u64("cnt-onbits", "delete_calls", &v));
	EXPECT(v == 0, "delete_calls %llu", (unsigned long long)v);
	return vt_done(fd, "cnt-onbits", vt_snap_same(fd, &snap));
}

/* A filter holding some keys, and a snapshot of it. */
static const char *fresh_with_keys(const char *name, int *fd,
				   struct vt_snap *snap)
{
	*fd = fresh_counting(name, 1000);
	if (*fd < 0)
		return vt_fail("create %s: %s", name, vt_errno_name(errno));
	if (vt_add_prefix(*fd, "base", 0, 100) < 0)
		return vt_fail("add: %s", vt_errno_name(errno));
	return vt_snap_take(*fd, snap);
}

static void *unmapped_page(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? (void *)8 : p;
}

enum spoil {
	SPOIL_FLAGS, SPOIL_PAD, SPOIL_RESERVED0, SPOIL_RESERVED1,
	SPOIL_COUNT_ZERO, SPOIL_COUNT_OVER, SPOIL_EMPTY_KEY, SPOIL_LONG_KEY,
	SPOIL_LENS_SUM, SPOIL_KEYS_PTR, SPOIL_LENS_PTR, SPOIL_RESULTS_PTR,
	SPOIL_RESULTS_UNMAPPED, SPOILS
};

/* The keys are those in the filter: any slip would remove them. */
static const char *reject_delete_fields(void)
{
	static const int want[SPOILS] = {
		EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, EINVAL,
		EINVAL, EFAULT, EFAULT, EFAULT, EFAULT,
	};
	uint64_t results[2];
	struct kbloom_batch b;
	struct vt_keys k;
	struct vt_snap snap;
	const char *msg;
	int fd, s;

	msg = fresh_with_keys("cnt-rej", &fd, &snap);
	if (msg)
		return vt_done(fd, "cnt-rej", msg);
	for (s = 0; s < SPOILS; s++) {
		if (vt_keys_make(&k, "base", 0, 100))
			return vt_done(fd, "cnt-rej", "malloc");
		vt_batch(&b, &k, results);
		switch (s) {
		case SPOIL_FLAGS:
			b.flags = 1U << 31;
			break;
		case SPOIL_PAD:
			b.pad = 1;
			break;
		case SPOIL_RESERVED0:
			b.reserved[0] = 1;
			break;
		case SPOIL_RESERVED1:
			b.reserved[1] = 1ULL << 63;
			break;
		case SPOIL_COUNT_ZERO:
			b.count = 0;
			break;
		case SPOIL_COUNT_OVER:
			b.count = KBLOOM_BATCH_MAX + 1;
			break;
		case SPOIL_EMPTY_KEY:
			b.keys_len -= k.lens[57];
			k.lens[57] = 0;
			break;
		case SPOIL_LONG_KEY:
			b.keys_len += KBLOOM_KEY_MAX + 1 - k.lens[99];
			k.lens[99] = KBLOOM_KEY_MAX + 1;
			break;
		case SPOIL_LENS_SUM:
			b.keys_len--;
			break;
		case SPOIL_KEYS_PTR:
			b.keys = 16;
			break;
		case SPOIL_LENS_PTR:
			b.lens = 0;
			break;
		case SPOIL_RESULTS_PTR:
			b.results = 8;
			break;
		case SPOIL_RESULTS_UNMAPPED:
			b.results = (uintptr_t)unmapped_page();
			break;
		}
		errno = 0;
		if (ioctl(fd, KBLOOM_IOC_DELETE, &b) != -1 ||
		    errno != want[s]) {
			msg = vt_fail("spoil %d: got %s, want %s", s,
				      vt_errno_name(errno),
				      vt_errno_name(want[s]));
			vt_keys_free(&k);
			vt_snap_free(&snap);
			return vt_done(fd, "cnt-rej", msg);
		}
		vt_keys_free(&k);
	}
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_DELETE, NULL), EFAULT);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_DELETE, unmapped_page()), EFAULT);
	/* DELETE's number with another size or direction is no command. */
	EXPECT_ERRNO(ioctl(fd, _IOW(KBLOOM_IOC_MAGIC, 0x17,
				    struct kbloom_batch), &b), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOWR(KBLOOM_IOC_MAGIC, 0x17, __u64), &b),
		     ENOTTY);
	return vt_done(fd, "cnt-rej", vt_snap_same(fd, &snap));
}

/* DELETE writes: a read-only file gets EBADF, a write-only one works. */
static const char *delete_needs_write(void)
{
	struct kbloom_batch b;
	struct vt_keys k;
	struct vt_snap snap;
	const char *msg;
	int fd, ro, wo;

	msg = fresh_with_keys("cnt-perm", &fd, &snap);
	if (msg)
		return vt_done(fd, "cnt-perm", msg);
	ro = vt_open("cnt-perm", O_RDONLY);
	wo = vt_open("cnt-perm", O_WRONLY);
	EXPECT(ro >= 0 && wo >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_keys_make(&k, "base", 0, 100));
	vt_batch(&b, &k, NULL);
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_DELETE, &b), EBADF);
	/* Permission is checked before anything else. */
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_DELETE, NULL), EBADF);
	close(ro);
	msg = vt_snap_same(fd, &snap);
	if (!msg && (ioctl(wo, KBLOOM_IOC_DELETE, &b) || b.hits != 100))
		msg = vt_fail("DELETE on a write-only file: %s, hits %u",
			      vt_errno_name(errno), b.hits);
	vt_keys_free(&k);
	close(wo);
	return vt_done(fd, "cnt-perm", msg);
}

static const char *delete_destroyed_enodev(void)
{
	struct kbloom_batch b;
	struct vt_keys k;
	int fd;

	fd = fresh_counting("cnt-dead", 1000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "d", 0, 10) > 0, "add");
	EXPECT_OK(vt_destroy("cnt-dead"));
	EXPECT_OK(vt_keys_make(&k, "d", 0, 10));
	vt_batch(&b, &k, NULL);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_DELETE, &b), ENODEV);
	vt_keys_free(&k);
	close(fd);
	return NULL;
}

/* ---- statistics ---- */

static const char *sysfs_matches_info(void)
{
	struct kbloom_info info;
	uint64_t v;
	int fd;

	fd = fresh_counting("cnt-sysfs", 1000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "s", 0, 700) > 0, "add");
	EXPECT(delete_prefix(fd, "s", 0, 200) == 200, "delete");
	EXPECT(delete_prefix(fd, "absent", 0, 300) >= 0, "delete absent");
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.delete_calls == 500 && info.delete_hits >= 200 &&
	       info.delete_hits < 220, "deletes %llu/%llu",
	       (unsigned long long)info.delete_calls,
	       (unsigned long long)info.delete_hits);
	/* Cells of a counting block are 128: fill is against those. */
	EXPECT(info.fill_ppb == info.bits_set * 1000000000ULL /
				(info.nblocks * 128),
	       "fill %u for %llu cells set", info.fill_ppb,
	       (unsigned long long)info.bits_set);
	EXPECT_NULL(vt_sysfs_matches_info("cnt-sysfs", &info));
	/* Clear resets the delete counters too. */
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_CLEAR, 0));
	EXPECT_OK(vt_sysfs_u64("cnt-sysfs", "delete_calls", &v));
	EXPECT(v == 0, "delete_calls %llu after clear", (unsigned long long)v);
	EXPECT_OK(vt_sysfs_u64("cnt-sysfs", "delete_hits", &v));
	EXPECT(v == 0, "delete_hits %llu after clear", (unsigned long long)v);
	return vt_done(fd, "cnt-sysfs", NULL);
}

/* ---- merge and intersect ---- */

static int combine(int fd, unsigned long cmd, int other)
{
	struct kbloom_other o = { .fd = other };

	return ioctl(fd, cmd, &o);
}

static const char *merge_intersect(void)
{
	struct kbloom_info info;
	struct vt_snap snap;
	const char *msg;
	long left;
	int a, b, c, bits;

	a = fresh_counting("cnt-ma", 2000);
	b = fresh_counting("cnt-mb", 2000);
	c = fresh_counting("cnt-mc", 2000);
	EXPECT(a >= 0 && b >= 0 && c >= 0, "create: %s",
	       vt_errno_name(errno));
	EXPECT(vt_add_prefix(a, "a", 0, 500) > 0, "add a");
	EXPECT(vt_add_prefix(b, "b", 0, 500) > 0, "add b");
	EXPECT(vt_add_prefix(a, "both", 0, 300) > 0, "add a");
	EXPECT(vt_add_prefix(b, "both", 0, 300) > 0, "add b");
	EXPECT(vt_add_prefix(c, "a", 0, 500) > 0, "add c");
	EXPECT(vt_add_prefix(c, "both", 0, 300) > 0, "add c");

	/* The union counts "both" twice: one delete leaves it in. */
	EXPECT_OK(combine(a, KBLOOM_IOC_MERGE, b));
	EXPECT(delete_prefix(a, "a", 0, 500) == 500, "a's keys not all found");
	EXPECT(delete_prefix(a, "both", 0, 300) == 300, "both not found");
	EXPECT(vt_check_prefix(a, "b", 0, 500) == 500, "b's keys lost");
	EXPECT(vt_check_prefix(a, "both", 0, 300) == 300,
	       "keys added to both lost after one delete");
	EXPECT_OK(vt_info(a, &info));
	EXPECT(info.add_calls == 1600 && info.delete_calls == 800,
	       "merged counters %llu %llu",
	       (unsigned long long)info.add_calls,
	       (unsigned long long)info.delete_calls);

	/* The meet keeps the common keys, at the lower count. */
	EXPECT_OK(combine(c, KBLOOM_IOC_INTERSECT, b));
	EXPECT(vt_check_prefix(c, "both", 0, 300) == 300, "common keys lost");
	left = vt_check_prefix(c, "a", 0, 500);
	EXPECT(left >= 0 && left < 50, "%ld of 500 c-only keys remain", left);
	EXPECT(delete_prefix(c, "both", 0, 300) == 300, "delete common");
	EXPECT(vt_check_prefix(c, "both", 0, 300) < 30,
	       "common keys held twice after intersect");

	/* A bits filter of the same blocks, k and seed is another kind. */
	msg = vt_snap_take(a, &snap);
	if (msg)
		return msg;
	bits = fresh_bits_twin("cnt-mbits", &info);
	EXPECT(bits >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_ERRNO(combine(a, KBLOOM_IOC_MERGE, bits), EXDEV);
	EXPECT_ERRNO(combine(a, KBLOOM_IOC_INTERSECT, bits), EXDEV);
	EXPECT_ERRNO(combine(bits, KBLOOM_IOC_MERGE, a), EXDEV);
	msg = vt_snap_same(a, &snap);
	close(bits);
	close(b);
	close(c);
	vt_destroy("cnt-mbits");
	vt_destroy("cnt-mb");
	vt_destroy("cnt-mc");
	return vt_done(a, "cnt-ma", msg);
}

/* ---- images ---- */

static int sh(const char *cmd)
{
	int status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t *buf;
	struct stat st;
	ssize_t got;

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc(st.st_size + 1);
	got = buf ? read(fd, buf, st.st_size + 1) : -1;
	close(fd);
	if (got < 0) {
		free(buf);
		return NULL;
	}
	*len = got;
	return buf;
}

/* The core's image of a filter fed the same keys as the device's. */
static uint8_t *core_image(const struct kbloom_info *info, size_t *len)
{
	struct kbloom_geometry g = {
		.nblocks = info->nblocks, .capacity = info->capacity,
		.seed = info->seed, .k = info->k, .type = info->type,
		.fp_target_ppb = info->fp_target_ppb,
	};
	struct kbloom_image_cursor cur;
	struct kbloom_filter f;
	char key[32];
	uint8_t *img;
	int i, j;

	if (kbloom_filter_init(&f, &g))
		return NULL;
	for (i = 0; i < 3000; i++)
		kbloom_add(&f, key, sprintf(key, "img-%d", i));
	for (j = 0; j < 25; j++)
		for (i = 0; i < 5; i++)
			kbloom_add(&f, key, sprintf(key, "img-%d", i));
	for (i = 1000; i < 2000; i++)
		kbloom_delete(&f, key, sprintf(key, "img-%d", i));
	img = malloc(kbloom_image_bytes(&g));
	if (img) {
		kbloom_image_start(&f, &cur);
		*len = kbloom_image_emit(&f, &cur, img, kbloom_image_bytes(&g));
	}
	kbloom_filter_free(&f);
	return img;
}

static const char *image_round_trip_with_cat(void)
{
	struct kbloom_info src, dst;
	size_t len = 0, core_len = 0;
	uint8_t *img, *core;
	int fd, to, bits, j;

	fd = fresh_counting("cnt-img", 3000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "img", 0, 3000) > 0, "add");
	for (j = 0; j < 25; j++)	/* counters at 15 */
		EXPECT(vt_add_prefix(fd, "img", 0, 5) >= 0, "add");
	EXPECT(delete_prefix(fd, "img", 1000, 1000) == 1000, "delete");
	EXPECT_OK(vt_info(fd, &src));

	EXPECT(!sh("cat /dev/kbloom/cnt-img > /tmp/cnt.img"), "cat out");
	img = read_file("/tmp/cnt.img", &len);
	EXPECT(img && len == vt_image_bytes(src.nblocks), "image %zu bytes",
	       len);
	EXPECT(img[12] == KBLOOM_TYPE_COUNTING && !img[13] && !img[14] &&
	       !img[15], "header type %u", img[12]);
	EXPECT(vt_crc32c(img, len - 4) ==
	       (uint32_t)(img[len - 4] | img[len - 3] << 8 |
			  img[len - 2] << 16 | (uint32_t)img[len - 1] << 24),
	       "bad CRC");
	core = core_image(&src, &core_len);
	EXPECT(core && core_len == len && !memcmp(core, img, len),
	       "the kernel's image differs from the core's (%zu vs %zu bytes)",
	       len, core_len);
	free(core);

	to = fresh_counting("cnt-img2", 3000);
	EXPECT(to >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(to, "other", 0, 50) > 0, "add");
	EXPECT(delete_prefix(to, "other", 0, 5) == 5, "delete");
	EXPECT(!sh("cat /tmp/cnt.img > /dev/kbloom/cnt-img2"), "cat in");
	EXPECT_OK(vt_info(to, &dst));
	EXPECT(dst.bits_set == src.bits_set && dst.add_calls == src.add_calls &&
	       dst.add_new == src.add_new && !dst.delete_calls &&
	       !dst.delete_hits, "loaded: %llu cells, %llu adds, %llu deletes",
	       (unsigned long long)dst.bits_set,
	       (unsigned long long)dst.add_calls,
	       (unsigned long long)dst.delete_calls);
	/* The restored counters delete as the originals. */
	EXPECT(delete_prefix(to, "img", 2000, 1000) == 1000,
	       "keys of the image not deletable");
	EXPECT(vt_check_prefix(to, "img", 0, 5) == 5, "saturated keys lost");
	EXPECT(delete_prefix(to, "img", 5, 995) == 995, "delete rest");
	close(to);
	vt_destroy("cnt-img2");

	/* A bits filter of the same blocks, k and seed refuses the image. */
	bits = fresh_bits_twin("cnt-img-bits", &src);
	EXPECT(bits >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_ERRNO(vt_write_image(bits, img, len, len), EXDEV);
	close(bits);
	vt_destroy("cnt-img-bits");
	free(img);
	unlink("/tmp/cnt.img");
	return vt_done(fd, "cnt-img", NULL);
}

static const struct vt_case cases[] = {
#define CASE(fn) { #fn, fn }
	CASE(create_by_rate),
	CASE(create_by_bits),
	CASE(reject_unknown_type),
	CASE(add_check_delete_round_trip),
	CASE(delete_largest_batch),
	CASE(sticky_counters),
	CASE(delete_on_bits_eopnotsupp),
	CASE(reject_delete_fields),
	CASE(delete_needs_write),
	CASE(delete_destroyed_enodev),
	CASE(sysfs_matches_info),
	CASE(merge_intersect),
	CASE(image_round_trip_with_cat),
#undef CASE
};

int main(void)
{
	return vt_run("counting", cases, ARRAY_SIZE(cases));
}
