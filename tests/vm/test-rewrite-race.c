// SPDX-License-Identifier: GPL-2.0
/*
 * Whole-filter writers racing an in-kernel adder, with ground truth.  The
 * companion module's adder (tests/kmod, adder-start) adds keys "ad-0",
 * "ad-1", ... to rw-main from a kernel thread with bottom halves off, as
 * fast as it can, publishing how far its adds have begun (started) and
 * returned (done).  Meanwhile this process cycles through the writers that
 * rewrite the whole filter, and after each one returns it checks what the
 * uapi header promises:
 *   clear   every cell left set is explained by adds that raced the clear:
 *           the image read after it is, cell by cell, within the image of
 *           a reference filter (same geometry and seed, no adder) holding
 *           exactly the keys from done-before-the-clear to
 *           started-after-the-read: bits a subset, counters no higher, a
 *           window's cells empty where the reference's are;
 *   load    every key of the loaded image is found;
 *   merge   every key of the merged filter is found, and so is every
 *           adder key added since the last clear or load returned;
 *   intersect  with a filter whose cells are all set (so that nothing a
 *           whole add put in may go): the same keys are all found;
 *   rotate  (windows) every adder key since the last rewrite is found.
 * An adder's read-modify-write of a word that the rewrite stores without
 * its block's stripe undoes the rewrite of that word: old bits come back
 * after a clear, and an image's bits are lost after a load.
 */
#include "crc32c.h"
#include "stress.h"
#include "vmtest.h"

#define SUITE		"rewrite-race"
#define MAIN		"rw-main"
#define REF		"rw-ref"
#define SRC		"rw-src"
#define ONES		"rw-ones"
#define ADDER_TAG	"ad"
/*
 * A small filter, so that a round takes little time: an adder's
 * read-modify-write overlaps a rewrite's store to the same word about as
 * often per round whatever the size, so rounds per second are what
 * finds the race.
 */
#define BITS		(1ULL << 16)
#define K		7
#define SEED		0x5eed0f5eedULL
#define SRC_KEYS	400	/* the image's and the merge's keys */
#define CHUNK		8192	/* keys a CHECK or ADD call */
#define RUN_MS		8000	/* per type; at least MIN_ROUNDS rounds */
#define MIN_ROUNDS	60

struct rw_counts {
	unsigned int rounds[5];		/* clear, load, merge, intersect, rotate */
	uint64_t fn_load, fn_merge, fn_adder, stray_cells;
	uint64_t adder_keys;
	char first[5][256];		/* each kind's first failure */
};

enum { R_CLEAR, R_LOAD, R_MERGE, R_INTERSECT, R_ROTATE, R_KINDS };

static int cmd_fd = -1, res_fd = -1;

static int adder(char *res, size_t size, const char *cmd, long long *started,
		 long long *done)
{
	int e = st_kapi_cmd(cmd_fd, res_fd, res, size, "%s", cmd);

	if (e || !st_kapi_has(res, "ret=0") ||
	    (started && !st_kapi_num(res, "started", started)) ||
	    (done && !st_kapi_num(res, "done", done)))
		return e ? e : EPROTO;
	return 0;
}

/* Keys "<prefix>-<first>" .. of n, checked in chunks: the ones missing. */
static long long missing(int fd, const char *prefix, uint64_t first,
			 uint64_t n)
{
	long long miss = 0;
	uint64_t i;

	for (i = 0; i < n; i += CHUNK) {
		uint32_t c = n - i < CHUNK ? n - i : CHUNK;
		long hits = vt_check_prefix(fd, prefix, first + i, c);

		if (hits < 0)
			return -1;
		miss += c - hits;
	}
	return miss;
}

static int add_range(int fd, const char *prefix, uint64_t first, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i += CHUNK)
		if (vt_add_prefix(fd, prefix, first + i,
				  n - i < CHUNK ? n - i : CHUNK) < 0)
			return -1;
	return 0;
}

/*
 * Cells of img set beyond ref's: a bit ref lacks, a counter above ref's,
 * a window cell with some plane where ref's has none.
 */
static uint64_t stray_cells(const struct vt_type *t, const uint8_t *img,
			    const uint8_t *ref, size_t len)
{
	uint32_t w = vt_cell_bits(t), mask = (1U << w) - 1, b, c, r;
	uint64_t n = 0;
	size_t i;

	for (i = VT_IMAGE_HDR; i < len - 4; i++)
		for (b = 0; b < 8; b += w) {
			c = (img[i] >> b) & mask;
			r = (ref[i] >> b) & mask;
			n += t->generations ? c && !r : c > r;
		}
	return n;
}

