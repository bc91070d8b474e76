// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * Scalable filters (kbloom_chain.h): the schedule of sub-filters, the exact
 * model of a chain's rate, and the chain itself.
 *
 * The schedule gives sub-filter i the rate t_i = fp / ((i + 1) (i + 2)).
 * The paper's, and RedisBloom's, is geometric instead: fp (1 - r) r^i with
 * r = 1/2.  Both start at fp / 2; the geometric one spends a constant
 * number of bits per key more on each next sub-filter (about 1.44 log2 of
 * 1/r for an unblocked filter), this one about 2.9 log2 of (i + 2) / i,
 * which shrinks.  With expansion 1, where every sub-filter is the same
 * size, that is the difference between memory per key that grows with
 * the number of sub-filters and memory per key that grows with its log:
 * the geometric rate of sub-filter 1000 would be 2^-1001 fp, which no k
 * of a 64-byte block reaches.  Sized by this core (bits type, a first
 * capacity of 100,000 keys; all sub-filters' memory over the keys at 10,
 * 100 and 1,000 times it; 2026-12-04), in bytes per key, this schedule
 * against the geometric one:
 *   expansion 1, fp 1 %:   2.30 / 2.53,  3.98 / -,  6.72 / -
 *   expansion 1, fp 0.1 %: 3.18 / 3.45,  5.21 / -,  8.74 / -
 *   expansion 2, fp 1 %:   3.06 / 2.92,  3.10 / 3.34,  2.79 / 3.54
 *   expansion 2, fp 0.1 %: 4.31 / 4.15,  4.25 / 4.53,  3.77 / 4.66
 *   expansion 4, fp 1 %:   4.09 / 3.83,  7.79 / 7.77,  3.29 / 3.45
 *   expansion 4, fp 0.1 %: 5.80 / 5.50, 10.76 / 10.74, 4.51 / 4.70
 * ("-": the geometric chain ends at 39 and 35 sub-filters, where its rate
 * falls below what a block can reach).  At 10 times, with 3 or 4
 * sub-filters, this one spends 4 to 7 % more; from 100 times on, up to
 * 21 % less, and it is the only one that reaches 1,000 times with
 * expansion 1.
 *
 * Proof of the bound.  Sizing (kbloom_geometry_from_rate_ppb16()) gives
 * sub-filter i a geometry whose model rate f_i(n) at its capacity c_i
 * (plus 1/128) is at most t_i, rounded down to 2^-16 ppb, so at most
 * fp / ((i + 1) (i + 2)); f_i rises with n, so f_i(n_i) <= t_i while it
 * holds n_i <= c_i keys.  An absent key is a false positive of the chain
 * when some sub-filter answers "maybe", and by the union bound, which
 * needs no independence, that has a chance of at most
 *   sum over i < N of t_i  <=  fp * sum over i < N of (1/(i+1) - 1/(i+2))
 *                           =  fp * (1 - 1/(N + 1))  <  fp
 * for a chain of N sub-filters, whatever N.  No add takes a sub-filter
 * past its capacity, however many race: each reserves its place in the
 * count before it writes (sub_reserve()), and only the newest, unsealed,
 * takes new keys.  Only a merge passes a capacity, and the rate is then
 * the model's for what the sub-filters hold.
 */
#include "kbloom_chain.h"
#include "kbloom_formula.h"
#include "kbloom_hash.h"

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#endif

/*
 * The adds that may have found the newest sub-filter unsealed, waited for
 * by a counting chain's growth (kbloom_chain_grow_publish()).  In the
 * kernel an add is an RCU read-side section of its own, which costs it
 * nothing, and the wait is a grace period: an add that began before the
 * seal has ended by then, and one that began after it sees the seal.  In
 * userspace (the host tests' threads) a count of the adds in flight does
 * it, each step sequentially consistent, so the seal's store and the
 * count's load are not reordered.
 */
#ifdef __KERNEL__
static void chain_adders_enter(struct kbloom_chain *c)
	__acquires(RCU)
{
	rcu_read_lock();
}

