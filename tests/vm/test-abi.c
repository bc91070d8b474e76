// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl contract through the real device: the control node's CREATE
 * and DESTROY, and the filter node's CLEAR, MERGE, INTERSECT, GET_INFO and
 * REPORT, access modes and lifetime, the filter-node cases once per filter
 * type.  Every command round-trips, and every rejection returns its
 * documented errno with the filter left exactly as it was (GET_INFO and
 * the image compared byte for byte).  Batched ADD, CHECK and DELETE are
 * test-batch's.
 */
#include <sys/sysmacros.h>

#include "vmtest.h"

#define SEED	0x5eed5eed12345678ULL
#define FP_1PC	10000000U

/* A fresh filter of type t for one case, opened read-write; -1 on failure. */
static int fresh(const char *name, const struct vt_type *t)
{
	return vt_fresh(name, t->type, 1000, 0, 0, SEED);
}

/* A filter of type t made from req, opened read-write, and its info. */
static const char *create_info(const char *name, const struct vt_type *t,
			       struct kbloom_create *req,
			       struct kbloom_info *info)
{
	int fd;

	vt_destroy(name);
	vt_req_type(req, t);
	EXPECT_OK(vt_create_raw(req));
	fd = vt_open(name, O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, info));
	close(fd);
	return NULL;
}

/* ---- control node: create ---- */

static const char *create_by_rate(const struct vt_type *t)
{
	struct kbloom_info info, bits_info;
	uint64_t v;
	int fd;

	fd = fresh("abi-rate", t);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(!strcmp(info.name, "abi-rate"), "name %s", info.name);
	EXPECT(info.capacity == 1000 * vt_window_gens(t), "capacity %llu",
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
	EXPECT(info.type == t->type, "type %u", info.type);
	EXPECT_OK(vt_sysfs_u64("abi-rate", "type", &v));
	EXPECT(v == t->type, "sysfs type %llu", (unsigned long long)v);
	EXPECT(!info.add_calls && !info.bits_set && !info.saturated &&
	       !info.delete_calls && !info.delete_hits,
	       "new filter not empty");
	EXPECT(!info.pad && !info.reserved[0] && !info.reserved[2],
	       "padding not zeroed");
	/* The caps count the rest too: at least the cells' whole pages. */
	EXPECT(info.held_bytes >= ((info.bytes + 4095) & ~4095ULL) + 4096,
	       "held_bytes %llu for %llu bytes of cells",
	       (unsigned long long)info.held_bytes,
	       (unsigned long long)info.bytes);
	EXPECT_OK(vt_sysfs_u64("abi-rate", "held_bytes", &v));
	EXPECT(v == info.held_bytes, "sysfs held_bytes %llu, info %llu",
	       (unsigned long long)v, (unsigned long long)info.held_bytes);
	EXPECT(!info.expansion && !info.subfilters, "fixed filter scalable");
	close(fd);

	/*
	 * Cells of vt_cell_bits() bits, and fewer in a block: at least that
	 * many times the bytes of a bits filter for the same rate.
	 */
	if (!t->generations) {
		fd = fresh("abi-rate", vt_types);
		EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
		EXPECT_OK(vt_info(fd, &bits_info));
		EXPECT(info.bytes >= vt_cell_bits(t) * bits_info.bytes &&
		       info.bytes < (vt_cell_bits(t) + 1) * bits_info.bytes,
		       "%llu bytes, bits filter %llu",
		       (unsigned long long)info.bytes,
		       (unsigned long long)bits_info.bytes);
		return vt_done(fd, "abi-rate", NULL);
	}
	/*
	 * A window: each of its g generations a blocked filter of 1000 keys
	 * (here) at about 1/g of the window's rate, in cells of P bits, so
	 * about P times the bytes of a bits filter for 1000 keys at 1 %/g
	 * (a little less: the exact rate of g is below g times one's).
	 */
	vt_destroy("abi-rate");
	EXPECT_OK(vt_create(/* bits */ "abi-rate", 1000,
			    FP_1PC / t->generations, SEED));
	fd = vt_open("abi-rate", O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &bits_info));
	EXPECT(info.bytes * 100 >= 85 * vt_cell_bits(t) * bits_info.bytes &&
	       info.bytes * 100 <= 110 * vt_cell_bits(t) * bits_info.bytes,
	       "%llu bytes, bits filter at 1/%u of the rate %llu",
	       (unsigned long long)info.bytes, t->generations,
	       (unsigned long long)bits_info.bytes);
	return vt_done(fd, "abi-rate", NULL);
}

