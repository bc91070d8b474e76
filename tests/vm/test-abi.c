// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl ABI through the real device: every command round-trips, and
 * every rejection path returns its documented errno with the filter left
 * exactly as it was (GET_INFO and the image compared byte for byte).
 */
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include "vmtest.h"

#define SEED	0x5eed5eed12345678ULL
#define FP_1PC	10000000U

/* A fresh filter for one case, opened read-write; -1 on failure. */
static int fresh_sized(const char *name, uint64_t capacity)
{
	vt_destroy(name);
	if (vt_create(name, capacity, FP_1PC, SEED))
		return -1;
	return vt_open(name, O_RDWR);
}

static int fresh(const char *name)
{
	return fresh_sized(name, 1000);
}

/* A filter holding some keys, and a snapshot of it. */
static const char *fresh_with_keys(const char *name, int *fd,
				   struct vt_snap *snap)
{
	*fd = fresh(name);
	if (*fd < 0)
		return vt_fail("create %s: %s", name, vt_errno_name(errno));
	if (vt_add_prefix(*fd, "base", 0, 100) < 0)
		return vt_fail("add: %s", vt_errno_name(errno));
	return vt_snap_take(*fd, snap);
}

/* ---- control node: create ---- */

static const char *create_by_rate(void)
{
	struct kbloom_info info;
	int fd;

	fd = fresh("abi-rate");
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(!strcmp(info.name, "abi-rate"), "name %s", info.name);
	EXPECT(info.capacity == 1000, "capacity %llu",
	       (unsigned long long)info.capacity);
	EXPECT(info.fp_target_ppb == FP_1PC, "target %u", info.fp_target_ppb);
	EXPECT(info.seed == SEED, "seed %llx", (unsigned long long)info.seed);
	EXPECT(info.k >= 1 && info.k <= KBLOOM_K_MAX, "k %u", info.k);
	EXPECT(info.bits == info.nblocks * 512, "bits %llu",
	       (unsigned long long)info.bits);
	EXPECT(info.bytes == info.nblocks * 64, "bytes %llu",
	       (unsigned long long)info.bytes);
	/* Sized so the formula rate at capacity meets the target. */
	EXPECT(info.fp_design_ppb <= FP_1PC && info.fp_design_ppb > 0,
	       "design %u", info.fp_design_ppb);
	EXPECT(info.node_mode == 0600, "mode %o", info.node_mode);
	EXPECT(info.type == KBLOOM_TYPE_BITS, "type %u", info.type);
	EXPECT(!info.add_calls && !info.bits_set && !info.saturated &&
	       !info.delete_calls && !info.delete_hits,
	       "new filter not empty");
	EXPECT(!info.pad && !info.reserved[0] && !info.reserved[4],
	       "padding not zeroed");
	return vt_done(fd, "abi-rate", NULL);
}

static const char *create_by_bits(void)
{
	struct kbloom_create req;
	struct kbloom_info info;
	int fd;

	vt_destroy("abi-bits");
	vt_create_req(&req, "abi-bits", 0, 0);
	req.bits = 1000;	/* rounds up to two blocks */
	req.k = 3;
	EXPECT_OK(vt_create_raw(&req));
	fd = vt_open("abi-bits", O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.nblocks == 2 && info.bits == 1024 && info.k == 3,
	       "nblocks %llu k %u", (unsigned long long)info.nblocks, info.k);
	EXPECT(info.capacity == 0 && info.fp_target_ppb == 0,
	       "capacity/target set");
	return vt_done(fd, "abi-bits", NULL);
}

static const char *create_by_bits_best_k(void)
{
	struct kbloom_create req;
	struct kbloom_info info;
	int fd;

	vt_destroy("abi-bits-k0");
	vt_create_req(&req, "abi-bits-k0", 1000, 0);
	req.bits = 10240;	/* 10 bits per key: best k is 6 or 7 */
	EXPECT_OK(vt_create_raw(&req));
	fd = vt_open("abi-bits-k0", O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.nblocks == 20 && (info.k == 6 || info.k == 7),
	       "nblocks %llu k %u", (unsigned long long)info.nblocks, info.k);
	EXPECT(info.capacity == 1000, "capacity %llu",
	       (unsigned long long)info.capacity);
	return vt_done(fd, "abi-bits-k0", NULL);
}

static const char *create_by_bits_per_key(void)
{
	struct kbloom_create req;
	struct kbloom_info info;
	int fd;

	vt_destroy("abi-bpk");
	vt_create_req(&req, "abi-bpk", 1000, 0);
	req.bits_per_key = 16;
	req.k = 9;
	EXPECT_OK(vt_create_raw(&req));
	fd = vt_open("abi-bpk", O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	/* 16000 bits round up to 32 blocks. */
	EXPECT(info.nblocks == 32 && info.k == 9 && info.capacity == 1000,
	       "nblocks %llu k %u", (unsigned long long)info.nblocks, info.k);
	return vt_done(fd, "abi-bpk", NULL);
}

static const char *create_random_seed(void)
{
	struct kbloom_info a, b;
	int fa, fb;

	vt_destroy("abi-seed-a");
	vt_destroy("abi-seed-b");
	EXPECT_OK(vt_create("abi-seed-a", 1000, FP_1PC, 0));
	EXPECT_OK(vt_create("abi-seed-b", 1000, FP_1PC, 0));
	fa = vt_open("abi-seed-a", O_RDONLY);
	fb = vt_open("abi-seed-b", O_RDONLY);
	EXPECT(fa >= 0 && fb >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fa, &a));
	EXPECT_OK(vt_info(fb, &b));
	close(fb);
	vt_destroy("abi-seed-b");
	EXPECT(a.seed != b.seed, "two random seeds equal: %llx",
	       (unsigned long long)a.seed);
	return vt_done(fa, "abi-seed-a", NULL);
}

static const char *create_node_mode(void)
{
	struct kbloom_create req;
	struct kbloom_info info;
	struct stat st;
	int fd;

	vt_destroy("abi-mode");
	vt_create_req(&req, "abi-mode", 1000, FP_1PC);
	req.node_mode = 0644;
	EXPECT_OK(vt_create_raw(&req));
	EXPECT_OK(stat("/dev/kbloom/abi-mode", &st));
	EXPECT(S_ISCHR(st.st_mode) && (st.st_mode & 07777) == 0644 &&
	       st.st_uid == 0 && st.st_gid == 0, "node mode %o uid %u",
	       st.st_mode, st.st_uid);
	fd = vt_open("abi-mode", O_RDONLY);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.node_mode == 0644, "mode %o", info.node_mode);
	return vt_done(fd, "abi-mode", NULL);
}

