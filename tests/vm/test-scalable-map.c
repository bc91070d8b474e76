// SPDX-License-Identifier: GPL-2.0
/*
 * Mappings of scalable filters (include/uapi/linux/kbloom.h, "Mapping"),
 * once per type that can grow, through the real device and libkbloom:
 * the header (version 3) and its table of sub-filters agree with
 * GET_SUBFILTER entry by entry; mapped checks answer exactly what the
 * ioctl answers, present and absent keys alike, with no system call;
 * growth leaves a mapping behind (its checks then ask the module, and
 * still find every key) until kbl_map() maps it again; CLEAR and a load
 * move the sequence and shrink or grow map_bytes, a range past it is
 * EINVAL, and pages mapped before a CLEAR stay readable, as do pages of a
 * mapping that it never touched before a CLEAR or a load dropped their
 * sub-filters (zeros then, never SIGBUS); a reader racing
 * an adder that grows the filter ten times, remapping when behind, finds
 * every key whose ADD returned before its check began.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "kbloom.h"
#include "stress-map.h"
#include "vmtest.h"

#define SUITE	"scalable-map"
#define SEED	0x6d61707363616c65ULL
#define FP_1PC	10000000U
#define CAP	1000

static int sm_fresh_cap(const char *name, const struct vt_type *t,
			uint64_t capacity)
{
	struct kbloom_create req;

	vt_destroy(name);
	vt_create_req(&req, name, capacity, FP_1PC);
	vt_req_type(&req, t);
	req.expansion = 2;
	req.flags = KBLOOM_CREATE_SEED;
	req.seed = SEED;
	if (vt_create_raw(&req))
		return -1;
	return vt_open(name, O_RDWR);
}

static int sm_fresh(const char *name, const struct vt_type *t)
{
	return sm_fresh_cap(name, t, CAP);
}

/* Keys prefix-first .. of n found through f (mapped or not): hits or -1. */
static long sm_check(struct kbl *f, const char *prefix, uint64_t first,
		     uint32_t n, uint64_t *bits)
{
	struct vt_keys k;
	uint64_t hits = 0;
	int ret;

	if (vt_keys_make(&k, prefix, first, n))
		return -1;
	ret = kbl_check(f, k.bytes, k.lens, n, bits, &hits);
	vt_keys_free(&k);
	return ret ? -1 : (long)hits;
}

/* The mapping's header and table against GET_INFO and GET_SUBFILTER. */
static const char *sm_table_matches(struct kbl *f, int fd)
{
	const struct kbloom_map_header *h = kbl_map_header(f);
	const struct kbloom_map_subfilter *e;
	struct kbloom_subfilter sf;
	struct kbloom_info info;
	uint64_t end = 0;
	uint32_t i;

	EXPECT(h, "not mapped");
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(h->version == KBLOOM_MAP_VERSION_CHAIN && h->expansion == 2 &&
	       h->subfilters == info.subfilters &&
	       h->subs_offset == (uint64_t)getpagesize() &&
	       h->seed == info.seed && h->capacity == CAP,
	       "header: version %u, expansion %u, %u sub-filters (%u), table at %llu",
	       h->version, h->expansion, h->subfilters, info.subfilters,
	       (unsigned long long)h->subs_offset);
	e = (const void *)((const char *)h + h->subs_offset);
	for (i = 0; i < h->subfilters; i++) {
		memset(&sf, 0, sizeof(sf));
		sf.index = i;
		EXPECT_OK(ioctl(fd, KBLOOM_IOC_GET_SUBFILTER, &sf));
		EXPECT(e[i].nblocks == sf.nblocks && e[i].seed == sf.seed &&
		       e[i].k == sf.k && !e[i].reserved &&
		       e[i].cells_offset >= (i ? end : h->cells_offset) &&
		       e[i].cells_offset % getpagesize() == 0,
		       "entry %u: %llu blocks, k %u, at %llu; GET_SUBFILTER: %llu blocks, k %u",
		       i, (unsigned long long)e[i].nblocks, e[i].k,
		       (unsigned long long)e[i].cells_offset,
		       (unsigned long long)sf.nblocks, sf.k);
		end = e[i].cells_offset + e[i].nblocks * 64;
	}
	EXPECT(h->map_bytes >= end && h->map_bytes - end < (uint64_t)getpagesize(),
	       "map_bytes %llu, cells end at %llu",
	       (unsigned long long)h->map_bytes, (unsigned long long)end);
	return NULL;
}