static void chain_adders_leave(struct kbloom_chain *c)
	__releases(RCU)
{
	rcu_read_unlock();
}

static void chain_adders_wait(struct kbloom_chain *c)
{
	synchronize_rcu();
}
#else
static void chain_adders_enter(struct kbloom_chain *c)
{
	__atomic_add_fetch(&c->adders, 1, __ATOMIC_SEQ_CST);
	/* Before the load of the seal, as the grower's wait is after it. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void chain_adders_leave(struct kbloom_chain *c)
{
	__atomic_sub_fetch(&c->adders, 1, __ATOMIC_SEQ_CST);
}

static void chain_adders_wait(struct kbloom_chain *c)
{
	unsigned int spins = 0;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	while (__atomic_load_n(&c->adders, __ATOMIC_SEQ_CST)) {
		/* An adder here can be preempted: see spin_lock()'s. */
		if (++spins % COMPAT_SPINS_BEFORE_YIELD)
			compat_cpu_relax();
		else
			sched_yield();
	}
}
#endif

/* Sub-filter i's core filter. */
static __always_inline struct kbloom_filter *
sub_filter(const struct kbloom_chain *c, u32 i)
{
	return &kbloom_chain_sub(c, i)->f;
}

int kbloom_chain_params_validate(const struct kbloom_chain_params *cp)
{
	if (cp->type != KBLOOM_TYPE_BITS && cp->type != KBLOOM_TYPE_COUNTING)
		return -EINVAL;
	if (!cp->capacity || cp->fp_ppb < KBLOOM_MIN_FP_PPB ||
	    cp->fp_ppb >= KBLOOM_PPB)
		return -EINVAL;
	if (cp->expansion < KBLOOM_EXPANSION_MIN ||
	    cp->expansion > KBLOOM_EXPANSION_MAX)
		return -EINVAL;
	return 0;
}

/*
 * capacity * expansion^index, or 0 past the schedule's end: index at
 * KBLOOM_CHAIN_MAX_SUBS or more, or a capacity over 2^64 - 1.
 */
static u64 sub_capacity(const struct kbloom_chain_params *cp, u32 index)
{
	u64 cap = cp->capacity;
	u32 i;

	if (index >= KBLOOM_CHAIN_MAX_SUBS)
		return 0;
	for (i = 0; i < index; i++)
		if (check_mul_overflow(cap, (u64)cp->expansion, &cap))
			return 0;
	return cap;
}

u32 kbloom_chain_max_subs(const struct kbloom_chain_params *cp)
{
	u64 cap = cp->capacity;
	u32 n = 1;

	if (kbloom_chain_params_validate(cp))
		return 0;
	/* One walk: sub_capacity() of each n would multiply n times. */
	while (n < KBLOOM_CHAIN_MAX_SUBS &&
	       !check_mul_overflow(cap, (u64)cp->expansion, &cap))
		n++;
	return n;
}

u64 kbloom_chain_sub_target_ppb16(u32 fp_ppb, u32 index)
{
	/* index < 2^16 in any chain, so the divisor cannot overflow. */
	return div64_u64((u64)fp_ppb << 16,
			 ((u64)index + 1) * ((u64)index + 2));
}

u64 kbloom_chain_sub_seed(u64 seed, u32 index)
{
	/*
	 * seed + index * (an odd number) differs for every index, and the
	 * xxh64 avalanche is a bijection, so no two of sub-filters 1 .. n
	 * share a seed (one equal to sub-filter 0's, the seed itself, is a
	 * 2^-64 chance).
	 */
	if (!index)
		return seed;
	return kbloom_xxh64_avalanche(seed + (u64)index * KBLOOM_XXH_P1);
}

