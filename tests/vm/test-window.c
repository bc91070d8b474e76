// SPDX-License-Identifier: GPL-2.0
/*
 * Window filters through the real device: the rotation semantics and the
 * window ABI.  Every create field's rejection, errno by errno, with
 * nothing created; ROTATE's and GET_WINDOW's errnos in the header's order;
 * the guarantee (a key found for g - 1 rotations, gone after g but as a
 * false positive) by hand, by count and by time; CLEAR keeping the
 * schedule; merge and intersect by age; images, and old versions refused; an
 * image read cut by a rotation; the mapping's header and answers across
 * rotations; sysfs.  What every type does (ADD, CHECK, caps, permissions,
 * images of any type) runs over vt_types[] in the other suites, of which
 * the window is one row.
 */
#include <math.h>

#include "vmtest.h"
#include "kbloom_core.h"

#define SUITE	"window"
#define SEED	0x77696e646f770001ULL
#define FP_1PC	10000000U
#define HDR1	sizeof(struct kbloom_image_header)

/* The window row of vt_types[]: its g is the one the cases use. */
static const struct vt_type *W;
static uint32_t G;

static void put_le16(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, v);
	put_le16(p + 2, v >> 16);
}

static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, v);
	put_le32(p + 4, v >> 32);
}

static void reseal(uint8_t *img, size_t len)
{
	put_le32(img + len - 4, crc32c_ref(img, len - 4));
}

/* The image's window part, field f (at its offset after the header). */
#define WOFF(f)		(HDR1 + offsetof(struct kbloom_image_window, f))
/* The current plane: the le32 between generations and live. */
#define WOFF_CUR	(WOFF(live) - 4)

/* A window request: g generations, capacity at 1 %, the given schedule. */
static void win_req(struct kbloom_create *req, const char *name, uint32_t g,
		    uint64_t capacity, uint64_t rotate_ms,
		    uint64_t rotate_every)
{
	vt_create_req(req, name, capacity, FP_1PC);
	req->type = KBLOOM_TYPE_WINDOW;
	req->generations = g;
	req->rotate_ms = rotate_ms;
	req->rotate_every = rotate_every;
	req->flags = KBLOOM_CREATE_SEED;
	req->seed = SEED;
}

/* A fresh window of g generations and bits (k 0: best), opened rw. */
static int win_fresh(const char *name, uint32_t g, uint64_t bits, uint32_t k,
		     uint64_t rotate_ms, uint64_t rotate_every)
{
	struct kbloom_create req;

	vt_destroy(name);
	win_req(&req, name, g, bits ? 0 : 4000, rotate_ms, rotate_every);
	if (bits) {
		req.fp_ppb = 0;
		req.bits = bits;
		req.k = k;
	}
	if (vt_create_raw(&req))
		return -1;
	return vt_open(name, O_RDWR);
}

static int win_info(int fd, struct kbloom_window_info *wi)
{
	memset(wi, 0xa5, sizeof(*wi));
	return ioctl(fd, KBLOOM_IOC_GET_WINDOW, wi);
}

static int rotate(int fd)
{
	return ioctl(fd, KBLOOM_IOC_ROTATE, 0);
}

/* Polls GET_WINDOW until rotations >= want or timeout_s passed. */
static const char *wait_rotations(int fd, uint64_t want, double timeout_s,
				  struct kbloom_window_info *wi)
{
	double end = vt_now_s() + timeout_s;

	for (;;) {
		if (win_info(fd, wi))
			return vt_fail("GET_WINDOW: %s", vt_errno_name(errno));
		if (wi->rotations >= want)
			return NULL;
		if (vt_now_s() > end)
			return vt_fail("%llu rotations after %.1f s, want %llu",
				       (unsigned long long)wi->rotations,
				       timeout_s, (unsigned long long)want);
		usleep(10000);
	}
}

static uint32_t popcount64(uint64_t v)
{
	return __builtin_popcountll(v);
}

/*
 * hits of q expired or absent keys are no more than the rate p_ppb lets
 * them be: q * p plus 5 sigma (and one, for tiny rates).
 */
static bool within_rate(long hits, uint32_t q, uint32_t p_ppb)
{
	double mean = (double)q * p_ppb / 1e9;

	return hits <= mean + 5 * sqrt(mean) + 1;
}

/* ---- create: every rejection, nothing created ---- */

static const char *expect_rejected(struct kbloom_create *req, int want)
{
	char node[64];

	EXPECT_ERRNO(vt_create_raw(req), want);
	snprintf(node, sizeof(node), "/dev/kbloom/%s", req->name);
	EXPECT(access(node, F_OK), "%s created", req->name);
	return NULL;
}

static const char *reject_generations(void)
{
	static const uint32_t bad[] = {
		0, 1, KBLOOM_GENERATIONS_MAX + 1, 64, 0x80000002U, UINT32_MAX,
	};
	struct kbloom_create req;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		win_req(&req, "win-gens", bad[i], 1000, 0, 0);
		EXPECT_NULL(expect_rejected(&req, EINVAL));
	}
	/* The bounds themselves are taken. */
	win_req(&req, "win-gens", KBLOOM_GENERATIONS_MIN, 1000, 0, 0);
	EXPECT_OK(vt_create_raw(&req));
	EXPECT_OK(vt_destroy("win-gens"));
	win_req(&req, "win-gens", KBLOOM_GENERATIONS_MAX, 1000, 0, 0);
	EXPECT_OK(vt_create_raw(&req));
	EXPECT_OK(vt_destroy("win-gens"));
	return NULL;
}

/* The fields only a window has, on the other types: EINVAL each. */
static const char *reject_window_fields_on_other_types(void)
{
	struct kbloom_create req;
	const struct vt_type *t;

	vt_for_each_type(t, 0) {
		if (t->generations)
			continue;
		vt_create_req(&req, "win-other", 1000, FP_1PC);
		req.type = t->type;
		req.generations = G;
		EXPECT_NULL(expect_rejected(&req, EINVAL));
		req.generations = 1;
		EXPECT_NULL(expect_rejected(&req, EINVAL));
		req.generations = 0;
		req.rotate_ms = 1000;
		EXPECT_NULL(expect_rejected(&req, EINVAL));
		req.rotate_ms = 0;
		req.rotate_every = 100;
		EXPECT_NULL(expect_rejected(&req, EINVAL));
	}
	return NULL;
}

/* A window cannot grow; no filter grows by more than the maximum. */
static const char *reject_create_expansion(void)
{
	struct kbloom_create req;

	win_req(&req, "win-exp", G, 1000, 0, 0);
	req.expansion = 1;
	EXPECT_NULL(expect_rejected(&req, EINVAL));
	vt_create_req(&req, "win-exp", 1000, FP_1PC);
	req.expansion = 0x80000000U;
	return expect_rejected(&req, EINVAL);
}

static const char *reject_create_reserved0(void)
{
	struct kbloom_create req;

	win_req(&req, "win-res", G, 1000, 100, 10);
	req.reserved[0] = 1;
	EXPECT_NULL(expect_rejected(&req, EINVAL));
	req.reserved[0] = 1ULL << 63;
	return expect_rejected(&req, EINVAL);
}

static const char *reject_rotate_ms(void)
{
	static const uint64_t bad[] = {
		1, KBLOOM_ROTATE_MS_MIN - 1, KBLOOM_ROTATE_MS_MAX + 1,
		1ULL << 32, UINT64_MAX,
	};
	struct kbloom_create req;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		win_req(&req, "win-ms", G, 1000, bad[i], 0);
		EXPECT_NULL(expect_rejected(&req, EINVAL));
	}
	win_req(&req, "win-ms", G, 1000, KBLOOM_ROTATE_MS_MAX, 0);
	EXPECT_OK(vt_create_raw(&req));
	EXPECT_OK(vt_destroy("win-ms"));
	return NULL;
}

static const char *reject_rotate_every(void)
{
	static const uint64_t bad[] = {
		KBLOOM_ROTATE_EVERY_MAX + 1, 1ULL << 63, UINT64_MAX,
	};
	struct kbloom_create req;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		win_req(&req, "win-every", G, 1000, 0, bad[i]);
		EXPECT_NULL(expect_rejected(&req, EINVAL));
	}
	win_req(&req, "win-every", G, 1000, 0, KBLOOM_ROTATE_EVERY_MAX);
	EXPECT_OK(vt_create_raw(&req));
	EXPECT_OK(vt_destroy("win-every"));
	/* The shortest period and count are taken too. */
	win_req(&req, "win-every", G, 1000, KBLOOM_ROTATE_MS_MIN, 1);
	EXPECT_OK(vt_create_raw(&req));
	EXPECT_OK(vt_destroy("win-every"));
	return NULL;
}

/*
 * rotate_every without a capacity sizes for (g - 1) * rotate_every keys,
 * the window the guarantee covers; the settings read back as given.
 */