static const char *create_by_bits(const struct vt_type *t)
{
	struct kbloom_create req;
	struct kbloom_info info;

	vt_create_req(&req, "abi-bits", 0, 0);
	/* bits of memory: round up to two blocks, or a window's key block */
	req.bits = 1000;
	req.k = 3;
	EXPECT_NULL(create_info("abi-bits", t, &req, &info));
	EXPECT(info.nblocks == (vt_planes(t) > 2 ? vt_planes(t) : 2) &&
	       info.bits == info.nblocks * 512 && info.k == 3,
	       "nblocks %llu k %u", (unsigned long long)info.nblocks, info.k);
	EXPECT(info.capacity == 0 && info.fp_target_ppb == 0,
	       "capacity/target set");
	EXPECT_OK(vt_destroy("abi-bits"));
	return NULL;
}

/* 10 cells a key: the best k of the type's table row. */
static const char *create_by_bits_best_k(const struct vt_type *t)
{
	struct kbloom_create req;
	struct kbloom_info info;

	/* A window's 1000 keys of each generation: g - 1 times that. */
	vt_create_req(&req, "abi-bits-k0", 1000 * vt_window_gens(t), 0);
	req.bits = 10240 * vt_cell_bits(t);
	EXPECT_NULL(create_info("abi-bits-k0", t, &req, &info));
	EXPECT(info.nblocks == 20 * vt_cell_bits(t) &&
	       info.k >= t->k10_min && info.k <= t->k10_max,
	       "nblocks %llu k %u", (unsigned long long)info.nblocks, info.k);
	EXPECT(info.capacity == 1000 * vt_window_gens(t), "capacity %llu",
	       (unsigned long long)info.capacity);
	EXPECT_OK(vt_destroy("abi-bits-k0"));
	return NULL;
}

/* 1000 keys of c cells each: whole blocks (a window's key blocks). */
static uint64_t bpk_blocks(const struct vt_type *t, uint32_t c)
{
	uint64_t n = (1000ULL * vt_key_bits(t, c) + 511) / 512;

	return (n + vt_planes(t) - 1) / vt_planes(t) * vt_planes(t);
}

