// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the geometry code, which turns the numbers a creator
 * passes in KBLOOM_CTL_CREATE into a filter size, and the integer
 * false-positive model it sizes with.  Besides memory safety and undefined
 * behaviour it asserts:
 *   - each constructor fails exactly on the documented bad input (EINVAL)
 *     or oversize (E2BIG), never otherwise;
 *   - a successful geometry validates, has the size asked for (bits
 *     rounded up to whole blocks), keeps a given k, and, when sized for a
 *     rate, meets that rate with the fewest blocks for its k;
 *   - the model's rate is within [0, 1], grows with keys and falls with
 *     blocks;
 *   - validate accepts exactly the geometries init can allocate;
 *   - a scalable filter's sub-filter (kbloom_chain.c) is refused exactly
 *     for bad parameters (EINVAL) or past the schedule's end or the core's
 *     reach (E2BIG), and otherwise has the capacity, seed and target the
 *     schedule says, whose targets up to it sum below the chain's rate;
 *     planning a chain of two sub-filters at most agrees with them.
 *
 * Every check runs for the three types (bits, 4-bit counters, windows of
 * any generations, valid or not) and for invalid types.  Input: packed
 * little-endian fields (missing bytes read as 0), each raw value shifted
 * right by its own shift byte so every magnitude is reached; the type is
 * the operation byte's high bits, the generations the next byte's (0 but
 * rarely for the other types).
 */
#include <errno.h>

#include "fuzz_common.h"
#include "kbloom_chain.h"
#include "kbloom_formula.h"

struct reader {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct reader *r, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++) {
		uint64_t b = 0;

		if (r->left) {
			b = *r->p++;
			r->left--;
		}
		v |= b << (8 * i);
	}
	return v;
}

/* A value of any magnitude: 8 raw bytes shifted right by 0..63. */
static uint64_t take_u64(struct reader *r)
{
	uint64_t raw = take(r, 8);

	return raw >> (take(r, 1) & 63);
}

static int type_ok(uint32_t type, uint32_t gens)
{
	if (type == KBLOOM_TYPE_WINDOW)
		return gens >= KBLOOM_GENERATIONS_MIN &&
		       gens <= KBLOOM_GENERATIONS_MAX;
	return (type == KBLOOM_TYPE_BITS || type == KBLOOM_TYPE_COUNTING) &&
	       !gens;
}

/* A window's key block: 2^plane_order blocks; 1 for the other types. */
static uint64_t key_block(uint32_t gens)
{
	return gens ? 1ULL << kbloom_plane_order(gens) : 1;
}

/* Whole key blocks of memory for bits. */
static uint64_t ceil_blocks(uint64_t bits, uint32_t gens)
{
	uint64_t blocks = bits / KBLOOM_BLOCK_BITS + !!(bits % KBLOOM_BLOCK_BITS);
	uint64_t unit = key_block(gens);

	return (blocks + unit - 1) / unit * unit;
}

/* The keys each generation is sized for: capacity / (g - 1), rounded up. */
static uint64_t share_of(uint64_t capacity, uint32_t gens)
{
	if (!gens)
		return capacity;
	return capacity / (gens - 1) + !!(capacity % (gens - 1));
}

/* The rate of n keys (each generation's) in units of the geometry's kind. */
static uint64_t rate16(const struct kbloom_fp_model *m, uint32_t gens,
		       uint64_t n, uint64_t units)
{
	if (gens)
		return kbloom_fp_model_window_ppb16(m, n, units, gens);
	return kbloom_fp_model_ppb16(m, n, units);
}