static const char *create_settings(void)
{
	struct kbloom_window_info wi;
	struct kbloom_create req;
	struct kbloom_info info;
	uint64_t v;
	int fd;

	vt_destroy("win-set");
	win_req(&req, "win-set", G, 0, 1500, 250);
	EXPECT_OK(vt_create_raw(&req));
	fd = vt_open("win-set", O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.type == KBLOOM_TYPE_WINDOW && info.capacity == (G - 1) * 250,
	       "type %u capacity %llu", info.type,
	       (unsigned long long)info.capacity);
	EXPECT(info.nblocks % (1U << kbloom_plane_order(G)) == 0 &&
	       info.bytes == info.nblocks * 64 && info.bits == info.nblocks * 512,
	       "nblocks %llu bytes %llu", (unsigned long long)info.nblocks,
	       (unsigned long long)info.bytes);
	EXPECT(info.fp_design_ppb > 0 && info.fp_design_ppb <= FP_1PC,
	       "design %u", info.fp_design_ppb);
	EXPECT_OK(win_info(fd, &wi));
	EXPECT(wi.generations == G && wi.plane_order == kbloom_plane_order(G) &&
	       wi.rotate_ms == 1500 && wi.rotate_every == 250 &&
	       wi.rotations == 0, "g %u order %u ms %llu every %llu rot %llu",
	       wi.generations, wi.plane_order,
	       (unsigned long long)wi.rotate_ms,
	       (unsigned long long)wi.rotate_every,
	       (unsigned long long)wi.rotations);
	/* A period in whole jiffies: one more at HZ 100 at the most. */
	EXPECT(wi.next_rotation_ms > 0 && wi.next_rotation_ms <= 1500 + 10,
	       "next rotation in %llu ms", (unsigned long long)wi.next_rotation_ms);
	EXPECT_OK(vt_sysfs_u64("win-set", "generations", &v));
	EXPECT(v == G, "sysfs generations %llu", (unsigned long long)v);
	EXPECT_OK(vt_sysfs_u64("win-set", "type", &v));
	EXPECT(v == KBLOOM_TYPE_WINDOW, "sysfs type %llu",
	       (unsigned long long)v);
	return vt_done(fd, "win-set", NULL);
}

/* The plane order is the least power of two above g, for every g. */
static const char *create_plane_orders(void)
{
	struct kbloom_window_info wi;
	struct kbloom_info info;
	uint32_t g, want;
	int fd;

	for (g = KBLOOM_GENERATIONS_MIN; g <= KBLOOM_GENERATIONS_MAX; g++) {
		fd = win_fresh("win-orders", g, 1 << 16, 4, 0, 0);
		EXPECT(fd >= 0, "g %u: create: %s", g, vt_errno_name(errno));
		for (want = 0; (1U << want) <= g; want++)
			;
		EXPECT_OK(win_info(fd, &wi));
		EXPECT_OK(vt_info(fd, &info));
		EXPECT(wi.generations == g && wi.plane_order == want &&
		       info.nblocks % (1U << want) == 0,
		       "g %u: order %u, want %u; nblocks %llu", g,
		       wi.plane_order, want, (unsigned long long)info.nblocks);
		EXPECT(!wi.gen[g - 1].add_calls && (g == KBLOOM_GENERATIONS_MAX ||
		       !memcmp(&wi.gen[g], &(struct kbloom_generation){ 0 },
			       sizeof(wi.gen[g]))),
		       "g %u: generations past g not zeroed", g);
		close(fd);
	}
	EXPECT_OK(vt_destroy("win-orders"));
	return NULL;
}

/* ---- ROTATE ---- */

static const char *rotate_errnos(void)
{
	struct kbloom_window_info wi;
	const struct vt_type *t;
	struct vt_snap snap;
	int fd, ro, other;

	fd = win_fresh("win-rot", G, 1 << 16, 4, 0, 0);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "r", 0, 100) == 100, "add");
	EXPECT_NULL(vt_snap_take(fd, &snap));
	/* An argument: EINVAL, nothing rotated. */
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_ROTATE, 1), EINVAL);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_ROTATE, (void *)&wi), EINVAL);
	/* Write permission, before the argument. */
	ro = vt_open("win-rot", O_RDONLY);
	EXPECT(ro >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_ROTATE, 0), EBADF);
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_ROTATE, 1), EBADF);
	/* Another size or direction of its number is no command. */
	EXPECT_ERRNO(ioctl(fd, _IOW(KBLOOM_IOC_MAGIC, 0x18, __u64), &wi),
		     ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOR(KBLOOM_IOC_MAGIC, 0x18, __u64), &wi),
		     ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IO(KBLOOM_IOC_MAGIC, 0x19), 0), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IO(KBLOOM_IOC_MAGIC, 0x1a), 0), ENOTTY);
	EXPECT_NULL(vt_snap_same(fd, &snap));
	EXPECT_OK(win_info(fd, &wi));
	EXPECT(wi.rotations == 0, "%llu rotations after rejected ROTATEs",
	       (unsigned long long)wi.rotations);
	/* The other types cannot rotate: EOPNOTSUPP, after EBADF. */
	vt_for_each_type(t, 0) {
		if (t->generations)
			continue;
		other = vt_fresh("win-rot-other", t->type, 1000, 0, 0, SEED);
		EXPECT(other >= 0, "create %s: %s", t->name,
		       vt_errno_name(errno));
		EXPECT_ERRNO(ioctl(other, KBLOOM_IOC_ROTATE, 0), EOPNOTSUPP);
		EXPECT_ERRNO(ioctl(other, KBLOOM_IOC_ROTATE, 1), EOPNOTSUPP);
		close(other);
		other = vt_open("win-rot-other", O_RDONLY);
		EXPECT(other >= 0, "open: %s", vt_errno_name(errno));
		EXPECT_ERRNO(ioctl(other, KBLOOM_IOC_ROTATE, 0), EBADF);
		/* Destroyed: ENODEV before the type's EOPNOTSUPP. */
		close(other);
		other = vt_open("win-rot-other", O_RDWR);
		EXPECT(other >= 0, "open: %s", vt_errno_name(errno));
		EXPECT_OK(vt_destroy("win-rot-other"));
		EXPECT_ERRNO(ioctl(other, KBLOOM_IOC_ROTATE, 0), ENODEV);
		close(other);
	}
	/* Destroyed: ENODEV, after EBADF; an unknown command stays ENOTTY. */
	EXPECT_OK(rotate(fd));
	EXPECT_OK(vt_destroy("win-rot"));
	EXPECT_ERRNO(rotate(fd), ENODEV);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_ROTATE, 1), ENODEV);
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_ROTATE, 0), EBADF);
	EXPECT_ERRNO(ioctl(fd, _IO(KBLOOM_IOC_MAGIC, 0x1a), 0), ENOTTY);
	EXPECT_ERRNO(win_info(fd, &wi), ENODEV);
	close(ro);
	close(fd);
	return NULL;
}

/* ---- GET_WINDOW ---- */

static const char *get_window_errnos(void)
{
	struct kbloom_window_info wi;
	const struct vt_type *t;
	int fd, wo;

	fd = win_fresh("win-gw", G, 1 << 16, 4, 0, 0);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	/* Output only, and reading it needs read permission. */
	wo = vt_open("win-gw", O_WRONLY);
	EXPECT(wo >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_ERRNO(win_info(wo, &wi), EBADF);
	close(wo);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_GET_WINDOW, vt_unmapped_page()),
		     EFAULT);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_GET_WINDOW, NULL), EFAULT);
	/* Its size is part of the command. */
	EXPECT_ERRNO(ioctl(fd, _IOR(KBLOOM_IOC_MAGIC, 0x19, __u64), &wi),
		     ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOWR(KBLOOM_IOC_MAGIC, 0x19,
				     struct kbloom_window_info), &wi), ENOTTY);
	vt_for_each_type(t, 0) {
		int other;

		if (t->generations)
			continue;
		other = vt_fresh("win-gw-other", t->type, 1000, 0, 0, SEED);
		EXPECT(other >= 0, "create: %s", vt_errno_name(errno));
		EXPECT_ERRNO(win_info(other, &wi), EOPNOTSUPP);
		EXPECT_OK(vt_destroy("win-gw-other"));
		EXPECT_ERRNO(win_info(other, &wi), ENODEV);
		close(other);
	}
	EXPECT_OK(vt_destroy("win-gw"));
	EXPECT_ERRNO(win_info(fd, &wi), ENODEV);
	close(fd);
	return NULL;
}

