// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * The filter itself: its allocation and counts, a window's counts of keys
 * per plane, hashing, and add, check and delete of one key at a time.
 * How a key's cells are found is kbloom_probe.h's; batches run in
 * kbloom_pipeline.c, and clear, merge, intersect and rotation rewrite the
 * whole filter in kbloom_rewrite.c.
 */
#include "kbloom_formula.h"
#include "kbloom_probe.h"

/*
 * Adds n to a plane's count, if the plane is still in epoch (any epoch
 * when epoch is negative); false if it is not.  *before: the count it
 * had.  A compare-and-swap, not an add, so that the test of the epoch and
 * the add are one: an emptying between them would otherwise be undone.
 * Batches take it once per run of keys, and cost what they did; a single
 * add takes it per key, and cost 29.6 ns against 26.8 and 27.4 ns with
 * the plain atomic add before (a window of 100,000 keys, `bench --quick
 * --window` on the host, two runs each, 2-vCPU AMD EPYC VM; 089f5f2,
 * 2026-12-03); at 1 M keys the two were within noise (38.3 to 38.8 ns
 * against 37.9 to 38.7).
 */
static bool window_count_add(struct kbloom_window *w, u32 plane, int epoch,
			     u64 n, u64 *before)
{
	atomic64_t *count = &w->plane_count[plane];
	s64 old = atomic64_read(count);
	u64 adds;

	do {
		if (epoch >= 0 &&
		    (u64)old >> KBLOOM_PLANE_EPOCH_SHIFT != (u64)epoch)
			return false;
		adds = (u64)old & KBLOOM_PLANE_ADDS_MAX;
	} while (!atomic64_try_cmpxchg(count, &old,
				       (s64)(((u64)old & ~KBLOOM_PLANE_ADDS_MAX) |
					     min(adds + min(n, KBLOOM_PLANE_ADDS_MAX),
						 KBLOOM_PLANE_ADDS_MAX))));
	*before = adds;
	return true;
}

/* The count that takes a plane to every (or past it) makes it due, once. */
static void window_due(struct kbloom_filter *f, u64 before, u64 n)
{
	u64 every = READ_ONCE(f->win.every);

	if (every && before < every && before + n >= every && f->win.due)
		f->win.due(f);
}

/*
 * n keys went into ref's plane in ref's epoch.  If the plane was emptied
 * since (retired by g rotations, cleared or loaded while a batch held the
 * count of its run), those keys are gone with it, and so is their count:
 * added to the plane's next keys, it would make their rotation come due
 * early.
 */
void kbloom_window_count(struct kbloom_filter *f,
			 const struct kbloom_plane_ref *ref, u64 n)
{
	u64 before;

	if (window_count_add(&f->win, ref->plane, ref->epoch, n, &before))
		window_due(f, before, n);
}

void kbloom_window_set_adds(struct kbloom_window *w, u32 plane, u64 n)
{
	u16 epoch = w->epoch[plane] + 1;

	WRITE_ONCE(w->epoch[plane], epoch);
	atomic64_set(&w->plane_count[plane],
		     (s64)((u64)epoch << KBLOOM_PLANE_EPOCH_SHIFT |
			   min(n, KBLOOM_PLANE_ADDS_MAX)));
}

/*
 * n keys more in plane, whatever its epoch (a merge's); due: whether they
 * may make the plane due.
 */
void kbloom_window_count_plane(struct kbloom_filter *f, u32 plane, u64 n,
			       bool due)
{
	u64 before;

	if (window_count_add(&f->win, plane, -1, n, &before) && due)
		window_due(f, before, n);
}

