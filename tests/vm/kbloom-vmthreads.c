// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrent adds through the device, inside the VM: 1, 2 and 4 processes
 * (fork), each opening /dev/kbloom/<name> itself and adding its own share
 * of distinct random 8-byte keys to ONE filter, by ADD ioctls of 4,096
 * keys and of one key, for both filter types.  The figure is the total
 * over the processes in keys/s (first start to last end), the median of
 * interleaved repeats; beside it, the scaling against 1 process.  The
 * host's counterpart, through the core compiled for userspace, is
 * bench/threads.c.
 *
 * After every timed fill, what concurrency could break:
 *   - no key is lost: CHECK ioctls find every key added;
 *   - the cells are exactly those of a fill by one process: OR-ing bits and
 *     incrementing counters (stopping at KBLOOM_COUNTER_MAX) commute, so
 *     any interleaving of the same adds leaves the same words, and a lost
 *     update anywhere shows as a difference in the image read back;
 *   - the stats are exact: add_calls equals the keys submitted, and
 *     check_calls the keys checked.
 *
 * Each fill gets a fresh filter (created before, destroyed after), so its
 * counts start from 0 and no fill inherits another's cells.
 *
 * Usage: kbloom-vmthreads [N [REPEATS [N_SINGLE]]]
 *   N keys for the batched adds, the filter's capacity (10 bits/key);
 *   N_SINGLE of the same keys for the one-key ioctls, into a filter of the
 *   same size (at ~2 us per ioctl under TCG, N of them would take minutes).
 *   Defaults: 10000000 (as on the host), 5, 524288.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "vmtest.h"

#define VTH_NAME	"vmthreads"
#define VTH_NODE	"/dev/kbloom/" VTH_NAME
#define VTH_KEY_BYTES	8
#define VTH_BITS_PER_KEY 10
#define VTH_BATCH	4096
#define VTH_MAX_PROCS	4
#define VTH_MAX_REPEATS	15
#define VTH_SEED	0x766d746872656164ULL	/* "vmthread" */
#define VTH_WHY_BYTES	200

static const int proc_counts[] = { 1, 2, VTH_MAX_PROCS };
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NCOUNTS	((int)ARRAY_SIZE(proc_counts))

enum op { OP_ADD_BATCH, OP_ADD_ONE, NOPS };
static const char *const op_names[NOPS] = { "ADD x4096", "ADD x1" };
static const char *const op_tags[NOPS] = { "add4096", "add1" };
static const uint32_t types[] = { KBLOOM_TYPE_BITS, KBLOOM_TYPE_COUNTING };
#define NTYPES	((int)ARRAY_SIZE(types))
static const char *const type_names[] = { "bits", "counting" };

/* What each child measured, in memory shared with the parent. */
struct child_result {
	uint64_t t_start, t_end;
	int err;		/* errno of a failed call, else 0 */
};

static uint64_t *key_words;
static uint32_t lens[VTH_BATCH];
static uint64_t nkeys[NOPS];
static struct child_result *shared;