/* Every byte GET_WINDOW does not define is zero; the rest is the state. */
static const char *get_window_fields(void)
{
	struct kbloom_window_info wi;
	struct kbloom_info info;
	uint64_t sum_bits = 0, sum_est = 0;
	uint32_t i;
	int fd;

	fd = win_fresh("win-gwf", G, 1 << 17, 5, 0, 0);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "a", 0, 300) == 300, "add a");
	EXPECT_OK(rotate(fd));
	EXPECT(vt_add_prefix(fd, "b", 0, 200) == 200, "add b");
	EXPECT(vt_add_prefix(fd, "b", 0, 50) == 0, "add b again");
	EXPECT_OK(win_info(fd, &wi));
	EXPECT(!wi.reserved[0] && !wi.reserved[1] && !wi.reserved[2],
	       "reserved not zeroed");
	for (i = G; i < KBLOOM_GENERATIONS_MAX; i++)
		EXPECT(!wi.gen[i].add_calls && !wi.gen[i].bits_set &&
		       !wi.gen[i].est_keys && !wi.gen[i].fill_ppb &&
		       !wi.gen[i].pad, "gen[%u] not zeroed", i);
	for (i = 0; i < G; i++)
		EXPECT(!wi.gen[i].pad, "gen[%u].pad not zeroed", i);
	EXPECT(wi.rotations == 1 && !wi.rotate_ms && !wi.rotate_every &&
	       !wi.next_rotation_ms, "rotations %llu next %llu",
	       (unsigned long long)wi.rotations,
	       (unsigned long long)wi.next_rotation_ms);
	/* Newest first: b (250 ADDs, 200 keys) in 0, a in 1. */
	EXPECT(wi.gen[0].add_calls == 250 && wi.gen[1].add_calls == 300,
	       "add_calls %llu %llu", (unsigned long long)wi.gen[0].add_calls,
	       (unsigned long long)wi.gen[1].add_calls);
	for (i = 2; i < G; i++)
		EXPECT(!wi.gen[i].add_calls && !wi.gen[i].bits_set,
		       "gen[%u] not empty", i);
	EXPECT(wi.gen[0].est_keys >= 190 && wi.gen[0].est_keys <= 210 &&
	       wi.gen[1].est_keys >= 285 && wi.gen[1].est_keys <= 315,
	       "est_keys %llu %llu", (unsigned long long)wi.gen[0].est_keys,
	       (unsigned long long)wi.gen[1].est_keys);
	EXPECT_OK(vt_info(fd, &info));
	for (i = 0; i < G; i++) {
		uint64_t cells = info.nblocks * 512 >> wi.plane_order;

		EXPECT(wi.gen[i].fill_ppb == wi.gen[i].bits_set *
					     1000000000ULL / cells,
		       "gen[%u] fill %u for %llu of %llu cells", i,
		       wi.gen[i].fill_ppb,
		       (unsigned long long)wi.gen[i].bits_set,
		       (unsigned long long)cells);
		sum_bits += wi.gen[i].bits_set;
		sum_est += wi.gen[i].est_keys;
	}
	/*
	 * GET_INFO shows the union: a cell set in two generations counts
	 * once, so at most the sum; the estimates add up.
	 */
	EXPECT(info.bits_set <= sum_bits && info.bits_set >= wi.gen[1].bits_set,
	       "union %llu cells, generations %llu",
	       (unsigned long long)info.bits_set,
	       (unsigned long long)sum_bits);
	/* Each generation's estimate is rounded; the sum need not be. */
	EXPECT(info.est_keys + G >= sum_est && info.est_keys <= sum_est + G,
	       "est_keys %llu, generations %llu",
	       (unsigned long long)info.est_keys,
	       (unsigned long long)sum_est);
	EXPECT(info.add_calls == 550, "add_calls %llu",
	       (unsigned long long)info.add_calls);
	return vt_done(fd, "win-gwf", NULL);
}

/* ---- the guarantee ---- */

/*
 * A key added now is found through g - 1 rotations and gone after g, but
 * as a false positive: every generation meanwhile gets keys of its own,
 * so the expired ones are judged against a filled window.
 */
static const char *guarantee_by_hand(void)
{
	struct kbloom_window_info wi;
	struct kbloom_info info;
	const uint32_t n = 2000;
	char prefix[16];
	uint32_t r;
	long hits;
	int fd;

	fd = win_fresh("win-hand", G, 0, 0, 0, 0);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "key", 0, n) > 0, "add");
	for (r = 1; r <= G; r++) {
		EXPECT_OK(rotate(fd));
		snprintf(prefix, sizeof(prefix), "fill%u", r);
		EXPECT(vt_add_prefix(fd, prefix, 0, 1000) >= 0, "add filler");
		EXPECT_OK(win_info(fd, &wi));
		EXPECT(wi.rotations == r, "rotations %llu, want %u",
		       (unsigned long long)wi.rotations, r);
		hits = vt_check_prefix(fd, "key", 0, n);
		if (r < G) {
			EXPECT(hits == n, "after %u rotations %ld of %u found",
			       r, hits, n);
			EXPECT(wi.gen[r].add_calls == n,
			       "gen[%u] has %llu adds, want %u", r,
			       (unsigned long long)wi.gen[r].add_calls, n);
			continue;
		}
		/* Gone: its generation was emptied. */
		EXPECT_OK(vt_info(fd, &info));
		EXPECT(within_rate(hits, n, info.fp_now_ppb),
		       "after %u rotations %ld of %u still found (fp_now %u ppb)",
		       r, hits, n, info.fp_now_ppb);
	}
	/* The fillers of the live generations all are. */
	for (r = 1; r <= G; r++) {
		snprintf(prefix, sizeof(prefix), "fill%u", r);
		hits = vt_check_prefix(fd, prefix, 0, 1000);
		EXPECT(hits == 1000, "%s: %ld of 1000", prefix, hits);
	}
	return vt_done(fd, "win-hand", NULL);
}

/*
 * By count: the rotation comes when the current generation's adds reach
 * rotate_every, not one add before; the next generation counts from 0,
 * as it does after a ROTATE by hand.
 */
static const char *rotate_by_count(void)
{
	struct kbloom_window_info wi;
	uint32_t i, n;
	uint64_t r;
	int fd;

	fd = win_fresh("win-count", G, 1 << 18, 5, 0, 100);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	for (i = 0; i < 99; i++)
		EXPECT(vt_add_prefix(fd, "c", i, 1) >= 0, "add");
	usleep(200000);
	EXPECT_OK(win_info(fd, &wi));
	EXPECT(wi.rotations == 0 && wi.gen[0].add_calls == 99,
	       "after 99 adds: %llu rotations, %llu adds",
	       (unsigned long long)wi.rotations,
	       (unsigned long long)wi.gen[0].add_calls);
	/* The 100th ADD, of a known key: every ADD counts. */
	EXPECT(vt_add_prefix(fd, "c", 0, 1) == 0, "add of a known key");
	EXPECT_NULL(wait_rotations(fd, 1, 10, &wi));
	EXPECT(wi.rotations == 1 && wi.gen[1].add_calls == 100 &&
	       wi.gen[0].add_calls == 0, "rotations %llu adds %llu %llu",
	       (unsigned long long)wi.rotations,
	       (unsigned long long)wi.gen[0].add_calls,
	       (unsigned long long)wi.gen[1].add_calls);
	/*
	 * 250 in one batch: the rotation it makes due runs beside the rest
	 * of the batch, whose keys then count in the new generation, so one
	 * or two rotations; but each generation retired by count holds
	 * rotate_every adds or more, the current one fewer, and no ADD is
	 * lost from the count.
	 */
	EXPECT(vt_add_prefix(fd, "d", 0, 250) >= 0, "add batch");
	EXPECT_NULL(wait_rotations(fd, 2, 10, &wi));
	usleep(300000);
	EXPECT_OK(win_info(fd, &wi));
	EXPECT(wi.rotations >= 2 && wi.rotations <= 3 &&
	       wi.gen[0].add_calls < 100,
	       "rotations %llu, current generation %llu adds",
	       (unsigned long long)wi.rotations,
	       (unsigned long long)wi.gen[0].add_calls);
	/* gen[R] is the first one, of the 100; d's are the R newer ones. */
	for (i = 0, n = 0; i < wi.rotations; i++)
		n += wi.gen[i].add_calls;
	for (i = 1; i <= wi.rotations; i++)
		EXPECT(wi.gen[i].add_calls >= 100, "gen[%u] rotated at %llu adds",
		       i, (unsigned long long)wi.gen[i].add_calls);
	EXPECT(n == 250 && wi.gen[wi.rotations].add_calls == 100 &&
	       wi.gen[wi.rotations + 1].add_calls == 0,
	       "%u adds counted in the batch's generations, want 250", n);
	/* A ROTATE by hand starts the next count afresh. */
	EXPECT_OK(rotate(fd));
	r = wi.rotations + 1;
	EXPECT(vt_add_prefix(fd, "e", 0, 60) >= 0, "add");
	EXPECT_OK(rotate(fd));
	EXPECT(vt_add_prefix(fd, "f", 0, 60) >= 0, "add");
	usleep(300000);
	EXPECT_OK(win_info(fd, &wi));
	EXPECT(wi.rotations == r + 1 && wi.gen[0].add_calls == 60 &&
	       wi.gen[1].add_calls == 60,
	       "after ROTATE, 60, ROTATE, 60: rotations %llu, adds %llu %llu",
	       (unsigned long long)wi.rotations,
	       (unsigned long long)wi.gen[0].add_calls,
	       (unsigned long long)wi.gen[1].add_calls);
	/* The keys of the last g - 1 rotations are still there. */
	EXPECT(vt_check_prefix(fd, "d", 0, 250) == 250, "d lost");
	if (wi.rotations <= G - 1)
		EXPECT(vt_check_prefix(fd, "c", 0, 99) == 99, "c lost");
	return vt_done(fd, "win-count", NULL);
}

