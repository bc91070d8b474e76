// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * Operations racing on two threads, which the unit suite (kunit/ops.c)
 * cannot run: concurrent adds, and adds racing deletes, lose nothing, for
 * every type (that deletes).
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include "harness.h"

#define SUITE "ops"

static bool same_bits(const struct kbloom_filter *a,
		      const struct kbloom_filter *b)
{
	return !memcmp(a->words, b->words, a->geo.nblocks * 64);
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

static void unpin(void)
{
	cpu_set_t all;
	unsigned int cpu;

	CPU_ZERO(&all);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &all);
	pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
}

/* The main thread's part of a round: its adds, one by one. */
static void race_main_adds(struct kbloom_filter *shared, u64 round,
			   unsigned int *generation, u64 *vals,
			   struct kbloom_key *rk)
{
	unsigned int j;

	race_keys(round, 0, vals, rk);
	race_barrier(generation);	/* filter ready */
	for (j = 0; j < RACE_KEYS; j++)
		kbloom_add(shared, rk[j].data, rk[j].len);
	race_barrier(generation);	/* both threads done */
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

static void test_concurrent_adds(const struct kbloom_test_type *type)
{
	struct kbloom_filter shared, serial;
	struct racer r = { &shared, 1 };
	struct kbloom_key rk[RACE_KEYS];
	unsigned int generation = 0, lost_rounds = 0, id;
	u64 vals[RACE_KEYS], round, add_calls = 0;
	pthread_t t;

	__atomic_store_n(&race_arrived, 0, __ATOMIC_SEQ_CST);
	make_filter_type(&shared, type, 1, 3, 8);
	make_filter_type(&serial, type, 1, 3, 8);
	pthread_create(&t, NULL, race_thread, &r);
	pin_to_cpu(0);
	for (round = 0; round < RACE_ROUNDS; round++) {
		race_main_adds(&shared, round, &generation, vals, rk);
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
	unpin();
	expect(!lost_rounds && add_calls == RACE_ROUNDS * 2 * RACE_KEYS, SUITE,
	       typed_name("concurrent_adds_lose_nothing", type),
	       "%u of %u rounds lost bits, %llu adds counted", lost_rounds,
	       RACE_ROUNDS, (unsigned long long)add_calls);
	kbloom_filter_free(&shared);
	kbloom_filter_free(&serial);
}

/*
 * Types that delete: one thread adds its keys while the other deletes keys
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

static void test_concurrent_add_delete(const struct kbloom_test_type *type)
{
	struct kbloom_geometry g = { .nblocks = 1, .k = 3,
				     .type = type->type };
	struct kbloom_filter shared, serial;
	struct deleter d = { &shared, 0 };
	struct kbloom_key rk[RACE_KEYS];
	unsigned int generation = 0, lost_rounds = 0;
	u64 vals[RACE_KEYS], round;
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
		race_main_adds(&shared, round, &generation, vals, rk);
		kbloom_clear(&serial);
		kbloom_add_batch(&serial, rk, RACE_KEYS, NULL);
		lost_rounds += !same_bits(&shared, &serial);
		kbloom_clear(&shared);
		race_keys(round + 1, 1, vals, rk);
		kbloom_add_batch(&shared, rk, RACE_KEYS, NULL);
		race_barrier(&generation);
	}
	pthread_join(t, NULL);
	unpin();
	expect(!lost_rounds && d.removed == RACE_ROUNDS * RACE_KEYS, SUITE,
	       typed_name("concurrent_add_delete_lose_nothing", type),
	       "%u of %u rounds differ, %u of %u deletes found their key",
	       lost_rounds, RACE_ROUNDS, d.removed, RACE_ROUNDS * RACE_KEYS);
	kbloom_filter_free(&shared);
	kbloom_filter_free(&serial);
}

int main(void)
{
	const struct kbloom_test_type *t;

	for_each_host_type(t) {
		test_concurrent_adds(t);
		if (t->deletes)
			test_concurrent_add_delete(t);
	}
	return harness_exit();
}