/* splitmix64: a bijection of the counter, so the keys are distinct. */
static uint64_t key_word(uint64_t i)
{
	uint64_t z = VTH_SEED + (i + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* `count` keys from `first`, one ioctl per `batch`; 0 or an errno. */
static int keys_ioctl(int fd, unsigned long cmd, uint64_t first,
		      uint64_t count, uint32_t batch, uint64_t *hits)
{
	uint64_t i;

	for (i = 0; i < count; i += batch) {
		uint32_t m = count - i < batch ? (uint32_t)(count - i) : batch;
		struct kbloom_batch b = {
			.keys = (uintptr_t)&key_words[first + i],
			.lens = (uintptr_t)lens,
			.keys_len = (uint64_t)m * VTH_KEY_BYTES,
			.count = m,
		};

		if (ioctl(fd, cmd, &b))
			return errno;
		*hits += b.hits;
	}
	return 0;
}

/* Child i of p: its own node, its own keys, started by the go pipe. */
static void child(int i, int p, enum op op, int ready, int go)
{
	uint64_t first = nkeys[op] * i / p;
	uint64_t count = nkeys[op] * (i + 1) / p - first, hits = 0;
	struct child_result *res = &shared[i];
	char byte = 0;
	int fd = open(VTH_NODE, O_RDWR | O_CLOEXEC);

	res->err = fd < 0 ? errno : 0;
	if (write(ready, &byte, 1) != 1 || read(go, &byte, 1) != 1)
		_exit(3);
	if (fd < 0)
		_exit(1);
	res->t_start = vt_now_ns();
	res->err = keys_ioctl(fd, KBLOOM_IOC_ADD, first, count,
			      op == OP_ADD_BATCH ? VTH_BATCH : 1, &hits);
	res->t_end = vt_now_ns();
	close(fd);
	_exit(res->err ? 1 : 0);
}

static int filter_create(uint32_t type)
{
	struct kbloom_create req;

	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), "%s", VTH_NAME);
	req.capacity = nkeys[OP_ADD_BATCH];
	req.bits_per_key = VTH_BITS_PER_KEY;
	req.type = type;
	req.seed = VTH_SEED;
	req.flags = KBLOOM_CREATE_SEED;
	return vt_create_raw(&req);
}

/*
 * One timed fill by p processes of a fresh filter, left open in *fd for
 * verify(); returns keys/s, or 0 with why filled in.
 */
static double timed_fill(uint32_t type, enum op op, int p, int *fd,
			 char *why, size_t why_len)
{
	uint64_t t0 = UINT64_MAX, t1 = 0;
	int ready[2], go[2], i, status, bad = 0;
	pid_t pids[VTH_MAX_PROCS];
	char byte = 0;

	*fd = -1;
	if (filter_create(type)) {
		snprintf(why, why_len, "create: %s", vt_errno_name(errno));
		return 0;
	}
	if (pipe(ready) || pipe(go)) {
		snprintf(why, why_len, "pipe: %s", vt_errno_name(errno));
		return 0;
	}
	memset(shared, 0, VTH_MAX_PROCS * sizeof(*shared));
	fflush(stdout);
	for (i = 0; i < p; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(ready[0]);
			close(go[1]);
			child(i, p, op, ready[1], go[0]);
		}
		if (pids[i] < 0) {
			snprintf(why, why_len, "fork: %s",
				 vt_errno_name(errno));
			p = i;
			bad = 1;
			break;
		}
	}
	close(ready[1]);
	close(go[0]);
	/* Everyone has opened the node before anyone starts adding. */
	for (i = 0; i < p; i++)
		if (read(ready[0], &byte, 1) != 1)
			bad = 1;
	for (i = 0; i < p; i++)
		if (write(go[1], &byte, 1) != 1)
			bad = 1;
	close(ready[0]);
	close(go[1]);
	for (i = 0; i < p; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			if (!bad)
				snprintf(why, why_len,
					 "process %d of %d: %s", i + 1, p,
					 shared[i].err ?
					 vt_errno_name(shared[i].err) :
					 "did not exit cleanly");
			bad = 1;
		}
		if (shared[i].t_start < t0)
			t0 = shared[i].t_start;
		if (shared[i].t_end > t1)
			t1 = shared[i].t_end;
	}
	if (bad && !why[0])
		snprintf(why, why_len, "could not start %d processes", p);
	*fd = vt_open(VTH_NAME, O_RDWR);
	if (bad)
		return 0;
	if (*fd < 0) {
		snprintf(why, why_len, "open: %s", vt_errno_name(errno));
		return 0;
	}
	return (double)nkeys[op] / (double)(t1 - t0) * 1e9;
}

/* The cells of the image of the filter behind fd (malloc'd), or NULL. */
static uint8_t *read_cells(int fd, uint64_t *cell_bytes)
{
	struct kbloom_info info;
	uint8_t *img;
	size_t len;
	uint16_t hb;

	if (vt_info(fd, &info))
		return NULL;
	img = vt_read_image(fd, 1 << 16, &len);
	if (!img)
		return NULL;
	memcpy(&hb, img + 6, sizeof(hb));	/* header_bytes, le16 */
	hb = le16toh(hb);
	*cell_bytes = info.nblocks * 64;
	if (len < hb + *cell_bytes) {
		free(img);
		return NULL;
	}
	memmove(img, img + hb, *cell_bytes);
	return img;
}