/*
 * By time: no assertion tighter than TCG's timers keep, but at least one
 * rotation within 20 periods, never more than one a period, and the next
 * one announced within a period.
 */
static const char *rotate_by_time(void)
{
	const uint64_t period = 100;
	struct kbloom_window_info wi;
	uint64_t first, last;
	double t0, t1;
	int fd;

	fd = win_fresh("win-time", G, 1 << 16, 4, period, 0);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	t0 = vt_now_s();
	EXPECT_OK(win_info(fd, &wi));
	first = wi.rotations;
	EXPECT(wi.next_rotation_ms <= period + 10, "next in %llu ms",
	       (unsigned long long)wi.next_rotation_ms);
	EXPECT_NULL(wait_rotations(fd, first + 1, 20 * period / 1000.0, &wi));
	usleep(1000000);
	EXPECT_OK(win_info(fd, &wi));
	t1 = vt_now_s();
	last = wi.rotations;
	EXPECT(last - first <= (t1 - t0) * 1000 / period + 1,
	       "%llu rotations in %.2f s at %llu ms",
	       (unsigned long long)(last - first), t1 - t0,
	       (unsigned long long)period);
	EXPECT(wi.next_rotation_ms <= period + 10, "next in %llu ms",
	       (unsigned long long)wi.next_rotation_ms);
	/* A ROTATE by hand re-arms the timer a whole period later. */
	close(fd);
	fd = win_fresh("win-time", G, 1 << 16, 4, 60000, 0);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	usleep(500000);
	EXPECT_OK(rotate(fd));
	EXPECT_OK(win_info(fd, &wi));
	EXPECT(wi.rotations == 1 && wi.next_rotation_ms > 50000 &&
	       wi.next_rotation_ms <= 60000 + 10, "after ROTATE next in %llu ms",
	       (unsigned long long)wi.next_rotation_ms);
	return vt_done(fd, "win-time", NULL);
}

/*
 * The longest periods the header allows, up to KBLOOM_ROTATE_MS_MAX
 * (2^31 ms, 24.8 days): the timer stands a whole period out, in GET_WINDOW
 * and in sysfs, after ROTATE by hand, and after an image whose time it
 * goes on from.  msecs_to_jiffies() reads 2^31 ms as "forever", which
 * once armed such a window 2^62 jiffies out: next_rotation_ms then read
 * 2^32 less a few ms, and it never rotated by time.
 */
static const char *longest_periods(void)
{
	static const uint64_t periods[] = {
		KBLOOM_ROTATE_MS_MAX - 1, KBLOOM_ROTATE_MS_MAX,
	};
	/* Slack below: the time the calls take under TCG, generously. */
	const uint64_t slack = 60000;
	struct kbloom_window_info wi;
	uint64_t period, v, elapsed;
	uint8_t *img;
	size_t len, i;
	int a, b;

	for (i = 0; i < ARRAY_SIZE(periods); i++) {
		period = periods[i];
		a = win_fresh("win-long-a", G, 1 << 16, 4, period, 0);
		EXPECT(a >= 0, "create at %llu ms: %s",
		       (unsigned long long)period, vt_errno_name(errno));
		EXPECT_OK(win_info(a, &wi));
		EXPECT(wi.rotate_ms == period && !wi.rotations &&
		       wi.next_rotation_ms > period - slack &&
		       wi.next_rotation_ms <= period + 10,
		       "period %llu ms: rotations %llu, next in %llu ms",
		       (unsigned long long)period,
		       (unsigned long long)wi.rotations,
		       (unsigned long long)wi.next_rotation_ms);
		EXPECT_OK(vt_sysfs_u64("win-long-a", "next_rotation_ms", &v));
		EXPECT(v > period - slack && v <= period + 10,
		       "period %llu ms: sysfs next_rotation_ms %llu",
		       (unsigned long long)period, (unsigned long long)v);
		/* By hand: a whole period again, from now. */
		EXPECT_OK(rotate(a));
		EXPECT_OK(win_info(a, &wi));
		EXPECT(wi.rotations == 1 &&
		       wi.next_rotation_ms > period - slack &&
		       wi.next_rotation_ms <= period + 10,
		       "period %llu ms: after ROTATE next in %llu ms",
		       (unsigned long long)period,
		       (unsigned long long)wi.next_rotation_ms);
		/* An image's time since its last rotation counts down. */
		img = vt_read_image(a, 4096, &len);
		EXPECT(img, "read: %s", vt_errno_name(errno));
		elapsed = le64(img + WOFF(elapsed_ms));
		b = win_fresh("win-long-b", G, 1 << 16, 4, period, 0);
		if (b < 0 || vt_write_image(b, img, len, 1000) ||
		    win_info(b, &wi)) {
			free(img);
			close(b);
			vt_destroy("win-long-b");
			return vt_done(a, "win-long-a", "image into a window "
				       "of the same period failed");
		}
		free(img);
		close(b);
		vt_destroy("win-long-b");
		EXPECT(elapsed < slack && wi.rotations == 1 &&
		       wi.next_rotation_ms > period - elapsed - slack &&
		       wi.next_rotation_ms <= period - elapsed + 10,
		       "period %llu ms: image elapsed %llu, next in %llu ms",
		       (unsigned long long)period,
		       (unsigned long long)elapsed,
		       (unsigned long long)wi.next_rotation_ms);
		close(a);
		vt_destroy("win-long-a");
	}
	return NULL;
}

/* CLEAR empties every generation, keeps settings, schedule, rotations. */
static const char *clear_keeps_schedule(void)
{
	struct kbloom_window_info wi;
	struct kbloom_info info;
	uint32_t i;
	int fd;

	fd = win_fresh("win-clear", G, 1 << 16, 4, 60000, 1000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "x", 0, 200) > 0, "add");
	EXPECT_OK(rotate(fd));
	EXPECT(vt_add_prefix(fd, "y", 0, 200) > 0, "add");
	EXPECT_OK(rotate(fd));
	EXPECT(vt_add_prefix(fd, "z", 0, 200) > 0, "add");
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_CLEAR, 0));
	EXPECT_OK(win_info(fd, &wi));
	EXPECT(wi.rotations == 2 && wi.rotate_ms == 60000 &&
	       wi.rotate_every == 1000 && wi.next_rotation_ms > 0,
	       "rotations %llu ms %llu every %llu next %llu",
	       (unsigned long long)wi.rotations,
	       (unsigned long long)wi.rotate_ms,
	       (unsigned long long)wi.rotate_every,
	       (unsigned long long)wi.next_rotation_ms);
	for (i = 0; i < G; i++)
		EXPECT(!wi.gen[i].bits_set && !wi.gen[i].est_keys,
		       "gen[%u] not empty", i);
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(!info.bits_set && !info.fp_now_ppb, "not empty");
	EXPECT(vt_check_prefix(fd, "x", 0, 200) == 0 &&
	       vt_check_prefix(fd, "z", 0, 200) == 0, "keys survive CLEAR");
	/* Rotations go on as before. */
	EXPECT_OK(rotate(fd));
	EXPECT_OK(win_info(fd, &wi));
	EXPECT(wi.rotations == 3, "rotations %llu",
	       (unsigned long long)wi.rotations);
	return vt_done(fd, "win-clear", NULL);
}

/* ---- merge and intersect: by age ---- */

