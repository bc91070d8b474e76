// SPDX-License-Identifier: GPL-2.0
/*
 * size: the sizing calculator.  Every number it prints comes from the
 * module's own geometry and formula code (geometry.c), so it answers what
 * `kbloomctl create` will really allocate.  The textbook formula is shown
 * beside it only to say how far off it would be for a blocked filter.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "kbloom_chain.h"
#include "kbloomctl.h"

/* The standard (unblocked) Bloom filter's optimum, for comparison. */
static void textbook(double rate, double *bits_per_key, unsigned int *k)
{
	double c = -log(rate) / (M_LN2 * M_LN2);

	*bits_per_key = c;
	*k = (unsigned int)lround(c * M_LN2);
	if (*k < 1)
		*k = 1;
}

static void print_sizing(const struct sizing *s, uint32_t target_ppb)
{
	bool window = s->type == KBLOOM_TYPE_WINDOW;
	char a[32], b[32];
	uint64_t bits = s->nblocks * 512;

	table_row("type", "%s", s->type == KBLOOM_TYPE_COUNTING ?
		  "counting (4-bit counters: keys can be deleted)" :
		  window ? "window (generations that rotate: keys expire)" :
		  "bits");
	if (window)
		table_row("generations", "%u (the window is %u of them; one more plane is emptied in the background)",
			  s->generations, s->generations - 1);
	table_row("capacity", "%" PRIu64 " keys%s", s->capacity,
		  window ? " in the window" : "");
	if (target_ppb)
		table_row("target fp", "%s%s", fmt_ppb(target_ppb, a, sizeof(a)),
			  window ? " for the whole window" : "");
	table_row("bits per key", "%.2f", (double)bits / s->capacity);
	if (window)
		table_row("bytes per key", "%.3f (memory per key of the window)",
			  (double)s->bytes / s->capacity);
	table_row("k", "%u probes per key", s->k);
	table_row("bits", "%" PRIu64 " (%" PRIu64 " blocks of 512)", bits,
		  s->nblocks);
	if (s->type == KBLOOM_TYPE_COUNTING)
		table_row("cells", "%" PRIu64 " counters (128 per block)",
			  filter_cells(s->nblocks, s->type, 0));
	if (window)
		table_row("cells", "%" PRIu64 " masks of %u bits (%u per block)",
			  filter_cells(s->nblocks, s->type, s->generations),
			  1U << s->plane_order,
			  KBLOOM_BLOCK_CELLS >> s->plane_order);
	table_row("memory", "%s (%" PRIu64 " bytes)",
		  fmt_bytes(s->bytes, a, sizeof(a)), s->bytes);
	if (window) {
		uint64_t per = s->capacity / (s->generations - 1) +
			       (s->capacity % (s->generations - 1) != 0);

		table_row("expected fp", "%s for the whole window, when all %u generations hold %" PRIu64 " keys each (just before a rotation)",
			  fmt_ppb(s->fp_ppb, b, sizeof(b)), s->generations,
			  per);
		table_row("one generation", "%s (at %" PRIu64 " keys)",
			  fmt_ppb(s->fp_generation_ppb, b, sizeof(b)), per);
		return;
	}
	table_row("expected fp", "%s at capacity (blocked-filter formula)",
		  fmt_ppb(s->fp_ppb, b, sizeof(b)));
	if (target_ppb) {
		double c;
		unsigned int k;

		textbook((double)target_ppb / KBLOOM_PPB, &c, &k);
		table_row("textbook", "%.2f bits per key, k %u (standard Bloom formula; a blocked filter needs more)",
			  c, k);
	}
}

static void print_sizing_json(const struct sizing *s, uint32_t target_ppb)
{
	printf("{\"bits_per_key\":%.4f",
	       (double)s->nblocks * 512 / s->capacity);
	printf(",\"bytes_per_key\":%.4f", (double)s->bytes / s->capacity);
	json_text("type", kbl_type_name(s->type));
	json_u64("capacity", s->capacity);
	json_u64("fp_target_ppb", target_ppb);
	json_u64("bits", s->nblocks * 512);
	json_u64("nblocks", s->nblocks);
	json_u64("cells", filter_cells(s->nblocks, s->type, s->generations));
	json_u64("k", s->k);
	json_u64("bytes", s->bytes);
	json_u64("fp_expected_ppb", s->fp_ppb);
	json_u64("generations", s->generations);
	json_u64("plane_order", s->plane_order);
	json_u64("fp_generation_ppb", s->fp_generation_ppb);
	printf("}\n");
}