static const char *create_names_valid(void)
{
	static const char *const names[] = {
		"a", "A.b_c-9", "0123456789012345678901234567890",
		"...", "-",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		EXPECT_OK(vt_create(names[i], 100, FP_1PC, 0));
		EXPECT(!access("/dev/kbloom/", F_OK), "no /dev/kbloom");
		EXPECT_OK(vt_destroy(names[i]));
	}
	return NULL;
}

static int create_with_name_bytes(const char *bytes, size_t len)
{
	struct kbloom_create req;

	vt_create_req(&req, "", 1000, FP_1PC);
	memcpy(req.name, bytes, len);
	return vt_create_raw(&req);
}

static const char *reject_name_empty(void)
{
	EXPECT_ERRNO(create_with_name_bytes("", 1), EINVAL);
	return NULL;
}

static const char *reject_name_too_long(void)
{
	char name[KBLOOM_NAME_MAX];

	memset(name, 'x', sizeof(name));	/* 32 chars, no NUL */
	EXPECT_ERRNO(create_with_name_bytes(name, sizeof(name)), EINVAL);
	return NULL;
}

static const char *reject_name_chars(void)
{
	static const char *const bad[] = {
		"a/b", "a b", "a\tb", "caf\xc3\xa9", "x\xff", "a:b", "a*",
		".", "..",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_ERRNO(vt_create(bad[i], 1000, FP_1PC, 0), EINVAL);
	return NULL;
}

static const char *reject_name_garbage_after_nul(void)
{
	EXPECT_ERRNO(create_with_name_bytes("ab\0cd", 6), EINVAL);
	EXPECT(access("/dev/kbloom/ab", F_OK), "ab created");
	return NULL;
}

static const char *reject_name_duplicate(void)
{
	struct vt_snap snap;
	const char *msg;
	int fd;

	msg = fresh_with_keys("abi-dup", &fd, &snap);
	if (msg)
		return vt_done(fd, "abi-dup", msg);
	EXPECT_ERRNO(vt_create("abi-dup", 5000, FP_1PC, 0), EEXIST);
	return vt_done(fd, "abi-dup", vt_snap_same(fd, &snap));
}

static const char *reject_name_reserved(void)
{
	/* These sit beside the filters in /sys/class/kbloom/. */
	EXPECT_ERRNO(vt_create("total_filters", 1000, FP_1PC, 0), EEXIST);
	EXPECT_ERRNO(vt_create("total_bytes", 1000, FP_1PC, 0), EEXIST);
	return NULL;
}

static const char *reject_create_reserved(void)
{
	struct kbloom_create req;
	int i;

	for (i = 0; i < 4; i++) {
		vt_create_req(&req, "abi-res", 1000, FP_1PC);
		req.reserved[i] = 1ULL << (i * 16);
		EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	}
	EXPECT(access("/dev/kbloom/abi-res", F_OK), "filter created");
	return NULL;
}

static const char *reject_create_flags(void)
{
	struct kbloom_create req;
	int bit;

	for (bit = 1; bit < 32; bit++) {
		vt_create_req(&req, "abi-flags", 1000, FP_1PC);
		req.flags = 1U << bit;
		EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	}
	EXPECT(access("/dev/kbloom/abi-flags", F_OK), "filter created");
	return NULL;
}

static const char *reject_create_seed_without_flag(void)
{
	struct kbloom_create req;

	vt_create_req(&req, "abi-seedflag", 1000, FP_1PC);
	req.seed = 42;
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	return NULL;
}

static const char *reject_create_geometry(void)
{
	struct kbloom_create req;

	/* No way of sizing at all. */
	vt_create_req(&req, "abi-geo", 1000, 0);
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	/* Two ways at once. */
	vt_create_req(&req, "abi-geo", 1000, FP_1PC);
	req.bits = 4096;
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	vt_create_req(&req, "abi-geo", 1000, FP_1PC);
	req.bits_per_key = 10;
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	/* A rate needs a capacity and chooses k itself. */
	vt_create_req(&req, "abi-geo", 0, FP_1PC);
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	vt_create_req(&req, "abi-geo", 1000, FP_1PC);
	req.k = 5;
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	/* A rate of 1.0 or more. */
	vt_create_req(&req, "abi-geo", 1000, KBLOOM_PPB);
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	/* Bits per key need a capacity. */
	vt_create_req(&req, "abi-geo", 0, 0);
	req.bits_per_key = 10;
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	/* k out of range. */
	vt_create_req(&req, "abi-geo", 0, 0);
	req.bits = 4096;
	req.k = KBLOOM_K_MAX + 1;
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	EXPECT(access("/dev/kbloom/abi-geo", F_OK), "filter created");
	return NULL;
}

static const char *reject_create_type(void)
{
	struct kbloom_create req;

	/* 0 is bits and 1 counting: the next one is unknown. */
	vt_create_req(&req, "abi-type", 1000, FP_1PC);
	req.type = KBLOOM_TYPE_COUNTING + 1;
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	req.type = UINT32_MAX;
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	EXPECT(access("/dev/kbloom/abi-type", F_OK), "filter created");
	return NULL;
}

static const char *reject_create_node_mode(void)
{
	struct kbloom_create req;

	vt_create_req(&req, "abi-nmode", 1000, FP_1PC);
	req.node_mode = 04600;	/* setuid: only permission bits */
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	req.node_mode = 0x10000;
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	return NULL;
}

static const char *reject_create_too_big(void)
{
	struct kbloom_create req;

	/* Past the core's limit of 2^31 blocks, whatever the caps say. */
	vt_create_req(&req, "abi-huge", 0, 0);
	req.bits = 1ULL << 50;
	EXPECT_ERRNO(vt_create_raw(&req), E2BIG);
	EXPECT(access("/dev/kbloom/abi-huge", F_OK), "filter created");
	return NULL;
}

static const char *reject_create_bad_pointer(void)
{
	int fd = vt_ctl(O_RDWR);

	EXPECT(fd >= 0, "open control: %s", vt_errno_name(errno));
	EXPECT_ERRNO(ioctl(fd, KBLOOM_CTL_CREATE, NULL), EFAULT);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_CTL_CREATE, (void *)8), EFAULT);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_CTL_DESTROY, NULL), EFAULT);
	close(fd);
	return NULL;
}

