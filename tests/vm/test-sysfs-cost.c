// SPDX-License-Identifier: GPL-2.0
/*
 * What a read of /sys/class/kbloom/<name>/ costs, and that the statistics
 * that need the cells (bits_set, fill_ppb, est_keys, fp_now_ppb, saturated)
 * are never stale although the module keeps one scan of them per filter.
 *
 * Staleness is judged against the cells themselves, counted here from the
 * filter's image, not against GET_INFO (which shares the module's scan):
 * after an add of a new key, a delete, a merge, an intersect, an image load
 * and a clear, bits_set must equal the non-zero cells of the image, for
 * both filter types.
 *
 * Cost, on a 1 GiB filter: a counter file (add_calls and the like) must
 * not walk the cells, not even right after a change, and the five cell
 * files read after one change must share one walk.  The assertions
 * compare reads with walks timed in the same run, never with absolute
 * times; the times themselves are printed ("sysfs-cost:" lines) for the
 * benchmark record.
 */
#include <dirent.h>

#include "vmtest.h"

#define SEED		0x5eed5eed5eedULL
#define FP_1PC		10000000U
#define GIB		(1ULL << 30)

/*
 * After step: bits_set from sysfs equals the image's non-zero cells,
 * every statistic in sysfs equals GET_INFO, and bits_set went the way
 * want says (+1 up, -1 down, 0 unchanged, 2 to *count, 3 to 0).
 * *count becomes the new bits_set.
 */
static const char *cells_agree(int fd, const char *name,
			       const struct vt_type *t, uint64_t *count,
			       int want, const char *step)
{
	struct kbloom_info info;
	uint64_t now, from_image;
	const char *msg;
	uint8_t *img;
	size_t len;
	bool ok;

	EXPECT_OK(vt_sysfs_u64(name, "bits_set", &now));
	img = vt_read_image(fd, 1 << 16, &len);
	EXPECT(img, "%s: read image: %s", step, vt_errno_name(errno));
	from_image = vt_image_cells(img, len, t);
	free(img);
	EXPECT(now == from_image,
	       "%s: sysfs bits_set %llu, the image has %llu cells set", step,
	       (unsigned long long)now, (unsigned long long)from_image);
	EXPECT_OK(vt_info(fd, &info));
	msg = vt_sysfs_matches_info(name, &info);
	if (msg)
		return vt_fail("%s: %s", step, msg);
	ok = want == 1 ? now > *count : want == -1 ? now < *count :
	     want == 3 ? now == 0 : now == *count;
	EXPECT(ok, "%s: bits_set %llu, was %llu", step,
	       (unsigned long long)now, (unsigned long long)*count);
	*count = now;
	return NULL;
}

#define AGREE(want, step)						\
	do {								\
		msg = cells_agree(fd, a, t, &count, want, step);	\
		if (msg)						\
			goto out;					\
	} while (0)