static const char *create_by_bits_per_key(const struct vt_type *t)
{
	uint64_t want = bpk_blocks(t, 16);
	struct kbloom_create req;
	struct kbloom_info info;

	/* 10 cells a key, k chosen: the best k again. */
	vt_create_req(&req, "abi-bpk", 1000, 0);
	req.bits_per_key = vt_key_bits(t, 10);
	EXPECT_NULL(create_info("abi-bpk", t, &req, &info));
	EXPECT(info.nblocks == bpk_blocks(t, 10) &&
	       info.k >= t->k10_min && info.k <= t->k10_max &&
	       info.capacity == 1000, "nblocks %llu k %u",
	       (unsigned long long)info.nblocks, info.k);
	/* 16 cells a key round up to whole blocks; k as asked. */
	vt_create_req(&req, "abi-bpk", 1000, 0);
	req.bits_per_key = vt_key_bits(t, 16);
	req.k = 9;
	EXPECT_NULL(create_info("abi-bpk", t, &req, &info));
	EXPECT(info.nblocks == want && info.k == 9 && info.capacity == 1000,
	       "nblocks %llu k %u, want %llu", (unsigned long long)info.nblocks,
	       info.k, (unsigned long long)want);
	EXPECT_OK(vt_destroy("abi-bpk"));
	return NULL;
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

	for (i = 0; i < ARRAY_SIZE(names); i++) {
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

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_ERRNO(vt_create(bad[i], 1000, FP_1PC, 0), EINVAL);
	return NULL;
}

static const char *reject_name_garbage_after_nul(void)
{
	EXPECT_ERRNO(create_with_name_bytes("ab\0cd", 6), EINVAL);
	EXPECT(access("/dev/kbloom/ab", F_OK), "ab created");
	return NULL;
}

static const char *name_duplicate_held(struct vt_held *h)
{
	EXPECT_ERRNO(vt_create(h->name, 5000, FP_1PC, 0), EEXIST);
	return NULL;
}

static const char *reject_name_duplicate(void)
{
	return vt_held_run("abi-dup", vt_types, SEED, 1, name_duplicate_held);
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

	for (i = 0; i < (int)ARRAY_SIZE(req.reserved); i++) {
		vt_create_req(&req, "abi-res", 1000, FP_1PC);
		req.reserved[i] = 1ULL << (i * 16);
		EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	}
	EXPECT(access("/dev/kbloom/abi-res", F_OK), "filter created");
	return NULL;
}

/*
 * Each value of bad[] in the u32 field at off of an otherwise good request
 * is EINVAL, and no filter of that name appears.
 */
static const char *reject_create_u32(const char *name, size_t off,
				     const uint32_t *bad, size_t n)
{
	struct kbloom_create req;
	char node[64];
	size_t i;

	for (i = 0; i < n; i++) {
		vt_create_req(&req, name, 1000, FP_1PC);
		memcpy((char *)&req + off, &bad[i], sizeof(bad[i]));
		EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	}
	snprintf(node, sizeof(node), "/dev/kbloom/%s", name);
	EXPECT(access(node, F_OK), "filter created");
	return NULL;
}

static const char *reject_create_flags(void)
{
	uint32_t bad[31];
	int bit;

	/* Bit 0 is KBLOOM_CREATE_SEED; every other one is unknown. */
	for (bit = 1; bit < 32; bit++)
		bad[bit - 1] = 1U << bit;
	return reject_create_u32("abi-flags",
				 offsetof(struct kbloom_create, flags), bad,
				 ARRAY_SIZE(bad));
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
	const struct vt_type *t;
	uint32_t next = 0;

	/* The types are numbered from 0: the ones past the table's. */
	vt_for_each_type(t, 0)
		if (t->type >= next)
			next = t->type + 1;
	return reject_create_u32("abi-type",
				 offsetof(struct kbloom_create, type),
				 (const uint32_t[]){ next, next + 1,
						     0x80000000U, UINT32_MAX },
				 4);
}

static const char *reject_create_node_mode(void)
{
	/* Only permission bits: not setuid, nothing past 07777. */
	return reject_create_u32("abi-nmode",
				 offsetof(struct kbloom_create, node_mode),
				 (const uint32_t[]){ 04600, 0x10000 }, 2);
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

static const char *destroy_reserved_held(struct vt_held *h)
{
	struct kbloom_name req;
	int ctl = vt_ctl(O_RDWR);

	EXPECT(ctl >= 0, "open control: %s", vt_errno_name(errno));
	memset(&req, 0, sizeof(req));
	strcpy(req.name, h->name);
	req.reserved[1] = 1;
	EXPECT_ERRNO(ioctl(ctl, KBLOOM_CTL_DESTROY, &req), EINVAL);
	close(ctl);
	return NULL;
}

static const char *reject_destroy_reserved(void)
{
	return vt_held_run("abi-dres", vt_types, SEED, 1,
			   destroy_reserved_held);
}

/* ---- filter node: CLEAR, MERGE, INTERSECT, GET_INFO, REPORT ---- */

static const char *clear_round_trip(const struct vt_type *t)
{
	struct kbloom_report rep = { .false_positives = 3 };
	struct kbloom_info info;
	int fd;

	fd = fresh("abi-clear", t);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "c", 0, 500) > 0, "add");
	EXPECT(vt_check_prefix(fd, "c", 0, 10) == 10, "check");
	if (t->caps & VT_DELETES)
		EXPECT(vt_delete_prefix(fd, "c", 0, 10) == 10, "delete");
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_REPORT, &rep));
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_CLEAR, 0));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(!info.bits_set && !info.add_calls && !info.add_new &&
	       !info.check_calls && !info.check_hits && !info.reported_fp &&
	       !info.delete_calls && !info.delete_hits &&
	       !info.fill_ppb && !info.fp_now_ppb && !info.est_keys,
	       "counters survive clear");
	EXPECT(info.seed == SEED && info.capacity == 1000 * vt_window_gens(t) &&
	       info.type == t->type, "geometry changed");
	EXPECT(vt_check_prefix(fd, "c", 0, 500) == 0, "keys survive clear");
	return vt_done(fd, "abi-clear", NULL);
}