/* Mapped and ioctl answers for keys prefix-0 .. n - 1, bit for bit. */
static const char *sm_same_answers(struct kbl *mapped, struct kbl *plain,
				   const char *prefix, uint32_t n)
{
	size_t words = (n + 63) / 64;
	uint64_t *a = calloc(words, 8), *b = calloc(words, 8);
	uint64_t calls = kbl_ioctl_count(mapped);
	long ha, hb;
	bool same;

	EXPECT(a && b, "no memory");
	ha = sm_check(mapped, prefix, 0, n, a);
	hb = sm_check(plain, prefix, 0, n, b);
	same = ha == hb && !memcmp(a, b, words * 8);
	free(a);
	free(b);
	EXPECT(same && ha >= 0, "%s: mapped %ld hits, ioctl %ld, or the bits differ",
	       prefix, ha, hb);
	EXPECT(kbl_ioctl_count(mapped) == calls,
	       "%s: the mapped check made %llu ioctls", prefix,
	       (unsigned long long)(kbl_ioctl_count(mapped) - calls));
	return NULL;
}

/*
 * The header and table; mapped answers equal the ioctl's; growth leaves
 * the mapping behind, its checks still finding every key through the
 * module, until kbl_map() maps the grown filter.
 */
static const char *map_follows_growth(const struct vt_type *t)
{
	struct kbl *r = NULL, *plain = NULL;
	const char *msg = NULL;
	uint64_t calls;
	int fd;

	fd = sm_fresh("sm-grow", t);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "a", 0, CAP / 2) > 0, "add: %s",
	       vt_errno_name(errno));
	EXPECT_OK(kbl_open("sm-grow", O_RDONLY, &r));
	EXPECT_OK(kbl_open("sm-grow", O_RDONLY, &plain));
	EXPECT_OK(kbl_map(r));
	if ((msg = sm_table_matches(r, fd)) ||
	    (msg = sm_same_answers(r, plain, "a", CAP / 2)) ||
	    (msg = sm_same_answers(r, plain, "absent", 20000)))
		goto out;
	if (vt_add_prefix(fd, "b", 0, 10 * CAP) <= 0) {
		msg = vt_fail("add: %s", vt_errno_name(errno));
		goto out;
	}
	calls = kbl_ioctl_count(r);
	if (!kbl_map_behind(r) ||
	    sm_check(r, "b", 0, 10 * CAP, NULL) != 10 * CAP ||
	    kbl_ioctl_count(r) == calls) {
		msg = vt_fail("behind %d: the grown filter's keys not found through the module",
			      kbl_map_behind(r));
		goto out;
	}
	if (kbl_map(r) || kbl_map_behind(r)) {
		msg = vt_fail("map again: %s", vt_errno_name(errno));
		goto out;
	}
	if ((msg = sm_table_matches(r, fd)) ||
	    (msg = sm_same_answers(r, plain, "a", CAP / 2)) ||
	    (msg = sm_same_answers(r, plain, "b", 10 * CAP)) ||
	    (msg = sm_same_answers(r, plain, "absent", 20000)))
		goto out;
	if (sm_check(r, "b", 0, 10 * CAP, NULL) != 10 * CAP)
		msg = vt_fail("keys lost through the mapping");
out:
	kbl_close(r);
	kbl_close(plain);
	return vt_done(fd, "sm-grow", msg);
}

/*
 * CLEAR frees sub-filters: the mapping is behind, map_bytes shrinks (a
 * range past it is EINVAL), and pages mapped before stay readable.  A
 * load grows it again, and the mapping made after finds every key.
 */
static const char *map_clear_and_load(const struct vt_type *t)
{
	const struct kbloom_map_header *h;
	uint64_t before, sum = 0, i;
	struct kbl *r = NULL;
	const char *msg = NULL;
	uint8_t *img, *p;
	size_t len;
	int fd;

	fd = sm_fresh("sm-clear", t);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "c", 0, 10 * CAP) > 0, "add: %s",
	       vt_errno_name(errno));
	img = vt_read_image(fd, 1 << 16, &len);
	EXPECT(img, "read: %s", vt_errno_name(errno));
	EXPECT_OK(kbl_open("sm-clear", O_RDONLY, &r));
	EXPECT_OK(kbl_map(r));
	h = kbl_map_header(r);
	before = h->map_bytes;
	p = mmap(NULL, before, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		msg = vt_fail("mmap: %s", vt_errno_name(errno));
		goto out;
	}
	for (i = 0; i < before; i += 4096)
		sum += p[i];
	if (ioctl(fd, KBLOOM_IOC_CLEAR, 0)) {
		msg = vt_fail("clear: %s", vt_errno_name(errno));
		goto out_unmap;
	}
	/* The pages mapped before: the old cells, readable. */
	for (i = 0; i < before; i += 4096)
		sum -= p[i];
	if (!kbl_map_behind(r) || h->subfilters != 1 ||
	    h->map_bytes >= before || (h->sequence & 1)) {
		msg = vt_fail("after clear: behind %d, %u sub-filters, map_bytes %llu of %llu",
			      kbl_map_behind(r), h->subfilters,
			      (unsigned long long)h->map_bytes,
			      (unsigned long long)before);
		goto out_unmap;
	}
	errno = 0;
	if (mmap(NULL, before, PROT_READ, MAP_SHARED, fd, 0) != MAP_FAILED ||
	    errno != EINVAL) {
		msg = vt_fail("mmap past map_bytes after clear: %s",
			      vt_errno_name(errno));
		goto out_unmap;
	}
	if (sm_check(r, "c", 0, 10 * CAP, NULL) > CAP) {
		msg = vt_fail("cleared keys found");
		goto out_unmap;
	}
	if (vt_write_image(fd, img, len, 1 << 20) || kbl_map(r) ||
	    kbl_map_behind(r) || kbl_map_header(r)->map_bytes != before ||
	    sm_check(r, "c", 0, 10 * CAP, NULL) != 10 * CAP) {
		msg = vt_fail("after the load: %s", vt_errno_name(errno));
		goto out_unmap;
	}
	msg = sm_table_matches(r, fd);