static const char *merge_by_age(void)
{
	struct kbloom_window_info wa, wb, wm;
	uint32_t r;
	int a, b;

	a = win_fresh("win-ma", G, 1 << 17, 5, 0, 0);
	EXPECT(a >= 0, "create: %s", vt_errno_name(errno));
	/* Other rotation settings are no obstacle. */
	b = win_fresh("win-mb", G, 1 << 17, 5, 60000, 100000);
	EXPECT(b >= 0, "create: %s", vt_errno_name(errno));
	/* b: "old" in age 1, "new" in age 0; a: "own" in age 0. */
	EXPECT(vt_add_prefix(b, "old", 0, 500) > 0, "add");
	EXPECT_OK(rotate(b));
	EXPECT(vt_add_prefix(b, "new", 0, 500) > 0, "add");
	EXPECT(vt_add_prefix(a, "own", 0, 500) > 0, "add");
	/* a has rotated more often: ages, not planes, are matched. */
	EXPECT_OK(rotate(a));
	EXPECT_OK(rotate(a));
	EXPECT(vt_add_prefix(a, "own2", 0, 500) > 0, "add");
	EXPECT_OK(win_info(a, &wa));
	EXPECT_OK(win_info(b, &wb));
	EXPECT_OK(vt_combine(a, KBLOOM_IOC_MERGE, b));
	EXPECT_OK(win_info(a, &wm));
	EXPECT(wm.rotations == wa.rotations, "rotations changed");
	EXPECT(wm.gen[0].add_calls == wa.gen[0].add_calls + wb.gen[0].add_calls &&
	       wm.gen[1].add_calls == wa.gen[1].add_calls + wb.gen[1].add_calls &&
	       wm.gen[2].add_calls == wa.gen[2].add_calls,
	       "add_calls by age %llu %llu %llu",
	       (unsigned long long)wm.gen[0].add_calls,
	       (unsigned long long)wm.gen[1].add_calls,
	       (unsigned long long)wm.gen[2].add_calls);
	EXPECT(vt_check_prefix(a, "old", 0, 500) == 500 &&
	       vt_check_prefix(a, "new", 0, 500) == 500 &&
	       vt_check_prefix(a, "own", 0, 500) == 500, "merged keys missing");
	/*
	 * "old" sits in age 1: g - 2 more rotations keep it, one more drops
	 * it while "new" (age 0) stays.  a's "own" (age 2) goes first.
	 */
	for (r = 0; r < G - 2; r++)
		EXPECT_OK(rotate(a));
	EXPECT(vt_check_prefix(a, "old", 0, 500) == 500, "old gone too early");
	EXPECT(vt_check_prefix(a, "own", 0, 500) < 500 / 10,
	       "own still there after %u rotations", G);
	EXPECT_OK(rotate(a));
	EXPECT(vt_check_prefix(a, "old", 0, 500) < 500 / 10,
	       "old still there");
	EXPECT(vt_check_prefix(a, "new", 0, 500) == 500, "new gone too early");
	/* b is as it was. */
	EXPECT_OK(win_info(b, &wm));
	EXPECT(!memcmp(&wm, &wb, sizeof(wm)) ||
	       (wm.rotations == wb.rotations &&
		wm.gen[0].add_calls == wb.gen[0].add_calls),
	       "other changed");
	close(b);
	vt_destroy("win-mb");
	return vt_done(a, "win-ma", NULL);
}

static const char *intersect_by_age(void)
{
	int a, b;

	a = win_fresh("win-ia", G, 1 << 17, 5, 0, 0);
	EXPECT(a >= 0, "create: %s", vt_errno_name(errno));
	b = win_fresh("win-ib", G, 1 << 17, 5, 0, 0);
	EXPECT(b >= 0, "create: %s", vt_errno_name(errno));
	/* a: y in age 1, x in age 0.  b: x and y both in age 0. */
	EXPECT(vt_add_prefix(a, "y", 0, 500) > 0, "add");
	EXPECT_OK(rotate(a));
	EXPECT(vt_add_prefix(a, "x", 0, 500) > 0, "add");
	EXPECT(vt_add_prefix(b, "x", 0, 500) > 0, "add");
	EXPECT(vt_add_prefix(b, "y", 0, 500) > 0, "add");
	EXPECT_OK(vt_combine(a, KBLOOM_IOC_INTERSECT, b));
	EXPECT(vt_check_prefix(a, "x", 0, 500) == 500, "x lost");
	/* y's age-1 cells met b's empty age 1. */
	EXPECT(vt_check_prefix(a, "y", 0, 500) < 500 / 10,
	       "y survived an intersect with an empty generation");
	close(b);
	vt_destroy("win-ib");
	return vt_done(a, "win-ia", NULL);
}

/* Windows of other generations, or other types, do not combine. */
static const char *reject_merge_generations(void)
{
	static const unsigned long cmds[] = {
		KBLOOM_IOC_MERGE, KBLOOM_IOC_INTERSECT,
	};
	struct vt_snap snap;
	int a, b, bits;
	size_t c;

	/* g and g - 1 both have 8 planes a cell here: the same blocks. */
	a = win_fresh("win-xa", G, 1 << 17, 5, 0, 0);
	EXPECT(a >= 0, "create: %s", vt_errno_name(errno));
	b = win_fresh("win-xb", G - 1, 1 << 17, 5, 0, 0);
	EXPECT(b >= 0, "create: %s", vt_errno_name(errno));
	bits = vt_fresh("win-xbits", KBLOOM_TYPE_BITS, 0, 1 << 17, 5, SEED);
	EXPECT(bits >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(a, "a", 0, 100) > 0 &&
	       vt_add_prefix(b, "b", 0, 100) > 0 &&
	       vt_add_prefix(bits, "c", 0, 100) > 0, "add");
	EXPECT_NULL(vt_snap_take(a, &snap));
	for (c = 0; c < ARRAY_SIZE(cmds); c++) {
		EXPECT_ERRNO(vt_combine(a, cmds[c], b), EXDEV);
		EXPECT_ERRNO(vt_combine(b, cmds[c], a), EXDEV);
		EXPECT_ERRNO(vt_combine(a, cmds[c], bits), EXDEV);
		EXPECT_ERRNO(vt_combine(bits, cmds[c], a), EXDEV);
	}
	EXPECT_NULL(vt_snap_same(a, &snap));
	close(b);
	close(bits);
	vt_destroy("win-xb");
	vt_destroy("win-xbits");
	return vt_done(a, "win-xa", NULL);
}

/* A window merged with itself, through another file of it: unchanged. */
static const char *self_merge(void)
{
	struct kbloom_window_info before, after;
	struct vt_snap snap;
	int fd, other;

	fd = win_fresh("win-self", G, 1 << 16, 4, 0, 0);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "s", 0, 300) > 0, "add");
	EXPECT_OK(rotate(fd));
	EXPECT(vt_add_prefix(fd, "t", 0, 300) > 0, "add");
	other = vt_open("win-self", O_RDONLY);
	EXPECT(other >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(win_info(fd, &before));
	EXPECT_NULL(vt_snap_take(fd, &snap));
	EXPECT_OK(vt_combine(fd, KBLOOM_IOC_MERGE, other));
	EXPECT_OK(vt_combine(fd, KBLOOM_IOC_MERGE, fd));
	EXPECT_OK(vt_combine(fd, KBLOOM_IOC_INTERSECT, other));
	EXPECT_NULL(vt_snap_same(fd, &snap));
	EXPECT_OK(win_info(fd, &after));
	EXPECT(!memcmp(&before, &after, sizeof(after)),
	       "GET_WINDOW changed by a self-merge");
	close(other);
	return vt_done(fd, "win-self", NULL);
}

/* ---- images ---- */

/* A window's image: header, window part, cells of live planes only. */
static const char *window_image_sane(const uint8_t *img, size_t len,
				     const struct kbloom_window_info *wi,
				     const struct kbloom_info *info)
{
	uint64_t live = le64(img + WOFF(live));
	uint32_t cur = le32(img + WOFF_CUR);
	uint32_t p = 1U << wi->plane_order, i;
	size_t at;

	EXPECT(len == vt_image_bytes(info->nblocks), "length %zu", len);
	EXPECT((le32(img + 4) & 0xffff) == KBLOOM_IMAGE_VERSION &&
	       (le32(img + 4) >> 16) == VT_IMAGE_HDR, "version/header_bytes");
	EXPECT(le32(img + WOFF(generations)) == G, "generations %u",
	       le32(img + WOFF(generations)));
	EXPECT(popcount64(live) == G && !(live >> (G + 1)) &&
	       cur <= G && (live >> cur & 1),
	       "live %#llx current %u", (unsigned long long)live, cur);
	EXPECT(le64(img + WOFF(rotations)) == wi->rotations, "rotations");
	for (i = 0; i < 4; i++)
		EXPECT(!le64(img + WOFF(reserved) + 8 * i), "reserved[%u]", i);
	EXPECT(le64(img + WOFF(plane_adds) + 8 * cur) == wi->gen[0].add_calls,
	       "current plane's adds %llu, GET_WINDOW %llu",
	       (unsigned long long)le64(img + WOFF(plane_adds) + 8 * cur),
	       (unsigned long long)wi->gen[0].add_calls);
	/* Cells of P bits, little-endian: no bit outside live. */
	for (at = VT_IMAGE_HDR; at < len - 4; at += 8) {
		uint64_t word = le64(img + at), cellmask = 0;
		uint32_t b;

		for (b = 0; b < 64; b += p)
			cellmask |= live << b;
		EXPECT(!(word & ~cellmask), "cell word at %zu: %#llx, live %#llx",
		       at, (unsigned long long)word, (unsigned long long)live);
	}
	EXPECT(le32(img + len - 4) == crc32c_ref(img, len - 4), "CRC32C");
	return NULL;
}