int kbloom_chain_sub_geometry(struct kbloom_geometry *geo,
			      const struct kbloom_chain_params *cp, u32 index)
{
	u64 capacity, target;
	int ret;

	memset(geo, 0, sizeof(*geo));
	ret = kbloom_chain_params_validate(cp);
	if (ret)
		return ret;
	capacity = sub_capacity(cp, index);
	target = kbloom_chain_sub_target_ppb16(cp->fp_ppb, index);
	if (!capacity || !target)
		return -E2BIG;
	ret = kbloom_geometry_from_rate_ppb16(geo, cp->type, 0, capacity,
					      target);
	if (ret)
		return ret;
	geo->seed = kbloom_chain_sub_seed(cp->seed, index);
	return 0;
}

int kbloom_chain_plan(const struct kbloom_chain_params *cp, u64 n,
		      u32 *subs, u64 *bytes, u64 *rate_ppb16)
{
	u64 pass62 = KBLOOM_CHAIN_PASS_ONE;
	u32 i;

	*subs = 0;
	*bytes = 0;
	*rate_ppb16 = 0;
	for (i = 0; !i || n; i++) {
		struct kbloom_geometry geo;
		u64 held;
		int ret = kbloom_chain_sub_geometry(&geo, cp, i);

		if (ret)
			return ret;
		held = min_t(u64, n, geo.capacity);
		pass62 = kbloom_chain_pass62(pass62, &geo, held);
		*bytes += kbloom_geometry_bytes(&geo);
		n -= held;
	}
	*subs = i;
	*rate_ppb16 = kbloom_chain_rate_ppb16(pass62);
	return 0;
}

/* 2^78 / 10^9 rounded down: ppb << 16 to a fraction of 2^62, << 32. */
#define KBLOOM_PPB16_TO_2_94	302231454903657ULL

/* pass62 times the chance 1 - f of passing one more sub-filter. */
static u64 pass62_fold(u64 pass62, u64 f_ppb16)
{
	u64 f62 = min_t(u64, mul_u64_u64_shr(min_t(u64, f_ppb16,
						   KBLOOM_PPB16_ONE),
					     KBLOOM_PPB16_TO_2_94, 32),
			KBLOOM_CHAIN_PASS_ONE);

	return mul_u64_u64_shr(pass62, KBLOOM_CHAIN_PASS_ONE - f62, 62);
}

u64 kbloom_chain_pass62(u64 pass62, const struct kbloom_geometry *geo,
			u64 keys)
{
	struct kbloom_fp_model m;

	kbloom_fp_model_init_cells(&m, geo->k, kbloom_cells_order(geo->type));
	return pass62_fold(pass62, kbloom_fp_model_ppb16(&m, keys,
							 geo->nblocks));
}

u64 kbloom_chain_rate_ppb16(u64 pass62)
{
	return mul_u64_u64_shr(KBLOOM_CHAIN_PASS_ONE - pass62,
			       KBLOOM_PPB16_ONE, 62);
}

/*
 * Build sub-filter index into its slot, unpublished: readers of the count
 * do not see it yet.  Nothing changes on failure but the slot, which no
 * reader of the count can reach.
 */
static int chain_build_sub(struct kbloom_chain *c, u32 index)
{
	struct kbloom_chain_sub *sub;
	struct kbloom_geometry geo;
	int ret;

	ret = kbloom_chain_sub_geometry(&geo, &c->params, index);
	if (ret)
		return ret;
	/* kcalloc: the filter's window part wants its cache lines. */
	sub = kcalloc(1, sizeof(*sub), GFP_KERNEL_ACCOUNT);
	if (!sub)
		return -ENOMEM;
	ret = kbloom_filter_init(&sub->f, &geo);
	if (ret) {
		kfree(sub);
		return ret;
	}
	atomic64_set(&sub->keys, 0);
	/* The sub-filter whole before its slot: see kbloom_chain_sub(). */
	rcu_assign_pointer(c->subs[index], sub);
	return 0;
}

static int chain_add_sub(struct kbloom_chain *c, u32 index)
{
	int ret = chain_build_sub(c, index);

	if (!ret)
		kbloom_chain_grow_publish(c);
	return ret;
}

