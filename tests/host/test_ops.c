// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * Operations: batched and single-key paths agree, counters count, clear,
 * merge and intersect do what they say and refuse incompatible filters, and
 * concurrent adds lose nothing.
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include "harness.h"

#define SUITE "ops"
#define NKEYS 50000

/* Variable-length keys (1..40 bytes), some repeated. */
static u8 key_bytes[NKEYS][40];
static struct kbloom_key keys[NKEYS];

static void make_keys(u64 salt)
{
	u32 i, j;

	for (i = 0; i < NKEYS; i++) {
		u64 r = mix64(salt + (i % 7 == 3 ? i / 2 : i));

		keys[i].len = 1 + r % 40;
		for (j = 0; j < keys[i].len; j++)
			key_bytes[i][j] = (u8)(mix64(r + j) >> 56);
		keys[i].data = key_bytes[i];
	}
}

static bool same_bits(const struct kbloom_filter *a,
		      const struct kbloom_filter *b)
{
	return !memcmp(a->words, b->words, a->geo.nblocks * 64);
}

static unsigned long results[BITS_TO_LONGS(NKEYS)];

static void test_batch_equals_single(void)
{
	struct kbloom_filter single, batch;
	u32 i, diff = 0, hits, single_hits = 0;

	make_keys(1);
	make_filter(&single, 300, 7, 11);
	make_filter(&batch, 300, 7, 11);

	/* Add the first half; results must start zeroed. */
	memset(results, 0xff, sizeof(results));
	hits = kbloom_add_batch(&batch, keys, NKEYS / 2, results);
	for (i = 0; i < NKEYS / 2; i++) {
		bool s = kbloom_add(&single, keys[i].data, keys[i].len);

		single_hits += s;
		diff += s != test_bit(i, results);
	}
	for (i = NKEYS / 2; i < BITS_TO_LONGS(NKEYS / 2) * BITS_PER_LONG;
	     i++)
		diff += test_bit(i, results);
	expect(!diff && hits == single_hits && same_bits(&single, &batch),
	       SUITE, "add_batch_equals_single",
	       "%u answers differ, hits %u vs %u", diff, hits, single_hits);

	/* Check every key: half present, half mostly absent. */
	hits = kbloom_check_batch(&batch, keys, NKEYS, results);
	diff = 0;
	single_hits = 0;
	for (i = 0; i < NKEYS; i++) {
		bool s = kbloom_check(&single, keys[i].data, keys[i].len);

		single_hits += s;
		diff += s != test_bit(i, results);
		diff += i < NKEYS / 2 && !s;
	}
	expect(!diff && hits == single_hits, SUITE,
	       "check_batch_equals_single", "%u answers differ, hits %u vs %u",
	       diff, hits, single_hits);

	expect(kbloom_check_batch(&batch, keys, NKEYS, NULL) == hits, SUITE,
	       "batch_without_results", "hit count changed without results");

	/* Odd batch sizes cross the prefetch window at every offset. */
	diff = 0;
	for (i = 1; i <= 70; i++) {
		u32 h = kbloom_check_batch(&batch, keys + i, i, results), j;
		u32 want = 0;

		for (j = 0; j < i; j++)
			want += kbloom_check(&single, keys[i + j].data,
					     keys[i + j].len);
		diff += h != want;
	}
	expect(!diff, SUITE, "batch_sizes_1_to_70", "%u sizes differ", diff);
	kbloom_filter_free(&single);
	kbloom_filter_free(&batch);
}

static void test_counters(void)
{
	struct kbloom_filter f;
	struct kbloom_stats st;
	u32 new_bits, hits;

	make_keys(2);
	make_filter(&f, 400, 6, 3);
	new_bits = kbloom_add_batch(&f, keys, 1000, NULL);
	new_bits += kbloom_add(&f, keys[0].data, keys[0].len);
	hits = kbloom_check_batch(&f, keys, 2000, NULL);
	hits += kbloom_check(&f, keys[1].data, keys[1].len);
	kbloom_get_stats(&f, &st);
	expect(st.add_calls == 1001 && st.add_new == new_bits &&
	       st.check_calls == 2001 && st.check_hits == hits &&
	       !kbloom_add(&f, keys[5].data, keys[5].len), SUITE, "counters",
	       "add %llu/%llu check %llu/%llu (want 1001/%u 2001/%u)",
	       (unsigned long long)st.add_calls,
	       (unsigned long long)st.add_new,
	       (unsigned long long)st.check_calls,
	       (unsigned long long)st.check_hits, new_bits, hits);
	kbloom_filter_free(&f);
}

