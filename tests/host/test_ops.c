// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * Operations racing on two threads, which the unit suite (kunit/ops.c)
 * cannot run: concurrent adds, and adds racing deletes, lose nothing, for
 * every type (that deletes); a window's rotations racing adds and checks
 * lose no key inside its window.
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

/*
 * A window rotating while one thread adds and another checks: a key whose
 * add began fewer than g - 1 rotations before its check ended is found
 * (kbloom_core.h: a rotation's store to live adds the new current plane
 * before adds can reach it, and the retired plane is cleared only after it
 * left live).  The rotator announces each rotation before it begins and
 * counts it finished after: a check that ends reading a announced has seen
 * at most a rotations begin, and an add that began reading f finished
 * began after at least f; so a - f < g - 1 must find the key.  Between
 * rotations the rotator waits for ROT_EVERY adds, so that most checks fall
 * outside a rotation and keys of every age up to g - 2 rotations are held
 * to it; the adder waits when 4 rotations' worth ahead.
 */
#define ROT_KEYS	200000
#define ROT_EVERY	32
#define ROT_RECENT	2000

struct rot_race {
	struct kbloom_filter *f;
	u64 *start;		/* per key: rotations finished before its add */
	u64 added;		/* keys whose add returned */
	u64 announced;		/* rotations begun or about to */
	u64 finished;		/* rotations that returned */
	u64 rotated_at;		/* added when the last one returned */
	int done;
};

static u64 rot_load(const u64 *v)
{
	return __atomic_load_n(v, __ATOMIC_ACQUIRE);
}

static void *rot_adder(void *arg)
{
	struct rot_race *r = arg;
	u64 i;

	pin_to_cpu(0);
	for (i = 0; i < ROT_KEYS; i++) {
		u64 v = mix64(i);

		/* no further ahead of the rotator than 4 rotations' worth */
		while (i - rot_load(&r->rotated_at) > 4 * ROT_EVERY)
			sched_yield();
		r->start[i] = rot_load(&r->finished);
		kbloom_add(r->f, &v, sizeof(v));
		__atomic_store_n(&r->added, i + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *rot_rotator(void *arg)
{
	struct rot_race *r = arg;
	u64 last = 0;

	pin_to_cpu(1);
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		u64 now = rot_load(&r->added);

		if (now - last < ROT_EVERY) {
			sched_yield();
			continue;
		}
		__atomic_add_fetch(&r->announced, 1, __ATOMIC_SEQ_CST);
		if (kbloom_window_rotate(r->f))
			break;
		__atomic_add_fetch(&r->finished, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&r->rotated_at, now, __ATOMIC_RELEASE);
		last = now;
	}
	return NULL;
}

static void test_window_rotation_race(const struct kbloom_test_type *t)
{
	const u32 g = t->generations;
	u64 checked = 0, missed = 0, seed = 1, at_edge = 0;
	struct rot_race r = { 0 };
	struct kbloom_filter f;
	pthread_t adder, rotator;

	make_filter_type(&f, t, 256, 7, 21);
	r.f = &f;
	r.start = calloc(ROT_KEYS, sizeof(*r.start));
	pthread_create(&adder, NULL, rot_adder, &r);
	pthread_create(&rotator, NULL, rot_rotator, &r);
	while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE)) {
		u64 added = rot_load(&r.added), i, v, after;
		bool found;

		/* the adder and the rotator may share this CPU */
		if (!added || !(seed % 64))
			sched_yield();
		if (!added)
			continue;
		/* a recent key, often the very last one */
		i = added - 1 - (seed & 1 ? 0 : mix64(seed) %
			(added < ROT_RECENT ? added : ROT_RECENT));
		seed++;
		v = mix64(i);
		found = kbloom_lookup(&f, &v, sizeof(v));
		after = rot_load(&r.announced);
		if (after - r.start[i] > g - 2)
			continue;
		checked++;
		at_edge += after - r.start[i] == g - 2;
		missed += !found;
	}
	pthread_join(adder, NULL);
	pthread_join(rotator, NULL);
	unpin();
	printf("# %s g %u: %llu rotations during %u adds, %llu checks inside the window (%llu at its edge), %llu missed\n",
	       t->name, g, (unsigned long long)r.finished, ROT_KEYS,
	       (unsigned long long)checked, (unsigned long long)at_edge,
	       (unsigned long long)missed);
	expect(!missed && at_edge > 1000 && r.finished > 1000, SUITE,
	       typed_name("window_rotation_race_loses_nothing", t),
	       "%llu of %llu checks inside the window missed (%llu at its edge), %llu rotations",
	       (unsigned long long)missed, (unsigned long long)checked,
	       (unsigned long long)at_edge, (unsigned long long)r.finished);
	free(r.start);
	kbloom_filter_free(&f);
}

int main(void)
{
	const struct kbloom_test_type *t;

	for_each_host_type(t) {
		test_concurrent_adds(t);
		if (t->deletes)
			test_concurrent_add_delete(t);
		if (t->generations)
			test_window_rotation_race(t);
	}
	return harness_exit();
}
