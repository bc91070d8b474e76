// SPDX-License-Identifier: GPL-2.0
/*
 * One walk of the cells shared by every reader of the statistics that need
 * them (bits_set, fill_ppb, est_keys, fp_now_ppb, saturated: sysfs and
 * GET_INFO), kept until the cells may have changed.  A walk of a 1 GiB
 * filter is 16 M blocks; before this, cat /sys/class/kbloom/<name>/ *
 * walked it once per file (tests/vm/test-sysfs-cost.c has the times).
 *
 * The cache is exact, not timed: a read gets what a walk at that moment
 * would give.  The scan is kept with a key of everything that moves when
 * a cell goes from zero to non-zero or back, which is all the scan
 * depends on (kbloom_scan_cells() counts non-zero cells per block):
 *   add_new      an add that took a bit, or a counter, from 0 counts here
 *                (kbloom_probe.h's cell_inc() returns true exactly then);
 *                an add that did not changed no cell from zero, and a
 *                counter it moved from 2 to 3 changes nothing the scan
 *                sees;
 *   delete_hits  only a counting delete that found all k counters
 *                non-zero decrements any (probe_delete()), and it counts
 *                here; one that found an empty counter changed nothing,
 *                and a bits filter's delete changes nothing at all;
 *   sequence     clear, intersect and image load rewrite cells inside
 *                kbloom_map_rewrite_begin()/_end(), which move the
 *                mapping's sequence on; they also reset the counts, which
 *                is why the counts alone would not do;
 *   merges       a merge only adds to cells, so it leaves the sequence
 *                alone (a mapped reader may read across it): it counts
 *                in kbloom_stats_cache_merged() instead;
 *   rotations    a window's rotation changes which planes are live, and
 *                so what every cell shows, without touching the counts
 *                or the sequence; kbloom_window.c counts it in
 *                kd->win.done once the rotation returned (after its store
 *                to live, and its clear of the retired plane), with a
 *                write barrier before.  A walk sampled with the new count
 *                sees the new live; one sampled before may see either,
 *                and the next sample differs.
 *   subfilters   a scalable filter's growth adds a sub-filter of empty
 *                cells, which changes the fill without a cell changing;
 *                its add_new and delete_hits are those of its
 *                sub-filters, whose cells the core counts as any
 *                filter's (kbloom_scalable.c).
 * Check and lookup write nothing, and nothing else writes the cells.
 *
 * Why a stale scan is never reused: the counts are per CPU and each CPU's
 * count only grows between resets, which happen only inside a sequence
 * bump.  An add or delete stores its cells under its block's stripe,
 * then, after a write barrier (count_cells_changed() in kbloom_probe.h),
 * bumps its CPU's count; the key is sampled before the walk with a read
 * barrier between, pairing with it, so a key that includes an
 * operation's count comes with a walk that sees its cells.  A cell change the walk
 * missed therefore had not been counted in the key; once it has (its
 * ioctl returned), the next sample differs and the read walks again.
 *
 * No lock that a writer, a rotation or the registry needs is held across
 * a walk: a walk of a 1 GiB filter takes 0.7 s, the files are world-
 * readable, and a CLEAR, MERGE, load, rotation or destroy waiting behind
 * it would queue every other ioctl of the filter (and, for destroy, every
 * create and destroy) behind any local user.  Readers queue only on the
 * cache's own mutex, one walk at a time.  A clear, intersect or load may
 * therefore run during a walk: its sequence is odd while it runs and has
 * moved when it is done, so a walk whose sequence was odd or moved is
 * walked again (at most KBLOOM_STATS_TRIES times; the last is returned,
 * and kept under a key the next read will not match).  A merge only adds
 * to cells: a walk sampled before it is kept under the old merge count,
 * which its smp_store_release() moves on after its cells.  A destroy sets
 * the core's walks_stop, so a walk in progress ends at its next chunk and
 * the read fails with ENODEV rather than keep the destroy waiting.
 *
 * A window's generations (GET_WINDOW, sysfs gen_*) are cached the same
 * way, under their own key: each plane's cells move only with add_new (a
 * window add counts there when it set a bit of its plane) or the events
 * above.  Their add_calls are the core's per-plane counts, which move on
 * every add: those are read fresh each time, not cached.
 */
#include <linux/mutex.h>
#include <linux/slab.h>

#include "kbloom_internal.h"

/* Walks of one read, each after a rewrite or rotation overlapped the last. */
#define KBLOOM_STATS_TRIES	3

void kbloom_stats_cache_init(struct kbloom_stats_cache *c)
{
	mutex_init(&c->lock);
	c->merges = 0;
	c->valid = false;
	c->gens_valid = false;
	c->gens = NULL;
}

