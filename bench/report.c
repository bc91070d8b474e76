// SPDX-License-Identifier: GPL-2.0
/*
 * Everything the benchmark prints or writes: the table, the ratios against
 * their targets (bench/README.md, "Output"), the PASS:/FAIL: lines of the
 * quick run's sanity checks, one JSON object per measurement, and the
 * data the plot reads.
 * Timings are only ever printed and judged by a reader, never asserted.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static struct result *results;
static size_t nresults, capacity;
static int failures;

struct result *report_add(const struct result *r)
{
	struct result *slot;

	if (nresults == capacity) {
		capacity = capacity ? 2 * capacity : 64;
		results = realloc(results, capacity * sizeof(*results));
		if (!results) {
			fprintf(stderr, "bench: out of memory for results\n");
			exit(2);
		}
	}
	slot = &results[nresults++];
	*slot = *r;
	if (!slot->where)
		slot->where = "host";
	slot->ns_per_op = slot->repeats ? median(slot->ns, slot->repeats)
					: NAN;
	return slot;
}

const struct result *report_find(const char *impl, const char *op, u64 n,
				 u32 key_bytes, u32 bits_per_key_target)
{
	size_t i;

	for (i = 0; i < nresults; i++) {
		const struct result *r = &results[i];

		if (!strcmp(r->impl, impl) && !strcmp(r->op, op) &&
		    r->n == n && r->key_bytes == key_bytes &&
		    r->bits_per_key_target == bits_per_key_target &&
		    !r->instr_per_op)
			return r;
	}
	return NULL;
}

void report_check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s: bench/%s", ok ? "PASS" : "FAIL", name);
	if (!ok) {
		printf(": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		failures++;
	}
	printf("\n");
	fflush(stdout);
}

int report_failures(void)
{
	return failures;
}

static const char *fmt_count(u64 n)
{
	static char buf[8][24];
	static int next;
	char *b = buf[next++ & 7];

	if (n >= 1000000 && n % 1000000 == 0)
		snprintf(b, 24, "%lluM", (unsigned long long)n / 1000000);
	else if (n >= 1000 && n % 1000 == 0)
		snprintf(b, 24, "%lluk", (unsigned long long)n / 1000);
	else
		snprintf(b, 24, "%llu", (unsigned long long)n);
	return b;
}

static void print_ns(const struct result *r)
{
	if (!r || isnan(r->ns_per_op))
		printf(" %9s", "-");
	else
		printf(" %9.1f", r->ns_per_op);
}

static void print_rate(double p)
{
	if (isnan(p))
		printf(" %9s", "-");
	else
		printf(" %8.4f%%", 100 * p);
}

/* The distinct (n, key bytes) pairs of the main runs, in run order. */
static size_t main_configs(u64 *ns, u32 *kbs, size_t max)
{
	size_t i, j, m = 0;

	for (i = 0; i < nresults && m < max; i++) {
		const struct result *r = &results[i];

		if (strcmp(r->impl, "kbloom") || strcmp(r->op, "add") ||
		    r->bits_per_key_target != 10 || !r->repeats)
			continue;
		for (j = 0; j < m; j++)
			if (ns[j] == r->n && kbs[j] == r->key_bytes)
				break;
		if (j == m) {
			ns[m] = r->n;
			kbs[m] = r->key_bytes;
			m++;
		}
	}
	return m;
}

static const char *const table_impls[] = {
	"kbloom", "libbloom", "bpf-map", "limit", "xxh64+load", "xxh64i+load",
};

