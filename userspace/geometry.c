// SPDX-License-Identifier: GPL-2.0
/*
 * Filter geometry computed by the module's own code: kmod/kbloom_core.c is
 * compiled into kbloomctl, so `size`, `create` and `demo` print exactly the
 * numbers the module will use, never a second implementation of them.
 */
#include "kbloom_core.h"
#include "kbloomctl.h"

static int fill_sizing(struct sizing *s, const struct kbloom_geometry *geo,
		       uint64_t capacity)
{
	s->capacity = capacity;
	s->nblocks = geo->nblocks;
	s->k = geo->k;
	s->type = geo->type;
	s->bytes = kbloom_geometry_bytes(geo);
	s->fp_ppb = capacity ?
		kbloom_formula_fp_ppb_type(geo->type, geo->nblocks, capacity,
					   geo->k) : 0;
	return 0;
}

int sizing_from_rate(struct sizing *s, uint32_t type, uint64_t capacity,
		     uint32_t fp_ppb)
{
	struct kbloom_geometry geo;
	int ret = kbloom_geometry_from_rate_type(&geo, type, capacity, fp_ppb);

	return ret ? ret : fill_sizing(s, &geo, capacity);
}

static int sizing_from_bits(struct sizing *s, uint32_t type, uint64_t bits,
			    uint32_t k, uint64_t capacity)
{
	struct kbloom_geometry geo;
	int ret = kbloom_geometry_from_bits_type(&geo, type, bits, k,
						 capacity);

	return ret ? ret : fill_sizing(s, &geo, capacity);
}

static int sizing_from_bits_per_key(struct sizing *s, uint32_t type,
				    uint64_t capacity, uint32_t bits_per_key,
				    uint32_t k)
{
	struct kbloom_geometry geo;
	int ret = kbloom_geometry_from_bits_per_key_type(&geo, type, capacity,
							 bits_per_key, k);

	return ret ? ret : fill_sizing(s, &geo, capacity);
}

int sizing_from_spec(struct sizing *s, const struct kbl_spec *spec)
{
	if (spec->fp_ppb)
		return sizing_from_rate(s, spec->type, spec->capacity,
					spec->fp_ppb);
	if (spec->bits)
		return sizing_from_bits(s, spec->type, spec->bits, spec->k,
					spec->capacity);
	return sizing_from_bits_per_key(s, spec->type, spec->capacity,
					spec->bits_per_key, spec->k);
}

uint64_t filter_cells(uint64_t nblocks, uint32_t type)
{
	return nblocks * kbloom_block_cells(type);
}