static const char *reject_control_unknown_command(void)
{
	struct kbloom_create req;
	int fd = vt_ctl(O_RDWR);

	EXPECT(fd >= 0, "open control: %s", vt_errno_name(errno));
	vt_create_req(&req, "abi-cmd", 1000, FP_1PC);
	EXPECT_ERRNO(ioctl(fd, _IOW(KBLOOM_IOC_MAGIC, 0x02,
				    struct kbloom_create), &req), ENOTTY);
	/* A filter command on the control node. */
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_CLEAR, 0), ENOTTY);
	/* CREATE's number with the wrong size. */
	EXPECT_ERRNO(ioctl(fd, _IOW(KBLOOM_IOC_MAGIC, 0x00, __u64), &req),
		     ENOTTY);
	EXPECT_ERRNO(ioctl(fd, TCGETS, &req), ENOTTY);
	close(fd);
	EXPECT(access("/dev/kbloom/abi-cmd", F_OK), "filter created");
	return NULL;
}

static const char *reject_control_read_only(void)
{
	struct kbloom_create req;
	int fd = vt_ctl(O_RDONLY);

	EXPECT(fd >= 0, "open control: %s", vt_errno_name(errno));
	vt_create_req(&req, "abi-ro", 1000, FP_1PC);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_CTL_CREATE, &req), EBADF);
	close(fd);
	EXPECT(access("/dev/kbloom/abi-ro", F_OK), "filter created");
	return NULL;
}

/* ---- control node: destroy ---- */

static const char *destroy_round_trip(void)
{
	uint64_t before, after, v;

	EXPECT_OK(vt_read_u64_file(VT_SYSFS "/total_filters", &before));
	EXPECT_OK(vt_create("abi-gone", 1000, FP_1PC, 0));
	EXPECT_OK(vt_read_u64_file(VT_SYSFS "/total_filters", &v));
	EXPECT(v == before + 1, "total_filters %llu after create",
	       (unsigned long long)v);
	EXPECT(!access("/dev/kbloom/abi-gone", F_OK), "no node");
	EXPECT(!access(VT_SYSFS "/abi-gone/capacity", F_OK), "no sysfs dir");
	EXPECT_OK(vt_destroy("abi-gone"));
	EXPECT(access("/dev/kbloom/abi-gone", F_OK) && errno == ENOENT,
	       "node left behind");
	EXPECT(access(VT_SYSFS "/abi-gone", F_OK), "sysfs dir left behind");
	EXPECT_OK(vt_read_u64_file(VT_SYSFS "/total_filters", &after));
	EXPECT(after == before, "total_filters %llu after destroy",
	       (unsigned long long)after);
	/* The name is free again. */
	EXPECT_OK(vt_create("abi-gone", 1000, FP_1PC, 0));
	EXPECT_OK(vt_destroy("abi-gone"));
	return NULL;
}

static const char *reject_destroy_unknown(void)
{
	EXPECT_ERRNO(vt_destroy("abi-never-made"), ENOENT);
	return NULL;
}

static const char *reject_destroy_bad_name(void)
{
	EXPECT_ERRNO(vt_destroy("a/b"), EINVAL);
	EXPECT_ERRNO(vt_destroy(""), EINVAL);
	return NULL;
}

static const char *reject_destroy_reserved(void)
{
	struct kbloom_name req;
	struct vt_snap snap;
	const char *msg;
	int fd, ctl;

	msg = fresh_with_keys("abi-dres", &fd, &snap);
	if (msg)
		return vt_done(fd, "abi-dres", msg);
	ctl = vt_ctl(O_RDWR);
	EXPECT(ctl >= 0, "open control: %s", vt_errno_name(errno));
	memset(&req, 0, sizeof(req));
	strcpy(req.name, "abi-dres");
	req.reserved[1] = 1;
	EXPECT_ERRNO(ioctl(ctl, KBLOOM_CTL_DESTROY, &req), EINVAL);
	close(ctl);
	return vt_done(fd, "abi-dres", vt_snap_same(fd, &snap));
}

/* ---- filter node: ADD and CHECK ---- */

static const char *add_check_round_trip(void)
{
	uint64_t results[(1000 + 63) / 64];
	struct kbloom_info info;
	struct vt_keys k;
	long hits;
	int fd;

	fd = fresh("abi-add");
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(vt_keys_make(&k, "k", 0, 1000));
	memset(results, 0xff, sizeof(results));
	hits = vt_keys_op(fd, KBLOOM_IOC_ADD, &k, results);
	EXPECT(hits > 950 && hits <= 1000, "add hits %ld", hits);
	EXPECT((long)vt_popcount(results, 1000) == hits,
	       "add results %zu bits, hits %ld", vt_popcount(results, 1000),
	       hits);
	/* Bits past count in the last word are zero. */
	EXPECT(!(results[15] >> (1000 % 64)), "results past count");
	/* Adding again sets nothing new. */
	hits = vt_keys_op(fd, KBLOOM_IOC_ADD, &k, results);
	EXPECT(hits == 0 && vt_popcount(results, 1000) == 0,
	       "second add hits %ld", hits);
	hits = vt_keys_op(fd, KBLOOM_IOC_CHECK, &k, results);
	EXPECT(hits == 1000 && vt_popcount(results, 1000) == 1000,
	       "false negatives: check hits %ld", hits);
	vt_keys_free(&k);

	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.add_calls == 2000 && info.check_calls == 1000 &&
	       info.check_hits == 1000, "counters %llu %llu %llu",
	       (unsigned long long)info.add_calls,
	       (unsigned long long)info.check_calls,
	       (unsigned long long)info.check_hits);
	EXPECT(info.add_new > 950 && info.add_new <= 1000, "add_new %llu",
	       (unsigned long long)info.add_new);
	EXPECT(info.bits_set > 0 && info.fill_ppb > 0 && info.fp_now_ppb > 0,
	       "stats not updated");
	EXPECT(info.est_keys > 900 && info.est_keys < 1100, "est_keys %llu",
	       (unsigned long long)info.est_keys);

	/* Absent keys: about the target rate, 1 %. */
	hits = vt_check_prefix(fd, "absent", 0, 10000);
	EXPECT(hits >= 0 && hits < 300, "false positives %ld / 10000", hits);
	return vt_done(fd, "abi-add", NULL);
}

/* n keys of lengths 1..KBLOOM_KEY_MAX, bytes derived from salt. */
static int make_mixed_keys(struct vt_keys *k, uint32_t n, uint32_t salt)
{
	uint64_t off, x = 0x9e3779b97f4a7c15ULL + salt;
	uint32_t i;

	k->count = n;
	k->lens = calloc(n, 4);
	if (!k->lens)
		return -1;
	/* Full-length keys first, then short ones of every length. */
	for (k->keys_len = 0, i = 0; i < n; i++) {
		k->lens[i] = i < 64 ? KBLOOM_KEY_MAX : 1 + (i * 389u) % 64;
		k->keys_len += k->lens[i];
	}
	k->bytes = malloc(k->keys_len);
	if (!k->bytes)
		return -1;
	for (off = 0; off < k->keys_len; off++) {
		/* xorshift64: keys distinct across salts, unlike a ramp. */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k->bytes[off] = (char)(x >> 32);
	}
	return 0;
}

