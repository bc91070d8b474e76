// SPDX-License-Identifier: GPL-2.0
/*
 * Scalable filters through the real device (include/uapi/linux/kbloom.h,
 * "Scalable filters"), once per type that can grow: every create field's
 * rejection, errno by errno, with nothing created; growth by ADD to the
 * sub-filters and bytes the core's own plan gives, each sub-filter
 * holding its capacity, every key found and the rate of the cells;
 * GET_SUBFILTER and its errnos; DELETE from a key's home; CLEAR back to
 * one sub-filter with the memory given back; the caps stopping growth
 * with E2BIG and done, and growth going on once raised; MERGE of
 * compatible filters and EXDEV otherwise; images (version 4) saved and
 * loaded, growing or shrinking the filter, within the caps, and a read
 * racing growth, CLEAR and loads; the operations that refuse a
 * scalable filter; sysfs; GET_INFO racing growth and CLEAR, its cell
 * statistics within the cells it reports; adders racing growth with
 * checkers that know which keys must be found: ADD ioctls alone, then
 * beside a kernel thread adding through the in-kernel API (which waits
 * out EAGAIN while the worker grows the filter) and merges of compatible
 * filters; CLEAR and the load of an empty image racing that kernel
 * thread, with ground truth, and the memory given back when it stops.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

#include "stress.h"
#include "vmtest.h"
#include "kbloom_chain.h"

#define SUITE	"scalable"
#define SEED	0x7363616c65000001ULL
#define FP_1PC	10000000U
#define CAP	1000

/* A scalable request: capacity CAP at 1 %, expansion e, type t. */
static void sc_req(struct kbloom_create *req, const char *name,
		   const struct vt_type *t, uint32_t expansion)
{
	vt_create_req(req, name, CAP, FP_1PC);
	vt_req_type(req, t);
	req->expansion = expansion;
	req->flags = KBLOOM_CREATE_SEED;
	req->seed = SEED;
}

/* A fresh scalable filter opened read-write: an fd or -1. */
static int sc_fresh(const char *name, const struct vt_type *t,
		    uint32_t expansion)
{
	struct kbloom_create req;

	vt_destroy(name);
	sc_req(&req, name, t, expansion);
	if (vt_create_raw(&req))
		return -1;
	return vt_open(name, O_RDWR);
}

static int sc_subfilter(int fd, uint32_t index, struct kbloom_subfilter *sf)
{
	memset(sf, 0, sizeof(*sf));
	sf->index = index;
	return ioctl(fd, KBLOOM_IOC_GET_SUBFILTER, sf);
}

/* The core's chain of the filter t, CAP, 1 %, e. */
static struct kbloom_chain_params sc_params(const struct vt_type *t,
					    uint32_t expansion)
{
	struct kbloom_chain_params cp = {
		.capacity = CAP, .seed = SEED, .type = t->type,
		.fp_ppb = FP_1PC, .expansion = expansion,
	};

	return cp;
}

/* The request (of "sc-rej") is refused with want, and nothing appears. */
static const char *sc_rejected(const struct kbloom_create *req, int want)
{
	int fd;

	vt_destroy("sc-rej");
	errno = 0;
	EXPECT(vt_create_raw(req) == -1 && errno == want,
	       "create: %s, want %s", vt_errno_name(errno),
	       vt_errno_name(want));
	fd = vt_open("sc-rej", O_RDONLY);
	EXPECT(fd < 0, "a refused create made it");
	return NULL;
}

static const char *reject_create(const struct vt_type *t)
{
	const struct vt_type *w = vt_type_of(KBLOOM_TYPE_WINDOW);
	struct kbloom_create req;

	sc_req(&req, "sc-rej", t, KBLOOM_EXPANSION_MAX + 1);
	EXPECT_NULL(sc_rejected(&req, EINVAL));
	sc_req(&req, "sc-rej", t, ~0U);
	EXPECT_NULL(sc_rejected(&req, EINVAL));
	/* Sized by rate alone: bits, bits per key and k are refused. */
	sc_req(&req, "sc-rej", t, 2);
	req.fp_ppb = 0;
	req.bits = 1 << 16;
	EXPECT_NULL(sc_rejected(&req, EINVAL));
	sc_req(&req, "sc-rej", t, 2);
	req.fp_ppb = 0;
	req.bits_per_key = 10;
	EXPECT_NULL(sc_rejected(&req, EINVAL));
	sc_req(&req, "sc-rej", t, 2);
	req.k = 3;
	EXPECT_NULL(sc_rejected(&req, EINVAL));
	sc_req(&req, "sc-rej", t, 2);
	req.capacity = 0;
	EXPECT_NULL(sc_rejected(&req, EINVAL));
	/* A window cannot grow. */
	sc_req(&req, "sc-rej", w, 2);
	EXPECT_NULL(sc_rejected(&req, EINVAL));
	/* Sub-filter 0 alone past max_filter_bytes (1 GiB). */
	sc_req(&req, "sc-rej", t, 2);
	req.capacity = 1ULL << 40;
	return sc_rejected(&req, E2BIG);
}

/*
 * Each sub-filter as the schedule sizes it, holding what it took: the
 * older ones their capacity, or up to slack more where adders raced for
 * the last room (kbloom_chain.h).
 */
static const char *sc_subs_match(int fd, const struct vt_type *t,
				 uint32_t expansion,
				 const struct kbloom_info *info, uint32_t slack)
{
	struct kbloom_chain_params cp = sc_params(t, expansion);
	uint64_t keys = 0, bytes = 0, nblocks = 0;
	struct kbloom_subfilter sf;
	uint32_t i;

	for (i = 0; i < info->subfilters; i++) {
		struct kbloom_geometry geo;

		EXPECT(!kbloom_chain_sub_geometry(&geo, &cp, i),
		       "no geometry for %u", i);
		EXPECT_OK(sc_subfilter(fd, i, &sf));
		EXPECT(sf.index == i && !sf.flags, "index %u flags %u",
		       sf.index, sf.flags);
		EXPECT(sf.capacity == geo.capacity && sf.k == geo.k &&
		       sf.nblocks == geo.nblocks && sf.seed == geo.seed,
		       "sub %u: capacity %llu k %u blocks %llu, want %llu %u %llu",
		       i, (unsigned long long)sf.capacity, sf.k,
		       (unsigned long long)sf.nblocks,
		       (unsigned long long)geo.capacity, geo.k,
		       (unsigned long long)geo.nblocks);
		EXPECT(sf.fp_target_ppb == geo.fp_target_ppb &&
		       (uint64_t)sf.fp_target_ppb * (i + 1) * (i + 2) <=
		       FP_1PC + (uint64_t)(i + 1) * (i + 2),
		       "sub %u: target %u", i, sf.fp_target_ppb);
		/* Full but the newest: growth waits for the next new key. */
		EXPECT(sf.keys <= sf.capacity + slack &&
		       (i + 1 == info->subfilters || sf.keys >= sf.capacity),
		       "sub %u of %u: %llu keys of %llu", i, info->subfilters,
		       (unsigned long long)sf.keys,
		       (unsigned long long)sf.capacity);
		EXPECT(sf.bytes == sf.nblocks * 64 && sf.bits_set &&
		       sf.fill_ppb && sf.fill_ppb < KBLOOM_PPB,
		       "sub %u: bytes %llu set %llu fill %u", i,
		       (unsigned long long)sf.bytes,
		       (unsigned long long)sf.bits_set, sf.fill_ppb);
		EXPECT(!sf.reserved[0] && !sf.reserved[3], "reserved set");
		keys += sf.keys;
		bytes += sf.bytes;
		nblocks += sf.nblocks;
	}
	EXPECT(keys == info->add_new, "sub-filters hold %llu, add_new %llu",
	       (unsigned long long)keys, (unsigned long long)info->add_new);
	EXPECT(bytes == info->bytes && nblocks == info->nblocks,
	       "bytes %llu/%llu blocks %llu/%llu", (unsigned long long)bytes,
	       (unsigned long long)info->bytes, (unsigned long long)nblocks,
	       (unsigned long long)info->nblocks);
	errno = 0;
	EXPECT(sc_subfilter(fd, info->subfilters, &sf) == -1 &&
	       errno == ERANGE, "index past the end: %s",
	       vt_errno_name(errno));
	return NULL;
}

