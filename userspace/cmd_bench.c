// SPDX-License-Identifier: GPL-2.0
/*
 * bench: throughput of the real device through batched ioctls, for users
 * on real hardware.  Keys are generated before the clock starts, so the
 * numbers are the device's (syscalls, copies, hashing, probes) and not the
 * key reader's.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbloomctl.h"

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* count distinct-with-overwhelming-odds random keys of len bytes. */
static int make_keys(struct key_batch *k, size_t count, uint32_t len,
		     uint64_t stream)
{
	size_t i, j;

	k->count = count;
	k->bytes = count * len;
	k->data = malloc(k->bytes);
	k->lens = malloc(count * sizeof(*k->lens));
	if (!k->data || !k->lens)
		return fail("out of memory for %zu keys of %u bytes", count,
			    len);
	for (i = 0; i < count; i++) {
		uint64_t state = stream ^ (i * 0xd1b54a32d192ed03ULL);
		char *key = k->data + i * len;

		for (j = 0; j < len; j += 8) {
			uint64_t word = splitmix64(&state);

			memcpy(key + j, &word, len - j < 8 ? len - j : 8);
		}
		k->lens[i] = len;
	}
	return 0;
}

struct bench_result {
	double seconds;
	uint64_t hits;
	uint64_t ioctls;
};

static int timed(struct kbl *f, bool add, const struct key_batch *k,
		 uint32_t batch, struct bench_result *r)
{
	size_t len = k->lens[0];	/* make_keys() makes them all alike */
	uint64_t ioctls0 = kbl_ioctl_count(f);
	double start = now_seconds();
	size_t done;

	r->hits = 0;
	for (done = 0; done < k->count; done += batch) {
		size_t n = k->count - done < batch ? k->count - done : batch;
		uint64_t hits;
		int ret;

		ret = add ? kbl_add(f, k->data + done * len,
				       k->lens + done, n, NULL, &hits) :
			    kbl_check(f, k->data + done * len,
				      k->lens + done, n, NULL, &hits);
		if (ret)
			return ret;
		r->hits += hits;
	}
	r->seconds = now_seconds() - start;
	r->ioctls = kbl_ioctl_count(f) - ioctls0;
	return 0;
}

/*
 * Single-key kbl_check_one() calls of every key: through an ioctl each,
 * or, once the handle is mapped, with no system call at all.
 */
static int timed_one(struct kbl *f, const struct key_batch *k,
		     struct bench_result *r)
{
	size_t len = k->lens[0];
	uint64_t ioctls0 = kbl_ioctl_count(f);
	double start = now_seconds();
	size_t i;

	r->hits = 0;
	for (i = 0; i < k->count; i++) {
		int ret = kbl_check_one(f, k->data + i * len, len);

		if (ret < 0)
			return ret;
		r->hits += ret;
	}
	r->seconds = now_seconds() - start;
	r->ioctls = kbl_ioctl_count(f) - ioctls0;
	return 0;
}

static void print_result(const char *what, size_t keys,
			 const struct bench_result *r, const char *extra)
{
	/* A run too fast to time still prints finite rates. */
	double s = r->seconds > 0 ? r->seconds : 1 / 1e9;

	printf("%-14s %10zu keys %9.3f s %9.2f M keys/s %9.1f ns/key %8" PRIu64 " ioctls  %s\n",
	       what, keys, r->seconds, keys / s / 1e6, s * 1e9 / keys,
	       r->ioctls, extra);
}

static const char bench_usage[] =
"Usage: kbloomctl bench [--keys N] [--batch B] [--key-bytes L] [--fp RATE]\n"
"                       [--name NAME] [--keep]\n"
"\n"
"Creates a filter sized for N keys at RATE, then times through the device:\n"
"adding N random keys, checking them again, and checking N keys never\n"
"added, in ioctls of B keys.  Then checks the N added keys one key per\n"
"call: through one ioctl each (check single), and through the filter\n"
"mapped read-only, with no system call (check mapped).  Prints keys/s\n"
"and ns/key for each, with the measured false-positive rate.  The filter\n"
"is destroyed at the end unless --keep is given.  Needs access to\n"
"/dev/kbloom-control.\n"
"\n"
"Options:\n"
"  -n, --keys N        keys (default 1M)\n"
"  -B, --batch B       keys per ioctl, 1-65536 (default 4096)\n"
"  -l, --key-bytes L   bytes per key, 1-4096 (default 8)\n"
"  -p, --fp RATE       target false-positive rate (default 1%)\n"
"      --name NAME     filter name (default bench-<pid>)\n"
"      --keep          keep the filter afterwards\n"
"\n"
"Example:\n"
"  kbloomctl bench --keys 10M --batch 16384\n";