/* Every change of the cells shows in the next read of bits_set. */
static const char *never_stale(const struct vt_type *t)
{
	const char *a = "sc-a", *b = "sc-b";
	uint64_t count = 0, saved_count;
	uint8_t *saved = NULL;
	const char *msg = NULL;
	size_t saved_len;
	int fd, fdb = -1;

	fd = vt_fresh(a, t->type, 10000, 0, 0, SEED);
	EXPECT(fd >= 0, "create %s: %s", a, vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "base", 0, 100) >= 0, "add: %s",
	       vt_errno_name(errno));
	AGREE(1, "after 100 adds");

	/* A new key sets new cells: the read after it must see them. */
	if (vt_add_prefix(fd, "one-more", 0, 1) != 1) {
		msg = vt_fail("add of a new key: %s", vt_errno_name(errno));
		goto out;
	}
	AGREE(1, "after one new key");

	/* A known key changes no cell where cells do not count. */
	if (vt_cell_max(t) == 1) {
		if (vt_add_prefix(fd, "one-more", 0, 1) != 0) {
			msg = vt_fail("known key: %s", vt_errno_name(errno));
			goto out;
		}
		AGREE(0, "after a known key");
	}

	/* The delete takes back the counters the add took from 0 to 1. */
	if (t->caps & VT_DELETES) {
		if (vt_delete_prefix(fd, "one-more", 0, 1) != 1) {
			msg = vt_fail("delete: %s", vt_errno_name(errno));
			goto out;
		}
		AGREE(-1, "after a delete");
	}

	/* Keep this state's image for the load below. */
	saved = vt_read_image(fd, 1 << 16, &saved_len);
	if (!saved) {
		msg = vt_fail("read image: %s", vt_errno_name(errno));
		goto out;
	}
	saved_count = count;

	/* A merge sets cells without any add on this filter. */
	fdb = vt_fresh(b, t->type, 10000, 0, 0, SEED);
	if (fdb < 0 || vt_add_prefix(fdb, "other", 0, 100) < 0 ||
	    vt_combine(fd, KBLOOM_IOC_MERGE, fdb)) {
		msg = vt_fail("merge %s: %s", b, vt_errno_name(errno));
		goto out;
	}
	AGREE(1, "after a merge");

	/* An intersect with b keeps only b's cells of the union. */
	if (vt_combine(fd, KBLOOM_IOC_INTERSECT, fdb)) {
		msg = vt_fail("intersect: %s", vt_errno_name(errno));
		goto out;
	}
	AGREE(-1, "after an intersect");

	/* Loading the saved image brings its cells back. */
	if (vt_write_image(fd, saved, saved_len, 1 << 16)) {
		msg = vt_fail("load image: %s", vt_errno_name(errno));
		goto out;
	}
	count = saved_count;
	AGREE(0, "after an image load");

	if (ioctl(fd, KBLOOM_IOC_CLEAR, 0)) {
		msg = vt_fail("clear: %s", vt_errno_name(errno));
		goto out;
	}
	AGREE(3, "after a clear");
out:
	free(saved);
	msg = vt_done(fdb, b, msg);
	return vt_done(fd, a, msg);
}

/* ---- cost on a 1 GiB filter ---- */

/* The cell statistics: the files a read may have to walk the cells for. */
static const char *const cell_files[] = {
	"bits_set", "fill_ppb", "est_keys", "fp_now_ppb", "saturated",
};

static bool is_cell_file(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cell_files); i++)
		if (!strcmp(name, cell_files[i]))
			return true;
	return false;
}

/* Reads a whole sysfs file, as cat does; -1 with errno on failure. */
static int read_file_at(int dirfd, const char *name)
{
	char buf[4096];
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	do {
		n = read(fd, buf, sizeof(buf));
	} while (n > 0);
	close(fd);
	return n < 0 ? -1 : 0;
}

static double read_timed(int dirfd, const char *name)
{
	double t0 = vt_now_s();

	if (read_file_at(dirfd, name))
		return -1;
	return vt_now_s() - t0;
}

/* The regular files of dir (as cat dir/ * reads them), at most max. */
static int list_files(int dirfd, char names[][64], int max)
{
	int copy = dup(dirfd), n = 0;
	DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
	struct dirent *e;
	struct stat st;

	if (!d)
		return -1;
	while ((e = readdir(d)) && n < max) {
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || !(st.st_mode & 0444) ||
		    strlen(e->d_name) >= 64)
			continue;
		memcpy(names[n++], e->d_name, strlen(e->d_name) + 1);
	}
	closedir(d);
	return n;
}

/* Every file once; seconds, or -1. */
static double read_all(int dirfd, char names[][64], int n)
{
	double t0 = vt_now_s();
	int i;

	for (i = 0; i < n; i++)
		if (read_file_at(dirfd, names[i]))
			return -1;
	return vt_now_s() - t0;
}

