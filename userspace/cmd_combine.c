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

/* The type is named only when it is what differs between the two. */
static void describe_geometry(const struct kbloom_info *in, bool type,
			      char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%llu bits, k %u, seed 0x%llx",
		 type ? kbl_type_name(in->type) : "", type ? ", " : "",
		 in->bits, in->k, in->seed);
}

static int fail_incompatible(const struct kbl *dst,
			     const struct kbl *src)
{
	struct kbloom_info a, b;
	char ga[96], gb[96];
	bool types_differ;

	if (kbl_info(dst, &a) || kbl_info(src, &b))
		return fail("filters '%s' and '%s' are not compatible (they need the same type, --bits, --k and --seed)",
			    kbl_name(dst), kbl_name(src));
	types_differ = a.type != b.type;
	describe_geometry(&a, types_differ, ga, sizeof(ga));
	describe_geometry(&b, types_differ, gb, sizeof(gb));
	return fail("filters '%s' (%s) and '%s' (%s) are not compatible%s: create them with the same --bits %llu --k %u --seed 0x%llx%s",
		    kbl_name(dst), ga, kbl_name(src), gb,
		    types_differ ? " (a bits and a counting filter never combine)" : "",
		    a.bits, a.k, a.seed,
		    a.type == KBLOOM_TYPE_COUNTING ? " --counting" : "");
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
"at 15).  SRC is unchanged.  The filters must have the same type, size, k\n"
"and seed (create the second with --bits, --k and --seed of the first,\n"
"and --counting if it has it; see kbloomctl info).  Needs write access to\n"
"DST and read access to SRC.\n"
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
"lower of each pair of counters): a key added to both is still found; the\n"
"false-positive rate of the result can be above that of an intersection\n"
"built from scratch.  Same compatibility and access rules as merge.\n"
"\n"
"Example:\n"
"  kbloomctl intersect seen-monday seen-tuesday\n",
};
