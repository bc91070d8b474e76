// SPDX-License-Identifier: GPL-2.0
/*
 * Scalable filters (kmod/core/kbloom_chain.c) with the keys the unit suite
 * cannot afford: chains grown to 1, 10, 100 and 1,000 times their first
 * capacity, with expansion 1, 2 and 4, for targets of 1 % and 0.1 %, of
 * every type a chain takes.  Each never forgets a key, and its measured
 * false-positive rate is at most the target and is the exact model's for
 * the chain (1 - prod(1 - f_i) over its sub-filters, by model.h's
 * independent float model of the scheme), both within max(5 sigma, 2 %).
 * Writers, readers and a grower at once, with ground truth.  The
 * unit cases (rejections, the schedule's ends, clear, merge) are the
 * KUnit suite's, kunit/chain.c, which runs here too.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include "harness.h"
#include "model.h"
#include "../../kmod/core/kbloom_chain.h"
#include "../../kmod/core/kbloom_formula.h"

#define SUITE "chain"

/*
 * Sub-filter 0's capacity: small, so that 1,000 times it is few keys.
 * With expansion 1 every key is looked up in every older sub-filter first,
 * 500 of them on average at 1,000 times, so there it is 50 keys (50,000
 * at 1,000 times); with more, 200.  A point measures 1,000 times the
 * capacity in all, in replicas of (1000 / growth) chains, so a 1x point is
 * not one small filter whose own fill decides its rate.
 */
static u64 capacity_for(u32 expansion)
{
	return expansion == 1 ? 50 : 200;
}
/*
 * Absent keys queried per point, over its replicas: 400,000, or fewer
 * where that would take over 20 M sub-filter probes (1,000 sub-filters
 * of expansion 1 get 20,000), so the program stays within half a minute of
 * CPU; the tests' sigma is of the queries made.
 */
#define QUERIES		400000
#define QUERY_PROBES	20000000

/* Key i of replica r: distinct over every replica and the queries. */
static u64 key_of(u32 r, u64 i)
{
	return mix64((u64)r << 40 | i);
}

