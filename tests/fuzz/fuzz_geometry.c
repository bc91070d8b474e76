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
 *   - validate accepts exactly the geometries init can allocate.
 *
 * Every check runs for both cell types (bits, 4-bit counters) and for
 * invalid types.  Input: packed little-endian fields (missing bytes read as
 * 0), each raw value shifted right by its own shift byte so every magnitude
 * is reached; the type is the operation byte's high bits.
 */
#include <errno.h>

#include "fuzz_common.h"
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

static int type_ok(uint32_t type)
{
	return type == KBLOOM_TYPE_BITS || type == KBLOOM_TYPE_COUNTING;
}

static uint64_t ceil_blocks(uint64_t bits)
{
	return bits / KBLOOM_BLOCK_BITS + !!(bits % KBLOOM_BLOCK_BITS);
}

static void check_valid_geometry(const struct kbloom_geometry *g,
				 uint32_t type)
{
	fuzz_assert(g->type == type, "type %u became %u", type, g->type);
	fuzz_assert(!kbloom_geometry_validate(g), "nblocks %llu k %u",
		    (unsigned long long)g->nblocks, g->k);
	fuzz_assert(g->nblocks >= 1 && g->nblocks <= KBLOOM_MAX_BLOCKS,
		    "nblocks %llu", (unsigned long long)g->nblocks);
	fuzz_assert(g->k >= KBLOOM_K_MIN && g->k <= KBLOOM_K_MAX, "k %u", g->k);
	fuzz_assert(kbloom_geometry_bytes(g) == g->nblocks * 64, "bytes");
	fuzz_assert(kbloom_image_bytes(g) ==
		    sizeof(struct kbloom_image_header) + g->nblocks * 64 + 4,
		    "image bytes");
}

static void fuzz_from_rate(uint32_t type, uint64_t capacity, uint32_t fp)
{
	struct kbloom_geometry g;
	struct kbloom_fp_model m;
	uint64_t design, target = (uint64_t)fp << 16;
	int bad = !type_ok(type) || !capacity || fp < KBLOOM_MIN_FP_PPB ||
		  fp >= KBLOOM_PPB;
	int ret = kbloom_geometry_from_rate_type(&g, type, capacity, fp);

	if (bad) {
		fuzz_assert(ret == -EINVAL, "from_rate(%llu, %u) = %d",
			    (unsigned long long)capacity, fp, ret);
		return;
	}
	fuzz_assert(ret == 0 || ret == -E2BIG, "from_rate(%llu, %u) = %d",
		    (unsigned long long)capacity, fp, ret);
	if (ret)
		return;
	check_valid_geometry(&g, type);
	fuzz_assert(g.capacity == capacity && g.fp_target_ppb == fp,
		    "from_rate lost its inputs");
	fuzz_assert(kbloom_formula_fp_ppb_type(type, g.nblocks, capacity, g.k) <=
		    fp, "from_rate(%u, %llu, %u): %llu blocks give %u ppb", type,
		    (unsigned long long)capacity, fp,
		    (unsigned long long)g.nblocks,
		    kbloom_formula_fp_ppb_type(type, g.nblocks, capacity, g.k));
	/* Fewest blocks for its k, at the slack-padded design load. */
	design = capacity + capacity / 128;
	kbloom_fp_model_init_cells(&m, g.k, kbloom_cells_order(type));
	fuzz_assert(kbloom_fp_model_ppb16(&m, design, g.nblocks) <= target,
		    "over target at design load");
	fuzz_assert(g.nblocks == 1 ||
		    kbloom_fp_model_ppb16(&m, design, g.nblocks - 1) > target,
		    "from_rate(%llu, %u): %llu blocks, fewer would do",
		    (unsigned long long)capacity, fp,
		    (unsigned long long)g.nblocks);
}

