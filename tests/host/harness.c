// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include "harness.h"
#include "model.h"

static unsigned int failures;

void pass(const char *suite, const char *name)
{
	printf("PASS: %s/%s\n", suite, name);
	fflush(stdout);
}

static void vfail(const char *suite, const char *name, const char *fmt,
		  va_list ap)
{
	failures++;
	printf("FAIL: %s/%s: ", suite, name);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

void fail(const char *suite, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(suite, name, fmt, ap);
	va_end(ap);
}

bool expect(bool ok, const char *suite, const char *name, const char *fmt,
	    ...)
{
	va_list ap;

	if (ok) {
		pass(suite, name);
		return true;
	}
	va_start(ap, fmt);
	vfail(suite, name, fmt, ap);
	va_end(ap);
	return false;
}

int harness_exit(void)
{
	return failures ? 1 : 0;
}

void make_filter_geo(struct kbloom_filter *f, const struct kbloom_geometry *g,
		     u64 seed)
{
	struct kbloom_geometry geo = *g;
	int ret;

	geo.seed = seed;
	ret = kbloom_filter_init(f, &geo);
	if (ret) {
		fprintf(stderr, "kbloom_filter_init(%llu blocks, k %u): %d\n",
			(unsigned long long)geo.nblocks, geo.k, ret);
		exit(2);
	}
}

void make_filter_type(struct kbloom_filter *f,
		      const struct kbloom_test_type *t, u64 keyblocks, u32 k,
		      u64 seed)
{
	struct kbloom_geometry geo = {
		.nblocks = keyblocks * kbloom_test_key_block(t), .k = k,
		.type = t->type, .generations = t->generations,
		.plane_order = t->generations ?
			       kbloom_plane_order(t->generations) : 0,
	};

	make_filter_geo(f, &geo, seed);
}

const char *typed_name(const char *fmt, const struct kbloom_test_type *t, ...)
{
	static char name[128];
	size_t n;
	va_list ap;

	va_start(ap, t);
	n = vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	snprintf(name + n, sizeof(name) - n, "/%s", t->name);
	return name;
}

#define CHUNK 4096

enum counter_op { COUNTER_ADD, COUNTER_CHECK, COUNTER_DELETE };

static u64 counter_batch(struct kbloom_filter *f, u64 base, u64 n,
			 enum counter_op op)
{
	static __thread u64 vals[CHUNK];
	static __thread struct kbloom_key keys[CHUNK];
	u64 done, hits = 0;
	u32 i;

	for (done = 0; done < n; done += CHUNK) {
		u32 m = n - done < CHUNK ? (u32)(n - done) : CHUNK;

		for (i = 0; i < m; i++) {
			vals[i] = mix64(base + done + i);
			keys[i].data = &vals[i];
			keys[i].len = sizeof(vals[i]);
		}
		if (op == COUNTER_ADD)
			hits += kbloom_add_batch(f, keys, m, NULL);
		else if (op == COUNTER_CHECK)
			hits += kbloom_check_batch(f, keys, m, NULL);
		else
			hits += kbloom_delete_batch(f, keys, m, NULL);
	}
	return hits;
}

void add_counter_keys(struct kbloom_filter *f, u64 base, u64 n)
{
	counter_batch(f, base, n, COUNTER_ADD);
}

u64 count_counter_hits(struct kbloom_filter *f, u64 base, u64 n)
{
	return counter_batch(f, base, n, COUNTER_CHECK);
}

u64 delete_counter_keys(struct kbloom_filter *f, u64 base, u64 n)
{
	return counter_batch(f, base, n, COUNTER_DELETE);
}

u64 type_share(const struct kbloom_test_type *t, u64 n)
{
	return t->generations ? (n + t->generations - 2) /
				(t->generations - 1) : n;
}

void add_generations(struct kbloom_filter *f, u64 *next, u64 per_gen,
		     u32 gens, bool rotate_first)
{
	u32 i;

	for (i = 0; i < gens; i++) {
		if ((i || rotate_first) && f->geo.generations &&
		    kbloom_window_rotate(f)) {
			fprintf(stderr, "kbloom_window_rotate failed\n");
			exit(2);
		}
		add_counter_keys(f, *next, per_gen);
		*next += per_gen;
	}
}

double type_model_fp(const struct kbloom_test_type *t, double lambda,
		     unsigned int k, unsigned int live)
{
	if (t->generations)
		return model_fp_window(lambda, k, live);
	return model_fp_scheme_cells(lambda, k, kbloom_test_block_cells(t));
}

double type_model_closed(const struct kbloom_test_type *t, double lambda,
			 unsigned int k, unsigned int live)
{
	if (t->generations)
		return model_fp_window_closed(lambda, k, live);
	return model_fp_closed_cells(lambda, k, kbloom_test_block_cells(t));
}

double type_core_fp(const struct kbloom_test_type *t, u64 nblocks, u64 n,
		    u32 k, u32 live)
{
	if (t->generations)
		return kbloom_formula_fp_ppb_window(nblocks,
						    kbloom_plane_order(t->generations),
						    n, k, live) / 1e9;
	return kbloom_formula_fp_ppb_type(t->type, nblocks, n, k) / 1e9;
}