out_unmap:
	munmap(p, before);
out:
	free(img);
	kbl_close(r);
	(void)sum;
	return vt_done(fd, "sm-clear", msg);
}

/*
 * A reader on its own handle checks, through its mapping, every key the
 * adder's returned ADDs published, mapping again whenever it is behind,
 * while the adder grows the filter at least ten times: 40,000 keys into
 * a first capacity of 30 make 11 sub-filters (30 * (2^11 - 1) > 40,000).
 */
#define RACE_CAP	30
#define RACE_KEYS	(40 * CAP)
#define RACE_BATCH	250

struct race {
	_Atomic uint64_t added;
	_Atomic int stop;
	uint64_t checks, remaps, mapped_checks;
	char msg[200];
};

static void *race_reader(void *arg)
{
	struct race *r = arg;
	struct kbl *f = NULL;
	uint64_t n, first;
	long hits;

	if (kbl_open("sm-race", O_RDONLY, &f) || kbl_map(f)) {
		snprintf(r->msg, sizeof(r->msg), "reader: %s",
			 vt_errno_name(errno));
		return NULL;
	}
	while (!atomic_load(&r->stop)) {
		n = atomic_load(&r->added);
		if (!n)
			continue;
		if (kbl_map_behind(f)) {
			if (kbl_map(f)) {
				snprintf(r->msg, sizeof(r->msg),
					 "map again: %s", vt_errno_name(errno));
				break;
			}
			r->remaps++;
		}
		first = n > 500 ? n - 500 : 0;
		if (!kbl_map_behind(f))
			r->mapped_checks++;
		hits = sm_check(f, "r", first, n - first, NULL);
		r->checks++;
		if (hits != (long)(n - first)) {
			snprintf(r->msg, sizeof(r->msg),
				 "keys %llu..%llu published, %ld of them found",
				 (unsigned long long)first,
				 (unsigned long long)n, hits);
			break;
		}
	}
	kbl_close(f);
	return NULL;
}

static const char *mapped_reader_races_growth(const struct vt_type *t)
{
	struct race r = { 0 };
	struct kbloom_info info;
	pthread_t th;
	uint64_t i;
	int fd;

	fd = sm_fresh_cap("sm-race", t, RACE_CAP);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(pthread_create(&th, NULL, race_reader, &r));
	for (i = 0; i < RACE_KEYS && !r.msg[0]; i += RACE_BATCH) {
		if (vt_add_prefix(fd, "r", i, RACE_BATCH) < 0) {
			snprintf(r.msg, sizeof(r.msg), "add: %s",
				 vt_errno_name(errno));
			break;
		}
		atomic_store(&r.added, i + RACE_BATCH);
	}
	atomic_store(&r.stop, 1);
	pthread_join(th, NULL);
	EXPECT(!r.msg[0], "%s", r.msg);
	EXPECT_OK(vt_info(fd, &info));
	printf("  %s/mapped_reader_races_growth/%s: %u sub-filters, %llu checks, %llu through the mapping, %llu remaps\n",
	       SUITE, t->name, info.subfilters,
	       (unsigned long long)r.checks,
	       (unsigned long long)r.mapped_checks,
	       (unsigned long long)r.remaps);
	EXPECT(info.subfilters >= 11 && r.remaps >= 1 && r.mapped_checks,
	       "%u sub-filters, %llu remaps, %llu mapped checks",
	       info.subfilters, (unsigned long long)r.remaps,
	       (unsigned long long)r.mapped_checks);
	return vt_done(fd, "sm-race", NULL);
}