/*
 * Save, restore into another window of the same geometry and other
 * settings: the state comes back (generations, current, rotations, adds
 * per generation), the keys are found, the timer is re-armed.
 */
static const char *image_round_trip(void)
{
	struct kbloom_window_info wa, wb;
	struct kbloom_info ia, ib;
	uint64_t elapsed;
	uint8_t *img, *img2;
	size_t len, len2;
	const char *msg;
	uint32_t i;
	int a, b;

	/* A timer, far off: only a timed window's image counts its time. */
	a = win_fresh("win-img-a", G, 1 << 17, 5, 600000, 0);
	EXPECT(a >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(a, "g2", 0, 300) > 0, "add");
	EXPECT_OK(rotate(a));
	EXPECT(vt_add_prefix(a, "g1", 0, 300) > 0, "add");
	EXPECT_OK(rotate(a));
	EXPECT(vt_add_prefix(a, "g0", 0, 300) > 0, "add");
	EXPECT_OK(win_info(a, &wa));
	EXPECT_OK(vt_info(a, &ia));
	/* Time since the last rotation, for the restored timer to count. */
	usleep(1200000);
	img = vt_read_image(a, 4096, &len);
	EXPECT(img, "read: %s", vt_errno_name(errno));
	elapsed = le64(img + WOFF(elapsed_ms));
	msg = window_image_sane(img, len, &wa, &ia);
	if (msg) {
		free(img);
		return vt_done(a, "win-img-a", msg);
	}
	b = win_fresh("win-img-b", G, 1 << 17, 5, 5000, 0);
	EXPECT(b >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(b, "junk", 0, 100) > 0, "add");
	EXPECT_OK(rotate(b));
	EXPECT_OK(vt_write_image(b, img, len, 1000));
	EXPECT_OK(win_info(b, &wb));
	EXPECT_OK(vt_info(b, &ib));
	/*
	 * The timer goes on from the image's last rotation: its next one is
	 * the period less the time the image says has passed (and a jiffy).
	 */
	EXPECT(elapsed >= 1200 && elapsed < 60000, "elapsed_ms %llu",
	       (unsigned long long)elapsed);
	EXPECT(wb.rotations == wa.rotations && wb.rotate_ms == 5000 &&
	       wb.next_rotation_ms > 0 &&
	       wb.next_rotation_ms <= 5000 - elapsed + 10,
	       "rotations %llu ms %llu next %llu, image elapsed %llu",
	       (unsigned long long)wb.rotations,
	       (unsigned long long)wb.rotate_ms,
	       (unsigned long long)wb.next_rotation_ms,
	       (unsigned long long)elapsed);
	for (i = 0; i < G; i++)
		EXPECT(wb.gen[i].add_calls == wa.gen[i].add_calls &&
		       wb.gen[i].bits_set == wa.gen[i].bits_set,
		       "gen[%u]: %llu adds %llu cells, saved %llu %llu", i,
		       (unsigned long long)wb.gen[i].add_calls,
		       (unsigned long long)wb.gen[i].bits_set,
		       (unsigned long long)wa.gen[i].add_calls,
		       (unsigned long long)wa.gen[i].bits_set);
	EXPECT(ib.bits_set == ia.bits_set && ib.add_calls == ia.add_calls,
	       "info differs");
	EXPECT(vt_check_prefix(b, "g0", 0, 300) == 300 &&
	       vt_check_prefix(b, "g1", 0, 300) == 300 &&
	       vt_check_prefix(b, "g2", 0, 300) == 300, "restored keys lost");
	EXPECT(vt_check_prefix(b, "junk", 0, 100) < 10, "old keys survive");
	/* Byte for byte, but for the time since the last rotation. */
	img2 = vt_read_image(b, 1 << 16, &len2);
	EXPECT(img2 && len2 == len, "read back: %s", vt_errno_name(errno));
	memset(img + WOFF(elapsed_ms), 0, 8);
	memset(img2 + WOFF(elapsed_ms), 0, 8);
	EXPECT(!memcmp(img, img2, len - 4), "image differs after a restore");
	free(img2);
	/* The restored generations age on: g2 (age 2) expires first. */
	for (i = 2; i < G; i++)
		EXPECT_OK(rotate(b));
	EXPECT(vt_check_prefix(b, "g2", 0, 300) < 30 &&
	       vt_check_prefix(b, "g1", 0, 300) == 300, "ages not restored");
	free(img);
	close(b);
	vt_destroy("win-img-b");
	return vt_done(a, "win-img-a", NULL);
}

/*
 * img as kbloom 0.1 wrote it: version 2, the same layout, or version 1,
 * without the window part (header_bytes 88); resealed.
 */
static uint8_t *make_old(const uint8_t *img, size_t len, uint16_t version,
			 size_t *old_len)
{
	size_t cells = len - VT_IMAGE_HDR - 4;
	size_t hdr = version == 1 ? HDR1 : VT_IMAGE_HDR;
	uint8_t *old = malloc(hdr + cells + 4);

	if (!old)
		return NULL;
	memcpy(old, img, hdr);
	memcpy(old + hdr, img + VT_IMAGE_HDR, cells);
	put_le16(old + 4, version);
	put_le16(old + 6, hdr);
	*old_len = hdr + cells + 4;
	reseal(old, *old_len);
	return old;
}

/*
 * Images of kbloom 0.1 (versions 1 and 2) placed a key's cells otherwise:
 * every type refuses them with EPROTO, whole or in pieces, and keeps what
 * it holds.
 */
static const char *image_old_versions_refused(void)
{
	const struct vt_type *t;

	vt_for_each_type(t, 0) {
		struct kbloom_info before, after;
		uint16_t version;
		uint8_t *img, *old;
		size_t len, old_len;
		int fd;

		if (t->generations)
			fd = win_fresh("win-old", G, 1 << 16, 4, 0, 0);
		else
			fd = vt_fresh("win-old", t->type, 1000, 0, 0, SEED);
		EXPECT(fd >= 0, "%s: create: %s", t->name, vt_errno_name(errno));
		EXPECT(vt_add_prefix(fd, "v", 0, 500) > 0, "add");
		img = vt_read_image(fd, 1 << 16, &len);
		EXPECT(img, "read: %s", vt_errno_name(errno));
		EXPECT_OK(ioctl(fd, KBLOOM_IOC_CLEAR, 0));
		EXPECT(vt_add_prefix(fd, "w", 0, 50) > 0, "add");
		EXPECT_OK(vt_info(fd, &before));
		for (version = 1; version <= 2; version++) {
			old = make_old(img, len, version, &old_len);
			EXPECT(old, "malloc");
			EXPECT_ERRNO(vt_write_image(fd, old, old_len, old_len),
				     EPROTO);
			EXPECT_ERRNO(vt_write_image(fd, old, old_len, 100),
				     EPROTO);
			free(old);
		}
		EXPECT_OK(vt_info(fd, &after));
		EXPECT(after.bits_set == before.bits_set &&
		       after.add_calls == before.add_calls &&
		       vt_check_prefix(fd, "w", 0, 50) == 50,
		       "%s: an old image changed the filter", t->name);
		/* The image as this module wrote it loads. */
		EXPECT_OK(vt_write_image(fd, img, len, 100));
		EXPECT(vt_check_prefix(fd, "v", 0, 500) == 500,
		       "%s: own image lost keys", t->name);
		free(img);
		close(fd);
	}
	EXPECT_OK(vt_destroy("win-old"));
	return NULL;
}

/*
 * The window part's rejections: each EINVAL (a field no window can have)
 * or EXDEV (another window's), the filter unchanged.
 */