static void fuzz_from_bits(uint32_t type, uint64_t bits, uint32_t k,
			   uint64_t capacity)
{
	struct kbloom_geometry g;
	int ret = kbloom_geometry_from_bits_type(&g, type, bits, k, capacity);

	if (!type_ok(type) || !bits || k > KBLOOM_K_MAX) {
		fuzz_assert(ret == -EINVAL, "from_bits(%llu, %u) = %d",
			    (unsigned long long)bits, k, ret);
		return;
	}
	if (ceil_blocks(bits) > KBLOOM_MAX_BLOCKS) {
		fuzz_assert(ret == -E2BIG, "from_bits(%llu) = %d",
			    (unsigned long long)bits, ret);
		return;
	}
	fuzz_assert(ret == 0, "from_bits(%llu, %u, %llu) = %d",
		    (unsigned long long)bits, k,
		    (unsigned long long)capacity, ret);
	check_valid_geometry(&g, type);
	fuzz_assert(g.nblocks == ceil_blocks(bits), "from_bits(%llu): %llu",
		    (unsigned long long)bits, (unsigned long long)g.nblocks);
	fuzz_assert(!k || g.k == k, "k %u became %u", k, g.k);
	fuzz_assert(g.capacity == capacity, "capacity changed");
}

static void fuzz_from_bits_per_key(uint32_t type, uint64_t capacity,
				   uint32_t bpk, uint32_t k)
{
	struct kbloom_geometry g;
	unsigned __int128 bits = (unsigned __int128)capacity * bpk;
	int ret = kbloom_geometry_from_bits_per_key_type(&g, type, capacity,
							 bpk, k);

	if (!type_ok(type) || !capacity || !bpk ||
	    bpk > KBLOOM_MAX_BITS_PER_KEY || k > KBLOOM_K_MAX) {
		fuzz_assert(ret == -EINVAL, "from_bpk(%llu, %u, %u) = %d",
			    (unsigned long long)capacity, bpk, k, ret);
		return;
	}
	if (bits / KBLOOM_BLOCK_BITS + !!(bits % KBLOOM_BLOCK_BITS) >
	    KBLOOM_MAX_BLOCKS) {
		fuzz_assert(ret == -E2BIG, "from_bpk(%llu, %u) = %d",
			    (unsigned long long)capacity, bpk, ret);
		return;
	}
	fuzz_assert(ret == 0, "from_bpk(%llu, %u, %u) = %d",
		    (unsigned long long)capacity, bpk, k, ret);
	check_valid_geometry(&g, type);
	fuzz_assert(g.nblocks == ceil_blocks((uint64_t)bits),
		    "from_bpk(%llu, %u): %llu blocks",
		    (unsigned long long)capacity, bpk,
		    (unsigned long long)g.nblocks);
	fuzz_assert(!k || g.k == k, "k %u became %u", k, g.k);
	fuzz_assert(g.capacity == capacity, "capacity changed");
}

static void fuzz_formula(uint32_t type, uint64_t nblocks, uint64_t n,
			 uint64_t more, uint32_t k)
{
	uint32_t fp = kbloom_formula_fp_ppb_type(type, nblocks, n, k);
	uint64_t n2 = n + more < n ? UINT64_MAX : n + more;
	uint64_t nb2 = nblocks + more < nblocks ? UINT64_MAX : nblocks + more;

	if (!type_ok(type) || k < KBLOOM_K_MIN || k > KBLOOM_K_MAX) {
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
	};
	struct kbloom_filter f;
	int ok = g.nblocks >= 1 && g.nblocks <= KBLOOM_MAX_BLOCKS &&
		 g.k >= KBLOOM_K_MIN && g.k <= KBLOOM_K_MAX &&
		 type_ok(g.type) && g.fp_target_ppb < KBLOOM_PPB;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	unsigned int op = take(&r, 1);
	/* Mostly the two real types, sometimes a bad one. */
	uint32_t type = (op >> 4) < 14 ? (op >> 4) & 1 : (op >> 4);
	uint64_t a, b, c;
	uint32_t k;

	switch ((op & 15) % 5) {
	case 0:
		a = take_u64(&r);
		k = take(&r, 4);
		fuzz_from_rate(type, a, k >> (take(&r, 1) & 31));
		break;
	case 1:
		a = take_u64(&r);
		k = take(&r, 1);
		fuzz_from_bits(type, a, k, take_u64(&r));
		break;
	case 2:
		a = take_u64(&r);
		b = take(&r, 1);
		fuzz_from_bits_per_key(type, a, b, take(&r, 1));
		break;
	case 3:
		a = take_u64(&r);
		b = take_u64(&r);
		c = take_u64(&r);
		fuzz_formula(type, a, b, c, take(&r, 1));
		break;
	default:
		fuzz_validate(&r);
		break;
	}
	return 0;
}