int kbloom_chain_init(struct kbloom_chain *c,
		      const struct kbloom_chain_params *cp)
{
	int ret;

	memset(c, 0, sizeof(*c));
	ret = kbloom_chain_params_validate(cp);
	if (ret)
		return ret;
	c->params = *cp;
	c->subs = kcalloc(kbloom_chain_max_subs(cp), sizeof(*c->subs),
			  GFP_KERNEL_ACCOUNT);
	if (!c->subs)
		return -ENOMEM;
	ret = chain_add_sub(c, 0);
	if (ret) {
		kfree(c->subs);
		c->subs = NULL;
	}
	return ret;
}

int kbloom_chain_grow(struct kbloom_chain *c)
{
	return chain_add_sub(c, c->nsubs);
}

int kbloom_chain_grow_prepare(struct kbloom_chain *c)
{
	return chain_build_sub(c, c->nsubs);
}

void kbloom_chain_grow_publish(struct kbloom_chain *c)
{
	/*
	 * The newest takes no new key from here on.  A counting chain then
	 * waits for every add that may have found it unsealed: a key that
	 * reached the old newest after another reached the new one could
	 * make it answer "maybe" for that other key, and move its home.
	 * A bits chain has no home to keep (it deletes nothing), and its
	 * capacity is kept by sub_reserve() alone.
	 */
	if (c->nsubs) {
		WRITE_ONCE(kbloom_chain_sub(c, c->nsubs - 1)->sealed, true);
		if (c->params.type == KBLOOM_TYPE_COUNTING)
			chain_adders_wait(c);
	}
	/* Readers that see the count see the sub-filter it covers. */
	smp_store_release(&c->nsubs, c->nsubs + 1);
}

void kbloom_chain_free(struct kbloom_chain *c)
{
	u32 i;

	for (i = 0; i < c->nsubs; i++) {
		kbloom_filter_free(sub_filter(c, i));
		kfree(kbloom_chain_sub(c, i));
	}
	kfree(c->subs);
	c->subs = NULL;
	c->nsubs = 0;
}

u64 kbloom_chain_held(const struct kbloom_chain_params *cp)
{
	return kmalloc_size_roundup(kbloom_chain_max_subs(cp) *
				    sizeof(struct kbloom_chain_sub *));
}

u64 kbloom_chain_sub_held(const struct kbloom_geometry *geo)
{
	return kmalloc_size_roundup(sizeof(struct kbloom_chain_sub)) +
	       kbloom_filter_held(geo);
}

/* A sub-filter has taken its capacity of new keys. */
static bool sub_full(const struct kbloom_chain_sub *sub)
{
	return (u64)atomic64_read(&sub->keys) >= sub->f.geo.capacity;
}

bool kbloom_chain_full(const struct kbloom_chain *c)
{
	return sub_full(kbloom_chain_sub(c, kbloom_chain_subs(c) - 1));
}

/*
 * A key is hashed once, with sub-filter 0's seed (kbloom_hash()), and
 * sub-filter i > 0 probes a hash derived from that one and its own seed:
 * h ^ seed_i through the xxh64 avalanche, a bijection, so distinct
 * hashes stay distinct and each sub-filter sees hashes unrelated to the
 * others'.  A check of an absent key then costs one hash of the key and
 * six instructions per further sub-filter instead of a hash each.
 * test_chain measures the chains' rates against the model of independent
 * sub-filters, which this must not bend.
 */
static __always_inline u64 sub_hash(const struct kbloom_chain *c, u32 i,
				    u64 h)
{
	if (!i)
		return h;
	return kbloom_xxh64_avalanche(h ^ sub_filter(c, i)->geo.seed);
}

static __always_inline u64 key_hash(const struct kbloom_chain *c,
				    const void *key, u32 len)
{
	return kbloom_hash(sub_filter(c, 0), key, len);
}

/*
 * The oldest sub-filter that answers "maybe" for a key, or nsubs.  A
 * key's adds and deletes all go to it, its home, and it stays the oldest
 * that answers "maybe" while the key is there: only the newest sub-filter
 * takes new keys, so one older than the home, which answered "no" when
 * the key first came, sets no further cell, and a counting home keeps the
 * key's counters above zero until its last delete.
 */