void report_print_table(void)
{
	u64 ns[16];
	u32 kbs[16];
	size_t m = main_configs(ns, kbs, 16), c, i;
	int header = 0;

	printf("\nMedian ns per operation; 10 bits/key asked of every filter "
	       "(bits/key = what it really used).\n");
	for (c = 0; c < m; c++) {
		printf("\n n = %s keys of %u bytes\n", fmt_count(ns[c]),
		       kbs[c]);
		printf(" %-11s %8s %3s %9s %9s %9s %9s %9s %9s %9s %9s "
		       "%10s %10s\n", "impl", "bits/key", "k", "memory", "add",
		       "add-full", "addb4096", "addb-full", "check",
		       "batch4096", "load", "FP meas", "FP theory");
		for (i = 0; i < ARRAY_SIZE(table_impls); i++) {
			const char *impl = table_impls[i];
			const struct result *add, *chk, *bat, *ld, *any;
			const struct result *fadd, *abat, *fbat;

			add = report_find(impl, "add", ns[c], kbs[c], 10);
			fadd = report_find(impl, "add_filled", ns[c], kbs[c],
					   10);
			abat = report_find(impl, "add_batch", ns[c], kbs[c],
					   10);
			fbat = report_find(impl, "add_batch_filled", ns[c],
					   kbs[c], 10);
			chk = report_find(impl, "check", ns[c], kbs[c], 10);
			bat = report_find(impl, "check_batch", ns[c], kbs[c],
					  10);
			ld = report_find(impl, "load", ns[c], kbs[c], 10);
			any = add ? add : chk ? chk : ld;
			if (!any)
				continue;
			printf(" %-11s", impl);
			if (any->bits_per_key > 0)
				printf(" %8.2f", any->bits_per_key);
			else
				printf(" %8s", "-");
			if (any->k)
				printf(" %3u", any->k);
			else
				printf(" %3s", "-");
			printf(" %7.1fMB", any->bytes / 1048576.0);
			print_ns(add);
			print_ns(fadd);
			print_ns(abat);
			print_ns(fbat);
			print_ns(chk);
			print_ns(bat);
			print_ns(ld);
			print_rate(chk ? chk->fp_measured : NAN);
			printf(" ");
			print_rate(chk ? chk->fp_theory : NAN);
			printf("\n");
		}
		for (i = 0; i < nresults; i++) {
			const struct result *r = &results[i];

			if (r->n == ns[c] && r->key_bytes == kbs[c] &&
			    r->note && r->bits_per_key_target == 10)
				printf("   note (%s %s): %s\n", r->impl, r->op,
				       r->note);
		}
	}

	printf("\nFalse positives against bits/key (8-byte keys; n chosen so "
	       "the BPF map's power-of-two array holds exactly c bits/key)\n");
	printf(" %-9s %4s %9s %8s %3s %10s %10s %9s\n", "impl", "c", "n",
	       "bits/key", "k", "FP meas", "FP theory", "queries");
	for (i = 0; i < nresults; i++) {
		const struct result *r = &results[i];

		if (!r->note || strcmp(r->note, "fp sweep"))
			continue;
		printf(" %-9s %4u %9s %8.2f %3u", r->impl,
		       r->bits_per_key_target, fmt_count(r->n),
		       r->bits_per_key, r->k);
		print_rate(r->fp_measured);
		printf(" ");
		print_rate(r->fp_theory);
		printf(" %9s\n", fmt_count(r->fp_queries));
	}

	for (i = 0; i < nresults; i++) {
		const struct result *r = &results[i];

		if (!(r->instr_per_op > 0))
			continue;
		if (!header++)
			printf("\nInstructions per operation (callgrind, "
			       "8-byte keys, %llu keys, filter in cache)\n",
			       (unsigned long long)r->n);
		printf(" %-9s %-16s batch %-5u %8.1f instructions/key\n",
		       r->impl, r->op, r->batch, r->instr_per_op);
	}
}

static double ns_of(const char *impl, const char *op, u64 n, u32 kb)
{
	const struct result *r = report_find(impl, op, n, kb, 10);

	return r ? r->ns_per_op : NAN;
}

/* Prints one ratio line; a target of 0 means "no target, for information". */
static void ratio_line(const char *what, double ratio, double target,
		       bool at_most)
{
	printf("   %-44s", what);
	if (isnan(ratio)) {
		printf(" %8s\n", "n/a");
		return;
	}
	printf(" %7.2fx", ratio);
	if (!target) {
		printf("\n");
		return;
	}
	printf("  target %s %.1fx: ", at_most ? "<=" : ">=", target);
	if (at_most ? ratio <= target : ratio >= target)
		printf("met\n");
	else if (at_most)
		printf("NOT MET (%.0f%% over)\n", 100 * (ratio / target - 1));
	else
		printf("NOT MET (%.0f%% short)\n", 100 * (1 - ratio / target));
}

/* The single-check target: 0.8x the core's before e5d38a5, at 10 M. */
static double before_check_10m[2];	/* 8-byte, 16-byte keys; 0: unset */

void report_set_before_check_10m(u32 key_bytes, double ns)
{
	if (!isnan(ns) && ns > 0 && (key_bytes == 8 || key_bytes == 16))
		before_check_10m[key_bytes == 16] = ns;
}