/* Is key i of k, checked alone, maybe present? -1 on error. */
static int check_one(int fd, const struct vt_keys *k, uint32_t i)
{
	struct vt_keys one;
	uint64_t off = 0, result = 0;
	uint32_t j;

	for (j = 0; j < i; j++)
		off += k->lens[j];
	one.bytes = k->bytes + off;
	one.lens = &k->lens[i];
	one.keys_len = k->lens[i];
	one.count = 1;
	if (vt_keys_op(fd, KBLOOM_IOC_CHECK, &one, &result) < 0)
		return -1;
	return result == 1;
}

/*
 * The largest batch, with keys of every length, crosses every chunk seam
 * inside the module: no false negative, and the answer for each key is the
 * one it gets alone (a misplaced result bit would show here).
 */
static const char *add_check_large_batches(void)
{
	uint32_t n = KBLOOM_BATCH_MAX, i, maybe = 0;
	uint64_t *results = calloc(n / 64, 8);
	struct vt_keys in, out;
	long hits;
	int fd, alone;

	EXPECT(results, "malloc");
	EXPECT_OK(make_mixed_keys(&in, n, 0));
	EXPECT_OK(make_mixed_keys(&out, n, 12345));
	fd = fresh_sized("abi-big", 200000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	hits = vt_keys_op(fd, KBLOOM_IOC_ADD, &in, NULL);
	EXPECT(hits > 0, "add: %ld (%s)", hits, vt_errno_name(errno));
	hits = vt_keys_op(fd, KBLOOM_IOC_CHECK, &in, results);
	EXPECT(hits == n && vt_popcount(results, n) == n,
	       "false negatives: %ld of %u found", hits, n);

	hits = vt_keys_op(fd, KBLOOM_IOC_CHECK, &out, results);
	EXPECT(hits >= 0 && (size_t)hits == vt_popcount(results, n),
	       "hits %ld, results %zu", hits, vt_popcount(results, n));
	EXPECT(hits < n / 50, "%ld false positives of %u", hits, n);
	for (i = 0; i < n; i++) {
		bool batch = (results[i / 64] >> (i % 64)) & 1;

		/* Every "maybe", and the keys next to each chunk seam. */
		if (!batch && i % 997 && (i % 1024) > 2 && (i % 1024) < 1021)
			continue;
		alone = check_one(fd, &out, i);
		EXPECT(alone == batch, "key %u: batch %d, alone %d", i, batch,
		       alone);
		maybe += batch;
	}
	EXPECT(maybe == hits, "maybe %u", maybe);
	vt_keys_free(&in);
	vt_keys_free(&out);
	free(results);
	return vt_done(fd, "abi-big", NULL);
}

static const char *add_key_length_limits(void)
{
	static char key[KBLOOM_KEY_MAX];
	struct kbloom_batch b;
	uint32_t len;
	int fd;

	fd = fresh("abi-keylen");
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	memset(key, 'k', sizeof(key));
	memset(&b, 0, sizeof(b));
	b.keys = (uintptr_t)key;
	b.lens = (uintptr_t)&len;
	b.count = 1;
	len = 1;
	b.keys_len = 1;
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_ADD, &b));
	EXPECT(b.hits == 1, "1-byte key hits %u", b.hits);
	len = KBLOOM_KEY_MAX;
	b.keys_len = KBLOOM_KEY_MAX;
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_ADD, &b));
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_CHECK, &b));
	EXPECT(b.hits == 1, "max-length key not found");
	return vt_done(fd, "abi-keylen", NULL);
}

/* Each malformed batch: ADD and CHECK fail with errno, filter unchanged. */
static const char *batch_rejected(const char *name,
				  void (*spoil)(struct kbloom_batch *b,
						uint32_t *lens),
				  int want)
{
	static const unsigned long cmds[] = { KBLOOM_IOC_ADD,
					      KBLOOM_IOC_CHECK };
	uint64_t results[2];
	struct kbloom_batch b;
	struct vt_keys k;
	struct vt_snap snap;
	const char *msg;
	size_t c;
	int fd;

	msg = fresh_with_keys(name, &fd, &snap);
	if (msg)
		return vt_done(fd, name, msg);
	for (c = 0; c < 2; c++) {
		if (vt_keys_make(&k, "bad", 0, 100))
			return vt_done(fd, name, "malloc");
		vt_batch(&b, &k, results);
		spoil(&b, k.lens);
		errno = 0;
		if (ioctl(fd, cmds[c], &b) != -1 || errno != want) {
			vt_keys_free(&k);
			vt_snap_free(&snap);
			return vt_done(fd, name,
				    vt_fail("%s: got %s, want %s",
					    c ? "CHECK" : "ADD",
					    vt_errno_name(errno),
					    vt_errno_name(want)));
		}
		vt_keys_free(&k);
	}
	return vt_done(fd, name, vt_snap_same(fd, &snap));
}

static void spoil_count_zero(struct kbloom_batch *b,
			__attribute__((unused)) uint32_t *lens)
{
	b->count = 0;
}

static void spoil_count_over(struct kbloom_batch *b,
			__attribute__((unused)) uint32_t *lens)
{
	b->count = KBLOOM_BATCH_MAX + 1;
}

static void spoil_empty_key(struct kbloom_batch *b, uint32_t *lens)
{
	b->keys_len -= lens[57];
	lens[57] = 0;
}

static void spoil_long_key(struct kbloom_batch *b, uint32_t *lens)
{
	b->keys_len += KBLOOM_KEY_MAX + 1 - lens[99];
	lens[99] = KBLOOM_KEY_MAX + 1;
}

static void spoil_lens_sum(struct kbloom_batch *b,
			__attribute__((unused)) uint32_t *lens)
{
	b->keys_len -= 1;
}

static void spoil_lens_sum_over(struct kbloom_batch *b,
			__attribute__((unused)) uint32_t *lens)
{
	b->keys_len += 1;
}

static void spoil_flags(struct kbloom_batch *b,
			__attribute__((unused)) uint32_t *lens)
{
	b->flags = 1;
}

static void spoil_pad(struct kbloom_batch *b,
			__attribute__((unused)) uint32_t *lens)
{
	b->pad = 0x100;
}

static void spoil_reserved0(struct kbloom_batch *b,
			__attribute__((unused)) uint32_t *lens)
{
	b->reserved[0] = 1;
}