int kbloom_filter_init(struct kbloom_filter *f,
		       const struct kbloom_geometry *geo)
{
	int ret;
	u32 i;

	memset(f, 0, sizeof(*f));
	ret = kbloom_geometry_validate(geo);
	if (ret)
		return ret;
	/*
	 * Always vmalloc, in whole pages: slab memory would share its pages
	 * with other objects that a mapping must not show, and kvzalloc's
	 * kmalloc path is not page-granular.  vmalloc takes sizes over
	 * INT_MAX too, and at most 2^37 bytes come after validation.  The
	 * cost, 4 KiB pages instead of the direct map's large ones for
	 * filters under 4 MiB (larger ones were vmalloc already), is TLB
	 * reach the few hundred pages of such a filter stay within.
	 */
	f->words = __vmalloc(PAGE_ALIGN(kbloom_geometry_bytes(geo)),
			     GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_ZERO);
	if (!f->words)
		return -ENOMEM;
	f->counts = alloc_percpu_gfp(struct kbloom_counts, GFP_KERNEL_ACCOUNT);
	if (!f->counts) {
		vfree(f->words);
		f->words = NULL;
		return -ENOMEM;
	}
	f->stripes = kcalloc(KBLOOM_WRITE_STRIPES, sizeof(*f->stripes),
			     GFP_KERNEL_ACCOUNT);
	if (!f->stripes) {
		free_percpu(f->counts);
		f->counts = NULL;
		vfree(f->words);
		f->words = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < KBLOOM_WRITE_STRIPES; i++)
		spin_lock_init(&f->stripes[i].lock);
	f->geo = *geo;
	if (geo->type == KBLOOM_TYPE_WINDOW) {
		/* Plane 0 current, plane 1 the spare, the others live. */
		f->win.planes = geo->generations + 1;
		f->win.live = GENMASK_ULL(geo->generations, 0) & ~BIT_ULL(1);
	}
	return 0;
}

/*
 * What kbloom_filter_init() allocates for geo, as the allocators and the
 * memory cgroup count it: the cells' whole pages, the stripes' slab
 * object and the counts on every possible CPU.  Not the allocators' own
 * bookkeeping (vmalloc's page array and area, page tables).
 */
u64 kbloom_filter_held(const struct kbloom_geometry *geo)
{
	return PAGE_ALIGN(kbloom_geometry_bytes(geo)) +
	       kmalloc_size_roundup(KBLOOM_WRITE_STRIPES *
				    sizeof(struct kbloom_stripe)) +
	       (u64)sizeof(struct kbloom_counts) * num_possible_cpus();
}

void kbloom_filter_free(struct kbloom_filter *f)
{
	kfree(f->stripes);
	f->stripes = NULL;
	free_percpu(f->counts);
	f->counts = NULL;
	vfree(f->words);
	f->words = NULL;
}

void kbloom_counts_read(const struct kbloom_filter *f,
			struct kbloom_counts *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct kbloom_counts *c = per_cpu_ptr(f->counts, cpu);

		sum->add_calls += READ_ONCE(c->add_calls);
		sum->add_new += READ_ONCE(c->add_new);
		sum->check_calls += READ_ONCE(c->check_calls);
		sum->check_hits += READ_ONCE(c->check_hits);
		sum->delete_calls += READ_ONCE(c->delete_calls);
		sum->delete_hits += READ_ONCE(c->delete_hits);
	}
}

/* The whole value goes to one CPU's copy; every other copy is zeroed. */
void kbloom_counts_set(struct kbloom_filter *f,
		       const struct kbloom_counts *counts)
{
	int cpu, first = -1;

	for_each_possible_cpu(cpu) {
		struct kbloom_counts *c = per_cpu_ptr(f->counts, cpu);
		bool zero = first >= 0;

		if (!zero)
			first = cpu;
		WRITE_ONCE(c->add_calls, zero ? 0 : counts->add_calls);
		WRITE_ONCE(c->add_new, zero ? 0 : counts->add_new);
		WRITE_ONCE(c->check_calls, zero ? 0 : counts->check_calls);
		WRITE_ONCE(c->check_hits, zero ? 0 : counts->check_hits);
		WRITE_ONCE(c->delete_calls, zero ? 0 : counts->delete_calls);
		WRITE_ONCE(c->delete_hits, zero ? 0 : counts->delete_hits);
	}
}

u64 kbloom_hash(const struct kbloom_filter *f, const void *key, u32 len)
{
	return key_hash(f, key, len);
}

static bool window_add(struct kbloom_filter *f, u64 h,
		       struct kbloom_plane_ref *ref)
{
	u64 *block = window_fetch(f, h, true);
	bool set_new;

	local_bh_disable();
	set_new = probe_write_bits(f, block, h, KBLOOM_WINDOW_ORDER, ref, true,
				   false);
	local_bh_enable();
	return set_new;
}