static void check_valid_geometry(const struct kbloom_geometry *g,
				 uint32_t type, uint32_t gens)
{
	fuzz_assert(g->type == type, "type %u became %u", type, g->type);
	fuzz_assert(g->generations == gens &&
		    g->plane_order == (gens ? kbloom_plane_order(gens) : 0),
		    "generations %u became %u, plane order %u", gens,
		    g->generations, g->plane_order);
	fuzz_assert(g->nblocks % key_block(gens) == 0,
		    "nblocks %llu not whole key blocks",
		    (unsigned long long)g->nblocks);
	fuzz_assert(!kbloom_geometry_validate(g), "nblocks %llu k %u",
		    (unsigned long long)g->nblocks, g->k);
	fuzz_assert(g->nblocks >= 1 && g->nblocks <= KBLOOM_MAX_BLOCKS,
		    "nblocks %llu", (unsigned long long)g->nblocks);
	fuzz_assert(g->k >= KBLOOM_K_MIN && g->k <= KBLOOM_K_MAX, "k %u", g->k);
	fuzz_assert(kbloom_geometry_bytes(g) == g->nblocks * 64, "bytes");
	/* the image: the header, its window part, cells, CRC */
	fuzz_assert(kbloom_image_bytes(g) ==
		    sizeof(struct kbloom_image_header) +
		    sizeof(struct kbloom_image_window) + g->nblocks * 64 + 4,
		    "image bytes");
}

static void fuzz_from_rate(uint32_t type, uint32_t gens, uint64_t capacity,
			   uint32_t fp)
{
	struct kbloom_geometry g;
	struct kbloom_fp_model m;
	uint64_t design, share, units, target = (uint64_t)fp << 16;
	int bad = !type_ok(type, gens) || !capacity ||
		  fp < KBLOOM_MIN_FP_PPB || fp >= KBLOOM_PPB;
	int ret = kbloom_geometry_from_rate_gen(&g, type, gens, capacity, fp);
	uint32_t at;

	if (bad) {
		fuzz_assert(ret == -EINVAL, "from_rate(%u, %llu, %u) = %d",
			    gens, (unsigned long long)capacity, fp, ret);
		return;
	}
	fuzz_assert(ret == 0 || ret == -E2BIG, "from_rate(%llu, %u) = %d",
		    (unsigned long long)capacity, fp, ret);
	if (ret)
		return;
	check_valid_geometry(&g, type, gens);
	fuzz_assert(g.capacity == capacity && g.fp_target_ppb == fp,
		    "from_rate lost its inputs");
	share = share_of(capacity, gens);
	at = gens ? kbloom_formula_fp_ppb_window(g.nblocks, g.plane_order,
						 share, g.k, gens) :
		    kbloom_formula_fp_ppb_type(type, g.nblocks, capacity, g.k);
	fuzz_assert(at <= fp, "from_rate(%u, %u, %llu, %u): %llu blocks give %u ppb",
		    type, gens, (unsigned long long)capacity, fp,
		    (unsigned long long)g.nblocks, at);
	/* Fewest (key) blocks for its k, at the slack-padded design load. */
	design = share + share / 128;
	units = g.nblocks >> g.plane_order;
	if (gens)
		kbloom_fp_model_init(&m, g.k);
	else
		kbloom_fp_model_init_cells(&m, g.k, kbloom_cells_order(type));
	fuzz_assert(rate16(&m, gens, design, units) <= target,
		    "over target at design load");
	fuzz_assert(units == 1 || rate16(&m, gens, design, units - 1) > target,
		    "from_rate(%u, %llu, %u): %llu blocks, fewer would do",
		    gens, (unsigned long long)capacity, fp,
		    (unsigned long long)g.nblocks);
}

static void fuzz_from_bits(uint32_t type, uint32_t gens, uint64_t bits,
			   uint32_t k, uint64_t capacity)
{
	struct kbloom_geometry g;
	int ret = kbloom_geometry_from_bits_gen(&g, type, gens, bits, k,
						capacity);

	if (!type_ok(type, gens) || !bits || k > KBLOOM_K_MAX) {
		fuzz_assert(ret == -EINVAL, "from_bits(%u, %llu, %u) = %d",
			    gens, (unsigned long long)bits, k, ret);
		return;
	}
	if (ceil_blocks(bits, gens) > KBLOOM_MAX_BLOCKS) {
		fuzz_assert(ret == -E2BIG, "from_bits(%u, %llu) = %d", gens,
			    (unsigned long long)bits, ret);
		return;
	}
	fuzz_assert(ret == 0, "from_bits(%llu, %u, %llu) = %d",
		    (unsigned long long)bits, k,
		    (unsigned long long)capacity, ret);
	check_valid_geometry(&g, type, gens);
	fuzz_assert(g.nblocks == ceil_blocks(bits, gens),
		    "from_bits(%u, %llu): %llu", gens,
		    (unsigned long long)bits, (unsigned long long)g.nblocks);
	fuzz_assert(!k || g.k == k, "k %u became %u", k, g.k);
	fuzz_assert(g.capacity == capacity, "capacity changed");
}