static int run_bench(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "keys", required_argument, NULL, 'n' },
		{ "batch", required_argument, NULL, 'B' },
		{ "key-bytes", required_argument, NULL, 'l' },
		{ "fp", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'N' },
		{ "keep", no_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd = &cmd_bench;
	struct kbl_spec spec = { .capacity = 1000000,
				    .fp_ppb = DEFAULT_FP_PPB };
	struct key_batch present = { 0 }, absent = { 0 };
	struct bench_result add, hit, miss, single, mapped;
	uint32_t batch = KEYS_DEFAULT_BATCH, key_bytes = 8;
	char default_name[KBLOOM_NAME_MAX], extra[96], r1[32], r2[32];
	const char *name = NULL;
	struct kbloom_info info;
	struct kbl *f = NULL;
	bool keep = false, created = false;
	int c, ret, map_err = 0, rc = EXIT_ERR;

	while ((c = parse_options(cmd, argc, argv, ":n:B:l:p:",
				  opts)) != -1) {
		switch (c) {
		case 'n':
			if (!parse_count(optarg, &spec.capacity) ||
			    !spec.capacity || spec.capacity > 1000000000)
				return usage_error(cmd, "invalid --keys '%s': give 1 to 1G",
						   optarg);
			break;
		case 'B':
			if (!parse_u32(optarg, 1, KBLOOM_BATCH_MAX, &batch))
				return usage_error(cmd, "invalid --batch '%s': give 1 to %d",
						   optarg, KBLOOM_BATCH_MAX);
			break;
		case 'l':
			if (!parse_u32(optarg, 1, KBLOOM_KEY_MAX, &key_bytes))
				return usage_error(cmd, "invalid --key-bytes '%s': give 1 to %d",
						   optarg, KBLOOM_KEY_MAX);
			break;
		case 'p':
			if (fp_option(cmd, optarg, &spec.fp_ppb))
				return EXIT_ERR;
			break;
		case 'N':
			name = optarg;
			break;
		case 'K':
			keep = true;
			break;
		default:
			return EXIT_ERR;
		}
	}
	if (optind != argc)
		return usage_error(cmd, "bench takes no arguments");
	if (!name) {
		snprintf(default_name, sizeof(default_name), "bench-%ld",
			 (long)getpid());
		name = default_name;
	}
	if (kbl_check_name(name))
		return fail_name(name);
	if (key_bytes < 8 && spec.capacity > (1ULL << (4 * key_bytes)))
		return usage_error(cmd, "%u-byte keys cannot make %" PRIu64 " distinct keys: use --key-bytes 8",
				   key_bytes, spec.capacity);

	if (make_keys(&present, spec.capacity, key_bytes, 0x6b626c6f6f6d01) ||
	    make_keys(&absent, spec.capacity, key_bytes, 0x6b626c6f6f6d02))
		goto out;
	ret = kbl_create(name, &spec);
	if (ret) {
		fail_control(ret, name, "create");
		goto out;
	}
	created = true;
	f = open_filter(name, O_RDWR);
	if (!f || filter_info(f, &info))
		goto out;
	printf("kbloom bench: filter '%s', %" PRIu64 " random keys of %u bytes, %u keys per ioctl\n",
	       name, spec.capacity, key_bytes, batch);
	printf("filter: %llu bits (%s), k %u, sized for %s\n\n",
	       info.bits, fmt_bytes(info.bytes, r1, sizeof(r1)), info.k,
	       fmt_ppb(spec.fp_ppb, r2, sizeof(r2)));

	ret = timed(f, true, &present, batch, &add);
	if (!ret)
		ret = timed(f, false, &present, batch, &hit);
	if (!ret)
		ret = timed(f, false, &absent, batch, &miss);
	if (!ret)
		ret = timed_one(f, &present, &single);
	/* A module without the mapping leaves its row out, not the bench. */
	if (!ret)
		map_err = kbl_map(f);
	if (!ret && !map_err)
		ret = timed_one(f, &present, &mapped);
	kbl_unmap(f);
	if (!ret)
		ret = kbl_info(f, &info);
	if (ret) {
		fail_filter(ret, name, "benchmark");
		goto out;
	}
	print_result("add", present.count, &add, "");
	snprintf(extra, sizeof(extra), "false negatives %" PRIu64,
		 (uint64_t)present.count - hit.hits);
	print_result("check present", present.count, &hit, extra);
	snprintf(extra, sizeof(extra), "false positives %s (theory %s)",
		 fmt_rate((double)miss.hits / absent.count, r1, sizeof(r1)),
		 fmt_ppb(info.fp_now_ppb, r2, sizeof(r2)));
	print_result("check absent", absent.count, &miss, extra);
	snprintf(extra, sizeof(extra), "1 key per call, false negatives %" PRIu64,
		 (uint64_t)present.count - single.hits);
	print_result("check single", present.count, &single, extra);
	if (map_err) {
		printf("%-14s not available: %s\n", "check mapped",
		       kbl_strerror(map_err));
	} else {
		snprintf(extra, sizeof(extra), "1 key per call, no system call, false negatives %" PRIu64,
			 (uint64_t)present.count - mapped.hits);
		print_result("check mapped", present.count, &mapped, extra);
	}
	rc = hit.hits == present.count && single.hits == present.count &&
	     (map_err || mapped.hits == present.count) ? EXIT_OK : EXIT_ERR;
	if (rc)
		fail("false negatives: a key that was added was not found");
out:
	kbl_close(f);
	key_batch_free(&present);
	key_batch_free(&absent);
	if (created && !keep) {
		ret = kbl_destroy(name);
		if (ret)
			rc = fail_control(ret, name, "destroy");
	}
	return rc;
}

const struct command cmd_bench = {
	.name = "bench",
	.run = run_bench,
	.summary = "throughput of add and check through the device",
	.usage = bench_usage,
};