static const char *reject_clear_argument_held(struct vt_held *h)
{
	EXPECT_ERRNO(ioctl(h->fd, KBLOOM_IOC_CLEAR, 1), EINVAL);
	return NULL;
}
VT_HELD_CASE(reject_clear_argument, 1)

/*
 * a holds "a" and "both", b holds "b" and "both": after the merge a has
 * all three, b is untouched.  Where the type deletes, the union counts
 * "both" twice, so one delete leaves it in.
 */
static const char *merge_round_trip(const struct vt_type *t)
{
	struct kbloom_info ia, ib, im;
	int a = fresh("abi-ma", t), b = fresh("abi-mb", t);

	EXPECT(a >= 0 && b >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(a, "a", 0, 400) > 0, "add a");
	EXPECT(vt_add_prefix(b, "b", 0, 400) > 0, "add b");
	EXPECT(vt_add_prefix(a, "both", 0, 300) > 0, "add a");
	EXPECT(vt_add_prefix(b, "both", 0, 300) > 0, "add b");
	EXPECT_OK(vt_info(a, &ia));
	EXPECT_OK(vt_info(b, &ib));
	EXPECT_OK(vt_combine(a, KBLOOM_IOC_MERGE, b));
	EXPECT(vt_check_prefix(a, "a", 0, 400) == 400, "lost a keys");
	EXPECT(vt_check_prefix(a, "b", 0, 400) == 400, "b keys missing");
	EXPECT(vt_check_prefix(a, "both", 0, 300) == 300, "lost both");
	EXPECT_OK(vt_info(a, &im));
	EXPECT(im.bits_set >= ia.bits_set && im.bits_set >= ib.bits_set &&
	       im.bits_set <= ia.bits_set + ib.bits_set, "bits_set %llu",
	       (unsigned long long)im.bits_set);
	EXPECT(im.add_calls == ia.add_calls + ib.add_calls, "add_calls");
	/* The source is untouched. */
	EXPECT(vt_check_prefix(b, "a", 0, 400) < 40, "b changed");
	/* Merging a filter into itself changes nothing. */
	EXPECT_OK(vt_info(a, &ia));
	EXPECT_OK(vt_combine(a, KBLOOM_IOC_MERGE, a));
	EXPECT_OK(vt_info(a, &im));
	EXPECT(im.bits_set == ia.bits_set, "self merge changed bits");
	if (t->caps & VT_DELETES) {
		EXPECT(vt_delete_prefix(a, "a", 0, 400) == 400,
		       "a's keys not all found");
		EXPECT(vt_delete_prefix(a, "both", 0, 300) == 300,
		       "both not found");
		EXPECT(vt_check_prefix(a, "b", 0, 400) == 400, "b keys lost");
		EXPECT(vt_check_prefix(a, "both", 0, 300) == 300,
		       "keys added to both lost after one delete");
		EXPECT_OK(vt_info(a, &im));
		EXPECT(im.delete_calls == 700, "merged delete_calls %llu",
		       (unsigned long long)im.delete_calls);
	}
	close(b);
	vt_destroy("abi-mb");
	return vt_done(a, "abi-ma", NULL);
}

/* The meet keeps the common keys, at the lower count where counted. */
static const char *intersect_round_trip(const struct vt_type *t)
{
	int a = fresh("abi-ia", t), b = fresh("abi-ib", t);
	long only_a;

	EXPECT(a >= 0 && b >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(a, "both", 0, 300) > 0, "add a");
	EXPECT(vt_add_prefix(a, "a", 0, 300) > 0, "add a");
	EXPECT(vt_add_prefix(b, "both", 0, 300) > 0, "add b");
	EXPECT(vt_add_prefix(b, "b", 0, 300) > 0, "add b");
	EXPECT(vt_add_prefix(a, "both", 0, 300) == 0, "add a again");
	EXPECT_OK(vt_combine(a, KBLOOM_IOC_INTERSECT, b));
	EXPECT(vt_check_prefix(a, "both", 0, 300) == 300,
	       "keys of both lost");
	only_a = vt_check_prefix(a, "a", 0, 300);
	EXPECT(only_a >= 0 && only_a < 30, "%ld of 300 a-only keys remain",
	       only_a);
	/* "both" was in a twice, in b once: the meet holds it once. */
	if (t->caps & VT_DELETES) {
		EXPECT(vt_delete_prefix(a, "both", 0, 300) == 300,
		       "delete common");
		EXPECT(vt_check_prefix(a, "both", 0, 300) < 30,
		       "common keys held twice after intersect");
	}
	close(b);
	vt_destroy("abi-ib");
	return vt_done(a, "abi-ia", NULL);
}

