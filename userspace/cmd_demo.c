// SPDX-License-Identifier: GPL-2.0
/*
 * demo: the lesson's SSTable demo, run on the real device.  A filter sized
 * for 1,000 keys at 1 % gets 1,000 product keys; all of them must be found
 * again, and 10,000 keys never added measure the false-positive rate,
 * printed beside the target and the module's theory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kbloomctl.h"

static int make_keys(struct key_batch *k, const char *prefix, size_t count)
{
	size_t i, off = 0, width = strlen(prefix) + 21;

	k->data = malloc(count * width);
	k->lens = malloc(count * sizeof(*k->lens));
	k->count = count;
	if (!k->data || !k->lens)
		return fail("out of memory for %zu demo keys", count);
	for (i = 0; i < count; i++) {
		int n = snprintf(k->data + off, width, "%s%zu", prefix, i);

		k->lens[i] = (uint32_t)n;
		off += (size_t)n;
	}
	k->bytes = off;
	return 0;
}

/* A filter's statistics: its regular files but the device's own. */
static bool is_statistic(int dir_fd, const struct dirent *de)
{
	(void)dir_fd;
	return de->d_type == DT_REG && strcmp(de->d_name, "uevent") &&
	       strcmp(de->d_name, "dev");
}

/* Every statistic file of the filter's sysfs directory, sorted. */
static void show_sysfs(const char *name)
{
	char dir_path[128], path[256], value[64], **names;
	size_t n, i;

	snprintf(dir_path, sizeof(dir_path), "%s/%s", KBL_SYSFS_DIR, name);
	if (sorted_names(dir_path, is_statistic, &names, &n)) {
		printf("[sysfs]   %s: not readable\n", dir_path);
		return;
	}
	printf("[sysfs]   %s/\n", dir_path);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir_path, names[i]);
		if (read_value_file(path, value, sizeof(value)) < 0)
			snprintf(value, sizeof(value), "(not readable)");
		/* reporters lists one line per reporting user: none yet. */
		else if (!value[0])
			snprintf(value, sizeof(value), "(none)");
		printf("            %-18s %s\n", names[i], value);
	}
	free_names(names, n);
}

static const char demo_usage[] =
"Usage: kbloomctl demo [--keep] [--name NAME] [--keys N] [--absent N]\n"
"                      [--fp RATE] [--seed S]\n"
"\n"
"The SSTable demo on the real device: creates a filter (default 'demo')\n"
"sized for --keys keys (default 1000) at --fp (default 1%), adds the keys\n"
"sku-electronics-item-<i>, checks them all again (false negatives must be\n"
"0), checks --absent keys (default 10000) that were never added, and\n"
"prints the measured false-positive rate beside the target and the\n"
"module's theory, then the geometry and the filter's sysfs statistics.\n"
"The filter is destroyed at the end unless --keep is given.\n"
"\n"
"Exit status: 0 when there were no false negatives, 2 otherwise.\n";