static void fuzz_from_bits_per_key(uint32_t type, uint32_t gens,
				   uint64_t capacity, uint32_t bpk, uint32_t k)
{
	struct kbloom_geometry g;
	unsigned __int128 bits = (unsigned __int128)capacity * bpk;
	uint64_t unit = key_block(gens);
	int ret = kbloom_geometry_from_bits_per_key_gen(&g, type, gens,
							capacity, bpk, k);

	if (!type_ok(type, gens) || !capacity || !bpk ||
	    bpk > KBLOOM_MAX_BITS_PER_KEY || k > KBLOOM_K_MAX) {
		fuzz_assert(ret == -EINVAL, "from_bpk(%llu, %u, %u) = %d",
			    (unsigned long long)capacity, bpk, k, ret);
		return;
	}
	if ((bits / KBLOOM_BLOCK_BITS + !!(bits % KBLOOM_BLOCK_BITS) +
	     unit - 1) / unit * unit > KBLOOM_MAX_BLOCKS) {
		fuzz_assert(ret == -E2BIG, "from_bpk(%llu, %u) = %d",
			    (unsigned long long)capacity, bpk, ret);
		return;
	}
	fuzz_assert(ret == 0, "from_bpk(%llu, %u, %u) = %d",
		    (unsigned long long)capacity, bpk, k, ret);
	check_valid_geometry(&g, type, gens);
	fuzz_assert(g.nblocks == ceil_blocks((uint64_t)bits, gens),
		    "from_bpk(%llu, %u): %llu blocks",
		    (unsigned long long)capacity, bpk,
		    (unsigned long long)g.nblocks);
	fuzz_assert(!k || g.k == k, "k %u became %u", k, g.k);
	fuzz_assert(g.capacity == capacity, "capacity changed");
}

/*
 * A window's formula: within [0, 1], 0 with no generation live, rising
 * with keys and live generations, falling with blocks.
 */
static void fuzz_formula_window(uint32_t order, uint32_t live,
				uint64_t nblocks, uint64_t n, uint64_t more,
				uint32_t k)
{
	uint32_t fp = kbloom_formula_fp_ppb_window(nblocks, order, n, k, live);
	uint64_t n2 = n + more < n ? UINT64_MAX : n + more;
	uint64_t nb2 = nblocks + more < nblocks ? UINT64_MAX : nblocks + more;

	if (k < KBLOOM_K_MIN || k > KBLOOM_K_MAX || order > 6 ||
	    live > 1U << order) {
		fuzz_assert(fp == KBLOOM_PPB, "order %u live %u k %u gave %u",
			    order, live, k, fp);
		return;
	}
	fuzz_assert(fp <= KBLOOM_PPB, "rate %u over 1", fp);
	if (!live)
		fuzz_assert(fp == 0, "no live generation: %u", fp);
	fuzz_assert(fp <= kbloom_formula_fp_ppb_window(nblocks, order, n2, k,
						       live) + 1,
		    "window rate fell with more keys");
	if (live < 1U << order)
		fuzz_assert(fp <= kbloom_formula_fp_ppb_window(nblocks, order,
							       n, k,
							       live + 1) + 1,
			    "window rate fell with a generation more");
	if (nblocks >> order)
		fuzz_assert(kbloom_formula_fp_ppb_window(nb2, order, n, k,
							 live) <= fp + 1,
			    "window rate rose with more blocks");
}