static void spoil_reserved1(struct kbloom_batch *b,
			__attribute__((unused)) uint32_t *lens)
{
	b->reserved[1] = 1ULL << 63;
}

static void spoil_keys_pointer(struct kbloom_batch *b,
			__attribute__((unused)) uint32_t *lens)
{
	b->keys = 16;
}

static void spoil_keys_kernel_pointer(struct kbloom_batch *b,
			__attribute__((unused)) uint32_t *lens)
{
	b->keys = 0xffffffff81000000ULL;
}

static void spoil_lens_pointer(struct kbloom_batch *b,
			__attribute__((unused)) uint32_t *lens)
{
	b->lens = 0;
}

static void spoil_results_pointer(struct kbloom_batch *b,
			__attribute__((unused)) uint32_t *lens)
{
	b->results = 8;
}

static void *unmapped_page(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? (void *)8 : p;
}

static void spoil_results_protected(struct kbloom_batch *b,
			__attribute__((unused)) uint32_t *lens)
{
	b->results = (uintptr_t)unmapped_page();
}

#define BATCH_CASE(fn, spoil, want)					\
	static const char *fn(void)					\
	{								\
		return batch_rejected("b-" #spoil, spoil, want);		\
	}

BATCH_CASE(reject_batch_count_zero, spoil_count_zero, EINVAL)
BATCH_CASE(reject_batch_oversized, spoil_count_over, EINVAL)
BATCH_CASE(reject_batch_empty_key, spoil_empty_key, EINVAL)
BATCH_CASE(reject_batch_long_key, spoil_long_key, EINVAL)
BATCH_CASE(reject_batch_lens_short, spoil_lens_sum, EINVAL)
BATCH_CASE(reject_batch_lens_over, spoil_lens_sum_over, EINVAL)
BATCH_CASE(reject_batch_flags, spoil_flags, EINVAL)
BATCH_CASE(reject_batch_pad, spoil_pad, EINVAL)
BATCH_CASE(reject_batch_reserved0, spoil_reserved0, EINVAL)
BATCH_CASE(reject_batch_reserved1, spoil_reserved1, EINVAL)
BATCH_CASE(reject_batch_bad_keys, spoil_keys_pointer, EFAULT)
BATCH_CASE(reject_batch_kernel_keys, spoil_keys_kernel_pointer, EFAULT)
BATCH_CASE(reject_batch_bad_lens, spoil_lens_pointer, EFAULT)
BATCH_CASE(reject_batch_bad_results, spoil_results_pointer, EFAULT)
BATCH_CASE(reject_batch_unmapped_results, spoil_results_protected, EFAULT)

static const char *reject_batch_bad_struct(void)
{
	struct vt_snap snap;
	const char *msg;
	int fd;

	msg = fresh_with_keys("abi-bstruct", &fd, &snap);
	if (msg)
		return vt_done(fd, "abi-bstruct", msg);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_ADD, NULL), EFAULT);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_CHECK, unmapped_page()), EFAULT);
	return vt_done(fd, "abi-bstruct", vt_snap_same(fd, &snap));
}

/* ---- filter node: CLEAR, MERGE, INTERSECT, GET_INFO, REPORT ---- */

static const char *clear_round_trip(void)
{
	struct kbloom_report rep = { .false_positives = 3 };
	struct kbloom_info info;
	int fd;

	fd = fresh("abi-clear");
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "c", 0, 500) > 0, "add");
	EXPECT(vt_check_prefix(fd, "c", 0, 10) == 10, "check");
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_REPORT, &rep));
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_CLEAR, 0));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(!info.bits_set && !info.add_calls && !info.add_new &&
	       !info.check_calls && !info.check_hits && !info.reported_fp &&
	       !info.fill_ppb && !info.fp_now_ppb && !info.est_keys,
	       "counters survive clear");
	EXPECT(info.seed == SEED && info.capacity == 1000,
	       "geometry changed");
	EXPECT(vt_check_prefix(fd, "c", 0, 500) == 0, "keys survive clear");
	return vt_done(fd, "abi-clear", NULL);
}

static const char *reject_clear_argument(void)
{
	struct vt_snap snap;
	const char *msg;
	int fd;

	msg = fresh_with_keys("abi-clrarg", &fd, &snap);
	if (msg)
		return vt_done(fd, "abi-clrarg", msg);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_CLEAR, 1), EINVAL);
	return vt_done(fd, "abi-clrarg", vt_snap_same(fd, &snap));
}

static int combine(int fd, unsigned long cmd, int other)
{
	struct kbloom_other o = { .fd = other };

	return ioctl(fd, cmd, &o);
}

static const char *merge_round_trip(void)
{
	struct kbloom_info ia, ib, im;
	int a = fresh("abi-ma"), b = fresh("abi-mb");

	EXPECT(a >= 0 && b >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(a, "a", 0, 400) > 0, "add a");
	EXPECT(vt_add_prefix(b, "b", 0, 400) > 0, "add b");
	EXPECT_OK(vt_info(a, &ia));
	EXPECT_OK(vt_info(b, &ib));
	EXPECT_OK(combine(a, KBLOOM_IOC_MERGE, b));
	EXPECT(vt_check_prefix(a, "a", 0, 400) == 400, "lost a keys");
	EXPECT(vt_check_prefix(a, "b", 0, 400) == 400, "b keys missing");
	EXPECT_OK(vt_info(a, &im));
	EXPECT(im.bits_set >= ia.bits_set && im.bits_set >= ib.bits_set &&
	       im.bits_set <= ia.bits_set + ib.bits_set, "bits_set %llu",
	       (unsigned long long)im.bits_set);
	EXPECT(im.add_calls == ia.add_calls + ib.add_calls, "add_calls");
	/* The source is untouched. */
	EXPECT(vt_check_prefix(b, "a", 0, 400) < 40, "b changed");
	/* Merging a filter into itself changes nothing. */
	EXPECT_OK(vt_info(a, &ia));
	EXPECT_OK(combine(a, KBLOOM_IOC_MERGE, a));
	EXPECT_OK(vt_info(a, &im));
	EXPECT(im.bits_set == ia.bits_set, "self merge changed bits");
	close(b);
	vt_destroy("abi-mb");
	return vt_done(a, "abi-ma", NULL);
}