/* Another seed, another size, or another type with the same geometry. */
static const char *reject_merge_incompatible_held(struct vt_held *h)
{
	static const unsigned long cmds[] = {
		KBLOOM_IOC_MERGE, KBLOOM_IOC_INTERSECT,
	};
	int others[2 + ARRAY_SIZE(vt_types)], n = 0, i;
	const struct vt_type *u;
	struct kbloom_info info;
	size_t c;

	EXPECT_OK(vt_info(h->fd, &info));
	others[n++] = vt_fresh("abi-xdev-seed", h->t->type, 1000, 0, 0,
			       SEED + 1);
	others[n++] = vt_fresh("abi-xdev-size", h->t->type, 0, 512 * 3,
			       info.k, SEED);
	/* One of each other type, of the same blocks where it can have them. */
	vt_for_each_type(u, 0)
		if (u != h->t) {
			char name[24];

			snprintf(name, sizeof(name), "abi-xdev-%.8s", u->name);
			others[n++] = vt_fresh_like(name, u->type, &info);
		}
	for (i = 0; i < n; i++) {
		EXPECT(others[i] >= 0, "open: %s", vt_errno_name(errno));
		vt_add_prefix(others[i], "o", 0, 100);
		for (c = 0; c < ARRAY_SIZE(cmds); c++) {
			EXPECT_ERRNO(vt_combine(h->fd, cmds[c], others[i]),
				     EXDEV);
			/* Neither way round. */
			EXPECT_ERRNO(vt_combine(others[i], cmds[c], h->fd),
				     EXDEV);
		}
		close(others[i]);
	}
	vt_destroy("abi-xdev-seed");
	vt_destroy("abi-xdev-size");
	vt_for_each_type(u, 0) {
		char name[24];

		snprintf(name, sizeof(name), "abi-xdev-%.8s", u->name);
		vt_destroy(name);
	}
	return NULL;
}
VT_HELD_CASE(reject_merge_incompatible, 1)

static const char *reject_merge_bad_fd_held(struct vt_held *h)
{
	int devnull = open("/dev/null", O_RDWR), ctl = vt_ctl(O_RDWR), wo;

	vt_create_typed("abi-badfd-wo", h->t->type, 1000, 0, 0, SEED);
	wo = vt_open("abi-badfd-wo", O_WRONLY);
	EXPECT(devnull >= 0 && ctl >= 0 && wo >= 0, "open: %s",
	       vt_errno_name(errno));
	vt_add_prefix(wo, "wo", 0, 100);
	EXPECT_ERRNO(vt_combine(h->fd, KBLOOM_IOC_MERGE, devnull), EBADF);
	EXPECT_ERRNO(vt_combine(h->fd, KBLOOM_IOC_MERGE, ctl), EBADF);
	EXPECT_ERRNO(vt_combine(h->fd, KBLOOM_IOC_INTERSECT, 9999), EBADF);
	EXPECT_ERRNO(vt_combine(h->fd, KBLOOM_IOC_MERGE, -1), EBADF);
	/* The other filter must be open for reading. */
	EXPECT_ERRNO(vt_combine(h->fd, KBLOOM_IOC_MERGE, wo), EBADF);
	EXPECT_ERRNO(vt_combine(h->fd, KBLOOM_IOC_INTERSECT, wo), EBADF);
	close(devnull);
	close(ctl);
	close(wo);
	vt_destroy("abi-badfd-wo");
	return NULL;
}
VT_HELD_CASE(reject_merge_bad_fd, 1)