/* Why the filled filter is wrong, or NULL; *ref: one process's cells. */
static const char *verify(int fd, enum op op, uint8_t **ref, char *why,
			  size_t why_len)
{
	struct kbloom_info info;
	uint64_t hits = 0, cell_bytes;
	uint8_t *cells;
	int err;

	err = keys_ioctl(fd, KBLOOM_IOC_CHECK, 0, nkeys[op], VTH_BATCH, &hits);
	if (err) {
		snprintf(why, why_len, "CHECK: %s", vt_errno_name(err));
		return why;
	}
	if (hits != nkeys[op]) {
		snprintf(why, why_len, "%llu of %llu keys not found (lost)",
			 (unsigned long long)(nkeys[op] - hits),
			 (unsigned long long)nkeys[op]);
		return why;
	}
	if (vt_info(fd, &info)) {
		snprintf(why, why_len, "GET_INFO: %s", vt_errno_name(errno));
		return why;
	}
	if (info.add_calls != nkeys[op] || info.check_calls != nkeys[op]) {
		snprintf(why, why_len,
			 "add_calls %llu, check_calls %llu: %llu keys each",
			 (unsigned long long)info.add_calls,
			 (unsigned long long)info.check_calls,
			 (unsigned long long)nkeys[op]);
		return why;
	}
	cells = read_cells(fd, &cell_bytes);
	if (!cells) {
		snprintf(why, why_len, "reading the image: %s",
			 vt_errno_name(errno));
		return why;
	}
	if (!*ref) {
		*ref = cells;
		return NULL;
	}
	err = memcmp(cells, *ref, cell_bytes);
	free(cells);
	if (err) {
		snprintf(why, why_len,
			 "cells differ from a fill by one process");
		return why;
	}
	return NULL;
}

/*
 * Repeat r of one configuration; the first failure goes to why.  The first
 * fill of a type and op is by one process: its cells become *ref.
 */
static double run_one(uint32_t type, enum op op, int c, int r,
		      uint8_t **ref, char *why)
{
	char buf[VTH_WHY_BYTES - 16] = "";
	const char *bad = NULL;
	double kps;
	int fd;

	kps = timed_fill(type, op, proc_counts[c], &fd, buf, sizeof(buf));
	if (kps > 0)
		bad = verify(fd, op, ref, buf, sizeof(buf));
	else
		bad = buf;
	if (bad && !why[0])
		snprintf(why, VTH_WHY_BYTES, "repeat %d: %s", r + 1, bad);
	if (vt_done(fd, VTH_NAME, NULL) && !why[0])
		snprintf(why, VTH_WHY_BYTES, "repeat %d: destroy failed",
			 r + 1);
	return kps;
}

static void print_table(double kps[NTYPES][NOPS][NCOUNTS][VTH_MAX_REPEATS],
			int repeats, long cpus)
{
	int t, o, c, r;

	printf("\n%-9s %-10s %6s %10s %8s %15s\n", "type", "op", "procs",
	       "M keys/s", "vs 1", "repeats' range");
	for (t = 0; t < NTYPES; t++)
		for (o = 0; o < NOPS; o++) {
			double one = vt_median(kps[t][o][0], repeats) / 1e6;

			for (c = 0; c < NCOUNTS; c++) {
				double m = vt_median(kps[t][o][c], repeats) / 1e6;
				double lo = kps[t][o][c][0] / 1e6, hi = lo;

				for (r = 1; r < repeats; r++) {
					double v = kps[t][o][c][r] / 1e6;

					lo = v < lo ? v : lo;
					hi = v > hi ? v : hi;
				}
				printf("%-9s %-10s %6d %10.3f %7.2fx %7.3f-%-7.3f%s\n",
				       type_names[t], op_names[o],
				       proc_counts[c], m, one > 0 ? m / one : 0,
				       lo, hi, proc_counts[c] > cpus ?
				       "  (oversubscribed)" : "");
			}
		}
	printf("(medians of %d; M keys/s: all processes' keys over the ",
	       repeats);
	printf("time from the first one's start to the last one's end)\n\n");
}