static const char *intersect_round_trip(void)
{
	int a = fresh("abi-ia"), b = fresh("abi-ib");
	long only_a;

	EXPECT(a >= 0 && b >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(a, "both", 0, 300) > 0, "add a");
	EXPECT(vt_add_prefix(a, "a", 0, 300) > 0, "add a");
	EXPECT(vt_add_prefix(b, "both", 0, 300) > 0, "add b");
	EXPECT(vt_add_prefix(b, "b", 0, 300) > 0, "add b");
	EXPECT_OK(combine(a, KBLOOM_IOC_INTERSECT, b));
	EXPECT(vt_check_prefix(a, "both", 0, 300) == 300,
	       "keys of both lost");
	only_a = vt_check_prefix(a, "a", 0, 300);
	EXPECT(only_a >= 0 && only_a < 30, "%ld of 300 a-only keys remain",
	       only_a);
	close(b);
	vt_destroy("abi-ib");
	return vt_done(a, "abi-ia", NULL);
}

static const char *reject_merge_incompatible(void)
{
	struct kbloom_create req;
	struct vt_snap snap;
	const char *msg;
	int fd, other, other2;

	msg = fresh_with_keys("abi-xdev", &fd, &snap);
	if (msg)
		return vt_done(fd, "abi-xdev", msg);
	/* Same size, other seed. */
	vt_destroy("abi-xdev-seed");
	vt_create("abi-xdev-seed", 1000, FP_1PC, SEED + 1);
	other = vt_open("abi-xdev-seed", O_RDWR);
	/* Same seed, other size. */
	vt_destroy("abi-xdev-size");
	vt_create_req(&req, "abi-xdev-size", 0, 0);
	req.bits = 512 * 3;
	req.flags = KBLOOM_CREATE_SEED;
	req.seed = SEED;
	vt_create_raw(&req);
	other2 = vt_open("abi-xdev-size", O_RDWR);
	EXPECT(other >= 0 && other2 >= 0, "open: %s", vt_errno_name(errno));
	vt_add_prefix(other, "o", 0, 100);
	vt_add_prefix(other2, "o", 0, 100);
	EXPECT_ERRNO(combine(fd, KBLOOM_IOC_MERGE, other), EXDEV);
	EXPECT_ERRNO(combine(fd, KBLOOM_IOC_INTERSECT, other), EXDEV);
	EXPECT_ERRNO(combine(fd, KBLOOM_IOC_MERGE, other2), EXDEV);
	EXPECT_ERRNO(combine(fd, KBLOOM_IOC_INTERSECT, other2), EXDEV);
	close(other);
	close(other2);
	vt_destroy("abi-xdev-seed");
	vt_destroy("abi-xdev-size");
	return vt_done(fd, "abi-xdev", vt_snap_same(fd, &snap));
}

static const char *reject_merge_bad_fd(void)
{
	struct vt_snap snap;
	const char *msg;
	int fd, devnull, other_wo, ctl;

	msg = fresh_with_keys("abi-badfd", &fd, &snap);
	if (msg)
		return vt_done(fd, "abi-badfd", msg);
	devnull = open("/dev/null", O_RDWR);
	ctl = vt_ctl(O_RDWR);
	vt_destroy("abi-badfd-wo");
	vt_create("abi-badfd-wo", 1000, FP_1PC, SEED);
	other_wo = vt_open("abi-badfd-wo", O_WRONLY);
	EXPECT(devnull >= 0 && ctl >= 0 && other_wo >= 0, "open: %s",
	       vt_errno_name(errno));
	vt_add_prefix(other_wo, "wo", 0, 100);
	EXPECT_ERRNO(combine(fd, KBLOOM_IOC_MERGE, devnull), EBADF);
	EXPECT_ERRNO(combine(fd, KBLOOM_IOC_MERGE, ctl), EBADF);
	EXPECT_ERRNO(combine(fd, KBLOOM_IOC_INTERSECT, 9999), EBADF);
	EXPECT_ERRNO(combine(fd, KBLOOM_IOC_MERGE, -1), EBADF);
	/* The other filter must be open for reading. */
	EXPECT_ERRNO(combine(fd, KBLOOM_IOC_MERGE, other_wo), EBADF);
	EXPECT_ERRNO(combine(fd, KBLOOM_IOC_INTERSECT, other_wo), EBADF);
	close(devnull);
	close(ctl);
	close(other_wo);
	vt_destroy("abi-badfd-wo");
	return vt_done(fd, "abi-badfd", vt_snap_same(fd, &snap));
}

static const char *reject_merge_fields(void)
{
	struct kbloom_other o;
	struct vt_snap snap;
	const char *msg;
	int fd, other;

	msg = fresh_with_keys("abi-mfield", &fd, &snap);
	if (msg)
		return vt_done(fd, "abi-mfield", msg);
	vt_destroy("abi-mfield-o");
	vt_create("abi-mfield-o", 1000, FP_1PC, SEED);
	other = vt_open("abi-mfield-o", O_RDWR);
	EXPECT(other >= 0, "open: %s", vt_errno_name(errno));
	vt_add_prefix(other, "o", 0, 100);
	memset(&o, 0, sizeof(o));
	o.fd = other;
	o.flags = 1;
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_MERGE, &o), EINVAL);
	o.flags = 0;
	o.reserved[0] = 1;
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_INTERSECT, &o), EINVAL);
	o.reserved[0] = 0;
	o.reserved[1] = 1;
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_MERGE, &o), EINVAL);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_MERGE, NULL), EFAULT);
	close(other);
	vt_destroy("abi-mfield-o");
	return vt_done(fd, "abi-mfield", vt_snap_same(fd, &snap));
}

static const char *get_info_bad_pointer(void)
{
	int fd = fresh("abi-infoptr");

	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_GET_INFO, NULL), EFAULT);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_GET_INFO, unmapped_page()), EFAULT);
	return vt_done(fd, "abi-infoptr", NULL);
}

static const char *report_round_trip(void)
{
	struct kbloom_report rep = {
		.false_positives = 10, .true_positives = 5,
		.true_negatives = 90,
	};
	struct kbloom_info info;
	int fd = fresh("abi-report");

	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_REPORT, &rep));
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_REPORT, &rep));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.reported_fp == 20 && info.reported_tp == 10 &&
	       info.reported_tn == 180, "sums %llu %llu %llu",
	       (unsigned long long)info.reported_fp,
	       (unsigned long long)info.reported_tp,
	       (unsigned long long)info.reported_tn);
	/* 20 / (20 + 180) = 10 %: true negatives count (Cassandra's fix). */
	EXPECT(info.observed_fp_ppb == 100000000, "observed %u",
	       info.observed_fp_ppb);
	/*
	 * One report carries at most KBLOOM_REPORT_MAX answers (its bound
	 * is test-semantics' report_over_max_rejected).
	 */
	rep.false_positives = KBLOOM_REPORT_MAX / 2;
	rep.true_negatives = KBLOOM_REPORT_MAX / 2;
	rep.true_positives = 0;
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_REPORT, &rep));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.reported_fp == 20 + KBLOOM_REPORT_MAX / 2 &&
	       info.observed_fp_ppb == 499999981, "large report: %u",
	       info.observed_fp_ppb);
	return vt_done(fd, "abi-report", NULL);
}