/* The lesson's quick-reference table, for the blocked filter. */
static int print_table(uint32_t type, uint32_t generations)
{
	static const uint32_t rates[] = {
		100000000, 10000000, 1000000, 100000,
	};
	size_t i;

	if (type == KBLOOM_TYPE_COUNTING)
		printf("Counting blocked Bloom filter, 128 4-bit counters per 64-byte block, sized by\nthe kbloom module's own code (bits/key counts memory)\n\n");
	else if (type == KBLOOM_TYPE_WINDOW)
		printf("Window blocked Bloom filter of %u generations, masks of %u bits per cell: keys\nand rates of the whole window, bits/key of all its memory, sized by the kbloom\nmodule's own code\n\n",
		       generations, 1U << plane_order_of(generations));
	else
		printf("Blocked Bloom filter, 512-bit blocks, sized by the kbloom module's own code\n\n");
	printf("%-10s %9s %3s %12s %12s %12s   %s\n", "target fp",
	       "bits/key", "k", "expected fp", "1 M keys", "100 M keys",
	       "textbook bits/key, k");
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct sizing one, hundred;
		char r[32], e[32], m1[32], m100[32];
		double c;
		unsigned int k;

		if (sizing_from_rate(&one, type, generations, 1000000,
				     rates[i]) ||
		    sizing_from_rate(&hundred, type, generations, 100000000,
				     rates[i]))
			return fail("sizing failed for rate %s",
				    fmt_ppb(rates[i], r, sizeof(r)));
		textbook((double)rates[i] / KBLOOM_PPB, &c, &k);
		printf("%-10s %9.2f %3u %12s %12s %12s   %.2f, %u\n",
		       fmt_ppb(rates[i], r, sizeof(r)),
		       (double)one.nblocks * 512 / 1e6, one.k,
		       fmt_ppb(one.fp_ppb, e, sizeof(e)),
		       fmt_bytes(one.bytes, m1, sizeof(m1)),
		       fmt_bytes(hundred.bytes, m100, sizeof(m100)), c, k);
	}
	printf("\nThe textbook formula m = -n ln p / (ln 2)^2 is for a standard Bloom filter;\n"
	       "a blocked filter, one cache line per key, needs a little more memory for the\n"
	       "same rate and in exchange costs one cache miss per key.\n");
	return EXIT_OK;
}

/* A scalable filter's growth: what it uses at 1, 10, 100 and 1000 times. */
static int print_chain(const struct kbl_spec *spec, bool json)
{
	static const uint64_t times[] = { 1, 10, 100, 1000 };
	struct chain_growth g[4];
	char a[32], b[32], grows[64];
	size_t i;

	for (i = 0; i < 4; i++) {
		int ret = chain_growth(&g[i], spec->type, spec->capacity,
				       spec->fp_ppb, spec->expansion, times[i]);

		if (ret == -EINVAL)
			return fail("these values are out of range");
		if (ret)
			g[i].subs = 0;
	}
	if (!g[0].subs)
		return fail("that filter would exceed the largest kbloom can hold (2^31 blocks, 128 GiB)");
	if (json) {
		printf("{\"expansion\":%u", spec->expansion);
		json_text("type", kbl_type_name(spec->type));
		json_u64("capacity", spec->capacity);
		json_u64("fp_target_ppb", spec->fp_ppb);
		printf(",\"growth\":[");
		for (i = 0; i < 4 && g[i].subs; i++) {
			printf("%s{\"times\":%llu", i ? "," : "",
			       (unsigned long long)g[i].times);
			json_u64("keys", g[i].keys);
			json_u64("sub_filters", g[i].subs);
			json_u64("bytes", g[i].bytes);
			printf(",\"bytes_per_key\":%.4f",
			       (double)g[i].bytes / g[i].keys);
			json_u64("fp_ppb", g[i].fp_ppb);
			printf("}");
		}
		printf("]}\n");
		return EXIT_OK;
	}
	table_row("type", "%s, scalable: %s", kbl_type_name(spec->type),
		  fmt_expansion(spec->expansion, grows, sizeof(grows)));
	table_row("capacity", "%" PRIu64 " keys in the first sub-filter",
		  spec->capacity);
	table_row("target fp", "%s for the whole filter, however far it grows",
		  fmt_ppb(spec->fp_ppb, a, sizeof(a)));
	printf("\n%-7s %14s %12s %12s %10s %12s\n", "growth", "keys",
	       "sub-filters", "memory", "bytes/key", "fp");
	for (i = 0; i < 4; i++) {
		char times_x[16];

		snprintf(times_x, sizeof(times_x), "%" PRIu64 "x", times[i]);
		if (!g[i].subs) {
			printf("%-7s cannot grow that far: a sub-filter would exceed what kbloom can hold, or a rate it can reach\n",
			       times_x);
			break;
		}
		printf("%-7s %14" PRIu64 " %12u %12s %10.2f %12s\n",
		       times_x, g[i].keys, g[i].subs,
		       fmt_bytes(g[i].bytes, a, sizeof(a)),
		       (double)g[i].bytes / g[i].keys,
		       fmt_ppb(g[i].fp_ppb, b, sizeof(b)));
	}
	printf("\nEach sub-filter i (from 0) is sized for fp / ((i + 1) (i + 2)) at its\n"
	       "capacity, so the rates add up to less than fp at any size; memory and fp are\n"
	       "those of the filter holding exactly that many keys.\n");
	return EXIT_OK;
}