/* Of n absent keys, how many CHECK says "maybe"; a batch at most each. */
static const char *sc_false_positives(int fd, uint32_t n, uint64_t *fp)
{
	uint32_t i, step;
	long hits;

	*fp = 0;
	for (i = 0; i < n; i += step) {
		step = n - i < KBLOOM_BATCH_MAX ? n - i : KBLOOM_BATCH_MAX;
		hits = vt_check_prefix(fd, "absent", i, step);
		EXPECT(hits >= 0, "check: %s", vt_errno_name(errno));
		*fp += hits;
	}
	return NULL;
}

/*
 * 10 times the capacity through ADD: the sub-filters and bytes the core's
 * plan gives for the new keys, every key found, and the measured rate
 * that of the cells (fp_now), under the bound.
 */
static const char *grow_by_add_e(const struct vt_type *t, uint32_t expansion)
{
	struct kbloom_chain_params cp = sc_params(t, expansion);
	const uint32_t n = 10 * CAP, q = 200000;
	u64 bytes, rate16;
	uint64_t fp = 0;
	struct kbloom_info info;
	double rate, now, sigma;
	uint32_t subs;
	long hits;
	int fd;

	fd = sc_fresh("sc-grow", t, expansion);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.subfilters == 1 && info.expansion == expansion &&
	       info.capacity == CAP && info.fp_target_ppb == FP_1PC,
	       "new: subs %u expansion %u capacity %llu target %u",
	       info.subfilters, info.expansion,
	       (unsigned long long)info.capacity, info.fp_target_ppb);
	hits = vt_add_prefix(fd, "key", 0, n);
	EXPECT(hits > n * 0.98, "add: %ld new of %u (%s)", hits, n,
	       vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.add_calls == n && info.add_new == (uint64_t)hits,
	       "add_calls %llu add_new %llu hits %ld",
	       (unsigned long long)info.add_calls,
	       (unsigned long long)info.add_new, hits);
	EXPECT(!kbloom_chain_plan(&cp, info.add_new, &subs, &bytes, &rate16),
	       "no plan");
	EXPECT(info.subfilters == subs && info.bytes == bytes,
	       "%u sub-filters of %llu bytes, the plan %u of %llu",
	       info.subfilters, (unsigned long long)info.bytes, subs,
	       (unsigned long long)bytes);
	EXPECT(info.fp_design_ppb < FP_1PC && !info.saturated,
	       "design %u saturated %u", info.fp_design_ppb, info.saturated);
	EXPECT_NULL(sc_subs_match(fd, t, expansion, &info, 0));
	hits = vt_check_prefix(fd, "key", 0, n);
	EXPECT(hits == n, "%ld of %u keys found", hits, n);

	EXPECT_NULL(sc_false_positives(fd, q, &fp));
	rate = (double)fp / q;
	now = info.fp_now_ppb / 1e9;
	sigma = sqrt(now * (1 - now) / q);
	EXPECT(info.fp_now_ppb <= FP_1PC, "fp_now %u", info.fp_now_ppb);
	EXPECT(rate <= FP_1PC / 1e9 + 5 * sigma, "rate %.5f over the bound",
	       rate);
	EXPECT(fabs(rate - now) <= fmax(5 * sigma, 0.02 * now),
	       "rate %.5f, the cells' %.5f (5 sigma %.5f)", rate, now,
	       5 * sigma);
	EXPECT_OK(vt_info(fd, &info));
	EXPECT_NULL(vt_sysfs_matches_info("sc-grow", &info));
	return vt_done(fd, "sc-grow", NULL);
}

static const char *grow_by_add(const struct vt_type *t)
{
	static const uint32_t expansions[] = { 1, 2, 4 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(expansions); i++)
		EXPECT_NULL(grow_by_add_e(t, expansions[i]));
	return NULL;
}

static const char *subfilter_errnos(const struct vt_type *t)
{
	struct kbloom_subfilter sf;
	int fd, ro, wo;

	fd = sc_fresh("sc-sub", t, 2);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	memset(&sf, 0, sizeof(sf));
	sf.flags = 1;
	errno = 0;
	EXPECT(ioctl(fd, KBLOOM_IOC_GET_SUBFILTER, &sf) == -1 &&
	       errno == EINVAL, "flags: %s", vt_errno_name(errno));
	memset(&sf, 0, sizeof(sf));
	sf.reserved[3] = 1;
	errno = 0;
	EXPECT(ioctl(fd, KBLOOM_IOC_GET_SUBFILTER, &sf) == -1 &&
	       errno == EINVAL, "reserved: %s", vt_errno_name(errno));
	errno = 0;
	EXPECT(sc_subfilter(fd, 1, &sf) == -1 && errno == ERANGE,
	       "index 1 of 1: %s", vt_errno_name(errno));
	errno = 0;
	EXPECT(sc_subfilter(fd, ~0U, &sf) == -1 && errno == ERANGE,
	       "index ~0: %s", vt_errno_name(errno));
	errno = 0;
	EXPECT(ioctl(fd, KBLOOM_IOC_GET_SUBFILTER, vt_unmapped_page()) == -1 &&
	       errno == EFAULT, "bad pointer: %s", vt_errno_name(errno));
	/* Read permission is enough; write alone is not. */
	ro = vt_open("sc-sub", O_RDONLY);
	EXPECT(ro >= 0 && !sc_subfilter(ro, 0, &sf) && sf.capacity == CAP,
	       "read-only: %s", vt_errno_name(errno));
	close(ro);
	wo = vt_open("sc-sub", O_WRONLY);
	errno = 0;
	EXPECT(wo >= 0 && sc_subfilter(wo, 0, &sf) == -1 && errno == EBADF,
	       "write-only: %s", vt_errno_name(errno));
	close(wo);
	EXPECT_NULL(vt_done(fd, "sc-sub", NULL));

	/* A filter of fixed size has none. */
	fd = vt_fresh("sc-fixed", t->type, CAP, 0, 0, SEED);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	errno = 0;
	EXPECT(sc_subfilter(fd, 0, &sf) == -1 && errno == EOPNOTSUPP,
	       "fixed filter: %s", vt_errno_name(errno));
	return vt_done(fd, "sc-fixed", NULL);
}

/*
 * Every key added deleted once: each from its home, so every sub-filter
 * ends empty (a delete from the newest that answers would leave the
 * older ones' cells set).  A bits filter has no DELETE.
 */
static const char *delete_from_home(const struct vt_type *t)
{
	const uint32_t n = 5 * CAP;
	struct kbloom_subfilter sf;
	struct kbloom_info info;
	uint32_t i;
	long hits;
	int fd;

	fd = sc_fresh("sc-del", t, 2);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "key", 0, n) > 0, "add: %s",
	       vt_errno_name(errno));
	if (!(t->caps & VT_DELETES)) {
		errno = 0;
		EXPECT(vt_delete_prefix(fd, "key", 0, n) == -1 &&
		       errno == EOPNOTSUPP, "delete: %s",
		       vt_errno_name(errno));
		return vt_done(fd, "sc-del", NULL);
	}
	/* A second add of each counts it again in its home. */
	EXPECT(vt_add_prefix(fd, "key", 0, n) == 0, "re-add: new keys");
	for (i = 0; i < 2; i++) {
		hits = vt_delete_prefix(fd, "key", 0, n);
		EXPECT(hits == n, "delete %u: %ld of %u", i, hits, n);
	}
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.subfilters > 2 && info.bits_set == 0 &&
	       info.delete_hits == 2 * n,
	       "%u sub-filters, %llu cells set after deleting all",
	       info.subfilters, (unsigned long long)info.bits_set);
	for (i = 0; i < info.subfilters; i++) {
		EXPECT_OK(sc_subfilter(fd, i, &sf));
		EXPECT(!sf.bits_set, "sub %u keeps %llu cells", i,
		       (unsigned long long)sf.bits_set);
	}
	EXPECT(vt_check_prefix(fd, "key", 0, n) == 0, "deleted keys found");
	return vt_done(fd, "sc-del", NULL);
}

static uint64_t sc_total_bytes(void)
{
	uint64_t v = ~0ULL;

	vt_read_u64_file(VT_SYSFS "/total_bytes", &v);
	return v;
}