u64 kbloom_stats_cache_held(const struct kbloom_geometry *geo)
{
	/* A window's generations, at its first walk of them. */
	if (geo->type != KBLOOM_TYPE_WINDOW)
		return 0;
	return kmalloc_size_roundup(KBLOOM_GENERATIONS_MAX *
				    sizeof(struct kbloom_generation));
}

void kbloom_stats_cache_free(struct kbloom_stats_cache *c)
{
	kfree(c->gens);
	c->gens = NULL;
}

/* Under kd->lock held exclusive, after the merge's cells. */
void kbloom_stats_cache_merged(struct kbloom_dev *kd)
{
	lockdep_assert_held_write(&kd->lock);
	/* Pairs with the reader's sample then smp_rmb() before its walk. */
	smp_store_release(&kd->stats_cache.merges,
			  kd->stats_cache.merges + 1);
}

static bool kbloom_stats_key_equal(const struct kbloom_stats_key *a,
				   const struct kbloom_stats_key *b)
{
	return a->add_new == b->add_new && a->delete_hits == b->delete_hits &&
	       a->sequence == b->sequence && a->merges == b->merges &&
	       a->rotations == b->rotations && a->subfilters == b->subfilters;
}

/* Under c->lock; a read barrier follows before any walk. */
static void kbloom_stats_key_read(struct kbloom_dev *kd,
				  const struct kbloom_counts *counts,
				  struct kbloom_stats_key *key)
{
	key->add_new = counts->add_new;
	key->delete_hits = counts->delete_hits;
	key->sequence = kbloom_map_sequence(kd);
	key->merges = READ_ONCE(kd->stats_cache.merges);
	key->rotations = READ_ONCE(kd->win.done);
	key->subfilters = 0;
	if (kd->scalable)
		kbloom_scalable_key(kd, key);
}

/*
 * Whether a walk that began with key saw one state of the cells: no
 * clear, intersect or load ran during it (the sequence was even and has
 * not moved).  Rotations are judged by the generations' callers.
 */
static bool kbloom_stats_walk_whole(struct kbloom_dev *kd,
				    const struct kbloom_stats_key *key)
{
	smp_rmb();	/* the walk's cells before the second sample */
	return !(key->sequence & 1) && kbloom_map_sequence(kd) == key->sequence;
}

/* A walk that walks_stop may have cut short answers nothing. */
static int kbloom_stats_walk_end(struct kbloom_dev *kd)
{
	return READ_ONCE(kd->filter.walks_stop) ? -ENODEV : 0;
}

/*
 * The walk of kbloom_stats_cache_get(), and *sequence, when asked, is the
 * mapping's sequence it began at (odd, or moved since, when a rewrite
 * overlapped each of its tries).
 */
static int kbloom_stats_cache_walk(struct kbloom_dev *kd,
				   struct kbloom_counts *counts,
				   struct kbloom_cell_stats *cells,
				   u64 *sequence)
{
	struct kbloom_stats_cache *c = &kd->stats_cache;
	struct kbloom_stats_key key;
	int tries = 0, err;

	if (mutex_lock_killable(&c->lock))
		return -EINTR;
	for (;;) {
		kbloom_counts_read(&kd->filter, counts);
		kbloom_stats_key_read(kd, counts, &key);
		if (c->valid && kbloom_stats_key_equal(&key, &c->key))
			break;
		smp_rmb();	/* the key before any cell of the walk */
		if (kd->scalable)
			kbloom_scalable_scan(kd, &c->cells);
		else
			kbloom_scan_cells(&kd->filter, &c->cells);
		err = kbloom_stats_walk_end(kd);
		if (err) {
			c->valid = false;
			mutex_unlock(&c->lock);
			return err;
		}
		c->key = key;
		c->valid = true;
		if (kbloom_stats_walk_whole(kd, &key) ||
		    ++tries == KBLOOM_STATS_TRIES)
			break;
	}
	*cells = c->cells;
	if (sequence)
		*sequence = c->key.sequence;
	mutex_unlock(&c->lock);
	return 0;
}

/*
 * The counts and the cell statistics of kd, holding no lock of the
 * filter's.  Readers queue on the cache's mutex, so readers of many files
 * at once share one walk: the first walks, the others find its key still
 * current.  0, -ENODEV once the filter is destroyed, or -EINTR when a
 * fatal signal came while waiting for another reader's walk.
 */
int kbloom_stats_cache_get(struct kbloom_dev *kd, struct kbloom_counts *counts,
			   struct kbloom_cell_stats *cells)
{
	return kbloom_stats_cache_walk(kd, counts, cells, NULL);
}

