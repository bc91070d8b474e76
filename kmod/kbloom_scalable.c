// SPDX-License-Identifier: GPL-2.0
/*
 * A scalable filter's state behind a node (include/uapi/linux/kbloom.h,
 * "Scalable filters"): the chain of kbloom_chain.h, created, sized and
 * freed with the filter object, cut back by a CLEAR or a load with the
 * sub-filters it drops retired, and what the statistics and GET_INFO read
 * of it.  What adds, checks, grows and rewrites it is in
 * kbloom_scalable_ops.c, whose growth worker init sets up.
 *
 * Readers of the chain hold kd->lock shared (the ioctls) or
 * rcu_read_lock() (the in-kernel API and BPF; their adds too); CLEAR, the
 * only operation that frees sub-filters before the last put, detaches
 * them under kd->lock exclusive and frees them after synchronize_rcu()
 * and after any statistics walk (stats_cache.lock).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "kbloom_internal.h"

/* The chain a create asks for; geo is its sub-filter 0's geometry. */
static void kbloom_scalable_params(struct kbloom_chain_params *cp,
				   const struct kbloom_create *req,
				   const struct kbloom_geometry *geo)
{
	*cp = (struct kbloom_chain_params){
		.capacity = geo->capacity,
		.seed = geo->seed,
		.type = geo->type,
		.fp_ppb = req->fp_ppb,
		.expansion = req->expansion,
	};
}

/*
 * The chain's slots and sub-filter 0, the struct, the whole filter's
 * counts, the walk's cells of each sub-filter (allocated at the first
 * walk) and the mapping's table.
 */
u64 kbloom_scalable_held(const struct kbloom_create *req,
			 const struct kbloom_geometry *geo)
{
	struct kbloom_chain_params cp;
	u32 subs;

	kbloom_scalable_params(&cp, req, geo);
	subs = kbloom_chain_max_subs(&cp);
	return kmalloc_size_roundup(sizeof(struct kbloom_scalable)) +
	       (u64)sizeof(struct kbloom_counts) * num_possible_cpus() +
	       kmalloc_size_roundup(subs * sizeof(struct kbloom_cell_stats)) +
	       kbloom_chain_held(&cp) + kbloom_chain_sub_held(geo) +
	       kbloom_map_held(subs);
}

int kbloom_scalable_init(struct kbloom_dev *kd, const struct kbloom_create *req,
			 const struct kbloom_geometry *geo)
{
	struct kbloom_chain_params cp;
	struct kbloom_scalable *s;
	int err;

	kbloom_scalable_params(&cp, req, geo);
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	err = kbloom_chain_init(&s->chain, &cp);
	if (err)
		goto free_s;
	/* The whole filter's counts; it has no cells of its own. */
	kd->filter.counts = alloc_percpu_gfp(struct kbloom_counts,
					     GFP_KERNEL_ACCOUNT);
	if (!kd->filter.counts) {
		err = -ENOMEM;
		goto free_chain;
	}
	kd->filter.geo = *geo;
	kd->filter.geo.fp_target_ppb = req->fp_ppb;
	mutex_init(&s->grow_lock);
	INIT_WORK(&s->grow_work, kbloom_scalable_grow_work);
	s->memcg = get_mem_cgroup_from_mm(current->mm);
	s->kd = kd;
	kd->scalable = s;
	return 0;

free_chain:
	kbloom_chain_free(&s->chain);
free_s:
	kfree(s);
	return err;
}

/* The last put: no reference is left to queue a growth with. */
void kbloom_scalable_free(struct kbloom_dev *kd)
{
	struct kbloom_scalable *s = kd->scalable;

	if (!s)
		return;
	kbloom_chain_free(&s->chain);
	kvfree(s->cells);
	mem_cgroup_put(s->memcg);
	mutex_destroy(&s->grow_lock);
	kfree(s);
	kd->scalable = NULL;
}

void kbloom_scalable_stop_walks(struct kbloom_dev *kd)
{
	struct kbloom_chain *c = &kd->scalable->chain;
	u32 i, n = kbloom_chain_subs(c);

	lockdep_assert_held_write(&kd->lock);
	for (i = 0; i < n; i++)
		WRITE_ONCE(kbloom_chain_sub(c, i)->f.walks_stop, true);
}

u64 kbloom_scalable_subfilters(const struct kbloom_dev *kd)
{
	return kd->scalable ? kbloom_chain_subs(&kd->scalable->chain) : 0;
}

u64 kbloom_scalable_grow_failures(const struct kbloom_dev *kd)
{
	return kd->scalable ? atomic64_read(&kd->scalable->grow_failures) : 0;
}

/* Under RCU, which keeps the sub-filters a CLEAR detaches meanwhile. */
u64 kbloom_scalable_nblocks(const struct kbloom_dev *kd)
{
	const struct kbloom_chain *c;
	u64 nblocks = 0;
	u32 i, n;

	if (!kd->scalable)
		return kd->filter.geo.nblocks;
	c = &kd->scalable->chain;
	rcu_read_lock();
	n = kbloom_chain_subs(c);
	for (i = 0; i < n; i++)
		nblocks += kbloom_chain_sub(c, i)->f.geo.nblocks;
	rcu_read_unlock();
	return nblocks;
}

