// SPDX-License-Identifier: GPL-2.0
/*
 * The filter core's size bounds where size_t is 32 bits, built -m32 and
 * run by test-sizes32.sh in the VM (the 64-bit kernel runs it through its
 * IA32 emulation).  The module's cells are one __vmalloc() of the size the
 * geometry gives, and image buffers are sized from it: on a 32-bit kernel
 * a u64 size narrowed to size_t would allocate too little for what adds
 * and loads then write.  Every geometry the core accepts must have sizes
 * that size_t holds, and larger ones are E2BIG, as the uapi header says
 * of a filter over the core's limit.
 */
#include "kbloom_core.h"
#include "vmtest.h"

#define SUITE	"sizes32"
#define PAGE	4096ULL

/* The page-rounded cells and the image of nblocks fit in size_t. */
static bool sizes_fit(u64 nblocks)
{
	struct kbloom_geometry geo = { .nblocks = nblocks };
	u64 cells = kbloom_geometry_bytes(&geo);

	return (cells + PAGE - 1) / PAGE * PAGE <= SIZE_MAX &&
	       vt_image_bytes(nblocks) <= SIZE_MAX;
}

static const char *largest_accepted_fits(void)
{
	struct kbloom_geometry geo = {
		.nblocks = KBLOOM_MAX_BLOCKS, .k = 7,
		.type = KBLOOM_TYPE_BITS,
	};
	int ret = kbloom_geometry_validate(&geo);

	if (ret)
		return vt_fail("KBLOOM_MAX_BLOCKS (%llu) refused: %d",
			       (unsigned long long)KBLOOM_MAX_BLOCKS, ret);
	if (!sizes_fit(KBLOOM_MAX_BLOCKS))
		return vt_fail("%llu blocks: %llu bytes of cells do not fit a %zu-byte size_t",
			       (unsigned long long)KBLOOM_MAX_BLOCKS,
			       (unsigned long long)kbloom_geometry_bytes(&geo),
			       sizeof(size_t));
	return NULL;
}

/* 4 GiB of cells (2^26 blocks): more than a 32-bit size_t holds. */
static const char *validate_4gib_e2big(void)
{
	struct kbloom_geometry geo = {
		.nblocks = 1ULL << 26, .k = 7, .type = KBLOOM_TYPE_BITS,
	};
	int ret = kbloom_geometry_validate(&geo);

	if (sizeof(size_t) > 4)
		return vt_skip("size_t is %zu bytes here", sizeof(size_t));
	if (ret != -E2BIG)
		return vt_fail("2^26 blocks: %d, wanted -E2BIG (%d)", ret,
			       -E2BIG);
	return NULL;
}

/* Sizing by bits: 8 GiB is over the bound, for every type. */
static const char *from_bits_8gib_e2big(void)
{
	static const u32 types[] = {
		KBLOOM_TYPE_BITS, KBLOOM_TYPE_COUNTING,
	};
	struct kbloom_geometry geo;
	unsigned int i;
	int ret;

	if (sizeof(size_t) > 4)
		return vt_skip("size_t is %zu bytes here", sizeof(size_t));
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		ret = kbloom_geometry_from_bits_type(&geo, types[i],
						     1ULL << 36, 7, 0);
		if (ret != -E2BIG)
			return vt_fail("type %u, 2^36 bits: %d, wanted -E2BIG",
				       types[i], ret);
	}
	return NULL;
}

/* Every accepted size, to the last block, fits. */
static const char *bound_is_tight(void)
{
	struct kbloom_geometry geo = {
		.nblocks = KBLOOM_MAX_BLOCKS + 1, .k = 7,
		.type = KBLOOM_TYPE_BITS,
	};

	if (kbloom_geometry_validate(&geo) != -E2BIG)
		return vt_fail("KBLOOM_MAX_BLOCKS + 1 accepted");
	return NULL;
}

static const struct vt_case cases[] = {
	VT_CASE(largest_accepted_fits),
	VT_CASE(validate_4gib_e2big),
	VT_CASE(from_bits_8gib_e2big),
	VT_CASE(bound_is_tight),
};

int main(void)
{
	printf("%s: size_t is %zu bytes, at most %llu blocks\n", SUITE,
	       sizeof(size_t), (unsigned long long)KBLOOM_MAX_BLOCKS);
	return vt_run(SUITE, cases, ARRAY_SIZE(cases));
}
