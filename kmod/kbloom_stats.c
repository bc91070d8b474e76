// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics that describe the filter's current bits rather than its
 * history: fill, the false-positive rate a random absent key sees right now,
 * and how many distinct keys the bits suggest.  All are computed per block
 * because a blocked filter's rate depends on how unevenly blocks fill, not
 * just on the overall fill.
 */
#include "kbloom_core.h"
#include "kbloom_log_table.h"

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/math64.h>
#include <linux/sched.h>
#endif

#define FX63_ONE		BIT_ULL(63)
#define KBLOOM_STATS_RESCHED	4096

/*
 * (x/512)^k, scaled by 2^32: the chance that k independent uniform probes
 * all land among the x set cells of a block.
 */
static u64 all_set_fx32(u32 x, u32 k)
{
	u64 fill63 = (u64)x << (63 - 9);
	u64 r = FX63_ONE;
	u32 t;

	for (t = 0; t < k; t++)
		r = mul_u64_u64_shr(r, fill63, 63);
	return (r + BIT_ULL(30)) >> 31;
}

void kbloom_get_stats(const struct kbloom_filter *f, struct kbloom_stats *st)
{
	u64 nblocks = f->geo.nblocks, b;
	u64 all_set_sum = 0, neg_log_sum = 0, bits_set = 0, fp_now32, per_key;
	u32 k = f->geo.k, w;

	memset(st, 0, sizeof(*st));
	st->add_calls = atomic64_read(&f->add_calls);
	st->add_new = atomic64_read(&f->add_new);
	st->check_calls = atomic64_read(&f->check_calls);
	st->check_hits = atomic64_read(&f->check_hits);

	for (b = 0; b < nblocks; b++) {
		const u64 *block = f->words + b * KBLOOM_BLOCK_WORDS;
		u32 x = 0;

		for (w = 0; w < KBLOOM_BLOCK_WORDS; w++)
			x += hweight64(READ_ONCE(block[w]));
		bits_set += x;
		/* At most 2^31 blocks * 2^32 and 2^31 * 2^32: no overflow. */
		all_set_sum += all_set_fx32(x, k);
		neg_log_sum += kbloom_neg_log_clear[x];
		if (!((b + 1) % KBLOOM_STATS_RESCHED))
			cond_resched();
	}

	st->bits_set = bits_set;
	/* 10^9 / 512 is exactly 1953125, and bits_set <= 2^40. */
	st->fill_ppb = (u32)div64_u64(bits_set * (KBLOOM_PPB / 512), nblocks);
	fp_now32 = div64_u64(all_set_sum, nblocks);
	st->fp_now_ppb = (u32)mul_u64_u64_shr(fp_now32, KBLOOM_PPB, 32);
	/*
	 * A block's k * i probes leave a cell clear with chance
	 * (1 - 1/512)^(k i), so x set cells suggest i = ln(1 - x/512) /
	 * (k ln(1 - 1/512)) keys; summing the logs first costs one division.
	 */
	per_key = (u64)k * kbloom_neg_log_clear[1];
	st->est_keys = div64_u64(neg_log_sum + per_key / 2, per_key);
	if (f->geo.capacity)
		st->fp_design_ppb = kbloom_formula_fp_ppb(nblocks,
							  f->geo.capacity, k);
	/*
	 * Over capacity means more keys changed the filter than it was built
	 * for: duplicates never count, and unlike the estimate the count
	 * cannot drift past capacity when exactly capacity keys went in.
	 */
	st->saturated = (f->geo.capacity && st->add_new > f->geo.capacity) ||
			(f->geo.fp_target_ppb &&
			 st->fp_now_ppb > f->geo.fp_target_ppb);
}