/*
 * size N RATE: getopt would take "-1" for an unknown option.  A negative
 * N or RATE is found first, by its place among the arguments that are not
 * options or their values, and rejected as the value it is.  0, or
 * EXIT_ERR after saying why.
 */
static int negative_positional(const struct command *cmd, int argc,
			       char **argv)
{
	static const char *const with_value[] = {
		"-n", "-p", "-c", "-b", "-k", "-g", "-e", "--capacity", "--fp",
		"--bits-per-key", "--bits", "--k", "--generations",
		"--expansion",
	};
	int i, place = 0;
	size_t j;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		bool takes_value = false;

		if (is_negative_number(argv[i])) {
			if (place == 0)
				return usage_error(cmd, "invalid capacity '%s': " CAPACITY_RULE,
						   argv[i]);
			return usage_error(cmd, "invalid rate '%s': " RATE_LIMITS,
					   argv[i]);
		}
		for (j = 0; j < sizeof(with_value) / sizeof(with_value[0]); j++)
			if (!strcmp(argv[i], with_value[j]))
				takes_value = true;
		if (takes_value)
			i++;
		else if (argv[i][0] != '-' || !argv[i][1])
			place++;
	}
	return 0;
}

static const char size_usage[] =
"Usage: kbloomctl size --capacity N --fp RATE [--counting | --generations G]\n"
"                      [--json]\n"
"       kbloomctl size N RATE [--counting | --generations G]\n"
"       kbloomctl size --capacity N (--bits-per-key C | --bits B) [--k K]\n"
"                      [--counting | --generations G]\n"
"       kbloomctl size --table [--counting | --generations G]\n"
"       kbloomctl size --capacity N --fp RATE --expansion E [--counting]\n"
"                      [--json]\n"
"\n"
"The sizing calculator: bits per key, k, memory and the expected\n"
"false-positive rate of a filter, computed by the module's own sizing code\n"
"(what kbloomctl create will allocate).  No device is needed.\n"
"\n"
"Options:\n"
"  -C, --counting        a counting filter (see: kbloomctl help create); bits\n"
"                        and bits per key count memory, 4 bits per counter\n"
"  -g, --generations G   a window filter of G generations (2-63): N is the\n"
"                        keys of one window (G - 1 generations), RATE the\n"
"                        whole window's when its G generations are full (just\n"
"                        before a rotation); it prints the bytes per key of\n"
"                        the window and the rate of one generation.  A cell\n"
"                        has a bit per generation and one spare, rounded up\n"
"                        to a power of two: G = 3, 7, 15, 31 or 63 wastes none\n"
"  -e, --expansion E     a scalable filter, which grows as keys come: N is\n"
"                        the capacity of its first sub-filter, each next one\n"
"                        holds E times the last (1-16), and RATE holds for\n"
"                        the whole chain at any size; it prints what the\n"
"                        filter uses at 1, 10, 100 and 1000 times N keys\n"
"  -n, --capacity N      keys (1000, 10k, 1M, 1e6)\n"
"  -p, --fp RATE         target false-positive rate: 1%, 0.01 or 1e-3\n"
"  -c, --bits-per-key C  a budget of bits per key instead of a rate\n"
"  -b, --bits B          a total size in bits instead of a rate\n"
"  -k, --k K             probes per key with --bits or --bits-per-key\n"
"  -j, --json            one JSON object\n"
"  -t, --table           quick-reference table: rates 10% to 0.01%, memory\n"
"                        for 1 M and 100 M keys\n"
"\n"
"Examples:\n"
"  kbloomctl size 100M 0.1%\n"
"  kbloomctl size --capacity 1M --bits-per-key 10\n"
"  kbloomctl size 1M 1% --counting\n"
"  kbloomctl size 1M 0.1% --generations 6\n"
"  kbloomctl size 1M 1% --expansion 2\n";