/* Back to sub-filter 0, emptied; the rest of the memory given back. */
static const char *clear_frees(const struct vt_type *t)
{
	uint64_t total0, total1, sub0, held0;
	struct kbloom_info info;
	int fd;

	fd = sc_fresh("sc-clear", t, 2);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	sub0 = info.bytes;
	held0 = info.held_bytes;
	total0 = sc_total_bytes();
	EXPECT(vt_add_prefix(fd, "key", 0, 20 * CAP) > 0, "add: %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	total1 = sc_total_bytes();
	EXPECT(info.subfilters >= 4 && total1 - total0 == info.held_bytes - held0,
	       "%u sub-filters, total grew %llu for %llu",
	       info.subfilters, (unsigned long long)(total1 - total0),
	       (unsigned long long)(info.held_bytes - held0));
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_CLEAR, 0));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.subfilters == 1 && info.bytes == sub0 &&
	       info.held_bytes == held0 &&
	       sc_total_bytes() == total0 && !info.bits_set &&
	       !info.add_calls && !info.add_new,
	       "after clear: %u sub-filters, %llu bytes, total %llu (was %llu), %llu set",
	       info.subfilters, (unsigned long long)info.bytes,
	       (unsigned long long)sc_total_bytes(),
	       (unsigned long long)total0, (unsigned long long)info.bits_set);
	EXPECT(vt_check_prefix(fd, "key", 0, 20 * CAP) == 0,
	       "keys found after clear");
	/* And it grows again. */
	EXPECT(vt_add_prefix(fd, "again", 0, 3 * CAP) > 0, "add: %s",
	       vt_errno_name(errno));
	EXPECT(vt_check_prefix(fd, "again", 0, 3 * CAP) == 3 * CAP,
	       "keys lost after growing again");
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.subfilters >= 2, "did not grow again");
	return vt_done(fd, "sc-clear", NULL);
}

/*
 * cap stops growth where the filter holds two sub-filters: ADD fails with
 * E2BIG at the first new key that needs a third, done says where, keys
 * before it are found, known keys still go in, saturated says so; once
 * the cap is raised, growth goes on.
 */