/*
 * Whether a read walks the cells is told one file at a time: a read that
 * walks takes at least one walk, one that does not takes microseconds.  A
 * sum of many reads against one walk is no test, as the two do not slow
 * down alike.  Measured in scripts/vm-run's VM (qemu TCG, 2 vCPUs on an
 * AMD EPYC host shared with other builds and VMs), 1 GiB bits filter, the
 * 35 files that need no cells:
 *   Debian 6.1, 3 runs:   one walk 5.4 to 8.7 s (0.7 s on an idle host);
 *                         a read 60 to 200 us, after a change at most
 *                         121 us;
 *   debug kernel (KASAN, lockdep, kmemleak), 2 runs: one walk 2.75 and
 *                         5.45 s, a read 1 to 2 ms, after a change at most
 *                         3.9 ms: 100 rounds of the 35 files, as this test
 *                         once read them within one walk, took 2.78 s for
 *                         81 rounds and 6.67 s for 100.
 * The debug kernel made a read about ten times slower and a walk about
 * four.  So each file is read right after an add of a new key (the kept
 * walk is stale then: a file that walks, directly or through the kept
 * walk, walks in full), and fails when its read takes half a walk.  A
 * read counts its fastest of READ_TRIES and a walk its fastest of WALKS,
 * so a read delayed on a busy host is not taken for a walk.  With every
 * file made to read through the kept walk, add_new took 8.59 s against a
 * walk of 8.71 s, and failed.
 */
#define WALKS		3
#define READ_TRIES	3

/* Adds a new key, so the next read of a cell file walks; 0 or -1. */
static int change_cells(int fd, uint64_t *serial)
{
	return vt_add_prefix(fd, "big-more", (*serial)++, 1) == 1 ? 0 : -1;
}