int report_print_ratios(bool quick)
{
	u64 ns[16];
	u32 kbs[16];
	size_t m = main_configs(ns, kbs, 16), c;

	printf("\nRatios (each side the median of its interleaved repeats; "
	       "targets in bench/README.md)%s\n",
	       quick ? "; QUICK sizes, so targets are indicative only" : "");
	for (c = 0; c < m; c++) {
		u64 n = ns[c];
		u32 kb = kbs[c];
		double k_add = ns_of("kbloom", "add", n, kb);
		double k_fadd = ns_of("kbloom", "add_filled", n, kb);
		double k_abat = ns_of("kbloom", "add_batch", n, kb);
		double k_fbat = ns_of("kbloom", "add_batch_filled", n, kb);
		double k_chk = ns_of("kbloom", "check", n, kb);
		double k_bat = ns_of("kbloom", "check_batch", n, kb);
		double flr = ns_of("xxh64+load", "load", n, kb);
		double before = kb == 8 || kb == 16 ?
				before_check_10m[kb == 16] : 0;
		bool big = n >= 10000000;
		char what[64];

		printf(" n = %s, %u-byte keys\n", fmt_count(n), kb);
		ratio_line("add (empty) / check", k_add / k_chk, 1.5, true);
		ratio_line("add (filled) / check", k_fadd / k_chk, 1.5, true);
		ratio_line("add_batch (empty) / check_batch", k_abat / k_bat,
			   1.5, true);
		ratio_line("add_batch (filled) / check_batch", k_fbat / k_bat,
			   1.5, true);
		ratio_line(big ? "check_batch / xxh64 + one load" :
				 "check_batch / xxh64 + one load (info)",
			   k_bat / flr, big ? 1.2 : 0, true);
		if (n == 10000000) {
			snprintf(what, sizeof(what), "check / before (%.1f ns)",
				 before);
			if (before > 0)
				ratio_line(what, k_chk / before, 0.8, true);
			else
				printf("   %-44s not evaluated (give "
				       "--before-check-10m%s NS or %s)\n",
				       "check / before", kb == 16 ? "-16b" : "",
				       kb == 16 ?
				       "KBLOOM_BENCH_BEFORE_CHECK_10M_16B_NS" :
				       "KBLOOM_BENCH_BEFORE_CHECK_10M_NS");
		}
		printf("   for information:\n");
		ratio_line("check_batch / xxh64 (inlined) + one load",
			   k_bat / ns_of("xxh64i+load", "load", n, kb), 0,
			   true);
		ratio_line("check_batch / random-load limit",
			   k_bat / ns_of("limit", "load", n, kb), 0, true);
		ratio_line("xxh64 + one load / random-load limit",
			   flr / ns_of("limit", "load", n, kb), 0, true);
		ratio_line("check: kbloom single / batched", k_chk / k_bat, 0,
			   false);
		ratio_line("add: libbloom / kbloom",
			   ns_of("libbloom", "add", n, kb) / k_add, 0, false);
		ratio_line("check: libbloom / kbloom",
			   ns_of("libbloom", "check", n, kb) / k_chk, 0,
			   false);
		ratio_line("add: bpf-map / kbloom",
			   ns_of("bpf-map", "add", n, kb) / k_add, 0, false);
		ratio_line("check: bpf-map / kbloom",
			   ns_of("bpf-map", "check", n, kb) / k_chk, 0, false);
		ratio_line("check: bpf-map / kbloom batched",
			   ns_of("bpf-map", "check", n, kb) / k_bat, 0, false);
	}
	return 0;
}

static void json_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, "\"%s\":", key);
	if (!v) {
		fprintf(f, "null");
		return;
	}
	fputc('"', f);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			fputc('\\', f);
		fputc(*v, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, const char *key, double v, const char *fmt)
{
	fprintf(f, ",\"%s\":", key);
	if (isnan(v))
		fprintf(f, "null");
	else
		fprintf(f, fmt, v);
}

static void json_result(FILE *f, const struct result *r)
{
	int i;

	fputc('{', f);
	json_str(f, "impl", r->impl);
	fputc(',', f);
	json_str(f, "where", r->where);
	fputc(',', f);
	json_str(f, "op", r->op);
	fprintf(f, ",\"n\":%llu,\"key_bytes\":%u", (unsigned long long)r->n,
		r->key_bytes);
	json_num(f, "bits_per_key", r->bits_per_key > 0 ? r->bits_per_key
							: NAN, "%.4f");
	fprintf(f, ",\"bits_per_key_target\":%u,\"k\":%u,\"batch\":%u",
		r->bits_per_key_target, r->k, r->batch);
	fprintf(f, ",\"bytes\":%llu", (unsigned long long)r->bytes);
	json_num(f, "ns_per_op", r->ns_per_op, "%.3f");
	fprintf(f, ",\"ns_repeats\":[");
	for (i = 0; i < r->repeats; i++)
		fprintf(f, "%s%.3f", i ? "," : "", r->ns[i]);
	fprintf(f, "]");
	json_num(f, "fill_ns_per_op", r->fill_ns, "%.3f");
	json_num(f, "fp_measured", r->fp_measured, "%.8g");
	json_num(f, "fp_theory", r->fp_theory, "%.8g");
	fprintf(f, ",\"fp_queries\":%llu,\"repeats\":%d,\"ops_timed\":%llu",
		(unsigned long long)r->fp_queries, r->repeats,
		(unsigned long long)r->ops_timed);
	json_num(f, "instr_per_op", r->instr_per_op > 0 ? r->instr_per_op
							: NAN, "%.2f");
	json_num(f, "generations", r->generations ? r->generations : NAN,
		 "%.0f");
	json_num(f, "fp_target", r->fp_target > 0 ? r->fp_target : NAN,
		 "%.8g");
	fputc(',', f);
	json_str(f, "note", r->note);
	fprintf(f, "}\n");
}