static const char *cap_stops_e(const struct vt_type *t, const char *param)
{
	const uint32_t n = 10 * CAP;
	struct kbloom_info info;
	struct kbloom_batch b;
	struct vt_keys k;
	uint64_t saved, limit;
	const char *msg = NULL;
	int fd;

	EXPECT_OK(vt_param_get(param, &saved));
	fd = sc_fresh("sc-cap", t, 2);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	/* Some of them are false positives, which take no room. */
	EXPECT(vt_add_prefix(fd, "first", 0, CAP + CAP / 2) > 0, "add: %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.subfilters == 2, "%u sub-filters", info.subfilters);
	limit = info.held_bytes;
	if (!strcmp(param, "max_total_bytes"))
		limit = sc_total_bytes();
	if (vt_param_set(param, limit))
		return vt_done(fd, "sc-cap", vt_fail("cannot set %s", param));
	if (vt_keys_make(&k, "key", 0, n)) {
		msg = vt_fail("no memory");
		goto out;
	}
	vt_batch(&b, &k, NULL);
	errno = 0;
	if (ioctl(fd, KBLOOM_IOC_ADD, &b) != -1 || errno != E2BIG) {
		msg = vt_fail("add past %s: %s", param, vt_errno_name(errno));
		goto out_keys;
	}
	if (!b.done || b.done >= n ||
	    vt_check_prefix(fd, "key", 0, b.done) != (long)b.done) {
		msg = vt_fail("done %llu of %u, or its keys not found",
			      (unsigned long long)b.done, n);
		goto out_keys;
	}
	if (vt_info(fd, &info) || info.subfilters != 2 || !info.saturated ||
	    (strcmp(param, "max_total_bytes") ? info.held_bytes :
	     sc_total_bytes()) != limit) {
		msg = vt_fail("at the cap: %u sub-filters saturated %u",
			      info.subfilters, info.saturated);
		goto out_keys;
	}
	/* Known keys need no room. */
	if (vt_add_prefix(fd, "key", 0, b.done) != 0) {
		msg = vt_fail("re-add of known keys: %s", vt_errno_name(errno));
		goto out_keys;
	}
	vt_param_set(param, saved);
	if (vt_add_prefix(fd, "key", 0, n) < 0 ||
	    vt_check_prefix(fd, "key", 0, n) != n || vt_info(fd, &info) ||
	    info.subfilters < 3 || info.saturated)
		msg = vt_fail("after raising %s: %u sub-filters saturated %u (%s)",
			      param, info.subfilters, info.saturated,
			      vt_errno_name(errno));
out_keys:
	vt_keys_free(&k);
out:
	vt_param_set(param, saved);
	return vt_done(fd, "sc-cap", msg);
}

static const char *cap_stops_growth(const struct vt_type *t)
{
	EXPECT_NULL(cap_stops_e(t, "max_filter_bytes"));
	return cap_stops_e(t, "max_total_bytes");
}

/*
 * MERGE of compatible filters (one seed and schedule): a bits filter
 * grows to the other's sub-filters and finds every key of both.  A
 * counting one takes no merge (EOPNOTSUPP, before EXDEV) and is left as it
 * was: the other's keys would land in its older sub-filters and move its
 * own keys' homes, so that one DELETE of each of its keys would take
 * counts of the other's (a module that merged them had 7,000 keys each
 * leave about 100 of the other's absent).  Any other pairing is EXDEV;
 * INTERSECT is EOPNOTSUPP.
 */
#define MERGE_KEYS	(7 * CAP)

static const char *merge_counting_refused(int fa, int fb)
{
	struct kbloom_info a, b;
	long absent;

	EXPECT_OK(vt_info(fa, &a));
	errno = 0;
	if (!vt_combine(fa, KBLOOM_IOC_MERGE, fb)) {
		/* What the merge it took does to deletes, to say so. */
		EXPECT(vt_delete_prefix(fa, "a", 0, MERGE_KEYS) == MERGE_KEYS,
		       "after a MERGE it took, a delete of its own key failed");
		absent = MERGE_KEYS - vt_check_prefix(fa, "b", 0, MERGE_KEYS);
		return vt_fail("MERGE of counting scalable filters taken; then one DELETE of each of its own keys left %ld of the other's %d keys absent",
			       absent, MERGE_KEYS);
	}
	EXPECT(errno == EOPNOTSUPP, "merge: %s, not EOPNOTSUPP",
	       vt_errno_name(errno));
	errno = 0;
	EXPECT(vt_combine(fa, KBLOOM_IOC_MERGE, fa) == -1 &&
	       errno == EOPNOTSUPP, "self-merge: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fa, &b));
	EXPECT(b.bits_set == a.bits_set && b.subfilters == a.subfilters &&
	       b.bytes == a.bytes, "a refused merge changed it");
	/* Its own keys, each deleted once, all go; the other's never came. */
	EXPECT(vt_delete_prefix(fa, "a", 0, MERGE_KEYS) == MERGE_KEYS,
	       "a delete of its own key failed");
	EXPECT_OK(vt_info(fa, &b));
	EXPECT(!b.bits_set, "%llu cells left after every key went",
	       (unsigned long long)b.bits_set);
	return NULL;
}

static const char *merge_grows(const struct vt_type *t)
{
	bool counting = t->type == KBLOOM_TYPE_COUNTING;
	int refused = counting ? EOPNOTSUPP : EXDEV;
	struct kbloom_create req;
	struct kbloom_info a, b;
	int fa, fb, fc, ff;

	fa = sc_fresh("sc-ma", t, 2);
	fb = sc_fresh("sc-mb", t, 2);
	EXPECT(fa >= 0 && fb >= 0, "create: %s", vt_errno_name(errno));
	if (counting) {
		EXPECT(vt_add_prefix(fa, "a", 0, MERGE_KEYS) > 0 &&
		       vt_add_prefix(fb, "b", 0, MERGE_KEYS) > 0, "add: %s",
		       vt_errno_name(errno));
		EXPECT_NULL(merge_counting_refused(fa, fb));
		EXPECT(vt_add_prefix(fa, "a", 0, CAP / 2) > 0, "add: %s",
		       vt_errno_name(errno));
		EXPECT_OK(vt_info(fa, &a));
	} else {
		EXPECT(vt_add_prefix(fa, "a", 0, CAP / 2) > 0 &&
		       vt_add_prefix(fb, "b", 0, 8 * CAP) > 0, "add: %s",
		       vt_errno_name(errno));
		EXPECT_OK(vt_combine(fa, KBLOOM_IOC_MERGE, fb));
		EXPECT_OK(vt_info(fa, &a));
		EXPECT_OK(vt_info(fb, &b));
		EXPECT(a.subfilters == b.subfilters && a.bytes == b.bytes,
		       "merged: %u sub-filters, the other %u", a.subfilters,
		       b.subfilters);
		EXPECT(vt_check_prefix(fa, "a", 0, CAP / 2) == CAP / 2 &&
		       vt_check_prefix(fa, "b", 0, 8 * CAP) == 8 * CAP,
		       "keys lost in the merge");
		/* With itself: nothing changes. */
		EXPECT_OK(vt_combine(fa, KBLOOM_IOC_MERGE, fa));
		EXPECT_OK(vt_info(fa, &b));
		EXPECT(b.bits_set == a.bits_set && b.subfilters == a.subfilters,
		       "self-merge changed it");
	}

	vt_destroy("sc-mc");
	sc_req(&req, "sc-mc", t, 4);
	EXPECT_OK(vt_create_raw(&req));
	fc = vt_open("sc-mc", O_RDWR);
	ff = vt_fresh("sc-mf", t->type, CAP, 0, 0, SEED);
	EXPECT(fc >= 0 && ff >= 0, "create: %s", vt_errno_name(errno));
	errno = 0;
	EXPECT(vt_combine(fa, KBLOOM_IOC_MERGE, fc) == -1 && errno == refused,
	       "other expansion: %s", vt_errno_name(errno));
	errno = 0;
	EXPECT(vt_combine(fa, KBLOOM_IOC_MERGE, ff) == -1 && errno == refused,
	       "fixed into scalable: %s", vt_errno_name(errno));
	errno = 0;
	EXPECT(vt_combine(ff, KBLOOM_IOC_MERGE, fa) == -1 && errno == EXDEV,
	       "scalable into fixed: %s", vt_errno_name(errno));
	errno = 0;
	EXPECT(vt_combine(fa, KBLOOM_IOC_INTERSECT, fb) == -1 &&
	       errno == EOPNOTSUPP, "intersect: %s", vt_errno_name(errno));
	errno = 0;
	EXPECT(vt_combine(ff, KBLOOM_IOC_INTERSECT, fa) == -1 &&
	       errno == EOPNOTSUPP, "intersect with fixed: %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_info(fa, &b));
	EXPECT(b.bits_set == a.bits_set, "a refused merge changed it");
	vt_done(fb, "sc-mb", NULL);
	vt_done(fc, "sc-mc", NULL);
	vt_done(ff, "sc-mf", NULL);
	return vt_done(fa, "sc-ma", NULL);
}

/* Where a version 4 image's cells begin: header_bytes. */
#define SC_IMG_SUBS	(VT_IMAGE_HDR + sizeof(struct kbloom_image_chain))
#define SC_IMG_SUB	sizeof(struct kbloom_image_subfilter)

static const struct kbloom_image_header *sc_img_hdr(const uint8_t *img)
{
	return (const struct kbloom_image_header *)img;
}

/* An image of info's filter: its version, sub-filters and length. */
static const char *sc_image_matches(const uint8_t *img, size_t len,
				    const struct kbloom_info *info)
{
	const struct kbloom_image_header *h = sc_img_hdr(img);
	const struct kbloom_image_chain *ch =
		(const void *)(img + VT_IMAGE_HDR);
	uint64_t hb = SC_IMG_SUBS + info->subfilters * SC_IMG_SUB;

	EXPECT(len >= SC_IMG_SUBS, "image of %zu bytes", len);
	EXPECT(le16toh(h->version) == KBLOOM_IMAGE_VERSION_CHAIN &&
	       le16toh(h->header_bytes) == hb &&
	       le64toh(h->nblocks) == info->nblocks &&
	       le32toh(ch->subfilters) == info->subfilters &&
	       le32toh(ch->expansion) == info->expansion &&
	       len == hb + info->nblocks * 64 + 4,
	       "image: version %u, header_bytes %u, %u sub-filters, %zu bytes; filter: %u sub-filters, %llu blocks",
	       le16toh(h->version), le16toh(h->header_bytes),
	       le32toh(ch->subfilters), len, info->subfilters,
	       (unsigned long long)info->nblocks);
	return NULL;
}

/*
 * Save and load: the image of a grown filter (version 4) loads into a
 * fresh one, which grows to its sub-filters (the growth charged to
 * total_bytes), and into one of more sub-filters, which gives back the
 * memory of those past the image's; each then has the first's
 * sub-filters, keys and cells (its image the same bytes) and finds every
 * key, and grows on from there.  A filter of fixed size and a scalable
 * filter refuse each other's images with EXDEV.
 */
static const char *image_round_trip(const struct vt_type *t)
{
	struct kbloom_info ia, ib, ic;
	uint64_t total0, sub0;
	uint8_t *img, *img2;
	size_t len, len2;
	int fa, fb, fc, ff;

	fa = sc_fresh("sc-ia", t, 2);
	fb = sc_fresh("sc-ib", t, 2);
	fc = sc_fresh("sc-ic", t, 2);
	EXPECT(fa >= 0 && fb >= 0 && fc >= 0, "create: %s",
	       vt_errno_name(errno));
	EXPECT(vt_add_prefix(fa, "img", 0, 10 * CAP) > 0, "add: %s",
	       vt_errno_name(errno));
	EXPECT(vt_add_prefix(fc, "more", 0, 40 * CAP) > 0, "add: %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_info(fa, &ia));
	EXPECT_OK(vt_info(fb, &ib));
	EXPECT_OK(vt_info(fc, &ic));
	EXPECT(ia.subfilters >= 4 && ic.subfilters > ia.subfilters,
	       "%u and %u sub-filters", ia.subfilters, ic.subfilters);
	sub0 = ib.held_bytes;
	img = vt_read_image(fa, 7000, &len);
	EXPECT(img, "read: %s", vt_errno_name(errno));
	EXPECT_NULL(sc_image_matches(img, len, &ia));

	total0 = sc_total_bytes();
	EXPECT_OK(vt_write_image(fb, img, len, 1000));
	EXPECT_OK(vt_info(fb, &ib));
	EXPECT(ib.subfilters == ia.subfilters && ib.bytes == ia.bytes &&
	       ib.bits_set == ia.bits_set && ib.add_new == ia.add_new &&
	       ib.add_calls == ia.add_calls &&
	       ib.held_bytes == ia.held_bytes &&
	       sc_total_bytes() - total0 == ia.held_bytes - sub0,
	       "loaded: %u sub-filters, %llu bytes, %llu set (image's: %u, %llu, %llu); total grew %llu",
	       ib.subfilters, (unsigned long long)ib.bytes,
	       (unsigned long long)ib.bits_set, ia.subfilters,
	       (unsigned long long)ia.bytes, (unsigned long long)ia.bits_set,
	       (unsigned long long)(sc_total_bytes() - total0));
	EXPECT(vt_check_prefix(fb, "img", 0, 10 * CAP) == 10 * CAP,
	       "keys lost in the load");
	img2 = vt_read_image(fb, 1 << 16, &len2);
	EXPECT(img2 && len2 == len && !memcmp(img, img2, len),
	       "the loaded filter's image differs");
	free(img2);

	total0 = sc_total_bytes();
	EXPECT_OK(vt_write_image(fc, img, len, 1 << 20));
	EXPECT_OK(vt_info(fc, &ib));
	EXPECT(ib.subfilters == ia.subfilters && ib.bytes == ia.bytes &&
	       total0 - sc_total_bytes() == ic.held_bytes - ia.held_bytes,
	       "loaded over %u sub-filters: %u, %llu bytes, total fell %llu of %llu",
	       ic.subfilters, ib.subfilters, (unsigned long long)ib.bytes,
	       (unsigned long long)(total0 - sc_total_bytes()),
	       (unsigned long long)(ic.held_bytes - ia.held_bytes));
	EXPECT(vt_check_prefix(fc, "img", 0, 10 * CAP) == 10 * CAP,
	       "keys lost in the load");
	/* Its own keys are gone, but for false positives (about 1 %). */
	EXPECT(vt_check_prefix(fc, "more", 0, 40 * CAP) < 4 * CAP,
	       "the replaced keys are still found");
	EXPECT(vt_add_prefix(fb, "after", 0, 20 * CAP) > 0, "add: %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_info(fb, &ib));
	EXPECT(ib.subfilters > ia.subfilters &&
	       vt_check_prefix(fb, "after", 0, 20 * CAP) == 20 * CAP &&
	       vt_check_prefix(fb, "img", 0, 10 * CAP) == 10 * CAP,
	       "growth after the load");

	/* Another expansion: its schedule differs from sub-filter 1 on. */
	ff = sc_fresh("sc-ie", t, 3);
	EXPECT(ff >= 0, "create: %s", vt_errno_name(errno));
	errno = 0;
	EXPECT(vt_write_image(ff, img, len, 1 << 20) == -1 && errno == EXDEV,
	       "an image of expansion 2 into a filter of 3: %s",
	       vt_errno_name(errno));
	vt_done(ff, "sc-ie", NULL);

	vt_destroy("sc-if");
	EXPECT_OK(vt_create("sc-if", CAP, FP_1PC, SEED));
	ff = vt_open("sc-if", O_RDWR);
	EXPECT(ff >= 0, "open: %s", vt_errno_name(errno));
	errno = 0;
	EXPECT(vt_write_image(ff, img, len, 1 << 20) == -1 && errno == EXDEV,
	       "version 4 into a fixed filter: %s", vt_errno_name(errno));
	free(img);
	img = vt_read_image(ff, 1 << 16, &len);
	EXPECT(img, "read: %s", vt_errno_name(errno));
	errno = 0;
	EXPECT(vt_write_image(fa, img, len, 1 << 20) == -1 && errno == EXDEV,
	       "version 3 into a scalable filter: %s", vt_errno_name(errno));
	free(img);
	EXPECT_OK(vt_info(fa, &ib));
	EXPECT(ib.subfilters == ia.subfilters && ib.bits_set == ia.bits_set,
	       "a refused image changed the filter");
	vt_done(ff, "sc-if", NULL);
	vt_done(fb, "sc-ib", NULL);
	vt_done(fc, "sc-ic", NULL);
	return vt_done(fa, "sc-ia", NULL);
}

/*
 * A load that needs more sub-filters than max_filter_bytes allows fails
 * with E2BIG at its final byte and leaves the filter's keys and answers
 * as they were; once the cap is raised, the same image loads.  An image
 * whose header counts more sub-filters than the schedule has, or blocks
 * the schedule does not give, is refused with EINVAL at its header.
 */
static const char *image_load_caps(const struct vt_type *t)
{
	struct kbloom_image_header *h;
	struct kbloom_info ia, ib;
	uint64_t saved;
	const char *msg = NULL;
	uint8_t *img;
	size_t len;
	int fa, fb;

	EXPECT_OK(vt_param_get("max_filter_bytes", &saved));
	fa = sc_fresh("sc-la", t, 2);
	fb = sc_fresh("sc-lb", t, 2);
	EXPECT(fa >= 0 && fb >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fa, "big", 0, 10 * CAP) > 0, "add: %s",
	       vt_errno_name(errno));
	EXPECT(vt_add_prefix(fb, "own", 0, CAP / 2) > 0, "add: %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_info(fa, &ia));
	img = vt_read_image(fa, 1 << 16, &len);
	EXPECT(img, "read: %s", vt_errno_name(errno));
	EXPECT_OK(vt_param_set("max_filter_bytes", ia.bytes / 2));
	errno = 0;
	if (vt_write_image(fb, img, len, 1 << 20) != -1 || errno != E2BIG)
		msg = vt_fail("load past the cap: %s", vt_errno_name(errno));
	else if (vt_info(fb, &ib) || ib.add_new > CAP / 2 ||
		 vt_check_prefix(fb, "own", 0, CAP / 2) != CAP / 2 ||
		 vt_check_prefix(fb, "big", 0, 10 * CAP) > CAP)
		msg = vt_fail("the refused load changed the keys or answers");
	vt_param_set("max_filter_bytes", saved);
	if (!msg && (vt_write_image(fb, img, len, 1 << 20) ||
		     vt_check_prefix(fb, "big", 0, 10 * CAP) != 10 * CAP))
		msg = vt_fail("load once the cap is raised: %s",
			      vt_errno_name(errno));
	h = (struct kbloom_image_header *)img;
	if (!msg) {
		/* One sub-filter more than the schedule's end. */
		h->header_bytes = htole16(SC_IMG_SUBS +
					  (KBLOOM_SUBFILTERS_MAX + 1) *
					  SC_IMG_SUB);
		errno = 0;
		if (vt_write_image(fb, img, len, 1 << 20) != -1 ||
		    errno != EINVAL)
			msg = vt_fail("header of too many sub-filters: %s",
				      vt_errno_name(errno));
	}
	if (!msg) {
		h->header_bytes = htole16(SC_IMG_SUBS +
					  ia.subfilters * SC_IMG_SUB);
		h->nblocks = htole64(le64toh(h->nblocks) + 1);
		errno = 0;
		if (vt_write_image(fb, img, len, 1 << 20) != -1 ||
		    errno != EINVAL)
			msg = vt_fail("blocks off the schedule: %s",
				      vt_errno_name(errno));
	}
	free(img);
	vt_done(fb, "sc-lb", NULL);
	return vt_done(fa, "sc-la", msg);
}

/* The first 100 bytes of a stream, the file's offset left after them. */
static ssize_t sc_read_start(int fd, uint8_t *buf)
{
	if (lseek(fd, 0, SEEK_SET))
		return -1;
	return read(fd, buf, 100);
}

/*
 * A read streams the sub-filters there were when it began: growth during
 * it does not end it, and the image holds every key added before it
 * began.  A CLEAR or a load during it ends it with ESTALE.
 */
static const char *image_read_races(const struct vt_type *t)
{
	struct kbloom_info ia, ib;
	uint8_t buf[4096], *img;
	size_t len;
	int fa, fb, fr;

	fa = sc_fresh("sc-ra", t, 2);
	fb = sc_fresh("sc-rb", t, 2);
	EXPECT(fa >= 0 && fb >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fa, "before", 0, 3 * CAP) > 0, "add: %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_info(fa, &ia));
	EXPECT(sc_read_start(fa, buf) == 100, "read: %s",
	       vt_errno_name(errno));
	EXPECT(vt_add_prefix(fa, "during", 0, 20 * CAP) > 0, "add: %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_info(fa, &ib));
	EXPECT(ib.subfilters > ia.subfilters, "did not grow");
	len = SC_IMG_SUBS + ia.subfilters * SC_IMG_SUB + ia.nblocks * 64 + 4;
	img = malloc(len + 1);
	EXPECT(img, "no memory");
	memcpy(img, buf, 100);
	EXPECT(read(fa, img + 100, len + 1 - 100) == (ssize_t)(len - 100),
	       "the rest of the stream: %s", vt_errno_name(errno));
	EXPECT_OK(vt_write_image(fb, img, len, 1 << 20));
	free(img);
	EXPECT(vt_check_prefix(fb, "before", 0, 3 * CAP) == 3 * CAP,
	       "keys added before the read are not in its image");
	EXPECT_OK(vt_info(fb, &ib));
	EXPECT(ib.subfilters == ia.subfilters, "image of %u sub-filters, not %u",
	       ib.subfilters, ia.subfilters);

	EXPECT(sc_read_start(fa, buf) == 100, "read: %s",
	       vt_errno_name(errno));
	EXPECT_OK(ioctl(fa, KBLOOM_IOC_CLEAR, 0));
	errno = 0;
	EXPECT(read(fa, buf, sizeof(buf)) == -1 && errno == ESTALE,
	       "read across a clear: %s", vt_errno_name(errno));
	img = vt_read_image(fb, 1 << 16, &len);
	EXPECT(img, "read: %s", vt_errno_name(errno));
	fr = vt_open("sc-rb", O_RDONLY);
	EXPECT(fr >= 0, "open: %s", vt_errno_name(errno));
	EXPECT(sc_read_start(fr, buf) == 100, "read: %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_write_image(fb, img, len, 1 << 20));
	errno = 0;
	EXPECT(read(fr, buf, sizeof(buf)) == -1 && errno == ESTALE,
	       "read across a load: %s", vt_errno_name(errno));
	close(fr);
	EXPECT_OK(vt_write_image(fa, img, len, 1 << 20));
	free(img);
	EXPECT(vt_check_prefix(fa, "before", 0, 3 * CAP) == 3 * CAP,
	       "keys lost");
	vt_done(fb, "sc-rb", NULL);
	return vt_done(fa, "sc-ra", NULL);
}

/* What a scalable filter refuses: rotation (INTERSECT: merge_grows). */
static const char *refused_ops(const struct vt_type *t)
{
	int fd;

	fd = sc_fresh("sc-ref", t, 2);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	errno = 0;
	EXPECT(ioctl(fd, KBLOOM_IOC_ROTATE, 0) == -1 && errno == EOPNOTSUPP,
	       "rotate: %s", vt_errno_name(errno));
	return vt_done(fd, "sc-ref", NULL);
}

/*
 * Adders on several files grow the filter while checkers, told how far
 * each adder's returned ADDs reached, find every key below that, and a
 * reader of the statistics walks the sub-filters as they come.
 */
#define RACE_ADDERS	3
#define RACE_BATCH	500
#define RACE_KEYS	(20 * CAP)

struct race {
	const char *name;
	_Atomic uint64_t added[RACE_ADDERS];	/* keys [0, added) returned */
	_Atomic int stop;
	_Atomic int failed;
	char msg[256];
};

static void race_fail(struct race *r, const char *what, long got)
{
	if (!atomic_exchange(&r->failed, 1))
		snprintf(r->msg, sizeof(r->msg), "%s: %ld (%s)", what, got,
			 vt_errno_name(errno));
}

struct race_arg {
	struct race *r;
	int id;
};

static void *race_add(void *arg)
{
	struct race_arg *a = arg;
	char prefix[16];
	uint64_t i;
	int fd = vt_open(a->r->name, O_RDWR);

	snprintf(prefix, sizeof(prefix), "w%d", a->id);
	for (i = 0; fd >= 0 && i < RACE_KEYS && !a->r->failed;
	     i += RACE_BATCH) {
		if (vt_add_prefix(fd, prefix, i, RACE_BATCH) < 0) {
			race_fail(a->r, "add", -1);
			break;
		}
		atomic_store(&a->r->added[a->id], i + RACE_BATCH);
	}
	if (fd < 0)
		race_fail(a->r, "open", fd);
	close(fd);
	return NULL;
}

static void *race_check(void *arg)
{
	struct race *r = arg;
	int fd = vt_open(r->name, O_RDONLY);
	char prefix[16];
	uint64_t upto;
	long hits;
	int id = 0;

	while (fd >= 0 && !atomic_load(&r->stop) && !r->failed) {
		id = (id + 1) % RACE_ADDERS;
		upto = atomic_load(&r->added[id]);
		if (!upto)
			continue;
		snprintf(prefix, sizeof(prefix), "w%d", id);
		hits = vt_check_prefix(fd, prefix, 0, upto);
		if (hits != (long)upto)
			race_fail(r, "keys found of those added", hits);
	}
	close(fd);
	return NULL;
}

static void *race_stats(void *arg)
{
	struct race *r = arg;
	struct kbloom_subfilter sf;
	struct kbloom_info info;
	int fd = vt_open(r->name, O_RDONLY);
	uint64_t v;

	while (fd >= 0 && !atomic_load(&r->stop) && !r->failed) {
		if (vt_info(fd, &info) ||
		    sc_subfilter(fd, info.subfilters - 1, &sf) ||
		    vt_sysfs_u64(r->name, "fill_ppb", &v))
			race_fail(r, "statistics", -1);
	}
	close(fd);
	return NULL;
}

static const char *adders_race_growth(const struct vt_type *t)
{
	pthread_t adders[RACE_ADDERS], checker, stats;
	struct race_arg args[RACE_ADDERS];
	static struct race r;
	struct kbloom_info info;
	char prefix[16];
	int fd, i;

	memset(&r, 0, sizeof(r));
	r.name = "sc-race";
	fd = sc_fresh(r.name, t, 2);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	pthread_create(&checker, NULL, race_check, &r);
	pthread_create(&stats, NULL, race_stats, &r);
	for (i = 0; i < RACE_ADDERS; i++) {
		args[i] = (struct race_arg){ &r, i };
		pthread_create(&adders[i], NULL, race_add, &args[i]);
	}
	for (i = 0; i < RACE_ADDERS; i++)
		pthread_join(adders[i], NULL);
	atomic_store(&r.stop, 1);
	pthread_join(checker, NULL);
	pthread_join(stats, NULL);
	if (r.failed)
		return vt_done(fd, r.name, vt_fail("%s", r.msg));
	for (i = 0; i < RACE_ADDERS; i++) {
		snprintf(prefix, sizeof(prefix), "w%d", i);
		EXPECT(vt_check_prefix(fd, prefix, 0, RACE_KEYS) == RACE_KEYS,
		       "adder %d's keys lost", i);
	}
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.subfilters >= 5, "grew to %u sub-filters only",
	       info.subfilters);
	EXPECT_NULL(sc_subs_match(fd, t, 2, &info, RACE_ADDERS - 1));
	return vt_done(fd, r.name, NULL);
}

/*
 * GET_INFO's cell statistics are of the sub-filters it reports: readers
 * of GET_INFO race rounds that grow the filter to four sub-filters or
 * more and CLEAR it back to one, and every answer has bits_set within
 * its own cells (512 a block for bits, 128 counters for counting) and
 * bits of its nblocks.  A walk of the cells summed over sub-filters that
 * a CLEAR then dropped gave bits_set 20758 of bits 17920 to a fuzzer.
 */
#define INFO_ROUNDS	150
#define INFO_READERS	2

struct info_race {
	_Atomic int stop;
	_Atomic int failed;
	_Atomic uint64_t reads;
	uint32_t per_block;
	char msg[256];
};

static void *info_reader(void *arg)
{
	struct info_race *r = arg;
	struct kbloom_info info;
	int fd = vt_open("sc-info", O_RDONLY);

	if (fd < 0 && !atomic_exchange(&r->failed, 1))
		snprintf(r->msg, sizeof(r->msg), "open: %s",
			 vt_errno_name(errno));
	while (fd >= 0 && !atomic_load(&r->stop) && !r->failed) {
		if (vt_info(fd, &info)) {
			if (!atomic_exchange(&r->failed, 1))
				snprintf(r->msg, sizeof(r->msg),
					 "GET_INFO: %s", vt_errno_name(errno));
			break;
		}
		atomic_fetch_add(&r->reads, 1);
		if ((info.bits_set > info.nblocks * r->per_block ||
		     info.bits != info.nblocks * 512) &&
		    !atomic_exchange(&r->failed, 1))
			snprintf(r->msg, sizeof(r->msg),
				 "%u sub-filters, %llu blocks, bits %llu, bits_set %llu",
				 info.subfilters,
				 (unsigned long long)info.nblocks,
				 (unsigned long long)info.bits,
				 (unsigned long long)info.bits_set);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static const char *info_races_clear(const struct vt_type *t)
{
	pthread_t readers[INFO_READERS];
	static struct info_race r;
	struct kbloom_info info;
	const char *msg = NULL;
	int fd, i, round;

	memset(&r, 0, sizeof(r));
	r.per_block = t->type == KBLOOM_TYPE_BITS ? 512 : 128;
	fd = sc_fresh("sc-info", t, 2);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	for (i = 0; i < INFO_READERS; i++)
		pthread_create(&readers[i], NULL, info_reader, &r);
	for (round = 0; round < INFO_ROUNDS && !msg && !r.failed; round++) {
		if (vt_add_prefix(fd, "key", 0, 8 * CAP) < 0 ||
		    vt_info(fd, &info))
			msg = vt_fail("round %d: add: %s", round,
				      vt_errno_name(errno));
		else if (info.subfilters < 4)
			msg = vt_fail("round %d: %u sub-filters, want 4",
				      round, info.subfilters);
		else if (ioctl(fd, KBLOOM_IOC_CLEAR, 0))
			msg = vt_fail("round %d: clear: %s", round,
				      vt_errno_name(errno));
	}
	atomic_store(&r.stop, 1);
	for (i = 0; i < INFO_READERS; i++)
		pthread_join(readers[i], NULL);
	if (!msg && r.failed)
		msg = vt_fail("%s", r.msg);
	if (!msg && atomic_load(&r.reads) < INFO_ROUNDS)
		msg = vt_fail("%llu reads in %d rounds",
			      (unsigned long long)atomic_load(&r.reads),
			      INFO_ROUNDS);
	return vt_done(fd, "sc-info", msg);
}

/*
 * A header alone holds no memory past the filter's cap: a version 4
 * header naming as many sub-filters as the schedule has below 48 MiB of
 * cells, written to a filter whose max_filter_bytes is 4 MiB and held
 * open, is E2BIG at once (the module before staged, and charged to
 * max_total_bytes, the whole image it announced), and an unrelated
 * create of about 3 MiB beside it succeeds, with max_total_bytes what is
 * in use plus those cells plus 2 MiB.
 */
#define STAGE_CAP	(4ULL << 20)
#define STAGE_CLAIM	(48ULL << 20)
#define STAGE_OTHER_KEYS	2500000

static const char *staged_header_within_caps(const struct vt_type *t)
{
	struct kbloom_chain_params cp = sc_params(t, 2);
	uint8_t head[SC_IMG_SUBS] = { 0 };
	struct kbloom_image_header *h = (void *)head;
	struct kbloom_image_chain *ch = (void *)(head + VT_IMAGE_HDR);
	uint64_t saved_filter, saved_total, nblocks = 0;
	struct kbloom_geometry geo;
	const char *msg = NULL;
	uint32_t n, k0 = 0;
	ssize_t w;
	int fd, e;

	for (n = 0; !kbloom_chain_sub_geometry(&geo, &cp, n); n++) {
		if ((nblocks + geo.nblocks) * 64 > STAGE_CLAIM)
			break;
		nblocks += geo.nblocks;
		k0 = n ? k0 : geo.k;
	}
	EXPECT(nblocks * 64 > STAGE_CAP,
	       "the schedule gave %u sub-filters of %llu blocks", n,
	       (unsigned long long)nblocks);
	h->magic = htole32(KBLOOM_IMAGE_MAGIC);
	h->version = htole16(KBLOOM_IMAGE_VERSION_CHAIN);
	h->header_bytes = htole16(SC_IMG_SUBS + n * SC_IMG_SUB);
	h->k = htole32(k0);
	h->type = htole32(t->type);
	h->nblocks = htole64(nblocks);
	h->seed = htole64(SEED);
	h->capacity = htole64(CAP);
	h->fp_target_ppb = htole32(FP_1PC);
	ch->expansion = htole32(2);
	ch->subfilters = htole32(n);

	EXPECT_OK(vt_param_get("max_filter_bytes", &saved_filter));
	EXPECT_OK(vt_param_get("max_total_bytes", &saved_total));
	fd = sc_fresh("sc-stage", t, 2);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	vt_param_set("max_filter_bytes", STAGE_CAP);
	vt_param_set("max_total_bytes",
		     sc_total_bytes() + nblocks * 64 + (2 << 20));
	errno = 0;
	w = write(fd, head, sizeof(head));
	e = errno;
	if (w != -1 || e != E2BIG)
		msg = vt_fail("a header of %u sub-filters, %llu MiB of cells: write said %zd (%s), not E2BIG",
			      n, (unsigned long long)(nblocks >> 14), w,
			      vt_errno_name(e));
	else if (vt_create("sc-stage-other", STAGE_OTHER_KEYS, FP_1PC, 0))
		msg = vt_fail("a create beside the refused header: %s",
			      vt_errno_name(errno));
	vt_destroy("sc-stage-other");
	vt_param_set("max_filter_bytes", saved_filter);
	vt_param_set("max_total_bytes", saved_total);
	return vt_done(fd, "sc-stage", msg);
}

/*
 * Writers of every kind grow one filter at once, with ground truth: an
 * ADD ioctl writer, the companion module's kernel thread (kbloom_filter_
 * add(), waiting out EAGAIN while the worker grows the filter) and a
 * merger that fills compatible filters and merges them in.  A checker
 * finds every key whose add or merge had returned when its CHECK began.
 */
/*
 * A merge adds its keys to main's sub-filters of the same index, past
 * their capacity: few and small, so that main's rate stays low enough
 * for "found" to mean something (the case measures it).
 */
#define KRACE_MERGES	4
#define KRACE_MERGE_KEYS	100

/* A counting filter takes no merge (merge_grows): its race has none. */
static uint64_t krace_merges(const struct vt_type *t)
{
	return t->type == KBLOOM_TYPE_COUNTING ? 0 : KRACE_MERGES;
}

struct krace {
	const struct vt_type *t;
	_Atomic uint64_t ioctl_added;
	_Atomic uint64_t merged;	/* merges done: keys m<i>-* for i below */
	_Atomic int stop;
	_Atomic int failed;
	char msg[256];
};

static void krace_fail(struct krace *r, const char *fmt, long long v)
{
	if (!atomic_exchange(&r->failed, 1))
		snprintf(r->msg, sizeof(r->msg), fmt, v);
}

static void *krace_ioctl_adder(void *arg)
{
	struct krace *r = arg;
	int fd = vt_open("sc-krace", O_RDWR);
	uint64_t i;

	for (i = 0; fd >= 0 && i < RACE_KEYS && !r->failed; i += RACE_BATCH) {
		if (vt_add_prefix(fd, "w", i, RACE_BATCH) < 0) {
			krace_fail(r, "ioctl add: errno %lld", errno);
			break;
		}
		atomic_store(&r->ioctl_added, i + RACE_BATCH);
	}
	close(fd);
	return NULL;
}

static void *krace_merger(void *arg)
{
	struct krace *r = arg;
	char prefix[16];
	int i, fd, src;

	fd = vt_open("sc-krace", O_RDWR);
	for (i = 0; fd >= 0 && (uint64_t)i < krace_merges(r->t) && !r->failed; i++) {
		snprintf(prefix, sizeof(prefix), "m%d", i);
		src = sc_fresh("sc-kmerge", r->t, 2);
		if (src < 0 ||
		    vt_add_prefix(src, prefix, 0, KRACE_MERGE_KEYS) < 0 ||
		    vt_combine(fd, KBLOOM_IOC_MERGE, src)) {
			krace_fail(r, "merge: errno %lld", errno);
			break;
		}
		atomic_store(&r->merged, i + 1);
		vt_done(src, "sc-kmerge", NULL);
	}
	close(fd);
	return NULL;
}

/* Every key published before this call began is found; -1 otherwise. */
static int krace_check(int fd, struct krace *r, uint64_t kernel_done)
{
	uint64_t added = atomic_load(&r->ioctl_added);
	uint64_t merged = atomic_load(&r->merged), i;
	char prefix[24];

	for (i = 0; i < kernel_done; i += KBLOOM_BATCH_MAX) {
		uint64_t n = kernel_done - i < KBLOOM_BATCH_MAX ?
			     kernel_done - i : KBLOOM_BATCH_MAX;

		if (vt_check_prefix(fd, "k", i, n) != (long)n)
			return -1;
	}
	if (added && vt_check_prefix(fd, "w", 0, added) != (long)added)
		return -1;
	for (i = 0; i < merged; i++) {
		snprintf(prefix, sizeof(prefix), "m%llu", (unsigned long long)i);
		if (vt_check_prefix(fd, prefix, 0, KRACE_MERGE_KEYS) !=
		    KRACE_MERGE_KEYS)
			return -1;
	}
	return 0;
}

static const char *kernel_adder_races(const struct vt_type *t)
{
	pthread_t adder, merger;
	static struct krace r;
	struct kbloom_info info;
	long long done = 0, bad = -1, waits = 0;
	uint64_t fp = 0;
	const char *msg = NULL;
	int fd, cmd = -1, res = -1, rounds = 0;
	char ans[256];
	bool loaded;

	if (st_kapi_load(ST_KAPI_KO, &loaded))
		return vt_skip("no companion module %s: make module builds it",
			       ST_KAPI_KO);
	memset(&r, 0, sizeof(r));
	r.t = t;
	fd = sc_fresh("sc-krace", t, 2);
	if (fd < 0 || st_kapi_open(&cmd, &res) ||
	    st_kapi_cmd(cmd, res, ans, sizeof(ans), "adder-start sc-krace k") ||
	    !st_kapi_has(ans, "ret=0")) {
		msg = vt_fail("setup: %s (%s)", vt_errno_name(errno), ans);
		goto out;
	}
	pthread_create(&adder, NULL, krace_ioctl_adder, &r);
	pthread_create(&merger, NULL, krace_merger, &r);
	while (!r.failed && (atomic_load(&r.ioctl_added) < RACE_KEYS ||
			     atomic_load(&r.merged) < krace_merges(t))) {
		/* The kernel thread's returned adds, before the CHECK. */
		if (st_kapi_cmd(cmd, res, ans, sizeof(ans), "adder-count") ||
		    !st_kapi_num(ans, "done", &done)) {
			krace_fail(&r, "adder-count: errno %lld", errno);
			break;
		}
		if (krace_check(fd, &r, done))
			krace_fail(&r, "a published key missed (round %lld)",
				   rounds);
		rounds++;
	}
	pthread_join(adder, NULL);
	pthread_join(merger, NULL);
	if (st_kapi_cmd(cmd, res, ans, sizeof(ans), "adder-stop") ||
	    !st_kapi_num(ans, "done", &done) || !st_kapi_num(ans, "bad", &bad))
		msg = vt_fail("adder-stop: %s", ans);
	st_kapi_num(ans, "waits", &waits);
	if (!msg && r.failed)
		msg = vt_fail("%s", r.msg);
	if (!msg && (bad || krace_check(fd, &r, done)))
		msg = vt_fail("after: %lld bad kernel adds, or a key missed (%s)",
			      bad, ans);
	if (!msg && (vt_info(fd, &info) || info.subfilters < 5))
		msg = vt_fail("grew to %u sub-filters only", info.subfilters);
	/* The keys found were found for being there, not by chance. */
	if (!msg && (sc_false_positives(fd, 20000, &fp) || fp > 20000 / 20))
		msg = vt_fail("%llu of 20000 absent keys found: too many for the checks to show anything",
			      (unsigned long long)fp);
	if (!msg)
		printf("  %s/kernel_adder_races/%s: %lld kernel adds (%lld waits for growth), %d ioctl adds, %d merges, %d rounds of checks, %u sub-filters, %llu of 20000 absent keys found\n",
		       SUITE, t->name, done, waits, RACE_KEYS, (int)krace_merges(t),
		       rounds, info.subfilters, (unsigned long long)fp);
out:
	if (cmd >= 0)
		close(cmd);
	if (res >= 0)
		close(res);
	if (loaded)
		st_kapi_unload();
	return vt_done(fd, "sc-krace", msg);
}

/*
 * CLEAR, and the load of an image of the filter when empty, racing the
 * companion's kernel thread (kbloom_filter_add(), waiting out EAGAIN
 * while the worker grows the filter): every key whose add began after
 * the rewrite returned (from the thread's started, read then, to its
 * done, read later) is found; of the keys whose add returned before the
 * rewrite began, no more are found than false positives explain.  Once
 * the thread stops and the filter is cleared, it is sub-filter 0 alone,
 * and total_bytes is what it was after the create: the sub-filters
 * grown and freed in every round left nothing behind.
 */
#define CRACE_ROUNDS	200
#define CRACE_OLD	4096	/* the newest keys added before a rewrite */
#define CRACE_NEW	256	/* keys at least, added after it */

/* adder-count's started and done (either may be NULL); 0 or -1. */
static int crace_count(int cmd, int res, long long *started,
		       long long *done)
{
	char ans[256];

	if (st_kapi_cmd(cmd, res, ans, sizeof(ans), "adder-count") ||
	    (started && !st_kapi_num(ans, "started", started)) ||
	    (done && !st_kapi_num(ans, "done", done)))
		return -1;
	return 0;
}

static const char *crace_round(int fd, int cmd, int res, bool load,
			       const uint8_t *img, size_t len,
			       uint64_t *stale, uint64_t *old)
{
	long long before, started, done = 0;
	uint64_t t0, first;
	long hits;

	EXPECT(!crace_count(cmd, res, NULL, &before), "adder-count: %s",
	       vt_errno_name(errno));
	if (load)
		EXPECT_OK(vt_write_image(fd, img, len, len));
	else
		EXPECT_OK(ioctl(fd, KBLOOM_IOC_CLEAR, 0));
	EXPECT(!crace_count(cmd, res, &started, NULL), "adder-count: %s",
	       vt_errno_name(errno));
	t0 = st_now_ms();
	do {
		EXPECT(!crace_count(cmd, res, NULL, &done), "adder-count: %s",
		       vt_errno_name(errno));
		EXPECT(st_now_ms() - t0 < 5000,
		       "the adder went from %lld to %lld in 5 s", started,
		       done);
	} while (done < started + CRACE_NEW);
	/* One batch: the newest keys may run past it while we look. */
	if (done - started > KBLOOM_BATCH_MAX)
		done = started + KBLOOM_BATCH_MAX;
	hits = vt_check_prefix(fd, "k", started, done - started);
	EXPECT(hits == done - started,
	       "after a %s: %ld of the keys k-%lld..k-%lld found, added after it returned",
	       load ? "load" : "CLEAR", hits, started, done - 1);
	first = before > CRACE_OLD ? before - CRACE_OLD : 0;
	if ((uint64_t)before == first)
		return NULL;	/* none returned yet */
	hits = vt_check_prefix(fd, "k", first, before - first);
	EXPECT(hits >= 0, "check: %s", vt_errno_name(errno));
	*stale += hits;
	*old += before - first;
	return NULL;
}

static const char *kernel_adds_race_clear(const struct vt_type *t)
{
	uint64_t total0, stale = 0, old = 0;
	long long bad = -1, done = 0, waits = 0;
	struct kbloom_info info;
	const char *msg = NULL;
	int fd, cmd = -1, res = -1, round;
	uint8_t *img = NULL;
	char ans[256];
	bool loaded, started = false;
	size_t len;

	if (st_kapi_load(ST_KAPI_KO, &loaded))
		return vt_skip("no companion module %s: make module builds it",
			       ST_KAPI_KO);
	fd = sc_fresh("sc-kclear", t, 2);
	if (fd >= 0)
		img = vt_read_image(fd, 1 << 16, &len);
	total0 = sc_total_bytes();
	if (!img || st_kapi_open(&cmd, &res) ||
	    st_kapi_cmd(cmd, res, ans, sizeof(ans),
			"adder-start sc-kclear k") ||
	    !st_kapi_has(ans, "ret=0")) {
		msg = vt_fail("setup: %s (%s)", vt_errno_name(errno), ans);
		goto out;
	}
	started = true;
	for (round = 0; round < CRACE_ROUNDS && !msg; round++)
		msg = crace_round(fd, cmd, res, round & 1, img, len, &stale,
				  &old);
	started = false;
	if (st_kapi_cmd(cmd, res, ans, sizeof(ans), "adder-stop") ||
	    !st_kapi_num(ans, "done", &done) || !st_kapi_num(ans, "bad", &bad) ||
	    !st_kapi_num(ans, "waits", &waits)) {
		msg = msg ?: vt_fail("adder-stop: %s", ans);
		goto out;
	}
	if (!msg && bad)
		msg = vt_fail("%lld kernel adds failed: %s", bad, ans);
	/* The filter's rate is under 1 %: 2 % of them is no chance. */
	if (!msg && stale > old / 50 + 10)
		msg = vt_fail("%llu of %llu keys added before a rewrite began found after it",
			      (unsigned long long)stale,
			      (unsigned long long)old);
	if (!msg && (ioctl(fd, KBLOOM_IOC_CLEAR, 0) || vt_info(fd, &info)))
		msg = vt_fail("clear at the end: %s", vt_errno_name(errno));
	if (!msg && (info.subfilters != 1 || info.bits_set ||
		     sc_total_bytes() != total0))
		msg = vt_fail("stopped and cleared: %u sub-filters, %llu cells set, total_bytes %llu, %llu after the create",
			      info.subfilters,
			      (unsigned long long)info.bits_set,
			      (unsigned long long)sc_total_bytes(),
			      (unsigned long long)total0);
	if (!msg)
		printf("  %s/kernel_adds_race_clear/%s: %d rewrites (CLEAR, load) racing %lld kernel adds (%lld waits for growth), %llu of %llu keys added before a rewrite found after it\n",
		       SUITE, t->name, CRACE_ROUNDS, done, waits,
		       (unsigned long long)stale, (unsigned long long)old);
out:
	if (started)
		st_kapi_cmd(cmd, res, ans, sizeof(ans), "adder-stop");
	free(img);
	if (cmd >= 0)
		close(cmd);
	if (res >= 0)
		close(res);
	if (loaded)
		st_kapi_unload();
	return vt_done(fd, "sc-kclear", msg);
}

static const struct vt_case cases[] = {
	VT_TYPED_NEED(reject_create, VT_GROWS),
	VT_TYPED_NEED(grow_by_add, VT_GROWS),
	VT_TYPED_NEED(subfilter_errnos, VT_GROWS),
	VT_TYPED_NEED(delete_from_home, VT_GROWS),
	VT_TYPED_NEED(clear_frees, VT_GROWS),
	VT_TYPED_NEED(cap_stops_growth, VT_GROWS),
	VT_TYPED_NEED(merge_grows, VT_GROWS),
	VT_TYPED_NEED(image_round_trip, VT_GROWS),
	VT_TYPED_NEED(image_load_caps, VT_GROWS),
	VT_TYPED_NEED(staged_header_within_caps, VT_GROWS),
	VT_TYPED_NEED(image_read_races, VT_GROWS),
	VT_TYPED_NEED(refused_ops, VT_GROWS),
	VT_TYPED_NEED(adders_race_growth, VT_GROWS),
	VT_TYPED_NEED(info_races_clear, VT_GROWS),
	VT_TYPED_NEED(kernel_adder_races, VT_GROWS),
	VT_TYPED_NEED(kernel_adds_race_clear, VT_GROWS),
};

int main(void)
{
	return vt_run(SUITE, cases, ARRAY_SIZE(cases));
}