static const char *reject_merge_fields_held(struct vt_held *h)
{
	struct kbloom_other o;
	int other = fresh("abi-mfield-o", h->t);

	EXPECT(other >= 0, "open: %s", vt_errno_name(errno));
	vt_add_prefix(other, "o", 0, 100);
	memset(&o, 0, sizeof(o));
	o.fd = other;
	o.flags = 1;
	EXPECT_ERRNO(ioctl(h->fd, KBLOOM_IOC_MERGE, &o), EINVAL);
	o.flags = 0;
	o.reserved[0] = 1;
	EXPECT_ERRNO(ioctl(h->fd, KBLOOM_IOC_INTERSECT, &o), EINVAL);
	o.reserved[0] = 0;
	o.reserved[1] = 1;
	EXPECT_ERRNO(ioctl(h->fd, KBLOOM_IOC_MERGE, &o), EINVAL);
	EXPECT_ERRNO(ioctl(h->fd, KBLOOM_IOC_MERGE, NULL), EFAULT);
	close(other);
	vt_destroy("abi-mfield-o");
	return NULL;
}
VT_HELD_CASE(reject_merge_fields, 1)

static const char *get_info_bad_pointer_held(struct vt_held *h)
{
	EXPECT_ERRNO(ioctl(h->fd, KBLOOM_IOC_GET_INFO, NULL), EFAULT);
	EXPECT_ERRNO(ioctl(h->fd, KBLOOM_IOC_GET_INFO, vt_unmapped_page()),
		     EFAULT);
	return NULL;
}
VT_HELD_CASE(get_info_bad_pointer, 1)

static const char *report_round_trip(const struct vt_type *t)
{
	struct kbloom_report rep = {
		.false_positives = 10, .true_positives = 5,
		.true_negatives = 90,
	};
	struct kbloom_info info;
	int fd = fresh("abi-report", t);

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

static const char *reject_report_fields_held(struct vt_held *h)
{
	struct kbloom_report rep;

	memset(&rep, 0, sizeof(rep));
	rep.false_positives = 1;
	rep.flags = 2;
	EXPECT_ERRNO(ioctl(h->fd, KBLOOM_IOC_REPORT, &rep), EINVAL);
	rep.flags = 0;
	rep.pad = 1;
	EXPECT_ERRNO(ioctl(h->fd, KBLOOM_IOC_REPORT, &rep), EINVAL);
	rep.pad = 0;
	rep.reserved[1] = 1;
	EXPECT_ERRNO(ioctl(h->fd, KBLOOM_IOC_REPORT, &rep), EINVAL);
	EXPECT_ERRNO(ioctl(h->fd, KBLOOM_IOC_REPORT, NULL), EFAULT);
	return NULL;
}
VT_HELD_CASE(reject_report_fields, 1)

static const char *reject_filter_unknown_command_held(struct vt_held *h)
{
	struct kbloom_batch *b = &h->b;
	char buf[256] = { 0 };
	int fd = h->fd;

	/* DELETE's number with another size or direction is no command. */
	EXPECT_ERRNO(ioctl(fd, _IO(KBLOOM_IOC_MAGIC, 0x17), 0), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOW(KBLOOM_IOC_MAGIC, 0x17,
				    struct kbloom_batch), b), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOWR(KBLOOM_IOC_MAGIC, 0x17, __u64), b),
		     ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOWR(KBLOOM_IOC_MAGIC, 0x18,
				     struct kbloom_batch), b), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOWR(KBLOOM_IOC_MAGIC, 0x10, __u64), b),
		     ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOWR('x', 0x10, struct kbloom_batch), b),
		     ENOTTY);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_CTL_CREATE, buf), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_CTL_DESTROY, buf), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, TCGETS, buf), ENOTTY);
	return NULL;
}
VT_HELD_CASE(reject_filter_unknown_command, 100)

/* ---- access modes of an open file ---- */