static u32 chain_home(const struct kbloom_chain *c, u32 n, u64 h)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (kbloom_lookup_hash(sub_filter(c, i), sub_hash(c, i, h)))
			break;
	return i;
}

/*
 * A place among the newest's capacity for a new key, taken before its
 * cells are written, so that adders racing each other never take it past
 * its capacity together: false when it is full (sub_full()).  The caller
 * checks the seal first (kbloom_chain_grow_publish()).
 */
static bool sub_reserve(struct kbloom_chain_sub *sub)
{
	s64 keys = atomic64_read(&sub->keys);

	do {
		if ((u64)keys >= sub->f.geo.capacity)
			return false;
	} while (!atomic64_try_cmpxchg(&sub->keys, &keys, keys + 1));
	return true;
}

static int chain_add_hash(struct kbloom_chain *c, u64 h)
{
	struct kbloom_chain_sub *newest;
	u32 n, home;

again:
	n = kbloom_chain_subs(c);
	home = chain_home(c, n, h);
	if (home < n) {
		/*
		 * Known: a counting home counts it once more, unless a delete
		 * emptied one of its cells since it was looked at; then
		 * its home is elsewhere now (or it is new), and counting it
		 * here would set a cell of an older sub-filter.
		 */
		if (c->params.type == KBLOOM_TYPE_COUNTING &&
		    !kbloom_count_known_hash(sub_filter(c, home),
					     sub_hash(c, home, h)))
			goto again;
		return 0;
	}
	newest = kbloom_chain_sub(c, n - 1);
	if (READ_ONCE(newest->sealed)) {
		/* Published meanwhile: the next one takes it. */
		if (kbloom_chain_subs(c) != n)
			goto again;
		return -EAGAIN;
	}
	if (!sub_reserve(newest))
		return -EAGAIN;
	if (kbloom_add_hash(&newest->f, sub_hash(c, n - 1, h)))
		return 1;
	/* A racing add of the same key set its cells first: not new. */
	atomic64_dec(&newest->keys);
	return 0;
}

int kbloom_chain_add(struct kbloom_chain *c, const void *key, u32 len)
{
	u64 h = key_hash(c, key, len);
	int ret;

	chain_adders_enter(c);
	ret = chain_add_hash(c, h);
	chain_adders_leave(c);
	return ret;
}

bool kbloom_chain_delete(struct kbloom_chain *c, const void *key, u32 len)
{
	u32 n = kbloom_chain_subs(c), home;
	u64 h;

	if (c->params.type != KBLOOM_TYPE_COUNTING)
		return false;
	h = key_hash(c, key, len);
	home = chain_home(c, n, h);
	return home < n &&
	       kbloom_delete_hash(sub_filter(c, home), sub_hash(c, home, h));
}

/*
 * Newest first: it is the largest (with expansion 2, it holds about half
 * the keys), so a key that is there is found after one probe.
 */
bool kbloom_chain_lookup(const struct kbloom_chain *c, const void *key,
			 u32 len)
{
	u32 i = kbloom_chain_subs(c);
	u64 h = key_hash(c, key, len);

	while (i--)
		if (kbloom_lookup_hash(sub_filter(c, i), sub_hash(c, i, h)))
			return true;
	return false;
}

/*
 * BITS_PER_LONG keys at a time: each hashed once, then a sub-filter at a
 * time, newest first, the keys not yet found have their blocks all
 * prefetched and then probed (kbloom_lookup_hashes()), so up to 64 misses
 * are in flight at once; the walk ends once every key is found.
 */
