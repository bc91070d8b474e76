// SPDX-License-Identifier: GPL-2.0
/*
 * `make bench-vm`, inside the VM: what a check costs a BPF program, kbloom's
 * kfunc against bpf_map_peek_elem() on the kernel's BPF bloom filter map,
 * both holding the same n keys in the same number of bits (a power of two,
 * as the bloom map must have, n = bits / 10: 10 bits per key).  The bloom
 * map gets k = round(ln 2 * bits / n) hashes, the textbook choice for that
 * size; kbloom picks its own k for its blocked layout.  The programs
 * (bpf/bench.bpf.c, XDP) loop over KBB_RUN keys per BPF_PROG_TEST_RUN, so
 * the system call is spread over 4096 checks, and a third program runs the
 * same loop with no check at all, which the "net" ratio subtracts.  Each
 * figure is the median of interleaved repeats; qemu's absolute times mean
 * little, the ratios do.  Both filters' false-positive rates are measured
 * on 2^20 keys never added, beside what their formulas say.
 *
 * Usage: bench-bpf [N [REPEATS]]   (default 1000000 keys at most, 9)
 * Prints a table, the ratios, PASS:/FAIL: lines for its sanity checks and
 * a "BENCHJSON: {...}" line per measurement (where = vm); without BTF one
 * SKIP: line saying why.
 */
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <sys/ioctl.h>

#include "../../include/uapi/linux/kbloom.h"
#include "../../bench/bpf_bloom.h"
#include "bpf/loader.h"

#define BB_NAME		"bench-bpf"
#define BB_CONTROL	"/dev/kbloom-control"
#define BB_NODE		"/dev/kbloom/" BB_NAME
#define BB_BITS_PER_KEY	10
#define BB_SEED		0x6262656e6368ULL
#define BB_MAX_REPEATS	9
#define BB_PASSES	2	/* over the KBB_KEYS queries per repeat */
#define BB_ABSENT	(16 * KBB_KEYS)
#define BB_BATCH	4096	/* keys per ADD ioctl */

enum { ROW_KFUNC, ROW_MAP, ROW_NONE, ROW_COUNT };

static struct {
	const char *impl, *prog;
	double ns[BB_MAX_REPEATS];
	double median;
	uint64_t fp_hits;
	double fp_theory;
	int fd;
} rows[ROW_COUNT] = {
	[ROW_KFUNC] = { "kbloom-kfunc", "check_kfunc" },
	[ROW_MAP] = { "bpf-map-peek", "check_map" },
	[ROW_NONE] = { "bpf-loop-only", "check_none" },
};

static int failures;
static struct kbb_globals *g;

static void check(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("PASS: bench-bpf/%s\n", name);
	} else {
		printf("FAIL: bench-bpf/%s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		failures++;
	}
	fflush(stdout);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "bench-bpf: out of memory\n");
		exit(2);
	}
	return p;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double s[BB_MAX_REPEATS];

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/*
 * Runs prog over g->keys[0, count) (count a multiple of KBB_RUN); the keys
 * found, or -errno (a kfunc's error included).
 */
static long run_windows(int fd, uint32_t count)
{
	uint8_t pkt[KBT_PKT_BYTES] = { 0 };
	uint64_t hits = 0;
	uint32_t first;
	long ret;

	for (first = 0; first < count; first += KBB_RUN) {
		g->first = first;
		g->error = 0;
		ret = kb_run_pkt(fd, pkt, sizeof(pkt), 1);
		if (ret != XDP_PASS)
			return ret < 0 ? ret : -EIO;
		if (g->error)
			return g->error;
		hits += g->hits;
	}
	return hits;
}

/*
 * Puts keys [first, first + count) of set into g->keys, then pads to a
 * whole KBB_RUN with copies of the first (adding one again changes
 * nothing); the padded count.
 */
static uint32_t load_keys(uint64_t set, uint64_t first, uint32_t count)
{
	uint32_t i, padded = (count + KBB_RUN - 1) / KBB_RUN * KBB_RUN;

	for (i = 0; i < count; i++)
		kb_key(g->keys[i], set, first + i);
	for (; i < padded; i++)
		memcpy(g->keys[i], g->keys[0], KBT_KEY_BYTES);
	return padded;
}