static void test_clear(void)
{
	struct kbloom_filter f;
	struct kbloom_stats st;
	u64 w, nonzero = 0;

	make_keys(3);
	make_filter(&f, 5000, 7, 3);
	kbloom_add_batch(&f, keys, NKEYS, NULL);
	kbloom_check_batch(&f, keys, NKEYS, NULL);
	kbloom_clear(&f);
	for (w = 0; w < f.geo.nblocks * 8; w++)
		nonzero += f.words[w] != 0;
	kbloom_get_stats(&f, &st);
	expect(!nonzero && !st.add_calls && !st.add_new && !st.check_calls &&
	       !st.check_hits && !st.bits_set &&
	       !kbloom_check_batch(&f, keys, NKEYS, NULL), SUITE, "clear",
	       "%llu words still set", (unsigned long long)nonzero);
	kbloom_filter_free(&f);
}

static void test_merge_intersect(void)
{
	struct kbloom_filter a, b, c, expect_or, expect_and;
	struct kbloom_stats st;
	u64 w, wrong = 0;
	u32 missing;
	int ret;

	make_keys(4);
	make_filter(&a, 2000, 7, 9);
	make_filter(&b, 2000, 7, 9);
	make_filter(&c, 2000, 7, 9);
	make_filter(&expect_or, 2000, 7, 9);
	make_filter(&expect_and, 2000, 7, 9);
	/* a: keys 0..29999, b: keys 20000..49999 */
	kbloom_add_batch(&a, keys, 30000, NULL);
	kbloom_add_batch(&b, keys + 20000, 30000, NULL);
	for (w = 0; w < 2000 * 8; w++) {
		expect_or.words[w] = a.words[w] | b.words[w];
		expect_and.words[w] = a.words[w] & b.words[w];
	}
	memcpy(c.words, a.words, 2000 * 64);

	ret = kbloom_merge(&a, &b);
	missing = NKEYS - kbloom_check_batch(&a, keys, NKEYS, NULL);
	kbloom_get_stats(&a, &st);
	expect(!ret && same_bits(&a, &expect_or) && !missing &&
	       st.add_calls == 60000, SUITE, "merge_is_union",
	       "ret %d, %u keys missing, add_calls %llu", ret, missing,
	       (unsigned long long)st.add_calls);

	ret = kbloom_intersect(&c, &b);
	missing = 10000 - kbloom_check_batch(&c, keys + 20000, 10000, NULL);
	expect(!ret && same_bits(&c, &expect_and) && !missing, SUITE,
	       "intersect_is_and", "ret %d, %u common keys missing", ret,
	       missing);

	memcpy(expect_or.words, a.words, 2000 * 64);
	ret = kbloom_merge(&a, &a);
	wrong += !same_bits(&a, &expect_or);
	ret |= kbloom_intersect(&a, &a);
	wrong += !same_bits(&a, &expect_or);
	expect(!ret && !wrong, SUITE, "merge_intersect_self_noop",
	       "ret %d, changed %llu", ret, (unsigned long long)wrong);

	kbloom_filter_free(&a);
	kbloom_filter_free(&b);
	kbloom_filter_free(&c);
	kbloom_filter_free(&expect_or);
	kbloom_filter_free(&expect_and);
}