static bool cells_add(struct kbloom_filter *f, u64 h)
{
	u64 *block = block_fetch(f, h);
	struct kbloom_plane_ref ref;
	bool set_new;

	local_bh_disable();
	if (f->geo.type == KBLOOM_TYPE_COUNTING)
		set_new = probe_write(f, block, h, KBLOOM_OP_ADD,
				      KBLOOM_COUNTER_CELL_ORDER);
	else
		set_new = probe_write_bits(f, block, h, KBLOOM_BITS_CELL_ORDER,
					   &ref, true, false);
	local_bh_enable();
	return set_new;
}

static void count_add(struct kbloom_filter *f, bool set_new)
{
	this_cpu_inc(f->counts->add_calls);
	if (set_new)
		count_cells_changed(f->counts->add_new, 1);
}

bool kbloom_window_add_ref(struct kbloom_filter *f, const void *key, u32 len,
			   struct kbloom_plane_ref *ref)
{
	bool set_new = window_add(f, key_hash(f, key, len), ref);

	count_add(f, set_new);
	return set_new;
}

bool kbloom_add(struct kbloom_filter *f, const void *key, u32 len)
{
	struct kbloom_plane_ref ref;
	bool set_new;

	if (f->geo.type == KBLOOM_TYPE_WINDOW) {
		set_new = kbloom_window_add_ref(f, key, len, &ref);
		kbloom_window_count(f, &ref, 1);
		return set_new;
	}
	set_new = cells_add(f, key_hash(f, key, len));
	count_add(f, set_new);
	return set_new;
}

bool kbloom_lookup(const struct kbloom_filter *f, const void *key, u32 len)
{
	return probe(f, key_hash(f, key, len), KBLOOM_OP_CHECK);
}

bool kbloom_check(struct kbloom_filter *f, const void *key, u32 len)
{
	bool maybe = kbloom_lookup(f, key, len);

	this_cpu_inc(f->counts->check_calls);
	/* No branch on the answer: see probe_check(). */
	this_cpu_add(f->counts->check_hits, (u64)maybe);
	return maybe;
}

bool kbloom_lookup_hash(const struct kbloom_filter *f, u64 h)
{
	return probe(f, h, KBLOOM_OP_CHECK);
}

bool kbloom_add_hash(struct kbloom_filter *f, u64 h)
{
	bool set_new = cells_add(f, h);

	count_add(f, set_new);
	return set_new;
}

/* One key's counters written, holding its stripe; false for no counters. */
static bool counters_write(struct kbloom_filter *f, u64 h, enum kbloom_op op)
{
	bool ret;

	if (kbloom_delete_supported(f))
		return false;
	local_bh_disable();
	ret = probe_write(f, block_fetch(f, h), h, op,
			  KBLOOM_COUNTER_CELL_ORDER);
	local_bh_enable();
	return ret;
}

bool kbloom_count_known_hash(struct kbloom_filter *f, u64 h)
{
	bool known = counters_write(f, h, KBLOOM_OP_COUNT_KNOWN);

	if (known)
		count_add(f, false);
	return known;
}

unsigned long kbloom_lookup_hashes(const struct kbloom_filter *f,
				   const u64 *h, u32 n)
{
	u64 *blocks[BITS_PER_LONG];
	unsigned long found = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		blocks[i] = block_of(f, h[i]);
		prefetch(blocks[i]);
	}
	for (i = 0; i < n; i++)
		found |= (unsigned long)probe_block(f, blocks[i], h[i],
						    KBLOOM_OP_CHECK) << i;
	return found;
}

int kbloom_delete_supported(const struct kbloom_filter *f)
{
	return f->geo.type == KBLOOM_TYPE_COUNTING ? 0 : -EOPNOTSUPP;
}

bool kbloom_delete(struct kbloom_filter *f, const void *key, u32 len)
{
	return kbloom_delete_hash(f, key_hash(f, key, len));
}

bool kbloom_delete_hash(struct kbloom_filter *f, u64 h)
{
	bool removed;

	if (kbloom_delete_supported(f))
		return false;
	removed = counters_write(f, h, KBLOOM_OP_DELETE);
	this_cpu_inc(f->counts->delete_calls);
	if (removed)
		count_cells_changed(f->counts->delete_hits, 1);
	return removed;
}
