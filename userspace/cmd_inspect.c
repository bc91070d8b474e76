// SPDX-License-Identifier: GPL-2.0
/*
 * What a filter knows about itself: info, and report, which feeds it what
 * the real lookups behind its answers found.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kbloomctl.h"

/* A scalable filter's sub-filters, oldest first: as many as were read. */
struct sub_list {
	struct kbloom_subfilter *sub;
	uint32_t n;
};

/*
 * Every type has the fields: expansion and subfilters 0 and an empty
 * "sub" for a filter of fixed size.
 */
static void json_subfilters(const struct kbloom_info *in,
			    const struct sub_list *subs)
{
	uint32_t i;

	json_u64("expansion", in->expansion);
	json_u64("subfilters", in->subfilters);
	printf(",\"sub\":[");
	for (i = 0; i < subs->n; i++) {
		const struct kbloom_subfilter *s = &subs->sub[i];

		printf("%s{\"index\":%u", i ? "," : "", s->index);
		json_u64("capacity", s->capacity);
		json_u64("keys", s->keys);
		json_u64("est_keys", s->est_keys);
		json_u64("nblocks", s->nblocks);
		json_u64("bytes", s->bytes);
		json_u64_string("seed", s->seed);
		json_u64("k", s->k);
		json_u64("bits_set", s->bits_set);
		json_u64("fp_target_ppb", s->fp_target_ppb);
		json_u64("fp_now_ppb", s->fp_now_ppb);
		json_u64("fill_ppb", s->fill_ppb);
		putchar('}');
	}
	putchar(']');
}

static void print_info_json(const struct kbloom_info *in,
			    const struct kbloom_window_info *win,
			    const struct sub_list *subs)
{
	char node[KBL_NODE_PATH_MAX], mode[8];

	kbl_node_path(in->name, node, sizeof(node));
	snprintf(mode, sizeof(mode), "%04o", in->node_mode & 07777);
	printf("{\"name\":");
	json_string(stdout, in->name);
	json_text("node", node);
	json_text("node_mode", mode);
	json_u64("capacity", in->capacity);
	json_u64("nblocks", in->nblocks);
	json_u64("bits", in->bits);
	json_u64("bytes", in->bytes);
	json_u64("held_bytes", in->held_bytes);
	json_u64_string("seed", in->seed);
	json_u64("k", in->k);
	json_text("type", kbl_type_name(in->type));
	json_u64("cells", filter_cells(in->nblocks, in->type,
				       win->generations));
	json_u64("add_calls", in->add_calls);
	json_u64("add_new", in->add_new);
	json_u64("check_calls", in->check_calls);
	json_u64("check_hits", in->check_hits);
	json_u64("delete_calls", in->delete_calls);
	json_u64("delete_hits", in->delete_hits);
	json_u64("bits_set", in->bits_set);
	json_u64("est_keys", in->est_keys);
	json_u64("reported_fp", in->reported_fp);
	json_u64("reported_tp", in->reported_tp);
	json_u64("reported_tn", in->reported_tn);
	json_u64("fp_target_ppb", in->fp_target_ppb);
	json_u64("fp_design_ppb", in->fp_design_ppb);
	json_u64("fp_now_ppb", in->fp_now_ppb);
	json_u64("fill_ppb", in->fill_ppb);
	json_u64("observed_fp_ppb", in->observed_fp_ppb);
	json_bool("saturated", in->saturated);
	json_u64("mappings", in->mappings);
	json_subfilters(in, subs);
	/* Every type has the fields (0, and no generations, but windows). */
	json_window(win, true);
	printf("}\n");
}

/* A window's rotation and its generations, newest first. */
static void print_window_table(const struct kbloom_window_info *w)
{
	char a[96], b[32];
	uint32_t i;

	table_row("generations", "%u (a key stays for %u to %u rotation periods)",
		  w->generations, w->generations - 1, w->generations);
	table_row("rotates", "%s", fmt_rotation(w->generations, w->rotate_ms,
						w->rotate_every, a,
						sizeof(a)));
	table_row("rotations", "%llu", w->rotations);
	if (w->rotate_ms)
		table_row("next rotation", "in %s",
			  fmt_ms(w->next_rotation_ms, b, sizeof(b)));
	else
		table_row("next rotation", "none scheduled (no --window timer)");
	for (i = 0; i < w->generations && i < KBLOOM_GENERATIONS_MAX; i++) {
		const struct kbloom_generation *g = &w->gen[i];
		char label[32];

		snprintf(label, sizeof(label), "gen %u%s", i,
			 i == 0 ? " (newest)" :
			 i + 1 == w->generations ? " (oldest)" : "");
		table_row(label, "%llu keys added, %llu keys (est.), fill %s",
			  g->add_calls, g->est_keys,
			  fmt_ppb(g->fill_ppb, b, sizeof(b)));
	}
}