/* A detached list's cells' bytes (into *cells) and all it holds. */
static u64 kbloom_scalable_retired_bytes(const struct kbloom_chain_sub *list,
					 u64 *cells)
{
	u64 held = 0;

	if (cells)
		*cells = 0;
	for (; list; list = list->retired) {
		if (cells)
			*cells += kbloom_geometry_bytes(&list->f.geo);
		held += kbloom_chain_sub_held(&list->f.geo);
	}
	return held;
}

/*
 * The sub-filters a CLEAR or a load detached under kd->lock exclusive,
 * which took their bytes off kd->bytes and kd->held there, freed once no
 * reader can hold them: the lockless readers first, then a statistics
 * walk, which their walks_stop ends.  Their memory stays charged to the
 * module's total until then.  kd->lock not held.
 */
void kbloom_scalable_retire(struct kbloom_dev *kd,
			    struct kbloom_chain_sub *list)
{
	u64 bytes = kbloom_scalable_retired_bytes(list, NULL);

	if (!list)
		return;
	synchronize_rcu();
	mutex_lock(&kd->stats_cache.lock);
	kbloom_chain_free_subs(list);
	mutex_unlock(&kd->stats_cache.lock);
	atomic64_sub(bytes, &kbloom_total_bytes);
}

/* Down to the first subs sub-filters; kd->lock held exclusive. */
struct kbloom_chain_sub *kbloom_scalable_truncate(struct kbloom_dev *kd,
						  u32 subs)
{
	struct kbloom_chain_sub *retired;
	u64 cells, held;

	retired = kbloom_chain_truncate(&kd->scalable->chain, subs);
	kbloom_map_truncate(kd, subs);
	held = kbloom_scalable_retired_bytes(retired, &cells);
	WRITE_ONCE(kd->bytes, kd->bytes - cells);
	WRITE_ONCE(kd->held, kd->held - held);
	/* Growers are kept out by kd->lock: room again, and no wait. */
	WRITE_ONCE(kd->scalable->grow_err, 0);
	WRITE_ONCE(kd->scalable->grow_ended, false);
	kd->scalable->grow_backoff = 0;
	return retired;
}

/*
 * The statistics key's part that moves when a sub-filter's cells go from
 * zero to non-zero or back: their own counts (kbloom_stats_cache.c says
 * why those suffice), and the number of sub-filters, which a growth
 * moves with an empty one.  Under stats_cache.lock, which keeps the
 * sub-filters that CLEAR detaches.
 */
void kbloom_scalable_key(struct kbloom_dev *kd, struct kbloom_stats_key *key)
{
	const struct kbloom_chain *c = &kd->scalable->chain;
	u32 i, n = kbloom_chain_subs(c);

	key->add_new = 0;
	key->delete_hits = 0;
	for (i = 0; i < n; i++) {
		struct kbloom_counts counts;

		kbloom_counts_read(&kbloom_chain_sub(c, i)->f, &counts);
		key->add_new += counts.add_new;
		key->delete_hits += counts.delete_hits;
	}
	key->subfilters = n;
}

void kbloom_scalable_scan(struct kbloom_dev *kd, struct kbloom_cell_stats *cs)
{
	struct kbloom_scalable *s = kd->scalable;
	u32 n;

	if (!s->cells)
		s->cells = kvcalloc(kbloom_chain_max_subs(&s->chain.params),
				    sizeof(*s->cells), GFP_KERNEL_ACCOUNT);
	/*
	 * A destroy stops every sub-filter's walk
	 * (kbloom_scalable_stop_walks()).
	 */
	n = kbloom_chain_scan(&s->chain, s->cells, cs);
	s->walked = s->cells ? n : 0;
}

/*
 * Under kd->lock shared, after the fields a filter of fixed size has;
 * cells: the walk's fields are filled.
 */
void kbloom_scalable_fill_info(struct kbloom_dev *kd, struct kbloom_info *info,
			       bool cells)
{
	const struct kbloom_chain *c = &kd->scalable->chain;
	u32 i, n = kbloom_chain_subs(c);
	u64 pass62 = KBLOOM_CHAIN_PASS_ONE, nblocks = 0;

	for (i = 0; i < n; i++) {
		const struct kbloom_geometry *geo =
			&kbloom_chain_sub(c, i)->f.geo;

		nblocks += geo->nblocks;
		pass62 = kbloom_chain_pass62(pass62, geo, geo->capacity);
	}
	info->nblocks = nblocks;
	info->bits = nblocks * KBLOOM_BLOCK_BITS;
	info->expansion = c->params.expansion;
	info->subfilters = n;
	info->fp_design_ppb = kbloom_chain_rate_ppb16(pass62) >> 16;
	/*
	 * Not over capacity: a full chain grows or takes no new key.  One
	 * that could not grow is full, as a filter of fixed size is.
	 */
	info->saturated = cells && (READ_ONCE(kd->scalable->grow_err) ||
				    info->fp_now_ppb > info->fp_target_ppb);
}