static const char *reject_image_window_part(void)
{
	static const struct {
		const char *what;
		size_t off;
		uint64_t value;
		int bytes;
		int want;
	} spoil[] = {
		{ "generations", WOFF(generations), 0, 4, EXDEV },
		{ "reserved", WOFF(reserved) + 24, 1, 8, EINVAL },
		{ "live none", WOFF(live), 0, 8, EINVAL },
		{ "live all", WOFF(live), UINT64_MAX, 8, EINVAL },
		{ "current past planes", WOFF_CUR, 63, 4, EINVAL },
	};
	struct kbloom_window_info wi;
	struct vt_snap snap;
	uint8_t *img, *bad;
	size_t len, i;
	int fd;

	fd = win_fresh("win-imgbad", G, 1 << 16, 4, 0, 0);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "p", 0, 200) > 0, "add");
	EXPECT_OK(rotate(fd));
	img = vt_read_image(fd, 1 << 16, &len);
	EXPECT(img, "read: %s", vt_errno_name(errno));
	bad = malloc(len);
	EXPECT(bad, "malloc");
	EXPECT_NULL(vt_snap_take(fd, &snap));
	EXPECT_OK(win_info(fd, &wi));
	for (i = 0; i < ARRAY_SIZE(spoil) + 2; i++) {
		const char *what;
		int want;

		memcpy(bad, img, len);
		if (i < ARRAY_SIZE(spoil)) {
			uint64_t v = spoil[i].value;

			what = spoil[i].what;
			want = spoil[i].want;
			if (spoil[i].off == WOFF(generations))
				v = G - 1;
			if (spoil[i].bytes == 4)
				put_le32(bad + spoil[i].off, v);
			else
				put_le64(bad + spoil[i].off, v);
		} else if (i == ARRAY_SIZE(spoil)) {
			/* current outside live: the spare. */
			uint64_t live = le64(img + WOFF(live));
			uint32_t spare = __builtin_ctzll(~live);

			what = "current is the spare";
			want = EINVAL;
			put_le32(bad + WOFF_CUR, spare);
		} else {
			/* A live plane above g. */
			uint64_t live = le64(img + WOFF(live));

			what = "live plane above g";
			want = EINVAL;
			live &= live - 1;
			live |= 1ULL << (G + 1);
			put_le64(bad + WOFF(live), live);
		}
		reseal(bad, len);
		errno = 0;
		if (vt_write_image(fd, bad, len, len) != -1 || errno != want) {
			free(img);
			free(bad);
			vt_snap_free(&snap);
			return vt_done(fd, "win-imgbad",
				       vt_fail("%s: %s, want %s", what,
					       vt_errno_name(errno),
					       vt_errno_name(want)));
		}
	}
	free(bad);
	EXPECT_NULL(vt_snap_same(fd, &snap));
	/*
	 * Bits of the spare plane, and of planes no generation has, are not
	 * state a window can be in: a load drops them (the image reads back
	 * as it was), so a crafted image cannot make a spare unclean.
	 */
	bad = malloc(len);
	EXPECT(bad, "malloc");
	memcpy(bad, img, len);
	for (i = VT_IMAGE_HDR; i < len - 4; i++)
		bad[i] |= (uint8_t)~le64(img + WOFF(live));
	reseal(bad, len);
	EXPECT_OK(vt_write_image(fd, bad, len, len));
	free(bad);
	bad = vt_read_image(fd, 1 << 16, &i);
	EXPECT(bad && i == len, "read back: %s", vt_errno_name(errno));
	memset(img + WOFF(elapsed_ms), 0, 8);
	memset(bad + WOFF(elapsed_ms), 0, 8);
	EXPECT(!memcmp(bad + VT_IMAGE_HDR, img + VT_IMAGE_HDR,
		       len - VT_IMAGE_HDR - 4),
	       "spare or unused plane bits survived a load");
	free(bad);
	free(img);
	return vt_done(fd, "win-imgbad", NULL);
}

/* A bits or counting image with anything in its window part: EINVAL. */
static const char *reject_image_window_part_other_types(void)
{
	const struct vt_type *t;

	vt_for_each_type(t, 0) {
		uint8_t *img;
		size_t len;
		int fd;

		if (t->generations)
			continue;
		fd = vt_fresh("win-imgo", t->type, 1000, 0, 0, SEED);
		EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
		EXPECT(vt_add_prefix(fd, "o", 0, 100) > 0, "add");
		img = vt_read_image(fd, 1 << 16, &len);
		EXPECT(img, "read: %s", vt_errno_name(errno));
		EXPECT(len == vt_image_bytes((len - VT_IMAGE_HDR - 4) / 64),
		       "length");
		put_le32(img + WOFF(generations), G);
		reseal(img, len);
		EXPECT_ERRNO(vt_write_image(fd, img, len, len), EINVAL);
		put_le32(img + WOFF(generations), 0);
		put_le64(img + WOFF(rotations), 1);
		reseal(img, len);
		EXPECT_ERRNO(vt_write_image(fd, img, len, len), EINVAL);
		free(img);
		close(fd);
	}
	EXPECT_OK(vt_destroy("win-imgo"));
	return NULL;
}

/* A rotation between two reads of one image ends the stream: ESTALE. */
static const char *image_read_cut_by_rotation(void)
{
	uint8_t buf[4096];
	int fd, ro;

	fd = win_fresh("win-stale", G, 1 << 18, 4, 0, 0);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "s", 0, 1000) > 0, "add");
	ro = vt_open("win-stale", O_RDONLY);
	EXPECT(ro >= 0, "open: %s", vt_errno_name(errno));
	EXPECT(read(ro, buf, sizeof(buf)) == sizeof(buf), "first read");
	/* An add does not cut it. */
	EXPECT(vt_add_prefix(fd, "t", 0, 10) >= 0, "add");
	EXPECT(read(ro, buf, sizeof(buf)) == sizeof(buf), "read after add");
	EXPECT_OK(rotate(fd));
	EXPECT_ERRNO(read(ro, buf, sizeof(buf)), ESTALE);
	/* From offset 0 again, a whole image. */
	EXPECT(lseek(ro, 0, SEEK_SET) == 0, "lseek");
	EXPECT(read(ro, buf, sizeof(buf)) == sizeof(buf), "read anew");
	close(ro);
	return vt_done(fd, "win-stale", NULL);
}

/* ---- the mapping ---- */

struct wmap {
	uint8_t *base;
	size_t len;
	const struct kbloom_map_header *hdr;
	struct kbloom_filter f;
};

static const char *wmap_open(int fd, struct wmap *m)
{
	const struct kbloom_map_header *h;

	memset(m, 0, sizeof(*m));
	h = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT(h != MAP_FAILED, "mmap header: %s", vt_errno_name(errno));
	m->len = h->map_bytes;
	munmap((void *)h, 4096);
	m->base = mmap(NULL, m->len, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT(m->base != MAP_FAILED, "mmap: %s", vt_errno_name(errno));
	m->hdr = (const void *)m->base;
	kbloom_geometry_of_map(&m->f.geo, m->hdr);
	m->f.words = (u64 *)(m->base + m->hdr->cells_offset);
	EXPECT(!kbloom_geometry_validate(&m->f.geo),
	       "the core refuses the mapped geometry");
	return NULL;
}

/*
 * The mapped answers for keys "<prefix>-<i>": live loaded once (acquire)
 * for the whole batch, as the header says a reader does.
 */
static long wmap_check(struct wmap *m, const struct vt_keys *k,
		       uint64_t *results)
{
	uint64_t off = 0;
	long hits = 0;
	uint32_t i;

	m->f.win.live = __atomic_load_n(&m->hdr->live, __ATOMIC_ACQUIRE);
	memset(results, 0, (k->count + 63) / 64 * 8);
	for (i = 0; i < k->count; i++) {
		if (kbloom_lookup(&m->f, k->bytes + off, k->lens[i])) {
			results[i / 64] |= 1ULL << (i % 64);
			hits++;
		}
		off += k->lens[i];
	}
	return hits;
}

static const char *mapping_across_rotations(void)
{
	uint64_t *by_map = NULL, *by_ioctl = NULL, live, prev = 0;
	struct kbloom_window_info wi;
	struct vt_keys k[8];
	const char *msg = NULL;
	struct wmap m;
	uint32_t r, i, j, nk = 0;
	int fd;

	fd = win_fresh("win-map", G, 1 << 18, 5, 0, 0);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	msg = wmap_open(fd, &m);
	if (msg)
		return vt_done(fd, "win-map", msg);
	by_map = calloc(2000 / 64 + 1, 8);
	by_ioctl = calloc(2000 / 64 + 1, 8);
	EXPECT(by_map && by_ioctl, "malloc");
	EXPECT(m.hdr->generations == G && m.hdr->plane_order == 3 &&
	       m.hdr->type == KBLOOM_TYPE_WINDOW,
	       "header: generations %u plane_order %u", m.hdr->generations,
	       m.hdr->plane_order);
	for (r = 0; r < G + 2 && r < ARRAY_SIZE(k); r++) {
		char prefix[16];

		snprintf(prefix, sizeof(prefix), "m%u", r);
		EXPECT_OK(vt_keys_make(&k[nk], prefix, 0, 2000));
		nk++;
		EXPECT(vt_keys_op(fd, KBLOOM_IOC_ADD, &k[r], NULL) >= 0, "add");
		EXPECT_OK(win_info(fd, &wi));
		live = __atomic_load_n(&m.hdr->live, __ATOMIC_ACQUIRE);
		EXPECT(m.hdr->rotations == wi.rotations,
		       "header rotations %llu, GET_WINDOW %llu",
		       (unsigned long long)m.hdr->rotations,
		       (unsigned long long)wi.rotations);
		EXPECT(popcount64(live) == G && !(live >> (G + 1)),
		       "live %#llx", (unsigned long long)live);
		/* One rotation: the spare joins, the oldest leaves. */
		if (r)
			EXPECT(popcount64(live & ~prev) == 1 &&
			       popcount64(prev & ~live) == 1,
			       "live %#llx after %#llx",
			       (unsigned long long)live,
			       (unsigned long long)prev);
		prev = live;
		/* Every key set so far: live, expired, by map and ioctl. */
		for (i = 0; i <= r; i++) {
			long hm = wmap_check(&m, &k[i], by_map);
			long hi = vt_keys_op(fd, KBLOOM_IOC_CHECK, &k[i],
					     by_ioctl);
			uint32_t diff = 0;

			for (j = 0; j < 2000; j++)
				diff += ((by_map[j / 64] ^ by_ioctl[j / 64]) >>
					 (j % 64)) & 1;
			EXPECT(!diff && hm == hi,
			       "set %u after %u rotations: %u answers differ "
			       "(map %ld, ioctl %ld)", i, r, diff, hm, hi);
			if (r - i <= G - 1)
				EXPECT(hi == 2000, "set %u lost after %u rotations",
				       i, r - i);
		}
		EXPECT_OK(rotate(fd));
	}
	for (i = 0; i < nk; i++)
		vt_keys_free(&k[i]);
	free(by_map);
	free(by_ioctl);
	munmap(m.base, m.len);
	return vt_done(fd, "win-map", NULL);
}

/* ---- sysfs ---- */

static int sysfs_text(const char *name, const char *attr, char *buf,
		      size_t size)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), VT_SYSFS "/%s/%s", name, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* An array file: g numbers, newest first, equal to GET_WINDOW's. */