static const char *cost_1gib_in(void)
{
	const char *name = "sc-big";
	uint64_t need = GIB + (512ULL << 20), have = vt_mem_total(), serial = 0;
	double t_scan = -1, t_cells, t_counters, t_all_cold, t_all_warm, t_one;
	double t, t_slowest = 0, t_file;
	char names[64][64];
	const char *msg = NULL, *slowest = "";
	char dir[128];
	int fd, dirfd = -1, nfiles, i, try, reads;

	if (have < need)
		return vt_skip("MemTotal %llu MiB, a 1024 MiB filter needs "
			       "%llu MiB (run with KBLOOM_VM_MEM=3G)",
			       (unsigned long long)(have >> 20),
			       (unsigned long long)(need >> 20));
	fd = vt_fresh(name, KBLOOM_TYPE_BITS, 100000000, 8 * GIB, 0, SEED);
	EXPECT(fd >= 0, "create 1 GiB: %s", vt_errno_name(errno));
	snprintf(dir, sizeof(dir), VT_SYSFS "/%s", name);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	nfiles = dirfd >= 0 ? list_files(dirfd, names, 64) : -1;
	if (nfiles < 28) {
		msg = vt_fail("%s: %d files (%s), want 28 or more", dir,
			      nfiles, vt_errno_name(errno));
		goto out;
	}
	if (vt_add_prefix(fd, "big", 0, 10000) < 0) {
		msg = vt_fail("add: %s", vt_errno_name(errno));
		goto out;
	}

	/* One walk of the cells: the first cell file read after a change. */
	for (i = 0; i < WALKS; i++) {
		if (i && change_cells(fd, &serial)) {
			msg = vt_fail("add of a new key: %s",
				      vt_errno_name(errno));
			goto out;
		}
		t = read_timed(dirfd, "bits_set");
		if (t < 0) {
			msg = vt_fail("read bits_set: %s",
				      vt_errno_name(errno));
			goto out;
		}
		if (t_scan < 0 || t < t_scan)
			t_scan = t;
	}
	/* The cell files, with no change since: no walk of their own. */
	t_cells = -1;
	for (try = 0; try < READ_TRIES; try++) {
		t = vt_now_s();
		for (i = 0; i < (int)ARRAY_SIZE(cell_files); i++)
			if (read_file_at(dirfd, cell_files[i])) {
				msg = vt_fail("read %s: %s", cell_files[i],
					      vt_errno_name(errno));
				goto out;
			}
		t = vt_now_s() - t;
		if (t_cells < 0 || t < t_cells)
			t_cells = t;
	}
	if (t_cells * 2 >= t_scan) {
		msg = vt_fail("the 5 cell files with no change took %.3f s "
			      "(fastest of %d), one walk %.3f s: they do not "
			      "share it", t_cells, READ_TRIES, t_scan);
		goto out;
	}

	/* Every other file alone, each read right after a change. */
	for (i = 0; i < nfiles; i++) {
		if (is_cell_file(names[i]))
			continue;
		t_file = -1;
		for (try = 0; try < READ_TRIES; try++) {
			if (change_cells(fd, &serial)) {
				msg = vt_fail("add of a new key: %s",
					      vt_errno_name(errno));
				goto out;
			}
			t = read_timed(dirfd, names[i]);
			if (t < 0) {
				msg = vt_fail("read %s: %s", names[i],
					      vt_errno_name(errno));
				goto out;
			}
			if (t_file < 0 || t < t_file)
				t_file = t;
		}
		if (t_file > t_slowest) {
			t_slowest = t_file;
			slowest = names[i];
		}
		if (t_file * 2 >= t_scan) {
			msg = vt_fail("%s, which needs no cells, took %.3f s "
				      "to read after a change (fastest of "
				      "%d), one walk of the cells %.3f s: it "
				      "walks them", names[i], t_file,
				      READ_TRIES, t_scan);
			goto out;
		}
	}

	/* For the record: every other file 100 times, no change between. */
	t_counters = vt_now_s();
	for (reads = 0; reads < 100; reads++)
		for (i = 0; i < nfiles; i++)
			if (!is_cell_file(names[i]) &&
			    read_file_at(dirfd, names[i])) {
				msg = vt_fail("read %s: %s", names[i],
					      vt_errno_name(errno));
				goto out;
			}
	t_counters = vt_now_s() - t_counters;

	t_one = read_timed(dirfd, "add_calls");
	/* cat of every file right after a change, and again with none. */
	if (change_cells(fd, &serial)) {
		msg = vt_fail("add of a new key: %s", vt_errno_name(errno));
		goto out;
	}
	t_all_cold = read_all(dirfd, names, nfiles);
	t_all_warm = read_all(dirfd, names, nfiles);
	printf("sysfs-cost: 1 GiB bits filter, %d files: every file after a "
	       "change %.3f s, again %.6f s; one walk (bits_set) %.3f s; "
	       "add_calls alone %.1f us; the %d other files x%d %.6f s, "
	       "each after a change at most %.1f us (%s); "
	       "the 5 cell files after the walk %.6f s\n",
	       nfiles, t_all_cold, t_all_warm, t_scan, t_one * 1e6,
	       nfiles - 5, reads, t_counters, t_slowest * 1e6, slowest,
	       t_cells);
	fflush(stdout);
	if (t_one < 0 || t_all_cold < 0 || t_all_warm < 0)
		msg = vt_fail("a sysfs read failed: %s", vt_errno_name(errno));
out:
	if (dirfd >= 0)
		close(dirfd);
	return vt_done(fd, name, msg);
}

static const char *cost_1gib(void)
{
	const char *msg;
	uint64_t saved;

	if (vt_room_for(GIB, &saved))
		return vt_fail("max_filter_bytes: %s", vt_errno_name(errno));
	msg = cost_1gib_in();
	vt_param_set("max_filter_bytes", saved);
	return msg;
}

int main(void)
{
	static const struct vt_case cases[] = {
		VT_TYPED(never_stale),
		VT_CASE(cost_1gib),
	};

	return vt_run("sysfs-cost", cases, ARRAY_SIZE(cases));
}