u32 kbloom_chain_lookup_batch(const struct kbloom_chain *c,
			      const struct kbloom_key *keys, u32 n,
			      unsigned long *results)
{
	u32 subs = kbloom_chain_subs(c), first, found = 0;

	for (first = 0; first < n; first += BITS_PER_LONG) {
		u32 m = min_t(u32, n - first, BITS_PER_LONG), i = subs, j;
		u64 h[BITS_PER_LONG], sub[BITS_PER_LONG];
		u8 idx[BITS_PER_LONG];
		unsigned long hits = 0;

		for (j = 0; j < m; j++)
			h[j] = key_hash(c, keys[first + j].data,
					keys[first + j].len);
		while (i--) {
			unsigned long part;
			u32 left = 0;

			for (j = 0; j < m; j++)
				if (!(hits >> j & 1)) {
					idx[left] = (u8)j;
					sub[left++] = sub_hash(c, i, h[j]);
				}
			if (!left)
				break;
			part = kbloom_lookup_hashes(sub_filter(c, i), sub,
						    left);
			while (part) {
				hits |= 1UL << idx[__ffs64(part)];
				part &= part - 1;
			}
		}
		if (results)
			results[first / BITS_PER_LONG] = hits;
		found += hweight_long(hits);
	}
	return found;
}

u64 kbloom_chain_model_ppb16(const struct kbloom_chain *c)
{
	u32 i, n = kbloom_chain_subs(c);
	u64 pass62 = KBLOOM_CHAIN_PASS_ONE;

	for (i = 0; i < n; i++) {
		const struct kbloom_chain_sub *sub = kbloom_chain_sub(c, i);

		pass62 = kbloom_chain_pass62(pass62, &sub->f.geo,
					     atomic64_read(&sub->keys));
	}
	return kbloom_chain_rate_ppb16(pass62);
}

u64 kbloom_chain_bytes(const struct kbloom_chain *c)
{
	u32 i, n = kbloom_chain_subs(c);
	u64 bytes = 0;

	for (i = 0; i < n; i++)
		bytes += kbloom_geometry_bytes(&sub_filter(c, i)->geo);
	return bytes;
}

void kbloom_chain_sub_stats(const struct kbloom_chain *c, u32 index,
			    const struct kbloom_cell_stats *cells,
			    struct kbloom_chain_sub_stats *st)
{
	const struct kbloom_chain_sub *sub = kbloom_chain_sub(c, index);
	struct kbloom_cell_stats cs;

	if (cells)
		cs = *cells;
	else
		kbloom_scan_cells(&sub->f, &cs);
	*st = (struct kbloom_chain_sub_stats){
		.capacity = sub->f.geo.capacity,
		.keys = (u64)atomic64_read(&sub->keys),
		.nblocks = sub->f.geo.nblocks,
		.seed = sub->f.geo.seed,
		.bits_set = cs.bits_set,
		.est_keys = cs.est_keys,
		.bytes = kbloom_geometry_bytes(&sub->f.geo),
		.fill_ppb = cs.fill_ppb,
		.fp_now_ppb = cs.fp_now_ppb,
		.fp_target_ppb = sub->f.geo.fp_target_ppb,
		.k = sub->f.geo.k,
	};
}

u32 kbloom_chain_scan(const struct kbloom_chain *c,
		      struct kbloom_cell_stats *sub,
		      struct kbloom_cell_stats *total)
{
	u32 i, n = kbloom_chain_subs(c);
	u32 order = kbloom_cells_order(c->params.type);
	u64 pass62 = KBLOOM_CHAIN_PASS_ONE, nblocks = 0, set, num;

	memset(total, 0, sizeof(*total));
	for (i = 0; i < n; i++) {
		const struct kbloom_filter *f = sub_filter(c, i);
		struct kbloom_cell_stats one;

		kbloom_scan_cells(f, &one);
		if (sub)
			sub[i] = one;
		total->bits_set += one.bits_set;
		total->est_keys += one.est_keys;
		nblocks += f->geo.nblocks;
		pass62 = pass62_fold(pass62, (u64)one.fp_now_ppb << 16);
	}
	/*
	 * As a filter's fill (kbloom_scan_cells()): 10^9 / cells a block is
	 * exact; past 2^64 (over 2^44 blocks in all) both halve.
	 */
	set = total->bits_set;
	while (check_mul_overflow(set, (u64)(KBLOOM_PPB >> order), &num)) {
		set >>= 1;
		nblocks >>= 1;
	}
	if (nblocks)
		total->fill_ppb = (u32)div64_u64(num, nblocks);
	total->fp_now_ppb = (u32)(kbloom_chain_rate_ppb16(pass62) >> 16);
	return n;
}