static const char *sysfs_array(const char *name, const char *attr,
			       const struct kbloom_window_info *wi,
			       size_t off, bool wide)
{
	char buf[4096], *p = buf, *end;
	uint32_t i;

	EXPECT_OK(sysfs_text(name, attr, buf, sizeof(buf)));
	for (i = 0; i < wi->generations; i++) {
		const uint8_t *f = (const uint8_t *)&wi->gen[i] + off;
		uint64_t want = 0, v;

		if (wide)
			memcpy(&want, f, 8);
		else
			want = *(const uint32_t *)f;
		v = strtoull(p, &end, 10);
		EXPECT(end != p, "%s: %u numbers, want %u", attr, i,
		       wi->generations);
		EXPECT(v == want, "%s[%u] %llu, GET_WINDOW %llu", attr, i,
		       (unsigned long long)v, (unsigned long long)want);
		p = end;
	}
	while (*p == ' ' || *p == '\n')
		p++;
	EXPECT(!*p, "%s: more than %u numbers", attr, wi->generations);
	return NULL;
}

static const char *sysfs_window(void)
{
	static const char *const scalars[] = {
		"generations", "rotate_ms", "rotate_every", "rotations",
		"next_rotation_ms",
	};
	struct kbloom_window_info wi;
	const struct vt_type *t;
	uint64_t v;
	size_t i;
	int fd;

	fd = win_fresh("win-sysfs", G, 1 << 17, 5, 60000, 5000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "a", 0, 300) > 0, "add");
	EXPECT_OK(rotate(fd));
	EXPECT(vt_add_prefix(fd, "b", 0, 100) > 0, "add");
	EXPECT_OK(win_info(fd, &wi));
	EXPECT_OK(vt_sysfs_u64("win-sysfs", "generations", &v));
	EXPECT(v == G, "generations %llu", (unsigned long long)v);
	EXPECT_OK(vt_sysfs_u64("win-sysfs", "rotate_ms", &v));
	EXPECT(v == 60000, "rotate_ms %llu", (unsigned long long)v);
	EXPECT_OK(vt_sysfs_u64("win-sysfs", "rotate_every", &v));
	EXPECT(v == 5000, "rotate_every %llu", (unsigned long long)v);
	EXPECT_OK(vt_sysfs_u64("win-sysfs", "rotations", &v));
	EXPECT(v == 1, "rotations %llu", (unsigned long long)v);
	EXPECT_OK(vt_sysfs_u64("win-sysfs", "next_rotation_ms", &v));
	EXPECT(v > 50000 && v <= 60000 + 10, "next_rotation_ms %llu",
	       (unsigned long long)v);
	EXPECT_NULL(sysfs_array("win-sysfs", "gen_add_calls", &wi,
				offsetof(struct kbloom_generation, add_calls),
				true));
	EXPECT_NULL(sysfs_array("win-sysfs", "gen_est_keys", &wi,
				offsetof(struct kbloom_generation, est_keys),
				true));
	EXPECT_NULL(sysfs_array("win-sysfs", "gen_fill_ppb", &wi,
				offsetof(struct kbloom_generation, fill_ppb),
				false));
	/* A rotation shows at once, not from a stale cache. */
	EXPECT_OK(rotate(fd));
	EXPECT_OK(win_info(fd, &wi));
	EXPECT_NULL(sysfs_array("win-sysfs", "gen_add_calls", &wi,
				offsetof(struct kbloom_generation, add_calls),
				true));
	EXPECT_NULL(sysfs_array("win-sysfs", "gen_fill_ppb", &wi,
				offsetof(struct kbloom_generation, fill_ppb),
				false));
	EXPECT_OK(vt_sysfs_u64("win-sysfs", "rotations", &v));
	EXPECT(v == 2, "rotations %llu", (unsigned long long)v);
	close(fd);
	EXPECT_OK(vt_destroy("win-sysfs"));
	/* The other types show 0 for each. */
	vt_for_each_type(t, 0) {
		if (t->generations)
			continue;
		fd = vt_fresh("win-sysfs-o", t->type, 1000, 0, 0, SEED);
		EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
		for (i = 0; i < ARRAY_SIZE(scalars); i++) {
			EXPECT_OK(vt_sysfs_u64("win-sysfs-o", scalars[i], &v));
			EXPECT(v == 0, "%s: %s %llu", t->name, scalars[i],
			       (unsigned long long)v);
		}
		close(fd);
	}
	EXPECT_OK(vt_destroy("win-sysfs-o"));
	return NULL;
}

/* ---- destroy while a rotation is pending ---- */

/*
 * A timer at the shortest period on a filter whose clear takes a while,
 * and rotations by count queued: destroy at any moment is clean, and the
 * name is free at once.
 */
static const char *destroy_while_rotating(void)
{
	struct kbloom_window_info wi;
	int i, fd;

	for (i = 0; i < 20; i++) {
		fd = win_fresh("win-die", G, 8ULL << 23, 4,
			       KBLOOM_ROTATE_MS_MIN, 50);
		EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
		EXPECT(vt_add_prefix(fd, "d", 0, 100 + i * 7) >= 0, "add");
		usleep(i * 1000);
		EXPECT_OK(vt_destroy("win-die"));
		EXPECT_ERRNO(win_info(fd, &wi), ENODEV);
		EXPECT_ERRNO(rotate(fd), ENODEV);
		close(fd);
	}
	return NULL;
}

static const struct vt_case cases[] = {
	VT_CASE(reject_generations),
	VT_CASE(reject_window_fields_on_other_types),
	VT_CASE(reject_create_expansion),
	VT_CASE(reject_create_reserved0),
	VT_CASE(reject_rotate_ms),
	VT_CASE(reject_rotate_every),
	VT_CASE(create_settings),
	VT_CASE(create_plane_orders),
	VT_CASE(rotate_errnos),
	VT_CASE(get_window_errnos),
	VT_CASE(get_window_fields),
	VT_CASE(guarantee_by_hand),
	VT_CASE(rotate_by_count),
	VT_CASE(rotate_by_time),
	VT_CASE(longest_periods),
	VT_CASE(clear_keeps_schedule),
	VT_CASE(merge_by_age),
	VT_CASE(intersect_by_age),
	VT_CASE(reject_merge_generations),
	VT_CASE(self_merge),
	VT_CASE(image_round_trip),
	VT_CASE(image_old_versions_refused),
	VT_CASE(reject_image_window_part),
	VT_CASE(reject_image_window_part_other_types),
	VT_CASE(image_read_cut_by_rotation),
	VT_CASE(mapping_across_rotations),
	VT_CASE(sysfs_window),
	VT_CASE(destroy_while_rotating),
};

int main(void)
{
	W = vt_type_of(KBLOOM_TYPE_WINDOW);
	if (!W || W->generations < 3) {
		printf("FAIL: %s/setup: no window row of 3+ generations\n",
		       SUITE);
		return 1;
	}
	G = W->generations;
	return vt_run(SUITE, cases, ARRAY_SIZE(cases));
}