/* Keys added through the chain, grown whenever an add finds it full. */
static int feed(struct kbloom_chain *c, u32 r, u64 n)
{
	u64 i;

	for (i = 0; i < n; i++) {
		u64 v = key_of(r, i);

		while (kbloom_chain_add(c, &v, sizeof(v)) == -EAGAIN) {
			int ret = kbloom_chain_grow(c);

			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * The chain's rate by the host's float model of each sub-filter: exact,
 * for its keys in its blocks (binomial loads), or with Poisson loads, the
 * model the core's integer code computes.
 */
static double chain_model(const struct kbloom_chain *c,
			  const struct kbloom_test_type *t, bool poisson)
{
	double pass = 1;
	u32 i;

	for (i = 0; i < kbloom_chain_subs(c); i++) {
		const struct kbloom_geometry *g = &kbloom_chain_sub(c, i)->f.geo;
		u64 keys = (u64)atomic64_read(&kbloom_chain_sub(c, i)->keys);

		pass *= 1 - (poisson ?
			     type_model_fp(t, (double)keys / g->nblocks, g->k,
					   1) :
			     model_fp_scheme_blocks(keys, g->nblocks, g->k,
						    kbloom_test_block_cells(t)));
	}
	return 1 - pass;
}

/*
 * The rate of this very chain: each sub-filter's chance that a query's k
 * probes all find set cells, from the cells it holds (the core's fp_now),
 * combined over the sub-filters.  What the chain's expected rate (the
 * models above) says of chains in general, this says of the one queried,
 * so only the queries' sampling separates it from the measured rate.
 */
static double chain_realized(const struct kbloom_chain *c)
{
	double pass = 1;
	u32 i;

	for (i = 0; i < kbloom_chain_subs(c); i++) {
		struct kbloom_cell_stats cs;

		kbloom_scan_cells(&kbloom_chain_sub(c, i)->f, &cs);
		pass *= 1 - (double)cs.fp_now_ppb / KBLOOM_PPB;
	}
	return 1 - pass;
}

struct point {
	double measured, realized, model, poisson, core_model;
	double core_now;	/* the core's fp_now of the chain */
	u64 queries, missed, members;
	u32 subs;
	double bytes_per_key;
};

static int measure(const struct kbloom_test_type *t, u32 expansion,
		   u32 fp_ppb, u32 growth, struct point *pt)
{
	const u32 replicas = 1000 / growth;
	const u64 per = (u64)growth * capacity_for(expansion);
	struct kbloom_key keys[64];
	u64 vals[64], hits = 0, bytes = 0, queries = 0;
	double realized = 0, model = 0, poisson = 0, core = 0, core_now = 0;
	u32 r;

	*pt = (struct point){ 0 };
	for (r = 0; r < replicas; r++) {
		struct kbloom_chain_params cp = {
			.capacity = capacity_for(expansion), .seed = 1000 + r,
			.type = t->type, .fp_ppb = fp_ppb,
			.expansion = expansion,
		};
		struct kbloom_chain c;
		u64 i, j;
		int ret;

		ret = kbloom_chain_init(&c, &cp);
		if (!ret)
			ret = feed(&c, r, per);
		if (ret) {
			if (!c.subs)
				return ret;
			kbloom_chain_free(&c);
			return ret;
		}
		/* Every key added, then absent ones, by the batch path. */
		pt->subs = kbloom_chain_subs(&c);
		queries = QUERIES / replicas;
		if (queries * pt->subs * replicas > QUERY_PROBES)
			queries = QUERY_PROBES / pt->subs / replicas;
		for (i = 0; i < per + queries; i += 64) {
			u32 m = per + queries - i < 64 ? per + queries - i : 64;
			u32 in = i < per ? (per - i < m ? per - i : m) : 0;
			u64 added = in == 64 ? ~0ULL : (1ULL << in) - 1;
			unsigned long found;

			for (j = 0; j < m; j++) {
				vals[j] = key_of(r, i + j < per ? i + j :
					  (1ULL << 39) + i + j - per);
				keys[j].data = &vals[j];
				keys[j].len = 8;
			}
			kbloom_chain_lookup_batch(&c, keys, m, &found);
			pt->members += in;
			pt->missed += in - hweight64(found & added);
			hits += hweight64(found & ~added);
		}
		realized += chain_realized(&c);
		core_now += (double)kbloom_chain_fp_now_ppb(&c) / KBLOOM_PPB;
		model += chain_model(&c, t, false);
		poisson += chain_model(&c, t, true);
		core += (double)kbloom_chain_model_ppb16(&c) /
			KBLOOM_PPB16_ONE;
		bytes += kbloom_chain_bytes(&c);
		kbloom_chain_free(&c);
	}
	pt->queries = queries * replicas;
	pt->measured = (double)hits / pt->queries;
	pt->realized = realized / replicas;
	pt->core_now = core_now / replicas;
	pt->model = model / replicas;
	pt->poisson = poisson / replicas;
	pt->core_model = core / replicas;
	pt->bytes_per_key = (double)bytes / ((double)per * replicas);
	return 0;
}

static void test_accuracy(const struct kbloom_test_type *t)
{
	static const u32 expansions[] = { 1, 2, 4 };
	static const u32 rates[] = { 10000000, 1000000 };
	static const u32 growths[] = { 1, 10, 100, 1000 };
	size_t e, p, g;

	for (e = 0; e < ARRAY_SIZE(expansions); e++)
	for (p = 0; p < ARRAY_SIZE(rates); p++)
	for (g = 0; g < ARRAY_SIZE(growths); g++) {
		double target = (double)rates[p] / KBLOOM_PPB, sigma, tol;
		const char *name;
		struct point pt;
		int ret;

		name = typed_name("e%u_fp%uppm_%ux", t, expansions[e],
				  rates[p] / 1000, growths[g]);
		ret = measure(t, expansions[e], rates[p], growths[g], &pt);
		if (ret) {
			fail(SUITE, name, "growth failed: %d", ret);
			continue;
		}
		sigma = sqrt(pt.realized * (1 - pt.realized) / pt.queries);
		tol = fmax(5 * sigma, 0.02 * pt.realized);
		printf("# %s: %u sub-filters, %.2f bytes/key, %llu queries: measured %.5f%%, these chains' cells %.5f%%, expected %.5f%% (Poisson loads %.5f%%, the core %.5f%%), target %.3f%%\n",
		       name, pt.subs, pt.bytes_per_key,
		       (unsigned long long)pt.queries, 100 * pt.measured,
		       100 * pt.realized, 100 * pt.model, 100 * pt.poisson,
		       100 * pt.core_model, 100 * target);
		if (!expect(pt.missed == 0, SUITE, name,
			    "%llu of %llu added keys reported absent",
			    (unsigned long long)pt.missed,
			    (unsigned long long)pt.members))
			continue;
		if (!expect(pt.measured <= target + fmax(5 * sigma,
							 0.02 * target),
			    SUITE, typed_name("e%u_fp%uppm_%ux_bound", t,
					      expansions[e], rates[p] / 1000,
					      growths[g]),
			    "measured %.5f%% over the target %.3f%%",
			    100 * pt.measured, 100 * target))
			continue;
		expect(fabs(pt.measured - pt.realized) <= tol &&
		       fabs(pt.core_model - pt.poisson) <= 0.002 * pt.poisson &&
		       fabs(pt.core_now - pt.realized) <=
		       pt.subs * 2e-9 + 1e-6 * pt.realized,
		       SUITE, typed_name("e%u_fp%uppm_%ux_model", t,
					 expansions[e], rates[p] / 1000,
					 growths[g]),
		       "measured %.5f%%, by the chains' cells %.5f%% (the core's %.5f%%); with Poisson loads %.5f%%, by the core %.5f%%",
		       100 * pt.measured, 100 * pt.realized,
		       100 * pt.core_now, 100 * pt.poisson,
		       100 * pt.core_model);
	}
}

/*
 * Writers, readers and a grower at once, with ground truth: writers add
 * keys of their own, each publishing how many of its adds have returned;
 * a grower grows the chain whenever its newest is full; two readers take
 * a writer's published count and check keys below it, one at a time and
 * in batches, and every one must be found (its add completed before the
 * check began).  The chain grows at least min_grows times meanwhile; a
 * writer whose add finds the chain full waits for the grower, and no
 * sub-filter ends past its capacity, however many writers race.  A
 * counting chain then deletes every key of the even writers, each found,
 * and every key of the odd ones is still there: no add that raced a
 * growth moved another key's home.  Two shapes: two writers doubling a
 * chain of 128 ten times, and eight writers at capacity 16, expansion 1
 * and a 10 % rate, where many adds race each growth and a key that
 * reached an older sub-filter late would often make it answer "maybe"
 * for keys of the newer one.
 */
#define TORTURE_WRITERS	8

struct torture_shape {
	const char *name;
	u64 capacity;
	u32 expansion, fp_ppb, writers, min_grows;
	u64 keys;		/* per writer */
};

static const struct torture_shape torture_shapes[] = {
	{ "concurrent_growth", 128, 2, 10000000, 2, 10, 150000 },
	{ "crowded_growth", 16, 1, 100000000, TORTURE_WRITERS, 400, 1000 },
};

struct torture {
	struct kbloom_chain c;
	const struct torture_shape *shape;
	u64 done[TORTURE_WRITERS];	/* adds returned, per writer (release) */
	int stop;		/* writers finished (release) */
	u64 missed, checked, grows, waits, over;
	int grow_err;
};

static u64 torture_key(u32 w, u64 i)
{
	return mix64((u64)(w + 1) << 48 | i);
}

struct torture_writer_arg {
	struct torture *tt;
	u32 w;
};

static void *torture_writer(void *arg)
{
	struct torture_writer_arg *wa = arg;
	struct torture *tt = wa->tt;
	u64 i;

	for (i = 0; i < tt->shape->keys; i++) {
		u64 v = torture_key(wa->w, i);

		/* A full chain: the grower's turn. */
		while (kbloom_chain_add(&tt->c, &v, sizeof(v)) == -EAGAIN) {
			__atomic_add_fetch(&tt->waits, 1, __ATOMIC_RELAXED);
			sched_yield();
		}
		__atomic_store_n(&tt->done[wa->w], i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *torture_grower(void *arg)
{
	struct torture *tt = arg;

	while (!__atomic_load_n(&tt->stop, __ATOMIC_ACQUIRE)) {
		if (!kbloom_chain_full(&tt->c)) {
			sched_yield();
			continue;
		}
		tt->grow_err = kbloom_chain_grow(&tt->c);
		if (tt->grow_err)
			break;
		tt->grows++;
	}
	return NULL;
}

static void *torture_reader(void *arg)
{
	struct torture *tt = arg;
	struct rng r = { (uintptr_t)arg };
	u64 missed = 0, checked = 0;

	while (!__atomic_load_n(&tt->stop, __ATOMIC_ACQUIRE)) {
		struct kbloom_key keys[64];
		u64 vals[64];
		unsigned long found;
		u32 w = rng_next(&r) % tt->shape->writers, j;
		u64 done = __atomic_load_n(&tt->done[w], __ATOMIC_ACQUIRE);

		if (!done)
			continue;
		for (j = 0; j < 64; j++) {
			vals[j] = torture_key(w, rng_next(&r) % done);
			keys[j].data = &vals[j];
			keys[j].len = 8;
		}
		missed += !kbloom_chain_lookup(&tt->c, &vals[0], 8);
		kbloom_chain_lookup_batch(&tt->c, keys, 64, &found);
		missed += 64 - hweight64(found);
		checked += 65;
	}
	__atomic_add_fetch(&tt->missed, missed, __ATOMIC_RELAXED);
	__atomic_add_fetch(&tt->checked, checked, __ATOMIC_RELAXED);
	return NULL;
}

/* Keys of writer w the chain misses, or (delete) fails to delete. */
static u64 torture_misses(struct torture *tt, u32 w, bool delete)
{
	u64 i, misses = 0;

	for (i = 0; i < tt->shape->keys; i++) {
		u64 v = torture_key(w, i);

		misses += delete ? !kbloom_chain_delete(&tt->c, &v, 8) :
				   !kbloom_chain_lookup(&tt->c, &v, 8);
	}
	return misses;
}

static void test_torture(const struct kbloom_test_type *t,
			 const struct torture_shape *shape)
{
	struct kbloom_chain_params cp = {
		.capacity = shape->capacity, .seed = 5, .type = t->type,
		.fp_ppb = shape->fp_ppb, .expansion = shape->expansion,
	};
	struct torture *tt = calloc(1, sizeof(*tt));
	struct torture_writer_arg wargs[TORTURE_WRITERS];
	pthread_t writers[TORTURE_WRITERS], readers[2], grower;
	u64 end_missed = 0, undeleted = 0;
	u32 w;

	tt->shape = shape;
	if (kbloom_chain_init(&tt->c, &cp)) {
		fail(SUITE, typed_name(shape->name, t), "init failed");
		free(tt);
		return;
	}
	pthread_create(&grower, NULL, torture_grower, tt);
	for (w = 0; w < 2; w++)
		pthread_create(&readers[w], NULL, torture_reader, tt);
	for (w = 0; w < shape->writers; w++) {
		wargs[w] = (struct torture_writer_arg){ tt, w };
		pthread_create(&writers[w], NULL, torture_writer, &wargs[w]);
	}
	for (w = 0; w < shape->writers; w++)
		pthread_join(writers[w], NULL);
	__atomic_store_n(&tt->stop, 1, __ATOMIC_RELEASE);
	pthread_join(grower, NULL);
	for (w = 0; w < 2; w++)
		pthread_join(readers[w], NULL);
	for (w = 0; w < shape->writers; w++)
		end_missed += torture_misses(tt, w, false);
	for (w = 0; w < kbloom_chain_subs(&tt->c); w++) {
		const struct kbloom_chain_sub *sub = kbloom_chain_sub(&tt->c, w);

		if ((u64)atomic64_read(&sub->keys) > sub->f.geo.capacity)
			tt->over++;
	}
	if (t->type == KBLOOM_TYPE_COUNTING) {
		for (w = 0; w < shape->writers; w += 2)
			undeleted += torture_misses(tt, w, true);
		for (w = 1; w < shape->writers; w += 2)
			end_missed += torture_misses(tt, w, false);
	}
	expect(!tt->missed && !end_missed && !undeleted && !tt->grow_err &&
	       !tt->over && tt->grows >= shape->min_grows && tt->checked > 0,
	       SUITE, typed_name(shape->name, t),
	       "%llu of %llu checks during the adds and %llu after (or after the deletes) missed a key; %llu deletes found none; %llu growths (error %d); %llu sub-filters past capacity",
	       (unsigned long long)tt->missed,
	       (unsigned long long)tt->checked,
	       (unsigned long long)end_missed,
	       (unsigned long long)undeleted,
	       (unsigned long long)tt->grows, tt->grow_err,
	       (unsigned long long)tt->over);
	printf("# %s/%s: %llu checks during the adds, %llu growths, %u sub-filters, %llu adds waited for a growth\n",
	       shape->name, t->name, (unsigned long long)tt->checked,
	       (unsigned long long)tt->grows, kbloom_chain_subs(&tt->c),
	       (unsigned long long)tt->waits);
	kbloom_chain_free(&tt->c);
	free(tt);
}

int main(void)
{
	const struct kbloom_test_type *t;
	size_t i;

	/* A window is refused (kunit/chain.c); the others grow. */
	for_each_host_type(t) {
		if (t->type == KBLOOM_TYPE_WINDOW)
			continue;
		for (i = 0; i < ARRAY_SIZE(torture_shapes); i++)
			test_torture(t, &torture_shapes[i]);
		test_accuracy(t);
	}
	return harness_exit();
}
