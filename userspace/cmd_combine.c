// SPDX-License-Identifier: GPL-2.0
/*
 * Two filters into one: merge (union) and intersect.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "kbloomctl.h"

/* A window's generations, 0 for other types or when GET_WINDOW fails. */
static uint32_t generations_of(const struct kbl *f,
			       const struct kbloom_info *in)
{
	struct kbloom_window_info win;

	if (in->type != KBLOOM_TYPE_WINDOW || kbl_window_info(f, &win))
		return 0;
	return win.generations;
}

/*
 * The type is named only when it is what differs between the two; a
 * window's generations always are, since they must match too.
 */
static void describe_geometry(const struct kbloom_info *in, uint32_t gens,
			      bool type, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s%s%llu bits, k %u, seed 0x%llx",
			 type ? kbl_type_name(in->type) : "",
			 type ? ", " : "", in->bits, in->k, in->seed);

	if (gens && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - n, ", %u generations", gens);
}

/* A scalable filter's schedule and seed, what a merge needs equal. */
static void describe_chain(const struct kbloom_info *in, char *buf,
			   size_t size)
{
	char rate[32];

	snprintf(buf, size, "%s, capacity %llu, fp %s, expansion %u, seed 0x%llx",
		 kbl_type_name(in->type), in->capacity,
		 fmt_ppb(in->fp_target_ppb, rate, sizeof(rate)), in->expansion,
		 in->seed);
}

/*
 * Scalable filters merge sub-filter by sub-filter, so they need the same
 * schedule, not the same size: the options that make one.
 */
static int fail_incompatible_chain(const struct kbl *dst,
				   const struct kbloom_info *a,
				   const struct kbl *src,
				   const struct kbloom_info *b)
{
	char ga[128], gb[128];

	if (!a->expansion || !b->expansion)
		return fail("filters '%s' and '%s' are not compatible: '%s' is scalable and '%s' is not, and a scalable filter merges only with another one (of the same --capacity, --fp, --expansion, type and --seed)",
			    kbl_name(dst), kbl_name(src),
			    kbl_name(a->expansion ? dst : src),
			    kbl_name(a->expansion ? src : dst));
	describe_chain(a, ga, sizeof(ga));
	describe_chain(b, gb, sizeof(gb));
	/* %.9g of the rate reads back as the same ppb (parse_rate_ppb()). */
	return fail("filters '%s' (%s) and '%s' (%s) are not compatible: scalable filters merge only with one of the same --capacity, --fp, --expansion, type and --seed (create it with: kbloomctl create NAME --capacity %llu --fp %.9g --expansion %u --seed 0x%llx%s)",
		    kbl_name(dst), ga, kbl_name(src), gb, a->capacity,
		    (double)a->fp_target_ppb / KBLOOM_PPB, a->expansion,
		    a->seed,
		    a->type == KBLOOM_TYPE_COUNTING ? " --counting" : "");
}

static int fail_incompatible(const struct kbl *dst,
			     const struct kbl *src)
{
	struct kbloom_info a, b;
	char ga[128], gb[128], opt[32] = "";
	uint32_t gen_a, gen_b;
	bool types_differ;

	if (kbl_info(dst, &a) || kbl_info(src, &b))
		return fail("filters '%s' and '%s' are not compatible (they need the same type, --bits, --k and --seed, and for windows --generations)",
			    kbl_name(dst), kbl_name(src));
	if (a.expansion || b.expansion)
		return fail_incompatible_chain(dst, &a, src, &b);
	types_differ = a.type != b.type;
	gen_a = generations_of(dst, &a);
	gen_b = generations_of(src, &b);
	describe_geometry(&a, gen_a, types_differ, ga, sizeof(ga));
	describe_geometry(&b, gen_b, types_differ, gb, sizeof(gb));
	if (a.type == KBLOOM_TYPE_COUNTING)
		snprintf(opt, sizeof(opt), " --counting");
	else if (a.type == KBLOOM_TYPE_WINDOW)
		snprintf(opt, sizeof(opt), " --generations %u", gen_a);
	return fail("filters '%s' (%s) and '%s' (%s) are not compatible%s: create them with the same --bits %llu --k %u --seed 0x%llx%s",
		    kbl_name(dst), ga, kbl_name(src), gb,
		    types_differ ? " (filters of different types never combine)" : "",
		    a.bits, a.k, a.seed, opt);
}