static void fuzz_formula(uint32_t type, uint64_t nblocks, uint64_t n,
			 uint64_t more, uint32_t k)
{
	uint32_t fp = kbloom_formula_fp_ppb_type(type, nblocks, n, k);
	uint64_t n2 = n + more < n ? UINT64_MAX : n + more;
	uint64_t nb2 = nblocks + more < nblocks ? UINT64_MAX : nblocks + more;

	/* A window's rate needs its generations: the typed call refuses. */
	if (!type_ok(type, 0) || k < KBLOOM_K_MIN || k > KBLOOM_K_MAX) {
		fuzz_assert(fp == KBLOOM_PPB, "type %u k %u gave %u", type, k,
			    fp);
		return;
	}
	if (type == KBLOOM_TYPE_BITS)
		fuzz_assert(fp == kbloom_formula_fp_ppb(nblocks, n, k),
			    "the bits type's two entry points disagree");
	fuzz_assert(fp <= KBLOOM_PPB, "rate %u over 1", fp);
	if (!n && nblocks)
		fuzz_assert(fp <= 1, "empty filter rate %u", fp);
	/* Rounding to whole ppb may flip one unit at a boundary. */
	fuzz_assert(fp <= kbloom_formula_fp_ppb_type(type, nblocks, n2, k) + 1,
		    "rate fell from %u with more keys (%llu -> %llu, %llu blocks, k %u)",
		    fp, (unsigned long long)n, (unsigned long long)n2,
		    (unsigned long long)nblocks, k);
	if (nblocks)
		fuzz_assert(kbloom_formula_fp_ppb_type(type, nb2, n, k) <=
			    fp + 1,
			    "rate rose with more blocks (%llu -> %llu, %llu keys, k %u)",
			    (unsigned long long)nblocks,
			    (unsigned long long)nb2, (unsigned long long)n, k);
}

static void fuzz_validate(struct reader *r)
{
	struct kbloom_geometry g = {
		.nblocks = take_u64(r), .capacity = take_u64(r),
		.seed = take(r, 8), .k = take(r, 1),
		.type = take(r, 1) & 3, .fp_target_ppb = take(r, 4),
		.generations = take(r, 1), .plane_order = take(r, 1) & 7,
	};
	struct kbloom_filter f;
	int ok = g.nblocks >= 1 && g.nblocks <= KBLOOM_MAX_BLOCKS &&
		 g.k >= KBLOOM_K_MIN && g.k <= KBLOOM_K_MAX &&
		 type_ok(g.type, g.generations) &&
		 g.plane_order == (g.generations ?
				   kbloom_plane_order(g.generations) : 0) &&
		 !(g.nblocks & ((1ULL << g.plane_order) - 1)) &&
		 g.fp_target_ppb < KBLOOM_PPB;
	int ret = kbloom_geometry_validate(&g);
	uint64_t i;

	fuzz_assert((ret == 0) == ok, "validate said %d for nblocks %llu k %u",
		    ret, (unsigned long long)g.nblocks, g.k);
	if (!ok || g.nblocks > 256)
		return;
	fuzz_assert(!kbloom_filter_init(&f, &g), "init failed");
	fuzz_assert(((uintptr_t)f.words & 63) == 0, "bits not 64-byte aligned");
	for (i = 0; i < g.nblocks * KBLOOM_BLOCK_WORDS; i++)
		fuzz_assert(!f.words[i], "new filter not zeroed");
	kbloom_filter_free(&f);
}