static void note(struct rw_counts *rc, int kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(struct rw_counts *rc, int kind, const char *fmt, ...)
{
	va_list ap;

	if (rc->first[kind][0])
		return;
	va_start(ap, fmt);
	vsnprintf(rc->first[kind], sizeof(rc->first[kind]), fmt, ap);
	va_end(ap);
}

/* One CLEAR racing the adder; the new epoch's first key in *epoch. */
static const char *round_clear(const struct vt_type *t, int fd, int ref,
			       struct rw_counts *rc, long long *epoch)
{
	long long done0, started1;
	uint8_t *img, *rimg;
	size_t len, rlen;
	uint64_t stray;
	char res[256];

	if (adder(res, sizeof(res), "adder-count", NULL, &done0))
		return vt_fail("adder-count: '%s'", res);
	if (ioctl(fd, KBLOOM_IOC_CLEAR, 0))
		return vt_fail("CLEAR: %s", vt_errno_name(errno));
	img = vt_read_image(fd, 1 << 16, &len);
	if (!img)
		return vt_fail("read image: %s", vt_errno_name(errno));
	if (adder(res, sizeof(res), "adder-count", &started1, NULL)) {
		free(img);
		return vt_fail("adder-count: '%s'", res);
	}
	*epoch = started1;
	if (ioctl(ref, KBLOOM_IOC_CLEAR, 0) ||
	    add_range(ref, ADDER_TAG, done0, started1 - done0)) {
		free(img);
		return vt_fail("reference: %s", vt_errno_name(errno));
	}
	rimg = vt_read_image(ref, 1 << 16, &rlen);
	if (!rimg || rlen != len) {
		free(img);
		free(rimg);
		return vt_fail("read the reference's image: %s",
			       vt_errno_name(errno));
	}
	stray = stray_cells(t, img, rimg, len);
	if (stray) {
		rc->stray_cells += stray;
		note(rc, R_CLEAR, "%llu cells set that no add from ad-%lld to ad-%lld explains",
		     (unsigned long long)stray, done0, started1 - 1);
	}
	free(img);
	free(rimg);
	return NULL;
}

static const char *round_load(int fd, const uint8_t *img, size_t len,
			      struct rw_counts *rc, long long *epoch)
{
	long long miss;
	char res[256];

	if (vt_write_image(fd, img, len, len))
		return vt_fail("load: %s", vt_errno_name(errno));
	if (adder(res, sizeof(res), "adder-count", epoch, NULL))
		return vt_fail("adder-count: '%s'", res);
	miss = missing(fd, "img", 0, SRC_KEYS);
	if (miss < 0)
		return vt_fail("CHECK: %s", vt_errno_name(errno));
	if (miss) {
		rc->fn_load += miss;
		note(rc, R_LOAD, "%lld of %d keys of the image not found after it returned",
		     miss, SRC_KEYS);
	}
	return NULL;
}

/* Adder keys from epoch to done found; after a merge, src's keys too. */
static const char *check_since(int fd, struct rw_counts *rc, long long epoch,
			       bool merged, const char *what)
{
	long long done, miss;
	char res[256];

	if (adder(res, sizeof(res), "adder-count", NULL, &done))
		return vt_fail("adder-count: '%s'", res);
	if (merged) {
		miss = missing(fd, "img", 0, SRC_KEYS);
		if (miss < 0)
			return vt_fail("CHECK: %s", vt_errno_name(errno));
		if (miss) {
			rc->fn_merge += miss;
			note(rc, R_MERGE, "after a %s: %lld of %d keys of the merged filter not found",
			     what, miss, SRC_KEYS);
		}
	}
	if (done <= epoch)
		return NULL;
	miss = missing(fd, ADDER_TAG, epoch, done - epoch);
	if (miss < 0)
		return vt_fail("CHECK: %s", vt_errno_name(errno));
	if (miss) {
		rc->fn_adder += miss;
		note(rc, R_MERGE, "after a %s: %lld of the adder's keys ad-%lld..ad-%lld (added since the last clear or load) not found",
		     what, miss, epoch, done - 1);
	}
	return NULL;
}

/* Loads into fd an image like img (its filter's) with every cell set. */
static int fill_ones(int fd, const uint8_t *img, size_t len)
{
	uint8_t *all = malloc(len);
	uint32_t crc;
	int ret;

	if (!all)
		return -1;
	memcpy(all, img, VT_IMAGE_HDR);
	memset(all + VT_IMAGE_HDR, 0xff, len - VT_IMAGE_HDR - 4);
	crc = crc32c_ref(all, len - 4);
	memcpy(all + len - 4, &crc, 4);
	ret = vt_write_image(fd, all, len, len);
	free(all);
	return ret;
}

static const char *run_type(const struct vt_type *t, struct rw_counts *rc)
{
	int fd = -1, ref = -1, src = -1, ones = -1;
	const char *err = NULL;
	uint8_t *img = NULL;
	long long epoch = 0, done;
	struct kbloom_info info;
	unsigned int n, kinds = t->generations ? R_KINDS : R_ROTATE;
	uint64_t start;
	char res[256];
	size_t len;

	memset(rc, 0, sizeof(*rc));
	fd = vt_fresh(MAIN, t->type, 0, BITS, K, SEED);
	ref = vt_fresh(REF, t->type, 0, BITS, K, SEED);
	src = vt_fresh(SRC, t->type, 0, BITS, K, SEED);
	if (fd < 0 || ref < 0 || src < 0) {
		err = vt_fail("create: %s", vt_errno_name(errno));
		goto out;
	}
	if (vt_info(fd, &info) || add_range(src, "img", 0, SRC_KEYS)) {
		err = vt_fail("fill %s: %s", SRC, vt_errno_name(errno));
		goto out;
	}
	img = vt_read_image(src, 1 << 16, &len);
	if (!img) {
		err = vt_fail("read %s's image: %s", SRC, vt_errno_name(errno));
		goto out;
	}
	ones = vt_fresh(ONES, t->type, 0, BITS, K, SEED);
	if (ones < 0 || fill_ones(ones, img, len)) {
		err = vt_fail("%s: %s", ONES, vt_errno_name(errno));
		goto out;
	}
	if (adder(res, sizeof(res), "adder-start " MAIN " " ADDER_TAG, NULL,
		  NULL)) {
		err = vt_fail("adder-start: '%s'", res);
		goto out;
	}
	start = st_now_ms();
	for (n = 0; !err && (st_now_ms() - start < RUN_MS ||
			     rc->rounds[R_CLEAR] < MIN_ROUNDS); n++) {
		switch (n % kinds) {
		case R_CLEAR:
			err = round_clear(t, fd, ref, rc, &epoch);
			break;
		case R_LOAD:
			err = round_load(fd, img, len, rc, &epoch);
			break;
		case R_MERGE:
			if (vt_combine(fd, KBLOOM_IOC_MERGE, src)) {
				err = vt_fail("MERGE: %s",
					      vt_errno_name(errno));
				break;
			}
			err = check_since(fd, rc, epoch, true, "merge");
			break;
		case R_INTERSECT:
			if (vt_combine(fd, KBLOOM_IOC_INTERSECT, ones)) {
				err = vt_fail("INTERSECT: %s",
					      vt_errno_name(errno));
				break;
			}
			err = check_since(fd, rc, epoch, true, "intersect");
			break;
		default:
			if (ioctl(fd, KBLOOM_IOC_ROTATE, 0)) {
				err = vt_fail("ROTATE: %s",
					      vt_errno_name(errno));
				break;
			}
			err = check_since(fd, rc, epoch, false, "rotate");
			/* Older keys age towards the window's end. */
			if (!err && adder(res, sizeof(res), "adder-count",
					  &epoch, NULL))
				err = vt_fail("adder-count: '%s'", res);
			break;
		}
		rc->rounds[n % kinds]++;
	}
	if (adder(res, sizeof(res), "adder-stop", NULL, &done) ||
	    !st_kapi_has(res, "bad=0")) {
		err = err ?: vt_fail("adder-stop: '%s'", res);
		goto out;
	}
	rc->adder_keys = done;
out:
	free(img);
	if (fd >= 0)
		close(fd);
	if (ref >= 0)
		close(ref);
	if (src >= 0)
		close(src);
	if (ones >= 0)
		close(ones);
	vt_destroy(ONES);
	vt_destroy(MAIN);
	vt_destroy(REF);
	vt_destroy(SRC);
	return err;
}

int main(void)
{
	const struct vt_type *t;
	struct rw_counts rc;
	bool loaded;
	int e;

	e = st_kapi_load(ST_KAPI_KO, &loaded);
	if (!e)
		e = st_kapi_open(&cmd_fd, &res_fd);
	vt_for_each_type(t, 0) {
		const char *err;

		if (e) {
			vt_report_typed(SUITE, "adder", t,
					vt_skip("the companion %s: %s",
						ST_KAPI_KO, st_errname(e)));
			continue;
		}
		err = run_type(t, &rc);
		vt_report_typed(SUITE, "adder", t, err);
		if (err)
			continue;
		printf("%s/%s: %u clears, %u loads, %u merges, %u intersects, %u rotations racing %llu kernel adds: %llu stray cells, %llu image keys lost, %llu merged keys lost, %llu adder keys lost\n",
		       SUITE, t->name, rc.rounds[R_CLEAR], rc.rounds[R_LOAD],
		       rc.rounds[R_MERGE], rc.rounds[R_INTERSECT],
		       rc.rounds[R_ROTATE],
		       (unsigned long long)rc.adder_keys,
		       (unsigned long long)rc.stray_cells,
		       (unsigned long long)rc.fn_load,
		       (unsigned long long)rc.fn_merge,
		       (unsigned long long)rc.fn_adder);
		vt_report_typed(SUITE, "clear_leaves_only_racing_adds", t,
				rc.stray_cells ?
				vt_fail("%s", rc.first[R_CLEAR]) : NULL);
		vt_report_typed(SUITE, "load_keeps_image", t,
				rc.fn_load ?
				vt_fail("%s", rc.first[R_LOAD]) : NULL);
		vt_report_typed(SUITE, "merge_intersect_rotate_keep_keys", t,
				rc.fn_merge || rc.fn_adder ?
				vt_fail("%s", rc.first[R_MERGE]) : NULL);
	}
	if (loaded)
		st_kapi_unload();
	vt_summary(SUITE);
	return vt_failed ? 1 : 0;
}