static int run_size(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "capacity", required_argument, NULL, 'n' },
		{ "fp", required_argument, NULL, 'p' },
		{ "bits-per-key", required_argument, NULL, 'c' },
		{ "bits", required_argument, NULL, 'b' },
		{ "k", required_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "table", no_argument, NULL, 't' },
		{ "counting", no_argument, NULL, 'C' },
		{ "generations", required_argument, NULL, 'g' },
		{ "expansion", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd = &cmd_size;
	struct kbl_spec spec = { 0 };
	bool json = false, table = false;
	struct sizing s;
	int c, ret;

	ret = negative_positional(cmd, argc, argv);
	if (ret)
		return ret;
	while ((c = parse_options(cmd, argc, argv, ":n:p:c:b:k:jtCg:e:",
				  opts)) != -1) {
		ret = size_option(cmd, &spec, c);
		if (ret == 1)
			ret = window_option(cmd, &spec, NULL, c);
		if (ret == 0)
			continue;
		if (ret != 1)
			return EXIT_ERR;
		switch (c) {
		case 'b':
			if (!parse_count(optarg, &spec.bits) || !spec.bits)
				return usage_error(cmd, "invalid --bits '%s'",
						   optarg);
			break;
		case 'j':
			json = true;
			break;
		case 't':
			table = true;
			break;
		default:
			return EXIT_ERR;
		}
	}
	if (spec.expansion && table)
		return usage_error(cmd, "--table takes no --expansion");
	if (expansion_finish(cmd, &spec, 0) || window_finish(cmd, &spec, 0))
		return EXIT_ERR;
	if (table) {
		if (optind != argc || spec.capacity || spec.fp_ppb ||
		    spec.bits_per_key || spec.bits)
			return usage_error(cmd, "--table takes no other sizes");
		return print_table(spec.type, spec.generations);
	}
	if (optind < argc && !spec.capacity) {
		if (!parse_count(argv[optind], &spec.capacity) ||
		    !spec.capacity)
			return usage_error(cmd, "invalid capacity '%s': " CAPACITY_RULE,
					   argv[optind]);
		optind++;
	}
	if (optind < argc && !spec.fp_ppb) {
		if (!parse_rate_ppb(argv[optind], &spec.fp_ppb))
			return usage_error(cmd, "invalid rate '%s': " RATE_LIMITS,
					   argv[optind]);
		optind++;
	}
	if (optind != argc)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind]);
	if (!spec.capacity)
		return usage_error(cmd, "give a capacity: kbloomctl size N RATE");
	if (!!spec.fp_ppb + !!spec.bits_per_key + !!spec.bits != 1)
		return usage_error(cmd, "give exactly one of a rate (--fp), --bits-per-key or --bits");
	if (spec.fp_ppb && spec.k)
		return usage_error(cmd, "--k cannot be combined with a rate (k is chosen for the rate)");
	if (spec.expansion)
		return print_chain(&spec, json);

	ret = sizing_from_spec(&s, &spec);
	if (ret == -E2BIG)
		return fail("that filter would exceed the largest kbloom can hold (2^31 blocks, 128 GiB)");
	if (ret)
		return usage_error(cmd, "these values are out of range");
	if (json)
		print_sizing_json(&s, spec.fp_ppb);
	else
		print_sizing(&s, spec.fp_ppb);
	return EXIT_OK;
}

const struct command cmd_size = {
	.name = "size",
	.run = run_size,
	.summary = "sizing calculator: bits/key, k, memory and expected rate",
	.usage = size_usage,
};