u32 kbloom_chain_fp_now_ppb(const struct kbloom_chain *c)
{
	struct kbloom_cell_stats total;

	kbloom_chain_scan(c, NULL, &total);
	return total.fp_now_ppb;
}

struct kbloom_chain_sub *kbloom_chain_detach(struct kbloom_chain *c)
{
	return kbloom_chain_truncate(c, 1);
}

struct kbloom_chain_sub *kbloom_chain_truncate(struct kbloom_chain *c,
					       u32 subs)
{
	struct kbloom_chain_sub *list = NULL;
	u32 i = c->nsubs;

	if (i <= subs)
		return NULL;
	/* Growers are serialised with this (the caller's part). */
	smp_store_release(&c->nsubs, subs);
	/* The newest again: it takes new keys. */
	WRITE_ONCE(kbloom_chain_sub(c, subs - 1)->sealed, false);
	while (--i >= subs) {
		WRITE_ONCE(kbloom_chain_sub(c, i)->f.walks_stop, true);
		kbloom_chain_sub(c, i)->retired = list;
		list = kbloom_chain_sub(c, i);
	}
	return list;
}

void kbloom_chain_free_subs(struct kbloom_chain_sub *list)
{
	while (list) {
		struct kbloom_chain_sub *next = list->retired;

		kbloom_filter_free(&list->f);
		kfree(list);
		list = next;
	}
}

void kbloom_chain_clear(struct kbloom_chain *c)
{
	/* Readers are gone (the caller's part): free at once. */
	kbloom_chain_free_subs(kbloom_chain_detach(c));
	kbloom_clear(sub_filter(c, 0));
	atomic64_set(&kbloom_chain_sub(c, 0)->keys, 0);
}

int kbloom_chain_merge_supported(const struct kbloom_chain *c)
{
	return c->params.type == KBLOOM_TYPE_COUNTING ? -EOPNOTSUPP : 0;
}

bool kbloom_chain_compatible(const struct kbloom_chain *a,
			     const struct kbloom_chain *b)
{
	return a->params.capacity == b->params.capacity &&
	       a->params.seed == b->params.seed &&
	       a->params.type == b->params.type &&
	       a->params.fp_ppb == b->params.fp_ppb &&
	       a->params.expansion == b->params.expansion;
}

int kbloom_chain_merge(struct kbloom_chain *dst,
		       const struct kbloom_chain *src)
{
	u32 n = kbloom_chain_subs(src);
	int ret;

	ret = kbloom_chain_merge_supported(dst);
	if (ret)
		return ret;
	if (!kbloom_chain_compatible(dst, src))
		return -EXDEV;
	if (dst == src)
		return 0;
	while (dst->nsubs < n) {
		ret = kbloom_chain_grow(dst);
		if (ret)
			return ret;
	}
	return kbloom_chain_merge_subs(dst, src, n);
}

int kbloom_chain_merge_subs(struct kbloom_chain *dst,
			    const struct kbloom_chain *src, u32 n)
{
	u32 i;
	int ret;

	ret = kbloom_chain_merge_supported(dst);
	if (ret)
		return ret;
	if (!kbloom_chain_compatible(dst, src))
		return -EXDEV;
	if (dst == src)
		return 0;
	for (i = 0; i < n; i++) {
		struct kbloom_chain_sub *d = kbloom_chain_sub(dst, i);
		const struct kbloom_chain_sub *o = kbloom_chain_sub(src, i);

		/* Sub-filters of one index have one geometry: compatible. */
		ret = kbloom_merge(&d->f, &o->f);
		if (ret)
			return ret;
		atomic64_add(atomic64_read(&o->keys), &d->keys);
	}
	return 0;
}