static const char *reject_report_fields(void)
{
	struct kbloom_report rep;
	struct vt_snap snap;
	const char *msg;
	int fd;

	msg = fresh_with_keys("abi-repf", &fd, &snap);
	if (msg)
		return vt_done(fd, "abi-repf", msg);
	memset(&rep, 0, sizeof(rep));
	rep.false_positives = 1;
	rep.flags = 2;
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_REPORT, &rep), EINVAL);
	rep.flags = 0;
	rep.pad = 1;
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_REPORT, &rep), EINVAL);
	rep.pad = 0;
	rep.reserved[1] = 1;
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_REPORT, &rep), EINVAL);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_REPORT, NULL), EFAULT);
	return vt_done(fd, "abi-repf", vt_snap_same(fd, &snap));
}

static const char *reject_filter_unknown_command(void)
{
	struct kbloom_batch b;
	struct vt_snap snap;
	const char *msg;
	char buf[256] = { 0 };
	int fd;

	msg = fresh_with_keys("abi-enotty", &fd, &snap);
	if (msg)
		return vt_done(fd, "abi-enotty", msg);
	memset(&b, 0, sizeof(b));
	EXPECT_ERRNO(ioctl(fd, _IO(KBLOOM_IOC_MAGIC, 0x17), 0), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOWR(KBLOOM_IOC_MAGIC, 0x18,
				     struct kbloom_batch), &b), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOWR(KBLOOM_IOC_MAGIC, 0x10, __u64), &b),
		     ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOWR('x', 0x10, struct kbloom_batch), &b),
		     ENOTTY);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_CTL_CREATE, buf), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_CTL_DESTROY, buf), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, TCGETS, buf), ENOTTY);
	return vt_done(fd, "abi-enotty", vt_snap_same(fd, &snap));
}

/* ---- access modes of an open file ---- */

static const char *reject_read_only_writes(void)
{
	struct kbloom_batch b;
	struct vt_keys k;
	struct vt_snap snap;
	const char *msg;
	int fd, ro;

	msg = fresh_with_keys("abi-rdonly", &fd, &snap);
	if (msg)
		return vt_done(fd, "abi-rdonly", msg);
	ro = vt_open("abi-rdonly", O_RDONLY);
	EXPECT(ro >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_keys_make(&k, "ro", 0, 10));
	vt_batch(&b, &k, NULL);
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_ADD, &b), EBADF);
	/* EBADF before EOPNOTSUPP: this is a bits filter. */
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_DELETE, &b), EBADF);
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_CLEAR, 0), EBADF);
	EXPECT_ERRNO(combine(ro, KBLOOM_IOC_MERGE, fd), EBADF);
	EXPECT_ERRNO(combine(ro, KBLOOM_IOC_INTERSECT, fd), EBADF);
	EXPECT_ERRNO(write(ro, "x", 1), EBADF);
	msg = vt_snap_same(fd, &snap);
	/* What reading allows still works. */
	if (!msg && vt_keys_op(ro, KBLOOM_IOC_CHECK, &k, NULL) < 0)
		msg = vt_fail("CHECK on a read-only file: %s",
			      vt_errno_name(errno));
	vt_keys_free(&k);
	close(ro);
	return vt_done(fd, "abi-rdonly", msg);
}

static const char *reject_write_only_reads(void)
{
	struct kbloom_report rep = { .false_positives = 1 };
	struct kbloom_info info;
	struct kbloom_batch b;
	struct vt_keys k;
	struct vt_snap snap;
	const char *msg;
	char c;
	int fd, wo;

	msg = fresh_with_keys("abi-wronly", &fd, &snap);
	if (msg)
		return vt_done(fd, "abi-wronly", msg);
	wo = vt_open("abi-wronly", O_WRONLY);
	EXPECT(wo >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_keys_make(&k, "base", 0, 10));
	vt_batch(&b, &k, NULL);
	EXPECT_ERRNO(ioctl(wo, KBLOOM_IOC_CHECK, &b), EBADF);
	EXPECT_ERRNO(ioctl(wo, KBLOOM_IOC_GET_INFO, &info), EBADF);
	EXPECT_ERRNO(ioctl(wo, KBLOOM_IOC_REPORT, &rep), EBADF);
	EXPECT_ERRNO(read(wo, &c, 1), EBADF);
	vt_keys_free(&k);
	close(wo);
	return vt_done(fd, "abi-wronly", vt_snap_same(fd, &snap));
}

/* ---- lifetime ---- */

static const char *destroyed_filter_enodev(void)
{
	struct kbloom_report rep = { 0 };
	struct kbloom_info info;
	struct kbloom_batch b;
	struct vt_keys k;
	uint8_t buf[64];
	int fd, live, ro;

	fd = fresh("abi-dead");
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	ro = vt_open("abi-dead", O_RDONLY);
	EXPECT(ro >= 0, "open: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "d", 0, 100) > 0, "add");
	live = fresh("abi-live");
	EXPECT(live >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(vt_destroy("abi-dead"));

	EXPECT_OK(vt_keys_make(&k, "d", 0, 10));
	vt_batch(&b, &k, NULL);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_ADD, &b), ENODEV);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_CHECK, &b), ENODEV);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_DELETE, &b), ENODEV);
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_CHECK, &b), ENODEV);
	vt_keys_free(&k);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_CLEAR, 0), ENODEV);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_GET_INFO, &info), ENODEV);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_REPORT, &rep), ENODEV);
	EXPECT_ERRNO(combine(fd, KBLOOM_IOC_MERGE, live), ENODEV);
	EXPECT_ERRNO(combine(fd, KBLOOM_IOC_INTERSECT, live), ENODEV);
	/* A dead filter as the source fails too, and leaves live alone. */
	EXPECT_ERRNO(combine(live, KBLOOM_IOC_MERGE, ro), ENODEV);
	EXPECT_ERRNO(read(fd, buf, sizeof(buf)), ENODEV);
	EXPECT_ERRNO(pread(ro, buf, sizeof(buf), 0), ENODEV);
	EXPECT_ERRNO(write(fd, buf, sizeof(buf)), ENODEV);
	/* Even malformed calls say the filter is gone. */
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_CLEAR, 5), ENODEV);
	/* Unknown commands are still unknown. */
	EXPECT_ERRNO(ioctl(fd, _IO(KBLOOM_IOC_MAGIC, 0x30), 0), ENOTTY);
	EXPECT(access("/dev/kbloom/abi-dead", F_OK), "node left behind");
	EXPECT_ERRNO(vt_open("abi-dead", O_RDWR), ENOENT);
	EXPECT_OK(close(fd));
	EXPECT_OK(close(ro));
	EXPECT(vt_check_prefix(live, "d", 0, 100) < 10, "live filter changed");
	return vt_done(live, "abi-live", NULL);
}