static int run_demo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "keep", no_argument, NULL, 'K' },
		{ "name", required_argument, NULL, 'N' },
		{ "keys", required_argument, NULL, 'n' },
		{ "absent", required_argument, NULL, 'a' },
		{ "fp", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd = &cmd_demo;
	struct kbl_spec spec = { .capacity = 1000, .fp_ppb = DEFAULT_FP_PPB };
	struct key_batch present = { 0 }, absent = { 0 };
	const char *name = "demo";
	struct kbloom_info info;
	struct kbl *f = NULL;
	uint64_t nabsent = 10000, hits, fn, fp, ioctls0;
	bool keep = false;
	char a[32], b[32], c3[32], d[32], e[32];
	double measured, exact, sigma;
	int c, ret, rc = EXIT_ERR;

	while ((c = parse_options(cmd, argc, argv, ":", opts)) != -1) {
		switch (c) {
		case 'K':
			keep = true;
			break;
		case 'N':
			name = optarg;
			break;
		case 'n':
			if (!parse_count(optarg, &spec.capacity) ||
			    !spec.capacity || spec.capacity > 100000000)
				return usage_error(cmd, "invalid --keys '%s': give 1 to 100M",
						   optarg);
			break;
		case 'a':
			if (!parse_count(optarg, &nabsent) || !nabsent ||
			    nabsent > 100000000)
				return usage_error(cmd, "invalid --absent '%s': give 1 to 100M",
						   optarg);
			break;
		case 'p':
			if (fp_option(cmd, optarg, &spec.fp_ppb))
				return EXIT_ERR;
			break;
		case 's':
			if (!parse_u64(optarg, &spec.seed))
				return usage_error(cmd, "invalid --seed '%s'",
						   optarg);
			spec.use_seed = 1;
			break;
		default:
			return EXIT_ERR;
		}
	}
	if (optind != argc)
		return usage_error(cmd, "demo takes no arguments");
	if (kbl_check_name(name))
		return fail_name(name);

	printf("=== kbloom demo: an SSTable's Bloom filter in kernel memory ===\n");
	ret = kbl_create(name, &spec);
	if (ret == -EEXIST)
		return fail("filter '%s' already exists (remove it with: kbloomctl destroy %s, or use --name)",
			    name, name);
	if (ret)
		return fail_control(ret, name, "create");
	f = open_filter(name, O_RDWR);
	if (!f || filter_info(f, &info))
		goto out;
	printf("[config]  filter '%s' (%s/%s) sized for %" PRIu64 " keys at a %s target\n",
	       name, KBL_DEV_DIR, name, spec.capacity,
	       fmt_ppb(spec.fp_ppb, a, sizeof(a)));
	printf("          %llu bits (%s, %.2f bits/key), k = %u probes in one 512-bit block per key\n",
	       info.bits, fmt_bytes(info.bytes, b, sizeof(b)),
	       (double)info.bits / spec.capacity, info.k);

	if (make_keys(&present, "sku-electronics-item-", spec.capacity) ||
	    make_keys(&absent, "nonexistent-random-query-key-", nabsent))
		goto out;

	ioctls0 = kbl_ioctl_count(f);
	ret = kbl_add(f, present.data, present.lens, present.count, NULL,
		      &hits);
	if (ret) {
		fail_filter(ret, name, "add keys to");
		goto out;
	}
	printf("[add]     %zu keys sku-electronics-item-<i> added in %llu ioctl(s); %llu set new bits\n",
	       present.count,
	       (unsigned long long)(kbl_ioctl_count(f) - ioctls0),
	       (unsigned long long)hits);

	ret = kbl_check(f, present.data, present.lens, present.count, NULL,
			&hits);
	if (ret) {
		fail_filter(ret, name, "check keys in");
		goto out;
	}
	fn = present.count - hits;
	printf("[check]   %zu present keys: false negatives: %" PRIu64 "%s\n",
	       present.count, fn,
	       fn ? "  <-- IMPOSSIBLE for a Bloom filter: a bug" :
	       " (a Bloom filter never forgets a key)");

	ret = kbl_check(f, absent.data, absent.lens, absent.count, NULL,
			&fp);
	if (ret) {
		fail_filter(ret, name, "check keys in");
		goto out;
	}
	if (filter_info(f, &info))
		goto out;
	measured = (double)fp / absent.count;
	/* The rate for the bits set now: what this sample should show. */
	exact = (double)info.fp_now_ppb / KBLOOM_PPB;
	sigma = sqrt(exact * (1 - exact) / absent.count);
	printf("[check]   %zu absent keys nonexistent-random-query-key-<i>: false positives: %llu\n",
	       absent.count, (unsigned long long)fp);
	printf("[rate]    measured %s   target %s   theory %s (formula at capacity), %s (exact, for the bits set now)\n",
	       fmt_rate(measured, a, sizeof(a)),
	       fmt_ppb(spec.fp_ppb, b, sizeof(b)),
	       fmt_ppb(info.fp_design_ppb, c3, sizeof(c3)),
	       fmt_ppb(info.fp_now_ppb, d, sizeof(d)));
	printf("          measured - exact = %+.2f sigma (sigma = %s for %zu queries)\n",
	       sigma > 0 ? (measured - exact) / sigma : 0.0,
	       fmt_rate(sigma, e, sizeof(e)), absent.count);
	printf("[fill]    %llu of %llu bits set (%s fill), about %llu distinct keys estimated\n",
	       info.bits_set, info.bits, fmt_ppb(info.fill_ppb, a, sizeof(a)),
	       info.est_keys);
	show_sysfs(name);
	rc = fn ? EXIT_ERR : EXIT_OK;
out:
	kbl_close(f);
	key_batch_free(&present);
	key_batch_free(&absent);
	/* Every way here is after the filter was created. */
	if (!keep) {
		ret = kbl_destroy(name);
		if (ret)
			rc = fail_control(ret, name, "destroy");
		else
			printf("[done]    destroyed filter '%s' (keep it next time with --keep)\n",
			       name);
	} else {
		printf("[done]    kept filter '%s' (see: kbloomctl info %s)\n",
		       name, name);
	}
	return rc;
}

const struct command cmd_demo = {
	.name = "demo",
	.run = run_demo,
	.summary = "the lesson's SSTable demo on the real device",
	.usage = demo_usage,
};
