// SPDX-License-Identifier: GPL-2.0
/*
 * The options that size a filter.  create and size read them alike, and
 * bench and demo take --fp too, so a value is accepted, and a wrong one
 * explained, in the same words wherever it is typed.
 */
#include <getopt.h>

#include "kbloomctl.h"

int fp_option(const struct command *cmd, const char *arg, uint32_t *fp_ppb)
{
	if (!parse_rate_ppb(arg, fp_ppb))
		return usage_error(cmd, "invalid --fp '%s': " RATE_LIMITS, arg);
	return 0;
}

int size_option(const struct command *cmd, struct kbl_spec *spec, int c)
{
	switch (c) {
	case 'n':
		if (!parse_count(optarg, &spec->capacity) || !spec->capacity)
			return usage_error(cmd, "invalid --capacity '%s': " CAPACITY_RULE,
					   optarg);
		return 0;
	case 'p':
		return fp_option(cmd, optarg, &spec->fp_ppb);
	case 'c':
		if (!parse_u32(optarg, 1, 64, &spec->bits_per_key))
			return usage_error(cmd, "invalid --bits-per-key '%s': give 1 to 64",
					   optarg);
		return 0;
	case 'C':
		spec->type = KBLOOM_TYPE_COUNTING;
		return 0;
	case 'k':
		if (!parse_u32(optarg, 1, KBLOOM_K_MAX, &spec->k))
			return usage_error(cmd, "invalid --k '%s': give 1 to %d",
					   optarg, KBLOOM_K_MAX);
		return 0;
	default:
		return 1;
	}
}