/* How a scalable filter grows, and its sub-filters, oldest first. */
static void print_subfilter_table(const struct kbloom_info *in,
				  const struct sub_list *subs)
{
	char a[32], b[32], c[32], d[32], grows[64];
	uint32_t i, most;

	table_row("expansion", "%u (%s)", in->expansion,
		  fmt_expansion(in->expansion, grows, sizeof(grows)));
	most = chain_max_subs(in->type, in->capacity, in->fp_target_ppb,
			      in->expansion);
	if (most)
		table_row("sub-filters", "%u of at most %u (the next comes when the newest has taken its capacity of new keys)",
			  in->subfilters, most);
	else
		table_row("sub-filters", "%u", in->subfilters);
	printf("  %5s %14s %14s %14s %10s %3s %10s %10s %8s\n", "SUB",
	       "CAPACITY", "KEYS", "KEYS(EST)", "MEMORY", "K", "FP TARGET",
	       "FP NOW", "FILL");
	for (i = 0; i < subs->n; i++) {
		const struct kbloom_subfilter *s = &subs->sub[i];

		printf("  %5u %14llu %14llu %14llu %10s %3u %10s %10s %8s\n",
		       s->index, s->capacity, s->keys, s->est_keys,
		       fmt_bytes(s->bytes, a, sizeof(a)), s->k,
		       fmt_ppb(s->fp_target_ppb, b, sizeof(b)),
		       fmt_ppb(s->fp_now_ppb, c, sizeof(c)),
		       fmt_ppb(s->fill_ppb, d, sizeof(d)));
	}
}

/* The capacity row: a scalable filter's first sub-filter's, and all of them. */
static void print_capacity(const struct kbloom_info *in,
			   const struct sub_list *subs, bool window)
{
	uint64_t all = 0;
	uint32_t i;

	if (!in->capacity) {
		table_row("capacity", "none given");
		return;
	}
	if (!in->expansion) {
		table_row("capacity", "%llu keys%s (%.2f bits per key)",
			  in->capacity, window ? " in the window" : "",
			  (double)in->bits / in->capacity);
		return;
	}
	for (i = 0; i < subs->n; i++)
		all += subs->sub[i].capacity;
	table_row("capacity", "%llu keys in the first sub-filter, %" PRIu64 " in the %u it has now (%.2f bits per key)",
		  in->capacity, all, subs->n, all ? (double)in->bits / all : 0);
}