static void fuzz_chain(uint32_t type, uint64_t capacity, uint32_t fp,
		       uint32_t expansion, uint32_t index, uint64_t seed)
{
	const struct kbloom_chain_params cp = {
		.capacity = capacity, .seed = seed, .type = type,
		.fp_ppb = fp, .expansion = expansion,
	};
	int bad = (type != KBLOOM_TYPE_BITS && type != KBLOOM_TYPE_COUNTING) ||
		  !capacity || fp < KBLOOM_MIN_FP_PPB || fp >= KBLOOM_PPB ||
		  expansion < KBLOOM_EXPANSION_MIN ||
		  expansion > KBLOOM_EXPANSION_MAX;
	uint32_t max = kbloom_chain_max_subs(&cp), i;
	uint64_t cap = capacity, sum = 0, keys;
	u64 bytes, rate;
	struct kbloom_geometry g;
	int ret = kbloom_chain_sub_geometry(&g, &cp, index);
	u32 subs;

	if (bad) {
		fuzz_assert(ret == -EINVAL && !max && !g.nblocks,
			    "chain(%u, %llu, %u, e %u) sub %u = %d, max %u",
			    type, (unsigned long long)capacity, fp, expansion,
			    index, ret, max);
		return;
	}
	fuzz_assert(max >= 1 && max <= KBLOOM_CHAIN_MAX_SUBS, "max %u", max);
	/* max is where capacity * e^i would pass 2^64 - 1, or the cap. */
	for (i = 1; i < max; i++)
		fuzz_assert(!__builtin_mul_overflow(cap, (uint64_t)expansion,
						    &cap),
			    "capacity of sub-filter %u overflows", i);
	fuzz_assert(max == KBLOOM_CHAIN_MAX_SUBS ||
		    __builtin_mul_overflow(cap, (uint64_t)expansion, &cap),
		    "max %u ends before the capacity overflows", max);
	if (index >= max) {
		fuzz_assert(ret == -E2BIG, "sub %u of %u = %d", index, max,
			    ret);
		return;
	}
	for (i = 0; i <= index; i++)
		sum += kbloom_chain_sub_target_ppb16(fp, i);
	fuzz_assert(sum < (uint64_t)fp << 16, "targets to %u sum to %llu",
		    index, (unsigned long long)sum);
	fuzz_assert(ret == 0 || ret == -E2BIG, "sub %u = %d", index, ret);
	if (ret) {
		fuzz_assert(!g.nblocks, "a refused sub-filter has blocks");
		return;
	}
	for (cap = capacity, i = 0; i < index; i++)
		cap *= expansion;
	check_valid_geometry(&g, type, 0);
	fuzz_assert(g.capacity == cap &&
		    g.seed == kbloom_chain_sub_seed(seed, index) &&
		    (index || g.seed == seed) && g.fp_target_ppb >= 1 &&
		    (uint64_t)g.fp_target_ppb << 16 >=
		    kbloom_chain_sub_target_ppb16(fp, index),
		    "sub %u: capacity %llu (want %llu), target %u",
		    index, (unsigned long long)g.capacity,
		    (unsigned long long)cap, g.fp_target_ppb);
	if (index)
		return;
	/* sub-filter 0 sized: plan up to two sub-filters' worth of keys */
	keys = seed % (capacity + 1);
	ret = kbloom_chain_plan(&cp, keys, &subs, &bytes, &rate);
	fuzz_assert(!ret && subs == 1 &&
		    bytes == kbloom_geometry_bytes(&g) &&
		    rate <= (uint64_t)g.fp_target_ppb << 16,
		    "plan of %llu keys: %d, %u sub-filters, %llu bytes, rate %llu",
		    (unsigned long long)keys, ret, subs,
		    (unsigned long long)bytes, (unsigned long long)rate);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	unsigned int op = take(&r, 1);
	/* Mostly the three real types, sometimes a bad one. */
	uint32_t type = (op >> 4) < 12 ? (op >> 4) % 3 : (op >> 4);
	/* A window's any number of generations; others' mostly 0. */
	uint32_t gens = take(&r, 1), wg;
	uint64_t a, b, c;
	uint32_t k;

	wg = gens & 127;
	if (type != KBLOOM_TYPE_WINDOW)
		gens = gens & 128 ? wg : 0;
	else
		gens = wg;

	switch ((op & 15) % 6) {
	case 0:
		a = take_u64(&r);
		k = take(&r, 4);
		fuzz_from_rate(type, gens, a, k >> (take(&r, 1) & 31));
		break;
	case 1:
		a = take_u64(&r);
		k = take(&r, 1);
		fuzz_from_bits(type, gens, a, k, take_u64(&r));
		break;
	case 2:
		a = take_u64(&r);
		b = take(&r, 1);
		fuzz_from_bits_per_key(type, gens, a, b, take(&r, 1));
		break;
	case 3:
		a = take_u64(&r);
		b = take_u64(&r);
		c = take_u64(&r);
		k = take(&r, 1);
		fuzz_formula(type, a, b, c, k);
		/* plane order and live from the generations byte */
		fuzz_formula_window(wg >> 4, wg & 15 ? wg & 15 : wg >> 4, a, b,
				    c, k);
		break;
	case 4:
		fuzz_validate(&r);
		break;
	default:
		a = take_u64(&r);
		k = take(&r, 4);
		b = take(&r, 1);
		c = take(&r, 2);
		k >>= take(&r, 1) & 31;
		/* expansion 0..17, the index mostly near the start */
		fuzz_chain(type, a, k, (uint32_t)b % 18,
			   (uint32_t)c % (c & 0x8000 ? 1100 : 8),
			   take_u64(&r));
		break;
	}
	return 0;
}