int main(int argc, char **argv)
{
	static double kps[NTYPES][NOPS][NCOUNTS][VTH_MAX_REPEATS];
	static char why[NTYPES][NOPS][NCOUNTS][VTH_WHY_BYTES];
	uint8_t *ref[NTYPES][NOPS] = { { NULL } };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int repeats, r, t, o, c, failed = 0;
	uint64_t k;

	nkeys[OP_ADD_BATCH] = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	repeats = argc > 2 ? atoi(argv[2]) : 5;
	nkeys[OP_ADD_ONE] = argc > 3 ? strtoull(argv[3], NULL, 10) : 524288;
	if (argc > 4 || nkeys[OP_ADD_ONE] > nkeys[OP_ADD_BATCH] ||
	    nkeys[OP_ADD_ONE] < VTH_MAX_PROCS || repeats < 1 ||
	    repeats > VTH_MAX_REPEATS) {
		fprintf(stderr,
			"usage: kbloom-vmthreads [N [REPEATS [N_SINGLE]]]\n"
			"  %d <= N_SINGLE <= N, 1 <= REPEATS <= %d\n",
			VTH_MAX_PROCS, VTH_MAX_REPEATS);
		return 2;
	}
	key_words = malloc(nkeys[OP_ADD_BATCH] * sizeof(*key_words));
	shared = mmap(NULL, VTH_MAX_PROCS * sizeof(*shared),
		      PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!key_words || shared == MAP_FAILED) {
		fprintf(stderr, "kbloom-vmthreads: out of memory\n");
		return 2;
	}
	for (k = 0; k < nkeys[OP_ADD_BATCH]; k++)
		key_words[k] = key_word(k);
	for (k = 0; k < VTH_BATCH; k++)
		lens[k] = VTH_KEY_BYTES;

	printf("vmthreads: distinct random %d-byte keys into one filter ",
	       VTH_KEY_BYTES);
	printf("of %llu keys at %d bits/key through %s: %llu keys by ",
	       (unsigned long long)nkeys[OP_ADD_BATCH], VTH_BITS_PER_KEY,
	       VTH_NODE, (unsigned long long)nkeys[OP_ADD_BATCH]);
	printf("ADD x4096, %llu by ADD x1; %d repeats interleaved, ",
	       (unsigned long long)nkeys[OP_ADD_ONE], repeats);
	printf("%ld CPUs\n", cpus);
	if (cpus < VTH_MAX_PROCS) {
		printf("vmthreads: note: %d processes on %ld CPUs ",
		       VTH_MAX_PROCS, cpus);
		printf("oversubscribe: beyond %ld, more processes cannot ",
		       cpus);
		printf("add throughput, only contention\n");
	}
	fflush(stdout);

	/* Repeat r of every configuration before repeat r + 1 of any. */
	for (r = 0; r < repeats; r++)
		for (t = 0; t < NTYPES; t++)
			for (o = 0; o < NOPS; o++)
				for (c = 0; c < NCOUNTS; c++)
					kps[t][o][c][r] =
						run_one(types[t], o, c, r,
							&ref[t][o],
							why[t][o][c]);

	print_table(kps, repeats, cpus);
	for (t = 0; t < NTYPES; t++)
		for (o = 0; o < NOPS; o++)
			for (c = 0; c < NCOUNTS; c++) {
				char name[64];

				snprintf(name, sizeof(name), "%s-%s-%d",
					 type_names[t], op_tags[o],
					 proc_counts[c]);
				vt_report("vmthreads", name,
					  why[t][o][c][0] ? why[t][o][c] :
					  NULL);
				failed |= !!why[t][o][c][0];
				free(ref[t][o]);
				ref[t][o] = NULL;
			}
	vt_summary("vmthreads");
	free(key_words);
	return failed ? 1 : 0;
}