static void print_info_table(const struct kbloom_info *in,
			     const struct kbloom_window_info *win,
			     const struct sub_list *subs)
{
	bool counting = in->type == KBLOOM_TYPE_COUNTING;
	bool window = in->type == KBLOOM_TYPE_WINDOW;
	bool scalable = in->expansion != 0;
	uint64_t cells = filter_cells(in->nblocks, in->type, win->generations);
	const char *cell_word = counting ? "cells" : window ? "cells" : "bits";
	char a[32], b[32];

	table_row("filter", "%s (%s/%s, mode %04o)", in->name,
		  KBL_DEV_DIR, in->name, in->node_mode);
	if (counting)
		table_row("type", "counting (4-bit counters; keys can be deleted)%s",
			  scalable ? ", scalable (sub-filters added as keys come)" : "");
	else if (window)
		table_row("type", "window (generations that rotate; keys expire)");
	else
		table_row("type", "%s%s", kbl_type_name(in->type),
			  scalable ? ", scalable (sub-filters added as keys come)" : "");
	table_row("size", "%llu bits in %llu blocks of 512, %s%s", in->bits,
		  in->nblocks,
		  fmt_bytes(in->bytes, a, sizeof(a)),
		  scalable ? " (all sub-filters)" : "");
	table_row("held", "%s of kernel memory in all, what the byte caps count",
		  fmt_bytes(in->held_bytes, a, sizeof(a)));
	if (counting)
		table_row("cells", "%" PRIu64 " counters (128 per block)",
			  cells);
	if (window)
		table_row("cells", "%" PRIu64 " masks of %u bits (%u per block)",
			  cells, 1U << win->plane_order,
			  KBLOOM_BLOCK_CELLS >> win->plane_order);
	table_row("k", "%u probes per key", in->k);
	table_row("seed", "0x%016llx", in->seed);
	print_capacity(in, subs, window);
	if (in->fp_target_ppb)
		table_row("fp target", "%s%s",
			  fmt_ppb(in->fp_target_ppb, a, sizeof(a)),
			  scalable ? " for the whole filter, however far it grows" : "");
	if (in->capacity)
		table_row("fp design", "%s (formula at capacity%s)",
			  fmt_ppb(in->fp_design_ppb, a, sizeof(a)),
			  window ? ", the whole window, just before a rotation" :
			  scalable ? ", every sub-filter it has now at its own" : "");
	table_row("fp now", "%s (from the %s set now)",
		  fmt_ppb(in->fp_now_ppb, a, sizeof(a)), cell_word);
	table_row("fill", "%s (%llu of %" PRIu64 " %s set%s)",
		  fmt_ppb(in->fill_ppb, a, sizeof(a)), in->bits_set, cells,
		  cell_word, window ? " in any live generation" : "");
	table_row("keys (est.)", "%llu distinct", in->est_keys);
	table_row("adds", "%llu keys, %llu set new bits",
		  in->add_calls, in->add_new);
	table_row("checks", "%llu keys, %llu maybe present",
		  in->check_calls, in->check_hits);
	/* Mapped readers' checks never reach the module's counters. */
	if (in->mappings)
		table_row("mappings", "%llu (checks through them are not counted above)",
			  in->mappings);
	if (counting)
		table_row("deletes", "%llu keys, %llu removed",
			  in->delete_calls, in->delete_hits);
	if (in->reported_fp || in->reported_tp || in->reported_tn) {
		table_row("reported",
			  "%llu false positives, %llu true positives, %llu true negatives",
			  in->reported_fp, in->reported_tp, in->reported_tn);
		table_row("fp observed", "%s (false positives / (false positives + true negatives))",
			  fmt_ppb(in->observed_fp_ppb, b, sizeof(b)));
	}
	if (scalable)
		table_row("saturated", "%s", in->saturated ?
			  "yes: it cannot grow, and takes no new key (a new sub-filter would pass the module's max_filter_bytes or max_total_bytes, or it has its last sub-filter)" :
			  "no");
	else
		table_row("saturated", "%s", in->saturated ?
			  "yes: over capacity or above the target rate (create a larger filter)" :
			  "no");
	if (window)
		print_window_table(win);
	if (scalable)
		print_subfilter_table(in, subs);
	else
		table_row("expansion", "0 (fixed size)");
}

/*
 * Sub-filters 0 to info->subfilters - 1.  A clear between GET_INFO and
 * here takes the filter back to one sub-filter (ERANGE past it): the list
 * then ends where the filter does.  0, or EXIT_ERR after saying why.
 */
static int read_subfilters(const struct kbl *f, const struct kbloom_info *in,
			   struct sub_list *subs)
{
	uint32_t i;
	int ret;

	subs->sub = NULL;
	subs->n = 0;
	if (!in->expansion || !in->subfilters)
		return 0;
	subs->sub = calloc(in->subfilters, sizeof(*subs->sub));
	if (!subs->sub)
		return fail("out of memory");
	for (i = 0; i < in->subfilters; i++) {
		ret = kbl_subfilter(f, i, &subs->sub[i]);
		if (ret == -ERANGE)
			break;
		if (ret)
			return fail_filter(ret, in->name,
					   "get sub-filter information on");
	}
	subs->n = i;
	return 0;
}

static int run_info(int argc, char **argv)
{
	const struct command *cmd = &cmd_info;
	struct kbloom_window_info win;
	struct kbloom_info info;
	struct sub_list subs = { NULL, 0 };
	struct kbl *f;
	bool json = false;
	int ret;

	if (parse_flag_option(cmd, argc, argv, 'j', "json", &json))
		return EXIT_ERR;
	if (optind + 1 != argc)
		return usage_error(cmd, "give exactly one filter NAME");
	f = open_filter(argv[optind], O_RDONLY);
	if (!f)
		return EXIT_ERR;
	memset(&win, 0, sizeof(win));
	ret = filter_info(f, &info);
	if (!ret && info.type == KBLOOM_TYPE_WINDOW) {
		ret = kbl_window_info(f, &win);
		if (ret)
			ret = fail_filter(ret, argv[optind],
					  "get window information on");
	}
	if (!ret)
		ret = read_subfilters(f, &info, &subs);
	kbl_close(f);
	if (!ret) {
		if (json)
			print_info_json(&info, &win, &subs);
		else
			print_info_table(&info, &win, &subs);
	}
	free(subs.sub);
	return ret ? EXIT_ERR : EXIT_OK;
}