static int combine(const struct command *cmd, int argc, char **argv,
		   bool merge)
{
	struct kbl *dst = NULL, *src = NULL;
	bool quiet = false;
	int ret, rc = EXIT_ERR;

	if (parse_flag_option(cmd, argc, argv, 'q', "quiet", &quiet))
		return EXIT_ERR;
	if (optind + 2 != argc)
		return usage_error(cmd, "give two filter names: DST SRC");
	if (!strcmp(argv[optind], argv[optind + 1]))
		return usage_error(cmd, "DST and SRC are the same filter '%s'",
				   argv[optind]);
	dst = open_filter(argv[optind], O_RDWR);
	if (!dst)
		goto out;
	src = open_filter(argv[optind + 1], O_RDONLY);
	if (!src)
		goto out;
	ret = merge ? kbl_merge(dst, src) : kbl_intersect(dst, src);
	if (ret == -EXDEV) {
		fail_incompatible(dst, src);
		goto out;
	}
	/*
	 * A scalable filter on either side refuses intersect, and a counting
	 * scalable one a merge into it; a merge into a scalable one may need
	 * sub-filters it cannot have: libkbloom says which.
	 */
	if (ret == -EOPNOTSUPP || (ret == -E2BIG && merge)) {
		fail_call(ret, merge ? "kbl_merge" : "kbl_intersect",
			  argv[optind]);
		goto out;
	}
	if (ret) {
		fail_filter(ret, argv[optind], merge ? "merge into" :
			    "intersect");
		goto out;
	}
	if (!quiet)
		printf("%s '%s' into '%s'\n", merge ? "merged" : "intersected",
		       argv[optind + 1], argv[optind]);
	rc = EXIT_OK;
out:
	kbl_close(src);
	kbl_close(dst);
	return rc;
}

static int run_merge(int argc, char **argv)
{
	return combine(&cmd_merge, argc, argv, true);
}

static int run_intersect(int argc, char **argv)
{
	return combine(&cmd_intersect, argc, argv, false);
}

const struct command cmd_merge = {
	.name = "merge",
	.run = run_merge,
	.summary = "DST |= SRC: DST then holds the keys of both",
	.usage =
"Usage: kbloomctl merge [-q] DST SRC\n"
"\n"
"Makes DST the union of DST and SRC: every key added to either may be\n"
"found in DST afterwards (counting filters add their counters, stopping\n"
"at 15; window filters merge generation by age, SRC's newest into DST's\n"
"newest and so on).  SRC is unchanged.  The filters must have the same\n"
"type, size, k and seed, and windows the same generations (create the\n"
"second with --bits, --k and --seed of the first, and --counting or\n"
"--generations if it has them; see kbloomctl info); windows may rotate on\n"
"different schedules.  Scalable bits filters (create --expansion) merge\n"
"only with each other, of the same --capacity, --fp, --expansion, type\n"
"and --seed, sub-filter by sub-filter: DST first grows to as many\n"
"sub-filters as SRC has.  A counting scalable DST takes no merge (its\n"
"deletes must touch no other key).  Needs write access to DST and read\n"
"access to SRC.\n"
"\n"
"Example:\n"
"  kbloomctl merge users-all users-today\n",
};

const struct command cmd_intersect = {
	.name = "intersect",
	.run = run_intersect,
	.summary = "DST &= SRC: DST then holds the keys common to both",
	.usage =
"Usage: kbloomctl intersect [-q] DST SRC\n"
"\n"
"Keeps in DST only the bits also set in SRC (counting filters keep the\n"
"lower of each pair of counters, windows AND generation by generation, by\n"
"age): a key added to both is still found; the\n"
"false-positive rate of the result can be above that of an intersection\n"
"built from scratch.  Same compatibility and access rules as merge, but\n"
"scalable filters do not intersect: a key both hold may be in sub-filters\n"
"of different indexes.\n"
"\n"
"Example:\n"
"  kbloomctl intersect seen-monday seen-tuesday\n",
};