/*
 * A destroyed scalable filter cannot be mapped (ENODEV); a mapping made
 * before says KBLOOM_MAP_DEAD, and libkbloom's checks ENODEV.
 */
static const char *map_destroyed(const struct vt_type *t)
{
	struct kbl *r = NULL;
	void *p;
	int fd, ret;

	fd = sm_fresh("sm-dead", t);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(kbl_open("sm-dead", O_RDONLY, &r));
	EXPECT_OK(kbl_map(r));
	EXPECT_OK(vt_destroy("sm-dead"));
	errno = 0;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT(p == MAP_FAILED && errno == ENODEV, "mmap after destroy: %s",
	       vt_errno_name(errno));
	ret = kbl_check_one(r, "x", 1);
	EXPECT((kbl_map_header(r)->flags & KBLOOM_MAP_DEAD) && ret == -ENODEV,
	       "after destroy: flags %#x, check %d",
	       kbl_map_header(r)->flags, ret);
	kbl_close(r);
	close(fd);
	return NULL;
}

/*
 * A mapping whose cell pages were never touched, then a CLEAR (or a load
 * of fewer sub-filters) drops the sub-filters they held: every page
 * within the length mmap() accepted still reads, as zeros past what the
 * filter now maps, with no SIGBUS (caught here, to report it; libkbloom's
 * readers install no handler).  The header says to map again.
 */
struct sm_touch {
	const uint8_t *p;
	size_t len;
	uint64_t nonzero;	/* bytes past from that were not zero */
	size_t from;
};

static void sm_touch_all(void *arg)
{
	struct sm_touch *t = arg;
	size_t i;

	for (i = 0; i < t->len; i += 64)
		t->nonzero += i >= t->from && t->p[i];
}

/* map_bytes now, from the header page: 0 on failure. */
static size_t sm_map_bytes(int fd)
{
	const struct kbloom_map_header *h;
	size_t len;

	h = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return 0;
	len = h->map_bytes;
	munmap((void *)h, 4096);
	return len;
}

/* Maps fd whole, touching nothing, then clears it or loads img into it. */
static const char *sm_untouched_survive(int fd, const uint8_t *img,
					size_t img_len)
{
	const char *what = img ? "a load" : "clear";
	const struct kbloom_map_header *h;
	struct sm_touch t = { 0 };
	size_t len = sm_map_bytes(fd);
	uint8_t *p;
	int sig, e;

	EXPECT(len > 4096, "map_bytes %zu", len);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT(p != MAP_FAILED, "mmap: %s", vt_errno_name(errno));
	e = img ? vt_write_image(fd, img, img_len, 1 << 20) :
		  ioctl(fd, KBLOOM_IOC_CLEAR, 0);
	if (e) {
		munmap(p, len);
		return vt_fail("%s: %s", what, vt_errno_name(errno));
	}
	h = (const void *)p;
	t.p = p;
	t.len = len;
	t.from = h->map_bytes;
	sig = st_guarded(sm_touch_all, &t);
	munmap(p, len);
	EXPECT(!sig, "after %s, a page within the mapping raised signal %d",
	       what, sig);
	EXPECT(t.from < len, "after %s, map_bytes %zu of %zu", what, t.from,
	       len);
	EXPECT(!t.nonzero, "after %s, %llu bytes past map_bytes not zero",
	       what, (unsigned long long)t.nonzero);
	return NULL;
}

static const char *untouched_pages_survive(const struct vt_type *t)
{
	struct kbloom_info info;
	uint8_t *small;
	size_t small_len;
	int fd;

	st_guard_signals();
	fd = sm_fresh("sm-untouched", t);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	/* An image of one sub-filter, for the load below. */
	small = vt_read_image(fd, 1 << 16, &small_len);
	EXPECT(small, "read: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "u", 0, 10 * CAP) > 0, "add: %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.subfilters >= 3, "grew to %u sub-filters only",
	       info.subfilters);
	EXPECT_NULL(sm_untouched_survive(fd, NULL, 0));
	EXPECT(vt_add_prefix(fd, "u", 0, 10 * CAP) > 0, "add: %s",
	       vt_errno_name(errno));
	EXPECT_NULL(sm_untouched_survive(fd, small, small_len));
	free(small);
	return vt_done(fd, "sm-untouched", NULL);
}

static const struct vt_case cases[] = {
	VT_TYPED_NEED(map_follows_growth, VT_GROWS),
	VT_TYPED_NEED(map_clear_and_load, VT_GROWS),
	VT_TYPED_NEED(mapped_reader_races_growth, VT_GROWS),
	VT_TYPED_NEED(map_destroyed, VT_GROWS),
	VT_TYPED_NEED(untouched_pages_survive, VT_GROWS),
};

int main(void)
{
	return vt_run(SUITE, cases, ARRAY_SIZE(cases));
}