const struct command cmd_info = {
	.name = "info",
	.run = run_info,
	.summary = "show a filter's geometry, rates and counters",
	.usage =
"Usage: kbloomctl info [--json] NAME\n"
"\n"
"Shows the filter's type, size, k, seed and capacity; its false-positive\n"
"rates (the target asked for, the design rate at capacity, the exact rate\n"
"of the cells set now, and the rate observed through kbloomctl report);\n"
"its fill, estimated distinct keys and counters of adds, checks and (for a\n"
"counting filter) deletes; and how many mappings of it exist (checks\n"
"through a mapping do not pass through the module and are not counted).\n"
"A counting filter's cells are its counters,\n"
"128 per block; a cell is set when its counter is above 0.  A window\n"
"filter's capacity and rates are the whole window's, and a cell is set\n"
"when any live generation set it; then come its generations, how it\n"
"rotates, the rotations so far, the time to the next one and, newest\n"
"first, each generation's keys added, estimated keys and fill.  A\n"
"scalable filter's size, keys, fill and rates are those of all its\n"
"sub-filters together, its capacity that of the first; then come its\n"
"expansion, how many sub-filters it has and, oldest first, each one's\n"
"capacity, new keys taken, estimated keys, memory, k, target rate (its\n"
"share of the filter's), rate now and fill.  Needs read access.\n"
"\n"
"Options:\n"
"  -j, --json   one JSON object; rates are integers in parts per billion\n"
"               (*_ppb: 10000000 is 1%)\n"
"\n"
"Example:\n"
"  kbloomctl info users\n",
};

static int run_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fp", required_argument, NULL, 'f' },
		{ "tp", required_argument, NULL, 't' },
		{ "tn", required_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd = &cmd_report;
	uint64_t fp = 0, tp = 0, tn = 0;
	struct kbloom_info info;
	bool quiet = false, any = false;
	struct kbl *f;
	char rate[32];
	int c, ret;

	while ((c = parse_options(cmd, argc, argv, ":q", opts)) != -1) {
		uint64_t *dst = c == 'f' ? &fp : c == 't' ? &tp : &tn;

		if (c == 'q') {
			quiet = true;
			continue;
		}
		if (c != 'f' && c != 't' && c != 'n')
			return EXIT_ERR;
		if (!parse_count(optarg, dst))
			return usage_error(cmd, "invalid count '%s'", optarg);
		any = true;
	}
	if (optind + 1 != argc)
		return usage_error(cmd, "give exactly one filter NAME");
	if (!any)
		return usage_error(cmd, "give at least one of --fp N, --tp N, --tn N");
	f = open_filter(argv[optind], O_RDONLY);
	if (!f)
		return EXIT_ERR;
	ret = kbl_report(f, fp, tp, tn);
	if (!ret && !quiet)
		ret = kbl_info(f, &info);
	kbl_close(f);
	if (ret == -EINVAL)
		return fail("cannot report to filter '%s': one report may carry at most %llu answers (KBLOOM_REPORT_MAX; --fp + --tp + --tn); split it into several reports",
			    argv[optind], (unsigned long long)KBLOOM_REPORT_MAX);
	if (ret)
		return fail_filter(ret, argv[optind], "report to");
	if (!quiet)
		printf("reported to '%s': totals %llu false positives, %llu true positives, %llu true negatives; observed false-positive rate %s\n",
		       argv[optind], info.reported_fp, info.reported_tp,
		       info.reported_tn,
		       fmt_ppb(info.observed_fp_ppb, rate, sizeof(rate)));
	return EXIT_OK;
}

const struct command cmd_report = {
	.name = "report",
	.run = run_report,
	.summary = "feed back what real lookups found (observed false-positive rate)",
	.usage =
"Usage: kbloomctl report NAME [--fp N] [--tp N] [--tn N] [-q]\n"
"\n"
"After acting on check answers, tell the filter what the real lookup\n"
"behind them found, so that info shows the observed false-positive rate:\n"
"false positives / (false positives + true negatives).  The counts add up\n"
"across reports until clear or load.  One report carries at most 2^32\n"
"answers in all; sysfs 'reporters' shows root the sums per reporting\n"
"user.\n"
"Needs read access.\n"
"\n"
"Options:\n"
"  --fp N   \"maybe\" answers whose key turned out to be absent\n"
"  --tp N   \"maybe\" answers whose key was present\n"
"  --tn N   \"absent\" answers (the lookups the filter saved)\n"
"  -q       print nothing on success\n"
"\n"
"Example:\n"
"  kbloomctl report users --fp 12 --tp 950 --tn 40000\n",
};