/*
 * A clear or a load may drop sub-filters of a scalable filter between a
 * walk and the caller's lock; the walk's bits_set, summed over them, then
 * exceeded the cells the filter had under the lock (GET_INFO reported
 * bits_set 20758 of bits 17920 in the fuzzer).  So the walk is taken
 * again until no rewrite ran between its start and the lock, which
 * excludes rewrites; after KBLOOM_STATS_TRIES reads that a rewrite
 * overlapped, the last walks holding the lock, which keeps out only the
 * clears, intersects and loads that kept overlapping.
 */
int kbloom_stats_cache_get_lock(struct kbloom_dev *kd,
				struct kbloom_counts *counts,
				struct kbloom_cell_stats *cells)
{
	u64 sequence;
	int tries, err;

	for (tries = 1; tries < KBLOOM_STATS_TRIES; tries++) {
		err = kbloom_stats_cache_walk(kd, counts, cells, &sequence);
		if (err)
			return err;
		down_read(&kd->lock);
		if (kd->dead) {
			up_read(&kd->lock);
			return -ENODEV;
		}
		if (kbloom_map_sequence(kd) == sequence)
			return 0;
		up_read(&kd->lock);
	}
	down_read(&kd->lock);
	if (kd->dead) {
		up_read(&kd->lock);
		return -ENODEV;
	}
	kbloom_counts_read(&kd->filter, counts);
	if (kd->scalable)
		kbloom_chain_scan(&kd->scalable->chain, NULL, cells);
	else
		kbloom_scan_cells(&kd->filter, cells);
	err = kbloom_stats_walk_end(kd);
	if (err)
		up_read(&kd->lock);
	return err;
}

/* The keys added per generation: counts, no walk. */
void kbloom_stats_cache_add_calls(struct kbloom_dev *kd,
				  struct kbloom_generation *gen)
{
	const struct kbloom_filter *f = &kd->filter;
	u32 age;

	/* rotate_lock keeps cur, so each age's plane, as it was. */
	lockdep_assert_held(&kd->win.rotate_lock);
	for (age = 0; age < f->geo.generations; age++) {
		u32 plane = kbloom_window_plane(f, age);

		gen[age].add_calls = kbloom_window_adds(&f->win, plane);
	}
}

/* The cells' part of gen[], from the cache or a walk; under c->lock. */
static int kbloom_stats_gens_cells(struct kbloom_dev *kd,
				   struct kbloom_generation *gen,
				   struct kbloom_stats_key *key)
{
	struct kbloom_stats_cache *c = &kd->stats_cache;
	const struct kbloom_filter *f = &kd->filter;
	u32 g = f->geo.generations;
	struct kbloom_counts counts;
	int tries = 0, err;

	if (!c->gens)
		c->gens = kcalloc(KBLOOM_GENERATIONS_MAX, sizeof(*c->gens),
				  GFP_KERNEL_ACCOUNT);
	for (;;) {
		kbloom_counts_read(f, &counts);
		kbloom_stats_key_read(kd, &counts, key);
		if (c->gens && c->gens_valid &&
		    kbloom_stats_key_equal(key, &c->gens_key)) {
			memcpy(gen, c->gens, g * sizeof(*gen));
			return 0;
		}
		smp_rmb();	/* the key before any cell of the walk */
		kbloom_window_generations(f, gen);
		err = kbloom_stats_walk_end(kd);
		if (err)
			return err;
		/* Without the cache's memory, still an answer. */
		if (c->gens) {
			memcpy(c->gens, gen, g * sizeof(*gen));
			c->gens_key = *key;
			c->gens_valid = true;
		}
		if (kbloom_stats_walk_whole(kd, key) ||
		    ++tries == KBLOOM_STATS_TRIES)
			return 0;
	}
}

int kbloom_stats_cache_generations_lock(struct kbloom_dev *kd,
					struct kbloom_generation *gen,
					bool cells)
{
	struct kbloom_stats_cache *c = &kd->stats_cache;
	struct kbloom_stats_key key;
	int tries = 0, err;

	for (;;) {
		if (cells) {
			if (mutex_lock_killable(&c->lock))
				return -EINTR;
			err = kbloom_stats_gens_cells(kd, gen, &key);
			mutex_unlock(&c->lock);
			if (err)
				return err;
		}
		err = kbloom_window_lock(kd);
		if (err)
			return err;
		down_read(&kd->lock);
		if (kd->dead) {
			up_read(&kd->lock);
			kbloom_window_unlock(kd);
			return -ENODEV;
		}
		/* The ages the walk counted by are still the filter's. */
		if (!cells || READ_ONCE(kd->win.done) == key.rotations ||
		    ++tries == KBLOOM_STATS_TRIES)
			break;
		up_read(&kd->lock);
		kbloom_window_unlock(kd);
	}
	kbloom_stats_cache_add_calls(kd, gen);
	return 0;
}