/* A read-only file may not change the filter: EBADF before anything. */
static const char *reject_read_only_writes_held(struct vt_held *h)
{
	struct kbloom_batch *b = &h->b;
	int ro = vt_open(h->name, O_RDONLY);

	EXPECT(ro >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_ADD, b), EBADF);
	/* Before EOPNOTSUPP where the type cannot delete. */
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_DELETE, b), EBADF);
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_DELETE, NULL), EBADF);
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_CLEAR, 0), EBADF);
	EXPECT_ERRNO(vt_combine(ro, KBLOOM_IOC_MERGE, h->fd), EBADF);
	EXPECT_ERRNO(vt_combine(ro, KBLOOM_IOC_INTERSECT, h->fd), EBADF);
	EXPECT_ERRNO(write(ro, "x", 1), EBADF);
	EXPECT_NULL(vt_snap_same(h->fd, &h->snap));
	/* What reading allows still works (and counts its call). */
	EXPECT(vt_keys_op(ro, KBLOOM_IOC_CHECK, &h->k, NULL) >= 0,
	       "CHECK on a read-only file: %s", vt_errno_name(errno));
	close(ro);
	return vt_snap_take(h->fd, &h->snap);
}
VT_HELD_CASE(reject_read_only_writes, 10)

static const char *reject_write_only_reads_held(struct vt_held *h)
{
	struct kbloom_report rep = { .false_positives = 1 };
	int wo = vt_open(h->name, O_WRONLY), ret;
	struct kbloom_info info;
	char c;

	EXPECT(wo >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_ERRNO(ioctl(wo, KBLOOM_IOC_CHECK, &h->b), EBADF);
	EXPECT_ERRNO(ioctl(wo, KBLOOM_IOC_GET_INFO, &info), EBADF);
	EXPECT_ERRNO(ioctl(wo, KBLOOM_IOC_REPORT, &rep), EBADF);
	EXPECT_ERRNO(read(wo, &c, 1), EBADF);
	EXPECT_NULL(vt_snap_same(h->fd, &h->snap));
	/* DELETE writes: a write-only file may, where the type deletes. */
	ret = ioctl(wo, KBLOOM_IOC_DELETE, &h->b);
	if (h->t->caps & VT_DELETES)
		EXPECT(!ret && h->b.hits == 100,
		       "DELETE on a write-only file: %s, hits %u",
		       vt_errno_name(errno), h->b.hits);
	else
		EXPECT(ret == -1 && errno == EOPNOTSUPP,
		       "DELETE on a write-only file: %s, want EOPNOTSUPP",
		       vt_errno_name(errno));
	close(wo);
	/* The DELETE changed the filter on purpose. */
	return vt_snap_take(h->fd, &h->snap);
}
VT_HELD_CASE(reject_write_only_reads, 100)

/* ---- lifetime ---- */

static const char *destroyed_filter_enodev(const struct vt_type *t)
{
	struct kbloom_report rep = { 0 };
	struct kbloom_info info;
	struct kbloom_batch b;
	struct vt_keys k;
	uint8_t buf[64];
	int fd, live, ro;

	fd = fresh("abi-dead", t);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	ro = vt_open("abi-dead", O_RDONLY);
	EXPECT(ro >= 0, "open: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "d", 0, 100) > 0, "add");
	live = fresh("abi-live", t);
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
	EXPECT_ERRNO(vt_combine(fd, KBLOOM_IOC_MERGE, live), ENODEV);
	EXPECT_ERRNO(vt_combine(fd, KBLOOM_IOC_INTERSECT, live), ENODEV);
	/* A dead filter as the source fails too, and leaves live alone. */
	EXPECT_ERRNO(vt_combine(live, KBLOOM_IOC_MERGE, ro), ENODEV);
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

static const char *destroyed_name_reusable_while_open(const struct vt_type *t)
{
	struct kbloom_info info;
	int old, new;

	old = fresh("abi-reuse", t);
	EXPECT(old >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(old, "old", 0, 100) > 0, "add");
	EXPECT_OK(vt_destroy("abi-reuse"));
	new = vt_fresh("abi-reuse", t->type, 2000, 0, 0, SEED);
	EXPECT(new >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(new, &info));
	EXPECT(info.capacity == 2000 * vt_window_gens(t) && !info.add_calls,
	       "got the old one");
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

static const char *sysfs_matches_info(const struct vt_type *t)
{
	struct kbloom_report rep = { 7, 8, 9, 0, 0, { 0 } };
	struct kbloom_info info;
	uint64_t bytes_before, bytes_after;
	int fd;

	EXPECT_OK(vt_read_u64_file(VT_SYSFS "/total_bytes", &bytes_before));
	fd = fresh("abi-sysfs", t);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "s", 0, 700) > 0, "add");
	EXPECT(vt_check_prefix(fd, "s", 0, 50) == 50, "check");
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_REPORT, &rep));
	if (t->caps & VT_DELETES) {
		EXPECT(vt_delete_prefix(fd, "s", 0, 200) == 200, "delete");
		EXPECT(vt_delete_prefix(fd, "absent", 0, 300) >= 0,
		       "delete absent");
	}
	EXPECT_OK(vt_info(fd, &info));
	if (t->caps & VT_DELETES)
		EXPECT(info.delete_calls == 500 && info.delete_hits >= 200 &&
		       info.delete_hits < 220, "deletes %llu/%llu",
		       (unsigned long long)info.delete_calls,
		       (unsigned long long)info.delete_hits);
	/* Fill is against the type's cells, not the block's bits. */
	EXPECT(info.fill_ppb == info.bits_set * 1000000000ULL /
				(info.nblocks * t->cells),
	       "fill %u for %llu cells set", info.fill_ppb,
	       (unsigned long long)info.bits_set);
	EXPECT_NULL(vt_sysfs_matches_info("abi-sysfs", &info));
	EXPECT_OK(vt_read_u64_file(VT_SYSFS "/total_bytes", &bytes_after));
	EXPECT(bytes_after == bytes_before + info.held_bytes,
	       "total_bytes %llu -> %llu, filter %llu",
	       (unsigned long long)bytes_before,
	       (unsigned long long)bytes_after,
	       (unsigned long long)info.held_bytes);
	/* A clear is seen in sysfs as in GET_INFO. */
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_CLEAR, 0));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT_NULL(vt_sysfs_matches_info("abi-sysfs", &info));
	return vt_done(fd, "abi-sysfs", NULL);
}