/* Each incompatibility refuses with -EXDEV and changes nothing. */
static void test_incompatible(void)
{
	static const struct {
		const char *name;
		u64 nblocks;
		u32 k;
		u64 seed;
		u32 type;
	} cases[] = {
		{ "exdev_nblocks", 101, 7, 1, 0 },
		{ "exdev_k", 100, 8, 1, 0 },
		{ "exdev_seed", 100, 7, 2, 0 },
		{ "exdev_type", 100, 7, 1, 1 },
	};
	unsigned int i;

	make_keys(5);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kbloom_filter dst, src, copy;
		int m, x;

		struct kbloom_geometry g = { .nblocks = cases[i].nblocks,
					     .k = cases[i].k,
					     .type = cases[i].type };

		make_filter(&dst, 100, 7, 1);
		make_filter(&copy, 100, 7, 1);
		make_filter_geo(&src, &g, cases[i].seed);
		kbloom_add_batch(&dst, keys, 500, NULL);
		kbloom_add_batch(&src, keys + 500, 500, NULL);
		memcpy(copy.words, dst.words, 100 * 64);
		m = kbloom_merge(&dst, &src);
		x = kbloom_intersect(&dst, &src);
		expect(m == -EXDEV && x == -EXDEV && same_bits(&dst, &copy) &&
		       !kbloom_compatible(&dst, &src) &&
		       counts_of(&dst).add_calls == 500, SUITE,
		       cases[i].name, "merge %d intersect %d", m, x);
		kbloom_filter_free(&dst);
		kbloom_filter_free(&src);
		kbloom_filter_free(&copy);
	}
}

/*
 * Lost updates only show while a block is sparse (a saturated block gets
 * every lost bit back from later keys), so the threads race on a fresh
 * one-block filter round after round, meeting at a spinning barrier so
 * that their adds overlap, and each round is compared with a serial build.
 */
#define RACE_ROUNDS	3000
#define RACE_KEYS	24

struct racer {
	struct kbloom_filter *f;
	unsigned int id;
};

static unsigned int race_arrived;

static void race_barrier(unsigned int *generation)
{
	unsigned int target = (++*generation) * 2, spins = 0;


	__atomic_add_fetch(&race_arrived, 1, __ATOMIC_SEQ_CST);
	/* Spin briefly so both leave together; yield if the peer is off CPU. */
	while (__atomic_load_n(&race_arrived, __ATOMIC_SEQ_CST) < target)
		if (++spins > 20000)
			sched_yield();
}

static void race_keys(u64 round, unsigned int id, u64 *vals,
		      struct kbloom_key *rk)
{
	unsigned int j;

	for (j = 0; j < RACE_KEYS; j++) {
		vals[j] = mix64(round * 2 * RACE_KEYS + id * RACE_KEYS + j);
		rk[j].data = &vals[j];
		rk[j].len = sizeof(vals[j]);
	}
}

/* Racers on one CPU take turns and never overlap: keep them apart. */
static void pin_to_cpu(unsigned int nth)
{
	cpu_set_t allowed, one;
	unsigned int cpu, seen = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || seen++ != nth)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
		return;
	}
}

static void *race_thread(void *arg)
{
	struct racer *r = arg;
	unsigned int generation = 0, j;
	struct kbloom_key rk[RACE_KEYS];
	u64 vals[RACE_KEYS], round;

	pin_to_cpu(r->id);
	for (round = 0; round < RACE_ROUNDS; round++) {
		race_keys(round, r->id, vals, rk);
		race_barrier(&generation);	/* filter cleared */
		if (r->id)
			kbloom_add_batch(r->f, rk, RACE_KEYS, NULL);
		else
			for (j = 0; j < RACE_KEYS; j++)
				kbloom_add(r->f, rk[j].data, rk[j].len);
		race_barrier(&generation);	/* adds done */
		race_barrier(&generation);	/* checked and cleared */
	}
	return NULL;
}

static void test_concurrent_adds(void)
{
	struct kbloom_filter shared, serial;
	struct racer r = { &shared, 1 };
	struct kbloom_key rk[RACE_KEYS];
	unsigned int generation = 0, lost_rounds = 0, id;
	u64 vals[RACE_KEYS], round, add_calls = 0;
	cpu_set_t all;
	pthread_t t;

	make_filter(&shared, 1, 3, 8);
	make_filter(&serial, 1, 3, 8);
	pthread_create(&t, NULL, race_thread, &r);
	pin_to_cpu(0);
	for (round = 0; round < RACE_ROUNDS; round++) {
		unsigned int j;

		race_keys(round, 0, vals, rk);
		race_barrier(&generation);
		for (j = 0; j < RACE_KEYS; j++)
			kbloom_add(&shared, rk[j].data, rk[j].len);
		race_barrier(&generation);
		kbloom_clear(&serial);
		for (id = 0; id < 2; id++) {
			race_keys(round, id, vals, rk);
			kbloom_add_batch(&serial, rk, RACE_KEYS, NULL);
		}
		lost_rounds += !same_bits(&shared, &serial);
		add_calls += counts_of(&shared).add_calls;
		kbloom_clear(&shared);
		race_barrier(&generation);
	}
	pthread_join(t, NULL);
	CPU_ZERO(&all);
	for (id = 0; id < CPU_SETSIZE; id++)
		CPU_SET(id, &all);
	pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
	expect(!lost_rounds && add_calls == RACE_ROUNDS * 2 * RACE_KEYS, SUITE,
	       "concurrent_adds_lose_nothing",
	       "%u of %u rounds lost bits, %llu adds counted", lost_rounds,
	       RACE_ROUNDS, (unsigned long long)add_calls);
	kbloom_filter_free(&shared);
	kbloom_filter_free(&serial);
}