int report_write_jsonl(const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f) {
		perror(path);
		return -1;
	}
	for (i = 0; i < nresults; i++)
		json_result(f, &results[i]);
	return fclose(f);
}

/* One gnuplot data block: a title row, then x y rows; blocks split by 2 \n */
static void speed_block(FILE *f, const char *impl, const char *op,
			const char *title)
{
	size_t i;

	fprintf(f, "\"%s\" \"ns\"\n", title);
	for (i = 0; i < nresults; i++) {
		const struct result *r = &results[i];

		if (!strcmp(r->impl, impl) && !strcmp(r->op, op) &&
		    r->key_bytes == 8 && r->bits_per_key_target == 10 &&
		    r->repeats && !isnan(r->ns_per_op))
			fprintf(f, "%llu %.3f\n", (unsigned long long)r->n,
				r->ns_per_op);
	}
	fprintf(f, "\n\n");
}

static void fp_block(FILE *f, const char *impl, const char *title)
{
	size_t i;

	fprintf(f, "\"%s\" \"fp\"\n", title);
	for (i = 0; i < nresults; i++) {
		const struct result *r = &results[i];

		if (!strcmp(r->impl, impl) && r->note &&
		    !strcmp(r->note, "fp sweep") && !isnan(r->fp_measured))
			fprintf(f, "%.4f %.8g\n", r->bits_per_key,
				r->fp_measured > 0 ? r->fp_measured : NAN);
	}
	fprintf(f, "\n\n");
}

int report_write_plot_data(const char *dir)
{
	char path[4096];
	const u64 big = 100000000;
	FILE *f;
	u32 c;

	snprintf(path, sizeof(path), "%s/speed.dat", dir);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	speed_block(f, "kbloom", "add", "kbloom add");
	speed_block(f, "kbloom", "check", "kbloom check");
	speed_block(f, "kbloom", "check_batch", "kbloom check, batch 4096");
	speed_block(f, "kbloom", "add_filled", "kbloom add, full filter");
	speed_block(f, "kbloom", "add_batch", "kbloom add, batch 4096");
	speed_block(f, "xxh64+load", "load", "floor: xxh64 + one load");
	speed_block(f, "libbloom", "add", "libbloom add");
	speed_block(f, "libbloom", "check", "libbloom check");
	speed_block(f, "bpf-map", "add", "BPF map add (sampled)");
	speed_block(f, "bpf-map", "check", "BPF map check (sampled)");
	speed_block(f, "limit", "load", "limit: random 8-byte load");
	if (fclose(f))
		return -1;

	snprintf(path, sizeof(path), "%s/fp.dat", dir);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	fp_block(f, "kbloom", "kbloom measured");
	fp_block(f, "libbloom", "libbloom measured");
	fp_block(f, "bpf-map", "BPF map measured");
	/* The formulas as curves, at each c with the k each side picks. */
	fprintf(f, "\"blocked-512 formula, kbloom's k\" \"fp\"\n");
	for (c = 6; c <= 20; c++) {
		struct kbloom_geometry geo;

		if (!kbloom_geometry_from_bits_per_key(&geo, big, c, 0))
			fprintf(f, "%u %.8g\n", c,
				fp_blocked_core(geo.nblocks, big, geo.k));
	}
	fprintf(f, "\n\n\"standard formula, k = ceil(c ln 2)\" \"fp\"\n");
	for (c = 6; c <= 20; c++)
		fprintf(f, "%u %.8g\n", c,
			fp_standard((double)c * big, big,
				    (u32)ceil(c * M_LN2)));
	fprintf(f, "\n\n");
	return fclose(f);
}