static const struct vt_case cases[] = {
	/* control node: create */
	VT_TYPED(create_by_rate),
	VT_TYPED(create_by_bits),
	VT_TYPED(create_by_bits_best_k),
	VT_TYPED(create_by_bits_per_key),
	VT_CASE(create_random_seed),
	VT_CASE(create_node_mode),
	VT_CASE(create_names_valid),
	/* control node: names */
	VT_CASE(reject_name_empty),
	VT_CASE(reject_name_too_long),
	VT_CASE(reject_name_chars),
	VT_CASE(reject_name_garbage_after_nul),
	VT_CASE(reject_name_duplicate),
	VT_CASE(reject_name_reserved),
	/* control node: the create request */
	VT_CASE(reject_create_reserved),
	VT_CASE(reject_create_flags),
	VT_CASE(reject_create_seed_without_flag),
	VT_CASE(reject_create_geometry),
	VT_CASE(reject_create_type),
	VT_CASE(reject_create_node_mode),
	VT_CASE(reject_create_too_big),
	VT_CASE(reject_create_bad_pointer),
	VT_CASE(reject_control_unknown_command),
	VT_CASE(reject_control_read_only),
	/* control node: destroy */
	VT_CASE(destroy_round_trip),
	VT_CASE(reject_destroy_unknown),
	VT_CASE(reject_destroy_bad_name),
	VT_CASE(reject_destroy_reserved),
	/* filter node */
	VT_TYPED(clear_round_trip),
	VT_TYPED(reject_clear_argument),
	VT_TYPED(merge_round_trip),
	VT_TYPED(intersect_round_trip),
	VT_TYPED(reject_merge_incompatible),
	VT_TYPED(reject_merge_bad_fd),
	VT_TYPED(reject_merge_fields),
	VT_TYPED(get_info_bad_pointer),
	VT_TYPED(report_round_trip),
	VT_TYPED(reject_report_fields),
	VT_TYPED(reject_filter_unknown_command),
	/* access modes and lifetime */
	VT_TYPED(reject_read_only_writes),
	VT_TYPED(reject_write_only_reads),
	VT_TYPED(destroyed_filter_enodev),
	VT_TYPED(destroyed_name_reusable_while_open),
	VT_CASE(destroyed_minor_not_reused),
	VT_TYPED(sysfs_matches_info),
};

int main(void)
{
	return vt_run("abi", cases, ARRAY_SIZE(cases));
}