/*
 * Counting filters: one thread adds its keys while the other deletes keys
 * added before the round.  Increments and decrements of one word race, so
 * a lost update would leave the block unlike the serial build of the added
 * keys alone.  One block of 128 counters stays far from 15, so the order
 * of the two threads' updates cannot matter.
 */
struct deleter {
	struct kbloom_filter *f;
	u32 removed;		/* keys the deleter removed, all rounds */
};

static void *delete_thread(void *arg)
{
	struct deleter *d = arg;
	unsigned int generation = 0;
	struct kbloom_key rk[RACE_KEYS];
	u64 vals[RACE_KEYS], round;

	pin_to_cpu(1);
	for (round = 0; round < RACE_ROUNDS; round++) {
		race_keys(round, 1, vals, rk);
		race_barrier(&generation);	/* filter holds its keys */
		d->removed += kbloom_delete_batch(d->f, rk, RACE_KEYS, NULL);
		race_barrier(&generation);	/* adds and deletes done */
		race_barrier(&generation);	/* checked and reset */
	}
	return NULL;
}

static void test_concurrent_add_delete(void)
{
	struct kbloom_geometry g = { .nblocks = 1, .k = 3,
				     .type = KBLOOM_TYPE_COUNTING };
	struct kbloom_filter shared, serial;
	struct deleter d = { &shared, 0 };
	struct kbloom_key rk[RACE_KEYS];
	unsigned int generation = 0, lost_rounds = 0, id;
	u64 vals[RACE_KEYS], round;
	cpu_set_t all;
	pthread_t t;

	__atomic_store_n(&race_arrived, 0, __ATOMIC_SEQ_CST);
	make_filter_geo(&shared, &g, 8);
	make_filter_geo(&serial, &g, 8);
	/* The first round's keys to delete, before the deleter waits. */
	race_keys(0, 1, vals, rk);
	kbloom_add_batch(&shared, rk, RACE_KEYS, NULL);
	pthread_create(&t, NULL, delete_thread, &d);
	pin_to_cpu(0);
	for (round = 0; round < RACE_ROUNDS; round++) {
		unsigned int j;

		race_keys(round, 0, vals, rk);
		race_barrier(&generation);
		for (j = 0; j < RACE_KEYS; j++)
			kbloom_add(&shared, rk[j].data, rk[j].len);
		race_barrier(&generation);
		kbloom_clear(&serial);
		kbloom_add_batch(&serial, rk, RACE_KEYS, NULL);
		lost_rounds += !same_bits(&shared, &serial);
		kbloom_clear(&shared);
		race_keys(round + 1, 1, vals, rk);
		kbloom_add_batch(&shared, rk, RACE_KEYS, NULL);
		race_barrier(&generation);
	}
	pthread_join(t, NULL);
	CPU_ZERO(&all);
	for (id = 0; id < CPU_SETSIZE; id++)
		CPU_SET(id, &all);
	pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
	expect(!lost_rounds && d.removed == RACE_ROUNDS * RACE_KEYS, SUITE,
	       "concurrent_add_delete_lose_nothing",
	       "%u of %u rounds differ, %u of %u deletes found their key",
	       lost_rounds, RACE_ROUNDS, d.removed, RACE_ROUNDS * RACE_KEYS);
	kbloom_filter_free(&shared);
	kbloom_filter_free(&serial);
}

int main(void)
{
	test_batch_equals_single();
	test_counters();
	test_clear();
	test_merge_intersect();
	test_incompatible();
	test_concurrent_adds();
	test_concurrent_add_delete();
	return harness_exit();
}
