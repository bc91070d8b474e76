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
		if (!parse_u32(optarg, 1, KBLOOM_MAX_BITS_PER_KEY,
			       &spec->bits_per_key))
			return usage_error(cmd, "invalid --bits-per-key '%s': give 1 to %d",
					   optarg, KBLOOM_MAX_BITS_PER_KEY);
		return 0;
	case 'C':
		spec->type = KBLOOM_TYPE_COUNTING;
		return 0;
	case 'k':
		if (!parse_u32(optarg, 1, KBLOOM_K_MAX, &spec->k))
			return usage_error(cmd, "invalid --k '%s': give 1 to %d",
					   optarg, KBLOOM_K_MAX);
		return 0;
	case 'e':
		if (!parse_u32(optarg, KBLOOM_EXPANSION_MIN,
			       KBLOOM_EXPANSION_MAX, &spec->expansion))
			return usage_error(cmd, "invalid --expansion '%s': give %d to %d, the capacity of each next sub-filter over the last",
					   optarg, KBLOOM_EXPANSION_MIN,
					   KBLOOM_EXPANSION_MAX);
		return 0;
	default:
		return 1;
	}
}

int expansion_finish(const struct command *cmd, const struct kbl_spec *spec,
		     uint64_t window_ms)
{
	if (!spec->expansion)
		return 0;
	/*
	 * Asked before window_finish(), so that --window or --rotate-every
	 * without --generations is not answered by asking for --generations.
	 */
	if (spec->generations || window_ms || spec->rotate_every)
		return usage_error(cmd, "a window filter cannot grow: %s makes a window filter, whose keys expire, and --expansion a scalable filter, which grows; give one or the other",
				   spec->generations ? "--generations" :
				   window_ms ? "--window" : "--rotate-every");
	if (spec->bits || spec->bits_per_key)
		return usage_error(cmd, "--expansion needs a rate (--fp), not %s: a scalable filter is sized by --capacity and --fp, each sub-filter for a rate of its own",
				   spec->bits ? "--bits" : "--bits-per-key");
	if (spec->k)
		return usage_error(cmd, "--expansion cannot be combined with --k: a scalable filter is sized by --capacity and --fp, and each sub-filter's k is chosen for its rate");
	return 0;
}

int window_option(const struct command *cmd, struct kbl_spec *spec,
		  uint64_t *window_ms, int c)
{
	switch (c) {
	case 'w':
		if (!window_ms)
			return 1;
		if (!parse_duration_ms(optarg, window_ms))
			return usage_error(cmd, "invalid --window '%s': give a duration with a unit, such as 500ms, 90s, 10m, 1h or 2d",
					   optarg);
		return 0;
	case 'g':
		if (!parse_u32(optarg, KBLOOM_GENERATIONS_MIN,
			       KBLOOM_GENERATIONS_MAX, &spec->generations))
			return usage_error(cmd, "invalid --generations '%s': " GENERATIONS_RULE,
					   optarg);
		return 0;
	case 'r':
		if (!parse_count(optarg, &spec->rotate_every) ||
		    !spec->rotate_every ||
		    spec->rotate_every > KBLOOM_ROTATE_EVERY_MAX)
			return usage_error(cmd, "invalid --rotate-every '%s': give the keys added per generation, 1 to 2^48 (such as 100k or 1M)",
					   optarg);
		return 0;
	default:
		return 1;
	}
}

int window_finish(const struct command *cmd, struct kbl_spec *spec,
		  uint64_t window_ms)
{
	char a[32], b[32], c[32], d[32];
	uint64_t periods, rotate_ms;

	if (!spec->generations && !window_ms && !spec->rotate_every)
		return 0;
	if (spec->type == KBLOOM_TYPE_COUNTING)
		return usage_error(cmd, "a window filter cannot be --counting: --window, --generations and --rotate-every make a window filter, whose keys expire by rotation instead of being deleted");
	if (!spec->generations)
		return usage_error(cmd, "%s needs --generations G (2 to 63): the filter keeps G generations, and a key stays for G - 1 to G rotation periods",
				   window_ms ? "--window" : "--rotate-every");
	spec->type = KBLOOM_TYPE_WINDOW;
	if (!window_ms)
		return 0;
	/* The guarantee covers g - 1 periods: the window is those. */
	periods = spec->generations - 1;
	rotate_ms = window_ms / periods + (window_ms % periods != 0);
	if (rotate_ms < KBLOOM_ROTATE_MS_MIN)
		return usage_error(cmd, "--window %s with %u generations rotates every %s, below the shortest period of %s: give a --window of at least %s, or fewer --generations",
				   fmt_ms(window_ms, a, sizeof(a)),
				   spec->generations,
				   fmt_ms(rotate_ms, b, sizeof(b)),
				   fmt_ms(KBLOOM_ROTATE_MS_MIN, c, sizeof(c)),
				   fmt_ms(KBLOOM_ROTATE_MS_MIN * periods, d,
					  sizeof(d)));
	if (rotate_ms > KBLOOM_ROTATE_MS_MAX)
		return usage_error(cmd, "--window %s with %u generations rotates every %s, above the longest period of %s: give a shorter --window, or more --generations",
				   fmt_ms(window_ms, a, sizeof(a)),
				   spec->generations,
				   fmt_ms(rotate_ms, b, sizeof(b)),
				   fmt_ms(KBLOOM_ROTATE_MS_MAX, c, sizeof(c)));
	spec->rotate_ms = rotate_ms;
	return 0;
}
