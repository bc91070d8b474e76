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
 * The hot path: an XDP program checks one key per packet.  Per packet,
 * kbloom-acquire-each acquires, checks and releases (atomics on the
 * filter's reference count, a line every CPU writes), kbloom-kptr-percpu
 * keeps a reference in a per-CPU map slot and exchanges it out and back
 * (only its CPU's line), and bpf-map-peek-each peeks the bloom map (no
 * reference at all); KBB_RUN packets per test_run.  Each runs on one
 * vCPU, then on two at once on the one filter (a thread pinned to each
 * CPU, started together): checks per second summed over both.
 *
 * Usage: bench-bpf [N [REPEATS]]   (default 1000000 keys at most, 9)
 * Prints a table, the ratios, PASS:/FAIL: lines for its sanity checks and
 * a "BENCHJSON: {...}" line per measurement (where = vm); without BTF one
 * SKIP: line saying why.
 */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
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

enum {
	ROW_KFUNC, ROW_MAP, ROW_NONE,
	ROW_HOT_ACQUIRE, ROW_HOT_KPTR, ROW_HOT_PEEK, ROW_COUNT
};

static struct {
	const char *impl, *prog, *call;
	double ns[BB_MAX_REPEATS];
	double median;
	/* hot rows: wall ns per check with both CPUs running it */
	double ns2[BB_MAX_REPEATS];
	double median2;
	uint64_t fp_hits;
	double fp_theory;
	long found;		/* of the timed queries, in one pass */
	int fd;
} rows[ROW_COUNT] = {
	[ROW_KFUNC] = { "kbloom-kfunc", "check_kfunc", "bpf_kbloom_check()" },
	[ROW_MAP] = { "bpf-map-peek", "check_map", "bpf_map_peek_elem()" },
	[ROW_NONE] = { "bpf-loop-only", "check_none", "(the loop alone)" },
	[ROW_HOT_ACQUIRE] = { "kbloom-acquire-each", "hot_acquire",
			      "acquire+check+release" },
	[ROW_HOT_KPTR] = { "kbloom-kptr-percpu", "hot_kptr",
			   "kptr_xchg+check+xchg" },
	[ROW_HOT_PEEK] = { "bpf-map-peek-each", "hot_peek",
			   "bpf_map_peek_elem()" },
};

static bool hot_row(int r)
{
	return r >= ROW_HOT_ACQUIRE;
}

static int failures;
static struct kbb_globals *g;
static struct bpf_bloom_shape bloom_shape;

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

/* Before the load: the bloom map of bloom_shape's size and hashes. */
static int bloom_setup(struct bpf_object *obj)
{
	struct bpf_map *bloom = bpf_object__find_map_by_name(obj, "bloom");
	int err;

	if (!bloom)
		return -ENOENT;
	err = bpf_map__set_max_entries(bloom, bloom_shape.max_entries);
	return err ? err : bpf_map__set_map_extra(bloom, bloom_shape.k);
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
 * Runs program fd over g->keys[0, count) (count a multiple of KBB_RUN)
 * from a thread pinned to cpu; the keys found, or -errno (a kfunc's error
 * included).
 */
static long run_windows(int fd, uint32_t count, int cpu)
{
	struct kbb_cpu *c = &g->cpu[cpu];
	uint8_t pkt[KBT_PKT_BYTES] = { 0 };
	uint64_t hits = 0;
	uint32_t first;
	long ret;

	for (first = 0; first < count; first += KBB_RUN) {
		c->first = first;
		c->error = 0;
		ret = kb_run_pkt(fd, pkt, sizeof(pkt), 1);
		if (ret != XDP_PASS)
			return ret < 0 ? ret : -EIO;
		if (c->error)
			return c->error == KBB_NO_FILTER ? -ENOENT : c->error;
		hits += c->hits;
	}
	return hits;
}

/* One thread of a two-CPU run: BB_PASSES over the queries on its CPU. */
struct duo {
	int row, cpu;
	pthread_barrier_t *start;
	long found, err;
	uint64_t t_end;
};

static void *duo_run(void *arg)
{
	struct duo *d = arg;
	int p;

	if (kb_pin_to(d->cpu))
		d->err = -errno;
	pthread_barrier_wait(d->start);
	for (p = 0; p < BB_PASSES && !d->err; p++) {
		long ret = run_windows(rows[d->row].fd, KBB_KEYS, d->cpu);

		if (ret < 0)
			d->err = ret;
		else
			d->found += ret;
	}
	d->t_end = now_ns();
	return NULL;
}

/*
 * Row r on CPUs 0 and 1 at once: the wall time from the common start to
 * the later end, per check of both; checks failed on sanity into *msg.
 */
static double run_duo(int r, char *msg, size_t size)
{
	struct duo d[2];
	pthread_t t[2];
	pthread_barrier_t start;
	uint64_t t0, end = 0;
	int i, made = 0;

	pthread_barrier_init(&start, NULL, 3);
	for (i = 0; i < 2; i++) {
		d[i] = (struct duo){ .row = r, .cpu = i, .start = &start };
		if (pthread_create(&t[i], NULL, duo_run, &d[i]))
			break;
		made++;
	}
	if (made < 2) {
		/* Nobody may stay stuck at the barrier. */
		snprintf(msg, size, "pthread_create failed");
		for (i = 0; i < made; i++)
			pthread_cancel(t[i]);
		for (i = 0; i < made; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&start);
		return 0;
	}
	pthread_barrier_wait(&start);
	t0 = now_ns();
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		if (d[i].t_end > end)
			end = d[i].t_end;
		if (d[i].err && !msg[0])
			snprintf(msg, size, "%s on CPU %d: %s", rows[r].impl,
				 i, strerror(-d[i].err));
		else if (d[i].found != BB_PASSES * rows[r].found && !msg[0])
			snprintf(msg, size, "%s on CPU %d found %ld keys in "
				 "%d passes, %ld a pass alone", rows[r].impl,
				 i, d[i].found, BB_PASSES, rows[r].found);
	}
	pthread_barrier_destroy(&start);
	return (double)(end - t0) / (2.0 * BB_PASSES * KBB_KEYS);
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

/*
 * threads 2: the two-CPU figures, whose ns_per_op is wall time per check
 * of both (1e9 / checks_per_s).
 */
static void json_row(int r, uint64_t n, uint64_t bits, uint32_t k,
		     int repeats, bool with_fp, int threads)
{
	const double *ns = threads == 2 ? rows[r].ns2 : rows[r].ns;
	double med = threads == 2 ? rows[r].median2 : rows[r].median;
	int i;

	printf("BENCHJSON: {\"impl\":\"%s\",\"where\":\"vm\",\"op\":\"check\","
	       "\"from\":\"bpf\",\"n\":%llu,\"key_bytes\":%d,"
	       "\"bits_per_key\":%.4f,\"bits_per_key_target\":%d,\"k\":%u,"
	       "\"batch\":1,\"threads\":%d,"
	       "\"checks_per_s\":%.0f,\"ns_per_op\":%.3f,\"ns_repeats\":[",
	       rows[r].impl, (unsigned long long)n, KBT_KEY_BYTES,
	       (double)bits / n, BB_BITS_PER_KEY, k, threads, 1e9 / med, med);
	for (i = 0; i < repeats; i++)
		printf("%s%.3f", i ? "," : "", ns[i]);
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
	const char *why, *variant = "";
	struct bpf_object *obj = NULL;
	uint64_t bits, n, i, fill_t0, acquires;
	char msg[256], label[64];
	int fd, r, j, err, cpus;
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
	/* run_windows() of main uses g->cpu[0]. */
	if (kb_pin_to(0)) {
		check(0, "pin", "CPU 0: %s", strerror(errno));
		return 1;
	}
	cpus = sysconf(_SC_NPROCESSORS_ONLN);

	/* The largest power of two of bits that holds max_n keys at 10. */
	for (bits = 1ULL << 10; bits * 2 <= max_n * BB_BITS_PER_KEY; bits *= 2)
		;
	n = bits / BB_BITS_PER_KEY;
	bpf_bloom_shape(&shape, n, BB_BITS_PER_KEY);
	bloom_shape = shape;
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
	err = -kb_load_bench(&obj, bloom_setup, &variant, NULL);
	if (!err) {
		g = kb_globals(obj, sizeof(*g));
		if (!g)
			err = -errno;
	}
	if (err) {
		check(0, "load", "bench.bpf.o: %s: %s",
		      strerror(err < 0 ? -err : EINVAL), kb_libbpf_last());
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
	printf("  the kptr slots' tag: %s\n", variant);

	fill_t0 = now_ns();
	err = device_fill(fd, n);
	if (err) {
		check(0, "device-fill", "%s", strerror(-err));
		return 1;
	}
	for (i = 0; i < n && !err; i += KBB_KEYS) {
		uint32_t m = n - i < KBB_KEYS ? n - i : KBB_KEYS;

		ret = run_windows(kb_prog_fd(obj, "fill_map"),
				  load_keys(1, i, m), 0);
		if (ret < 0)
			err = ret;
	}
	if (err) {
		check(0, "map-fill", "%s", strerror(-err));
		return 1;
	}
	printf("  filled both in %.1f s\n", (now_ns() - fill_t0) / 1e9);

	/* Every added key is found through every path. */
	acquires = g->cpu[0].acquires;
	for (r = 0; r < ROW_COUNT; r++) {
		uint64_t found = 0;

		if (r == ROW_NONE)
			continue;
		for (i = 0; i < n; i += KBB_KEYS) {
			uint32_t m = n - i < KBB_KEYS ? n - i : KBB_KEYS;
			uint32_t padded = load_keys(1, i, m);

			ret = run_windows(rows[r].fd, padded, 0);
			if (ret < 0)
				break;
			/*
			 * The padding repeats key i: found with it (if key i
			 * is missed, so is the padding, and found falls short
			 * all the same).
			 */
			found += ret - (padded - m);
		}
		snprintf(msg, sizeof(msg), "%s-no-false-negatives",
			 r == ROW_KFUNC ? "kfunc" : r == ROW_MAP ? "map" :
			 rows[r].impl);
		check(ret >= 0 && found == n, msg,
		      "%s found %llu of %llu added keys (%s)", rows[r].impl,
		      (unsigned long long)found, (unsigned long long)n,
		      ret < 0 ? strerror(-ret) : "no error");
	}
	/* The point of the slot: one acquire for all those packets. */
	acquires = g->cpu[0].acquires - acquires;
	check(acquires == 1, "kptr-one-acquire", "hot_kptr acquired %llu "
	      "times for %llu packets on one CPU, want once",
	      (unsigned long long)acquires, (unsigned long long)n);

	/* False positives on BB_ABSENT keys no one added. */
	for (i = 0; i < BB_ABSENT; i += KBB_KEYS) {
		load_keys(2, i, KBB_KEYS);
		for (r = 0; r < ROW_NONE; r++) {
			ret = run_windows(rows[r].fd, KBB_KEYS, 0);
			if (ret >= 0)
				rows[r].fp_hits += ret;
		}
	}
	if (ioctl(fd, KBLOOM_IOC_GET_INFO, &info) == 0)
		rows[ROW_KFUNC].fp_theory = info.fp_now_ppb / 1e9;
	rows[ROW_MAP].fp_theory = pow(1 - exp(-(double)shape.k * n / bits),
				      shape.k);

	load_queries(n);
	/* What each path finds of the queries, for the two-CPU runs. */
	for (r = 0; r < ROW_COUNT; r++)
		rows[r].found = run_windows(rows[r].fd, KBB_KEYS, 0);
	msg[0] = 0;
	for (r = 0; r < repeats; r++) {
		for (j = 0; j < ROW_COUNT; j++) {
			/* Rotate the order so no one always goes first. */
			int row = (j + r) % ROW_COUNT, p;
			uint64_t t0 = now_ns();

			for (p = 0; p < BB_PASSES; p++) {
				ret = run_windows(rows[row].fd, KBB_KEYS, 0);
				if (ret < 0) {
					check(0, "timed-run", "%s: %s",
					      rows[row].impl, strerror(-ret));
					return 1;
				}
			}
			rows[row].ns[r] = (double)(now_ns() - t0) /
					  (BB_PASSES * KBB_KEYS);
		}
		for (j = 0; j < ROW_COUNT && cpus >= 2; j++) {
			int row = ROW_HOT_ACQUIRE +
				  (j + r) % (ROW_COUNT - ROW_HOT_ACQUIRE);

			if (j < ROW_COUNT - ROW_HOT_ACQUIRE)
				rows[row].ns2[r] = run_duo(row, msg,
							   sizeof(msg));
		}
		printf("  repeat %d/%d done\n", r + 1, repeats);
	}
	for (r = 0; r < ROW_COUNT; r++) {
		rows[r].median = median(rows[r].ns, repeats);
		rows[r].median2 = median(rows[r].ns2, repeats);
	}

	printf("\nMedian ns per check from a BPF program in the VM (qemu: "
	       "only the ratios below mean anything)\n");
	printf(" %-14s %-22s %10s %12s %12s\n", "impl", "call", "ns/check",
	       "fp measured", "fp formula");
	for (r = 0; r < ROW_HOT_ACQUIRE; r++) {
		printf(" %-14s %-22s %10.1f", rows[r].impl, rows[r].call,
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

	printf("Hot path: one check per packet, %d packets per test_run; "
	       "million checks per second (medians)\n", KBB_RUN);
	printf(" %-20s %-22s %10s %14s %14s\n", "impl", "per packet",
	       "ns/check", "1 vCPU", "2 vCPUs (sum)");
	for (r = ROW_HOT_ACQUIRE; r < ROW_COUNT; r++) {
		printf(" %-20s %-22s %10.1f %14.3f", rows[r].impl,
		       rows[r].call, rows[r].median, 1e3 / rows[r].median);
		if (cpus >= 2)
			printf(" %14.3f", 1e3 / rows[r].median2);
		printf("\n");
	}
	/* Ratios of checks per second: the inverse ratio of the times. */
	printf("\nHot-path ratios in the VM (checks per second)\n");
	printf("   %-50s %8.2fx\n", "1 vCPU: kptr-percpu / acquire-each",
	       rows[ROW_HOT_ACQUIRE].median / rows[ROW_HOT_KPTR].median);
	printf("   %-50s %8.2fx\n", "1 vCPU: kptr-percpu / bpf-map-peek-each",
	       rows[ROW_HOT_PEEK].median / rows[ROW_HOT_KPTR].median);
	if (cpus >= 2) {
		printf("   %-50s %8.2fx\n",
		       "2 vCPUs: kptr-percpu / acquire-each",
		       rows[ROW_HOT_ACQUIRE].median2 /
		       rows[ROW_HOT_KPTR].median2);
		printf("   %-50s %8.2fx\n",
		       "2 vCPUs: kptr-percpu / bpf-map-peek-each",
		       rows[ROW_HOT_PEEK].median2 / rows[ROW_HOT_KPTR].median2);
		for (r = ROW_HOT_ACQUIRE; r < ROW_COUNT; r++) {
			snprintf(label, sizeof(label), "2 vCPUs / 1 vCPU: %s",
				 rows[r].impl);
			printf("   %-50s %8.2fx\n", label,
			       rows[r].median / rows[r].median2);
		}
		check(!msg[0], "two-cpus-answers", "%s", msg);
	} else {
		printf("SKIP: bench-bpf/two-cpus: %d CPU online, the two-CPU "
		       "rows need 2\n", cpus);
	}
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
	for (r = 0; r < ROW_COUNT; r++) {
		uint32_t k = r == ROW_KFUNC || r == ROW_HOT_ACQUIRE ||
			     r == ROW_HOT_KPTR ? info.k : shape.k;

		json_row(r, n, bits, k, repeats, r < ROW_NONE, 1);
		if (hot_row(r) && cpus >= 2)
			json_row(r, n, bits, k, repeats, false, 2);
	}

	bpf_object__close(obj);
	close(fd);
	device_destroy();
	return failures ? 1 : 0;
}