/* ADD ioctls of the n keys of set 1, BB_BATCH keys per call. */
static int device_fill(int fd, uint64_t n)
{
	uint8_t *bytes = xcalloc(BB_BATCH, KBT_KEY_BYTES);
	uint32_t *lens = xcalloc(BB_BATCH, sizeof(uint32_t));
	uint64_t i;
	uint32_t j, m;
	int err = 0;

	for (j = 0; j < BB_BATCH; j++)
		lens[j] = KBT_KEY_BYTES;
	for (i = 0; i < n && !err; i += m) {
		struct kbloom_batch b;

		m = n - i < BB_BATCH ? n - i : BB_BATCH;
		for (j = 0; j < m; j++)
			kb_key(bytes + j * KBT_KEY_BYTES, 1, i + j);
		memset(&b, 0, sizeof(b));
		b.keys = (uintptr_t)bytes;
		b.lens = (uintptr_t)lens;
		b.keys_len = (uint64_t)m * KBT_KEY_BYTES;
		b.count = m;
		if (ioctl(fd, KBLOOM_IOC_ADD, &b))
			err = -errno;
	}
	free(bytes);
	free(lens);
	return err;
}

/* The filter's id, as BPF programs acquire it; 0 or -errno. */
static int read_id(uint32_t *id)
{
	char buf[32];
	ssize_t len;
	int fd = open("/sys/class/kbloom/" BB_NAME "/id", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -EIO;
	buf[len] = 0;
	*id = strtoul(buf, NULL, 10);
	return 0;
}

static int device_create(uint64_t n, uint64_t bits, struct kbloom_info *info)
{
	struct kbloom_create c;
	struct kbloom_name nm;
	int ctl, fd, err = 0;

	ctl = open(BB_CONTROL, O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	memset(&nm, 0, sizeof(nm));
	snprintf(nm.name, sizeof(nm.name), "%s", BB_NAME);
	ioctl(ctl, KBLOOM_CTL_DESTROY, &nm);
	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "%s", BB_NAME);
	c.capacity = n;
	c.bits = bits;
	c.seed = BB_SEED;
	c.flags = KBLOOM_CREATE_SEED;
	if (ioctl(ctl, KBLOOM_CTL_CREATE, &c))
		err = -errno;
	close(ctl);
	if (err)
		return err;
	fd = open(BB_NODE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, KBLOOM_IOC_GET_INFO, info)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static void device_destroy(void)
{
	struct kbloom_name nm;
	int ctl = open(BB_CONTROL, O_RDWR | O_CLOEXEC);

	memset(&nm, 0, sizeof(nm));
	snprintf(nm.name, sizeof(nm.name), "%s", BB_NAME);
	if (ctl >= 0) {
		ioctl(ctl, KBLOOM_CTL_DESTROY, &nm);
		close(ctl);
	}
}

/*
 * The timed queries: KBB_KEYS keys, even slots added keys spread over
 * the set, odd slots never added, shuffled together.
 */
static void load_queries(uint64_t n)
{
	uint64_t state = BB_SEED, i;

	for (i = 0; i < KBB_KEYS; i++) {
		if (i & 1)
			kb_key(g->keys[i], 3, i);
		else
			kb_key(g->keys[i], 1, (i / 2) * (n / (KBB_KEYS / 2)));
	}
	for (i = KBB_KEYS; i > 1; i--) {
		uint64_t j = kb_mix(state++) % i;
		uint8_t t[KBT_KEY_BYTES];

		memcpy(t, g->keys[i - 1], KBT_KEY_BYTES);
		memcpy(g->keys[i - 1], g->keys[j], KBT_KEY_BYTES);
		memcpy(g->keys[j], t, KBT_KEY_BYTES);
	}
}

/* The anchors' fair bound: |measured - formula| <= max(5 sigma, 2 %). */
static bool fp_fair(double measured, double theory, uint64_t q)
{
	double sigma = sqrt(theory / q), slack = 5 * sigma;

	if (slack < 0.02 * theory)
		slack = 0.02 * theory;
	return fabs(measured - theory) <= slack;
}

static void json_row(int r, uint64_t n, uint64_t bits, uint32_t k,
		     int repeats, bool with_fp)
{
	int i;

	printf("BENCHJSON: {\"impl\":\"%s\",\"where\":\"vm\",\"op\":\"check\","
	       "\"from\":\"bpf\",\"n\":%llu,\"key_bytes\":%d,"
	       "\"bits_per_key\":%.4f,\"bits_per_key_target\":%d,\"k\":%u,"
	       "\"batch\":1,\"ns_per_op\":%.3f,\"ns_repeats\":[",
	       rows[r].impl, (unsigned long long)n, KBT_KEY_BYTES,
	       (double)bits / n, BB_BITS_PER_KEY, k, rows[r].median);
	for (i = 0; i < repeats; i++)
		printf("%s%.3f", i ? "," : "", rows[r].ns[i]);
	if (with_fp)
		printf("],\"fp_measured\":%.6f,\"fp_theory\":%.6f,",
		       (double)rows[r].fp_hits / BB_ABSENT, rows[r].fp_theory);
	else
		printf("],\"fp_measured\":null,\"fp_theory\":null,");
	printf("\"repeats\":%d,\"ops_timed\":%d}\n", repeats,
	       BB_PASSES * KBB_KEYS);
}

int main(int argc, char **argv)
{
	uint64_t max_n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
	int repeats = argc > 2 ? atoi(argv[2]) : 9;
	struct bpf_bloom_shape shape;
	struct kbloom_info info;
	struct bpf_object *obj;
	struct bpf_map *bloom;
	uint64_t bits, n, i, fill_t0;
	const char *why;
	int fd, r, j, err;
	long ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (max_n < 2 * KBB_KEYS || repeats < 1 || repeats > BB_MAX_REPEATS) {
		fprintf(stderr, "usage: %s [N >= %d [REPEATS 1-%d]]\n",
			argv[0], 2 * KBB_KEYS, BB_MAX_REPEATS);
		return 2;
	}
	why = kb_btf_missing();
	if (why) {
		printf("SKIP: bench-bpf/all: %s\n", why);
		return 0;
	}
	kb_libbpf_init();

	/* The largest power of two of bits that holds max_n keys at 10. */
	for (bits = 1ULL << 10; bits * 2 <= max_n * BB_BITS_PER_KEY; bits *= 2)
		;
	n = bits / BB_BITS_PER_KEY;
	bpf_bloom_shape(&shape, n, BB_BITS_PER_KEY);
	if (shape.bits != bits) {
		check(0, "shape", "the bloom map would get %llu bits, not %llu",
		      (unsigned long long)shape.bits,
		      (unsigned long long)bits);
		return 1;
	}

	fd = device_create(n, bits, &info);
	if (fd < 0) {
		check(0, "device-create", "%s", strerror(-fd));
		return 1;
	}
	obj = KB_OPEN(bench);
	bloom = obj ? bpf_object__find_map_by_name(obj, "bloom") : NULL;
	err = bloom ? bpf_map__set_max_entries(bloom, shape.max_entries) : -1;
	if (!err)
		err = bpf_map__set_map_extra(bloom, shape.k);
	if (!err)
		err = bpf_object__load(obj);
	if (!err) {
		g = kb_globals(obj, sizeof(*g));
		if (!g)
			err = -errno;
	}
	if (err) {
		check(0, "load", "bench.bpf.o: %s: %s", strerror(err < 0 ?
		      -err : EINVAL), kb_libbpf_last());
		device_destroy();
		return 1;
	}
	for (r = 0; r < ROW_COUNT; r++)
		rows[r].fd = kb_prog_fd(obj, rows[r].prog);
	err = read_id(&g->filter_id);
	if (err) {
		check(0, "filter-id", "/sys/class/kbloom/%s/id: %s", BB_NAME,
		      strerror(-err));
		return 1;
	}

	printf("bench-bpf: n = %llu keys of %d bytes in %llu bits (%d bits/key)"
	       ", %d repeats of %d checks per implementation (half of the "
	       "keys absent), %d keys per test_run\n",
	       (unsigned long long)n, KBT_KEY_BYTES, (unsigned long long)bits,
	       BB_BITS_PER_KEY, repeats, BB_PASSES * KBB_KEYS, KBB_RUN);
	printf("  kbloom: %llu blocks (%llu bits), k %u; bpf bloom map: "
	       "max_entries %u, k %u\n", (unsigned long long)info.nblocks,
	       (unsigned long long)info.bits, info.k, shape.max_entries,
	       shape.k);

	fill_t0 = now_ns();
	err = device_fill(fd, n);
	if (err) {
		check(0, "device-fill", "%s", strerror(-err));
		return 1;
	}
	for (i = 0; i < n && !err; i += KBB_KEYS) {
		uint32_t m = n - i < KBB_KEYS ? n - i : KBB_KEYS;

		ret = run_windows(kb_prog_fd(obj, "fill_map"),
				  load_keys(1, i, m));
		if (ret < 0)
			err = ret;
	}
	if (err) {
		check(0, "map-fill", "%s", strerror(-err));
		return 1;
	}
	printf("  filled both in %.1f s\n", (now_ns() - fill_t0) / 1e9);

	/* Every added key is found by both. */
	for (r = 0; r < ROW_NONE; r++) {
		uint64_t found = 0;

		for (i = 0; i < n; i += KBB_KEYS) {
			uint32_t m = n - i < KBB_KEYS ? n - i : KBB_KEYS;
			uint32_t padded = load_keys(1, i, m);

			ret = run_windows(rows[r].fd, padded);
			if (ret < 0)
				break;
			/*
			 * The padding repeats key i: found with it (if key i
			 * is missed, so is the padding, and found falls short
			 * all the same).
			 */
			found += ret - (padded - m);
		}
		check(ret >= 0 && found == n, r == ROW_KFUNC ?
		      "kfunc-no-false-negatives" : "map-no-false-negatives",
		      "%s found %llu of %llu added keys (%s)", rows[r].impl,
		      (unsigned long long)found, (unsigned long long)n,
		      ret < 0 ? strerror(-ret) : "no error");
	}

	/* False positives on BB_ABSENT keys no one added. */
	for (i = 0; i < BB_ABSENT; i += KBB_KEYS) {
		load_keys(2, i, KBB_KEYS);
		for (r = 0; r < ROW_NONE; r++) {
			ret = run_windows(rows[r].fd, KBB_KEYS);
			if (ret >= 0)
				rows[r].fp_hits += ret;
		}
	}
	if (ioctl(fd, KBLOOM_IOC_GET_INFO, &info) == 0)
		rows[ROW_KFUNC].fp_theory = info.fp_now_ppb / 1e9;
	rows[ROW_MAP].fp_theory = pow(1 - exp(-(double)shape.k * n / bits),
				      shape.k);

	load_queries(n);
	for (r = 0; r < repeats; r++) {
		for (j = 0; j < ROW_COUNT; j++) {
			/* Rotate the order so no one always goes first. */
			int row = (j + r) % ROW_COUNT, p;
			uint64_t t0 = now_ns();

			for (p = 0; p < BB_PASSES; p++) {
				ret = run_windows(rows[row].fd, KBB_KEYS);
				if (ret < 0) {
					check(0, "timed-run", "%s: %s",
					      rows[row].impl, strerror(-ret));
					return 1;
				}
			}
			rows[row].ns[r] = (double)(now_ns() - t0) /
					  (BB_PASSES * KBB_KEYS);
		}
		printf("  repeat %d/%d done\n", r + 1, repeats);
	}
	for (r = 0; r < ROW_COUNT; r++)
		rows[r].median = median(rows[r].ns, repeats);

	printf("\nMedian ns per check from a BPF program in the VM (qemu: "
	       "only the ratios below mean anything)\n");
	printf(" %-14s %-22s %10s %12s %12s\n", "impl", "call", "ns/check",
	       "fp measured", "fp formula");
	for (r = 0; r < ROW_COUNT; r++) {
		printf(" %-14s %-22s %10.1f", rows[r].impl,
		       r == ROW_KFUNC ? "bpf_kbloom_check()" : r == ROW_MAP ?
		       "bpf_map_peek_elem()" : "(the loop alone)",
		       rows[r].median);
		if (r != ROW_NONE)
			printf(" %11.4f%% %11.4f%%",
			       100.0 * rows[r].fp_hits / BB_ABSENT,
			       100 * rows[r].fp_theory);
		printf("\n");
	}
	printf("\nRatios in the VM\n");
	printf("   %-50s %8.2fx\n", "check: bpf-map peek / kbloom kfunc",
	       rows[ROW_MAP].median / rows[ROW_KFUNC].median);
	if (rows[ROW_KFUNC].median > rows[ROW_NONE].median &&
	    rows[ROW_MAP].median > rows[ROW_NONE].median)
		printf("   %-50s %8.2fx\n",
		       "check, net of the loop: bpf-map peek / kbloom kfunc",
		       (rows[ROW_MAP].median - rows[ROW_NONE].median) /
		       (rows[ROW_KFUNC].median - rows[ROW_NONE].median));
	printf("   %-50s %8.2fx\n", "false positives: bpf-map / kbloom",
	       rows[ROW_KFUNC].fp_hits ? (double)rows[ROW_MAP].fp_hits /
	       rows[ROW_KFUNC].fp_hits : 0.0);
	printf("\n");

	check(fp_fair((double)rows[ROW_KFUNC].fp_hits / BB_ABSENT,
		      rows[ROW_KFUNC].fp_theory, BB_ABSENT), "kfunc-fp-rate",
	      "kbloom: %llu false positives in %d absent keys, the filter's "
	      "exact rate says %.4f%%", (unsigned long long)
	      rows[ROW_KFUNC].fp_hits, BB_ABSENT,
	      100 * rows[ROW_KFUNC].fp_theory);
	check(fp_fair((double)rows[ROW_MAP].fp_hits / BB_ABSENT,
		      rows[ROW_MAP].fp_theory, BB_ABSENT), "map-fp-rate",
	      "bpf map: %llu false positives in %d absent keys, the standard "
	      "formula says %.4f%%", (unsigned long long)
	      rows[ROW_MAP].fp_hits, BB_ABSENT, 100 * rows[ROW_MAP].fp_theory);
	for (r = 0; r < ROW_COUNT; r++)
		json_row(r, n, bits, r == ROW_KFUNC ? info.k : shape.k,
			 repeats, r != ROW_NONE);

	bpf_object__close(obj);
	close(fd);
	device_destroy();
	return failures ? 1 : 0;
}