static const char *destroyed_name_reusable_while_open(void)
{
	struct kbloom_info info;
	int old, new;

	old = fresh("abi-reuse");
	EXPECT(old >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(old, "old", 0, 100) > 0, "add");
	EXPECT_OK(vt_destroy("abi-reuse"));
	EXPECT_OK(vt_create("abi-reuse", 2000, FP_1PC, 0));
	new = vt_open("abi-reuse", O_RDWR);
	EXPECT(new >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(new, &info));
	EXPECT(info.capacity == 2000 && !info.add_calls, "got the old one");
	EXPECT_ERRNO(ioctl(old, KBLOOM_IOC_GET_INFO, &info), ENODEV);
	close(old);
	return vt_done(new, "abi-reuse", NULL);
}

/*
 * An open that resolved /dev/kbloom/<name> just before destroy holds the
 * old device number.  It must not reach a filter created a moment later:
 * minors are handed out cyclically, so the stale number finds no device.
 * A private node with the old number stands in for that racing open.
 */
static const char *destroyed_minor_not_reused(void)
{
	const char *stale = "/tmp/abi-stale-node";
	struct stat old_st, new_st;
	int fd;

	EXPECT_OK(vt_create("abi-minor-a", 1000, FP_1PC, 0));
	EXPECT_OK(stat("/dev/kbloom/abi-minor-a", &old_st));
	EXPECT_OK(vt_destroy("abi-minor-a"));
	EXPECT_OK(vt_create("abi-minor-b", 1000, FP_1PC, 0));
	EXPECT_OK(stat("/dev/kbloom/abi-minor-b", &new_st));
	EXPECT(new_st.st_rdev != old_st.st_rdev,
	       "the new filter got the destroyed one's minor %u",
	       minor(old_st.st_rdev));
	unlink(stale);
	EXPECT_OK(mknod(stale, S_IFCHR | 0600, old_st.st_rdev));
	fd = open(stale, O_RDWR);
	unlink(stale);
	if (fd >= 0)
		close(fd);
	EXPECT(fd < 0, "the destroyed filter's number opened a device");
	EXPECT(errno == ENXIO, "open of the old number: %s, want ENXIO",
	       vt_errno_name(errno));
	EXPECT_OK(vt_destroy("abi-minor-b"));
	return NULL;
}

/* ---- sysfs ---- */

static const char *sysfs_matches_info(void)
{
	struct kbloom_report rep = { 7, 8, 9, 0, 0, { 0 } };
	struct kbloom_info info;
	uint64_t bytes_before, bytes_after;
	int fd;

	EXPECT_OK(vt_read_u64_file(VT_SYSFS "/total_bytes", &bytes_before));
	fd = fresh("abi-sysfs");
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "s", 0, 700) > 0, "add");
	EXPECT(vt_check_prefix(fd, "s", 0, 50) == 50, "check");
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_REPORT, &rep));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT_NULL(vt_sysfs_matches_info("abi-sysfs", &info));
	EXPECT_OK(vt_read_u64_file(VT_SYSFS "/total_bytes", &bytes_after));
	EXPECT(bytes_after == bytes_before + info.bytes,
	       "total_bytes %llu -> %llu, filter %llu",
	       (unsigned long long)bytes_before,
	       (unsigned long long)bytes_after,
	       (unsigned long long)info.bytes);
	return vt_done(fd, "abi-sysfs", NULL);
}

static const struct vt_case cases[] = {
#define CASE(fn) { #fn, fn }
	CASE(create_by_rate),
	CASE(create_by_bits),
	CASE(create_by_bits_best_k),
	CASE(create_by_bits_per_key),
	CASE(create_random_seed),
	CASE(create_node_mode),
	CASE(create_names_valid),
	CASE(reject_name_empty),
	CASE(reject_name_too_long),
	CASE(reject_name_chars),
	CASE(reject_name_garbage_after_nul),
	CASE(reject_name_duplicate),
	CASE(reject_name_reserved),
	CASE(reject_create_reserved),
	CASE(reject_create_flags),
	CASE(reject_create_seed_without_flag),
	CASE(reject_create_geometry),
	CASE(reject_create_type),
	CASE(reject_create_node_mode),
	CASE(reject_create_too_big),
	CASE(reject_create_bad_pointer),
	CASE(reject_control_unknown_command),
	CASE(reject_control_read_only),
	CASE(destroy_round_trip),
	CASE(reject_destroy_unknown),
	CASE(reject_destroy_bad_name),
	CASE(reject_destroy_reserved),
	CASE(add_check_round_trip),
	CASE(add_check_large_batches),
	CASE(add_key_length_limits),
	CASE(reject_batch_count_zero),
	CASE(reject_batch_oversized),
	CASE(reject_batch_empty_key),
	CASE(reject_batch_long_key),
	CASE(reject_batch_lens_short),
	CASE(reject_batch_lens_over),
	CASE(reject_batch_flags),
	CASE(reject_batch_pad),
	CASE(reject_batch_reserved0),
	CASE(reject_batch_reserved1),
	CASE(reject_batch_bad_keys),
	CASE(reject_batch_kernel_keys),
	CASE(reject_batch_bad_lens),
	CASE(reject_batch_bad_results),
	CASE(reject_batch_unmapped_results),
	CASE(reject_batch_bad_struct),
	CASE(clear_round_trip),
	CASE(reject_clear_argument),
	CASE(merge_round_trip),
	CASE(intersect_round_trip),
	CASE(reject_merge_incompatible),
	CASE(reject_merge_bad_fd),
	CASE(reject_merge_fields),
	CASE(get_info_bad_pointer),
	CASE(report_round_trip),
	CASE(reject_report_fields),
	CASE(reject_filter_unknown_command),
	CASE(reject_read_only_writes),
	CASE(reject_write_only_reads),
	CASE(destroyed_filter_enodev),
	CASE(destroyed_name_reusable_while_open),
	CASE(destroyed_minor_not_reused),
	CASE(sysfs_matches_info),
#undef CASE
};

int main(void)
{
	return vt_run("abi", cases, sizeof(cases) / sizeof(cases[0]));
}
