// SPDX-License-Identifier: GPL-2.0
/*
 * Filter geometry computed by the module's own code: the core (kmod/core/)
 * is compiled into kbloomctl, so `size`, `create` and `demo` print exactly the
 * numbers the module will use, never a second implementation of them.
 */
#include "kbloom_chain.h"
#include "kbloom_core.h"
#include "kbloomctl.h"

/* Keys per generation of a window of capacity keys: g - 1 share them. */
static uint64_t keys_per_generation(uint64_t capacity, uint32_t generations)
{
	uint64_t periods = generations - 1;

	return capacity / periods + (capacity % periods != 0);
}

static int fill_sizing(struct sizing *s, const struct kbloom_geometry *geo,
		       uint64_t capacity)
{
	s->capacity = capacity;
	s->nblocks = geo->nblocks;
	s->k = geo->k;
	s->type = geo->type;
	s->generations = geo->generations;
	s->plane_order = geo->plane_order;
	s->bytes = kbloom_geometry_bytes(geo);
	s->fp_ppb = 0;
	s->fp_generation_ppb = 0;
	if (!capacity)
		return 0;
	if (geo->type == KBLOOM_TYPE_WINDOW) {
		uint64_t n = keys_per_generation(capacity, geo->generations);

		/* The worst moment: g live generations of n keys each. */
		s->fp_ppb = kbloom_formula_fp_ppb_window(geo->nblocks,
							 geo->plane_order, n,
							 geo->k,
							 geo->generations);
		s->fp_generation_ppb =
			kbloom_formula_fp_ppb_window(geo->nblocks,
						     geo->plane_order, n,
						     geo->k, 1);
		return 0;
	}
	s->fp_ppb = kbloom_formula_fp_ppb_type(geo->type, geo->nblocks,
					       capacity, geo->k);
	return 0;
}

int sizing_from_rate(struct sizing *s, uint32_t type, uint32_t generations,
		     uint64_t capacity, uint32_t fp_ppb)
{
	struct kbloom_geometry geo;
	int ret = kbloom_geometry_from_rate_gen(&geo, type, generations,
						capacity, fp_ppb);

	return ret ? ret : fill_sizing(s, &geo, capacity);
}

static int sizing_from_bits(struct sizing *s, uint32_t type,
			    uint32_t generations, uint64_t bits, uint32_t k,
			    uint64_t capacity)
{
	struct kbloom_geometry geo;
	int ret = kbloom_geometry_from_bits_gen(&geo, type, generations, bits,
						k, capacity);

	return ret ? ret : fill_sizing(s, &geo, capacity);
}

static int sizing_from_bits_per_key(struct sizing *s, uint32_t type,
				    uint32_t generations, uint64_t capacity,
				    uint32_t bits_per_key, uint32_t k)
{
	struct kbloom_geometry geo;
	int ret = kbloom_geometry_from_bits_per_key_gen(&geo, type,
							generations, capacity,
							bits_per_key, k);

	return ret ? ret : fill_sizing(s, &geo, capacity);
}

/* The schedule of a scalable filter, as the module's core takes it. */
static struct kbloom_chain_params chain_params(uint32_t type,
					       uint64_t capacity,
					       uint32_t fp_ppb,
					       uint32_t expansion)
{
	return (struct kbloom_chain_params){
		.capacity = capacity, .type = type, .fp_ppb = fp_ppb,
		.expansion = expansion,
	};
}

/*
 * A scalable filter's first sub-filter: what create allocates, and what
 * the module's memory caps judge (see KBLOOM_CTL_CREATE).
 */
static int sizing_from_chain(struct sizing *s, const struct kbl_spec *spec)
{
	const struct kbloom_chain_params cp =
		chain_params(spec->type, spec->capacity, spec->fp_ppb,
			     spec->expansion);
	struct kbloom_geometry geo;
	int ret = kbloom_chain_sub_geometry(&geo, &cp, 0);

	return ret ? ret : fill_sizing(s, &geo, spec->capacity);
}

int sizing_from_spec(struct sizing *s, const struct kbl_spec *spec)
{
	if (spec->expansion)
		return sizing_from_chain(s, spec);
	if (spec->fp_ppb)
		return sizing_from_rate(s, spec->type, spec->generations,
					spec->capacity, spec->fp_ppb);
	if (spec->bits)
		return sizing_from_bits(s, spec->type, spec->generations,
					spec->bits, spec->k, spec->capacity);
	return sizing_from_bits_per_key(s, spec->type, spec->generations,
					spec->capacity, spec->bits_per_key,
					spec->k);
}

uint32_t plane_order_of(uint32_t generations)
{
	return generations ? kbloom_plane_order(generations) : 0;
}

uint64_t filter_cells(uint64_t nblocks, uint32_t type, uint32_t generations)
{
	if (type == KBLOOM_TYPE_WINDOW)
		return nblocks * KBLOOM_BLOCK_BITS >> plane_order_of(generations);
	return nblocks * kbloom_block_cells(type);
}

int chain_growth(struct chain_growth *g, uint32_t type, uint64_t capacity,
		 uint32_t fp_ppb, uint32_t expansion, uint64_t times)
{
	const struct kbloom_chain_params cp =
		chain_params(type, capacity, fp_ppb, expansion);
	u64 rate16, bytes;
	u32 subs;
	int ret;

	*g = (struct chain_growth){ .times = times };
	if (kbloom_chain_params_validate(&cp) || !times)
		return -EINVAL;
	if (__builtin_mul_overflow(capacity, times, &g->keys))
		return -E2BIG;
	ret = kbloom_chain_plan(&cp, g->keys, &subs, &bytes, &rate16);
	g->subs = subs;
	g->bytes = bytes;
	g->fp_ppb = (uint32_t)((rate16 + 0xffff) >> 16);
	return ret;
}

uint32_t chain_max_subs(uint32_t type, uint64_t capacity, uint32_t fp_ppb,
			uint32_t expansion)
{
	const struct kbloom_chain_params cp =
		chain_params(type, capacity, fp_ppb, expansion);

	return kbloom_chain_params_validate(&cp) ? 0 :
	       kbloom_chain_max_subs(&cp);
}
