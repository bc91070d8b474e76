// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * The filter image: a struct kbloom_image_header, the cells as 64-bit
 * little-endian words (a counting filter's 4-bit counters are nibbles of
 * those words, just as they are in memory), then the CRC32C of everything
 * before it, stored little-endian.  Any nibble is a valid counter, so the
 * header's type is all that differs between the two kinds of image.
 *
 * The header has room for add_calls and add_new only; the delete counts
 * stay out, so the reserved fields stay 0.  A load restarts them from 0.
 *
 * A struct kbloom_image_window follows the header, counted in
 * header_bytes: a window's generations, its current plane, live planes,
 * rotations, the time since the last rotation (the module's to fill in)
 * and the keys added per plane.  It is zero for the other types.  A
 * window's image holds its live planes only: the spare, which may be half
 * cleared, reads as 0, so an image does not depend on when a clear was
 * interrupted.
 *
 * Only version 3 loads.  Versions 1 and 2 (kbloom 0.1) placed a key's
 * cells by double hashing, not by the slices kbloom_probe.h takes now: their
 * cells would answer other keys, and no key could be found again, so they
 * are refused (EPROTO) rather than loaded; the cells cannot be converted
 * without the keys.
 *
 * The CRC is the standard CRC32C (Castagnoli, reflected polynomial
 * 0x82F63B78, initial value ~0, final inversion; "123456789" gives
 * 0xe3069283), ~kbloom_crc32c(~0, data, len): kbloom_crc32c()
 * (kbloom_core_compat.h) does neither inversion itself, so the running value
 * kept in the cursor is the raw, uninverted one.
 */
#include "kbloom_core.h"

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/string.h>
#endif

#define KBLOOM_HDR_BYTES	sizeof(struct kbloom_image_header)
#define KBLOOM_WIN_BYTES	sizeof(struct kbloom_image_window)
#define KBLOOM_HDR2_BYTES	(KBLOOM_HDR_BYTES + KBLOOM_WIN_BYTES)
#define KBLOOM_CRC_BYTES	sizeof(__le32)
#define KBLOOM_CRC_SEED		(~0U)
#define KBLOOM_CRC_CHUNK	BIT_ULL(20)

static u64 bits_bytes(u64 nblocks)
{
	return nblocks * KBLOOM_BLOCK_BYTES;
}

u64 kbloom_image_bytes(const struct kbloom_geometry *geo)
{
	return KBLOOM_HDR2_BYTES + bits_bytes(geo->nblocks) + KBLOOM_CRC_BYTES;
}

/* Bit i of every cell of a word, for each plane i in live. */
static u64 window_cells_mask(const struct kbloom_filter *f, u64 live)
{
	u32 width = 1U << f->geo.plane_order, s;
	u64 low = 0;

	for (s = 0; s < 64; s += width)
		low |= 1ULL << s;
	/* live is below 2^width: the products do not overlap. */
	return low * live;
}

/* The live planes of a window with this current plane. */
static u64 window_live_of(const struct kbloom_filter *f, u32 cur)
{
	u32 planes = f->geo.generations + 1;

	return GENMASK_ULL(f->geo.generations, 0) &
	       ~BIT_ULL((cur + 1) % planes);
}

static void window_start(const struct kbloom_filter *f,
			 struct kbloom_image_window *win)
{
	u32 cur, i;

	/* Pairs with the rotation's store: live follows from cur. */
	cur = smp_load_acquire(&f->win.cur);
	win->generations = cpu_to_le32(f->geo.generations);
	win->cur_plane = cpu_to_le32(cur);
	win->live = cpu_to_le64(window_live_of(f, cur));
	win->rotations = cpu_to_le64(READ_ONCE(f->win.rotations));
	for (i = 0; i < f->win.planes; i++)
		if (le64_to_cpu(win->live) & BIT_ULL(i))
			win->plane_adds[i] =
				cpu_to_le64(kbloom_window_adds(&f->win, i));
}

void kbloom_image_start(const struct kbloom_filter *f,
			struct kbloom_image_cursor *cur)
{
	struct kbloom_image_header *hdr = &cur->hdr;
	struct kbloom_counts counts;

	memset(cur, 0, sizeof(*cur));
	hdr->magic = cpu_to_le32(KBLOOM_IMAGE_MAGIC);
	hdr->version = cpu_to_le16(KBLOOM_IMAGE_VERSION);
	hdr->header_bytes = cpu_to_le16(KBLOOM_HDR2_BYTES);
	hdr->k = cpu_to_le32(f->geo.k);
	hdr->type = cpu_to_le32(f->geo.type);
	hdr->nblocks = cpu_to_le64(f->geo.nblocks);
	hdr->seed = cpu_to_le64(f->geo.seed);
	hdr->capacity = cpu_to_le64(f->geo.capacity);
	hdr->fp_target_ppb = cpu_to_le32(f->geo.fp_target_ppb);
	kbloom_counts_read(f, &counts);
	hdr->add_calls = cpu_to_le64(counts.add_calls);
	hdr->add_new = cpu_to_le64(counts.add_new);
	if (f->geo.type == KBLOOM_TYPE_WINDOW)
		window_start(f, &cur->win);
	cur->crc = KBLOOM_CRC_SEED;
}

void kbloom_image_copy_cells(const struct kbloom_filter *f, u64 from,
			     u8 *out, size_t len, u64 keep)
{
	while (len) {
		u64 index = from / sizeof(u64);
		u32 skip = from % sizeof(u64);
		size_t take = min_t(size_t, len, sizeof(u64) - skip);
		__le64 word = cpu_to_le64(READ_ONCE(f->words[index]) & keep);

		memcpy(out, (u8 *)&word + skip, take);
		out += take;
		from += take;
		len -= take;
	}
}

size_t kbloom_image_emit(const struct kbloom_filter *f,
			 struct kbloom_image_cursor *cur, void *buf,
			 size_t len)
{
	u64 bits_end = KBLOOM_HDR2_BYTES + bits_bytes(f->geo.nblocks);
	u64 total = bits_end + KBLOOM_CRC_BYTES;
	u64 keep = f->geo.type == KBLOOM_TYPE_WINDOW ?
		   window_cells_mask(f, le64_to_cpu(cur->win.live)) : ~0ULL;
	u8 *out = buf;
	size_t copied = 0;

	while (copied < len && cur->pos < total) {
		size_t room = len - copied;
		size_t take;

		if (cur->pos < KBLOOM_HDR_BYTES) {
			take = min_t(size_t, room, KBLOOM_HDR_BYTES - cur->pos);
			memcpy(out, (u8 *)&cur->hdr + cur->pos, take);
		} else if (cur->pos < KBLOOM_HDR2_BYTES) {
			u64 at = cur->pos - KBLOOM_HDR_BYTES;

			take = min_t(size_t, room, KBLOOM_WIN_BYTES - at);
			memcpy(out, (u8 *)&cur->win + at, take);
		} else if (cur->pos < bits_end) {
			take = min_t(u64, room, bits_end - cur->pos);
			kbloom_image_copy_cells(f, cur->pos - KBLOOM_HDR2_BYTES,
						out, take, keep);
		} else {
			__le32 crc = cpu_to_le32(~cur->crc);

			take = min_t(u64, room, total - cur->pos);
			memcpy(out, (u8 *)&crc + (cur->pos - bits_end), take);
		}
		/* The CRC covers what was emitted, racing adds included. */
		if (cur->pos < bits_end)
			cur->crc = kbloom_crc32c(cur->crc, out, take);
		out += take;
		copied += take;
		cur->pos += take;
	}
	return copied;
}

bool kbloom_image_fields_valid(const struct kbloom_image_header *hdr)
{
	u32 k = le32_to_cpu(hdr->k), type = le32_to_cpu(hdr->type);
	u64 nblocks = le64_to_cpu(hdr->nblocks);
	u32 i;

	if (hdr->flags)
		return false;
	for (i = 0; i < ARRAY_SIZE(hdr->reserved); i++)
		if (hdr->reserved[i])
			return false;
	if (k < KBLOOM_K_MIN || k > KBLOOM_K_MAX)
		return false;
	if (type != KBLOOM_TYPE_BITS && type != KBLOOM_TYPE_COUNTING &&
	    type != KBLOOM_TYPE_WINDOW)
		return false;
	if (!nblocks || nblocks > KBLOOM_MAX_BLOCKS)
		return false;
	if (le32_to_cpu(hdr->fp_target_ppb) >= KBLOOM_PPB)
		return false;
	return true;
}

int kbloom_image_check_header(const struct kbloom_filter *f, const void *img,
			      size_t len)
{
	struct kbloom_image_header hdr;

	if (len < KBLOOM_HDR_BYTES)
		return -ENODATA;
	/* The image may sit at any alignment. */
	memcpy(&hdr, img, sizeof(hdr));
	if (le32_to_cpu(hdr.magic) != KBLOOM_IMAGE_MAGIC)
		return -ENOEXEC;
	/* A scalable filter's: kbloom_chain_image.c loads those. */
	if (le16_to_cpu(hdr.version) == KBLOOM_IMAGE_VERSION_CHAIN)
		return -EXDEV;
	if (le16_to_cpu(hdr.version) != KBLOOM_IMAGE_VERSION)
		return -EPROTO;
	if (le16_to_cpu(hdr.header_bytes) != KBLOOM_HDR2_BYTES ||
	    !kbloom_image_fields_valid(&hdr))
		return -EINVAL;
	if (le64_to_cpu(hdr.nblocks) != f->geo.nblocks ||
	    le32_to_cpu(hdr.k) != f->geo.k ||
	    le32_to_cpu(hdr.type) != f->geo.type ||
	    le64_to_cpu(hdr.seed) != f->geo.seed)
		return -EXDEV;
	return 0;
}

/*
 * The window part of an image: zero but for windows, and for a
 * window the state a rotation can leave (live is what cur makes it, and
 * no keys are counted in the spare).  Different generations: -EXDEV.
 */
int kbloom_image_check_window(const struct kbloom_filter *f, const void *img,
			      size_t len)
{
	struct kbloom_image_window win;
	u32 cur, planes = f->geo.generations + 1, i;

	if (len < KBLOOM_HDR2_BYTES)
		return -ENODATA;
	memcpy(&win, (const u8 *)img + KBLOOM_HDR_BYTES, sizeof(win));
	for (i = 0; i < ARRAY_SIZE(win.reserved); i++)
		if (win.reserved[i])
			return -EINVAL;
	if (f->geo.type != KBLOOM_TYPE_WINDOW)
		return memchr_inv(&win, 0, sizeof(win)) ? -EINVAL : 0;
	if (le32_to_cpu(win.generations) != f->geo.generations)
		return -EXDEV;
	cur = le32_to_cpu(win.cur_plane);
	if (cur >= planes || le64_to_cpu(win.live) != window_live_of(f, cur))
		return -EINVAL;
	for (i = 0; i < KBLOOM_IMAGE_PLANES; i++)
		if ((!(le64_to_cpu(win.live) & BIT_ULL(i)) &&
		     win.plane_adds[i]) ||
		    le64_to_cpu(win.plane_adds[i]) > KBLOOM_PLANE_ADDS_MAX)
			return -EINVAL;
	return 0;
}

int kbloom_image_validate(const struct kbloom_filter *f, const void *img,
			  size_t len)
{
	const u8 *start = img;
	u64 total;
	int ret;

	ret = kbloom_image_check_header(f, img, len);
	if (ret)
		return ret;
	total = kbloom_image_bytes(&f->geo);
	if (len < total)
		return -ENODATA;
	if (len > total)
		return -EMSGSIZE;
	ret = kbloom_image_check_window(f, img, len);
	if (ret)
		return ret;
	return kbloom_image_check_crc(start, total);
}

int kbloom_image_check_crc(const void *img, u64 len)
{
	const u8 *start = img;
	u64 end = len - KBLOOM_CRC_BYTES, i;
	u32 crc = KBLOOM_CRC_SEED;

	for (i = 0; i < end; i += KBLOOM_CRC_CHUNK) {
		crc = kbloom_crc32c(crc, start + i,
				    min_t(u64, end - i, KBLOOM_CRC_CHUNK));
		cond_resched();
	}
	if (~crc != get_unaligned_le32(start + end))
		return -EBADMSG;
	return 0;
}

/*
 * A window's state from the image: plane by plane as saved (the filter has
 * the same planes), live before cur as a rotation orders them.
 */
static void window_apply(struct kbloom_filter *f,
			 const struct kbloom_image_window *win)
{
	u64 live = le64_to_cpu(win->live), *mirror;
	u32 i;

	for (i = 0; i < KBLOOM_IMAGE_PLANES; i++)
		kbloom_window_set_adds(&f->win, i,
				       le64_to_cpu(win->plane_adds[i]));
	WRITE_ONCE(f->win.rotations, le64_to_cpu(win->rotations));
	/* As kbloom_window_rotate() publishes them: live first. */
	smp_store_release(&f->win.live, live);
	mirror = f->win.live_mirror ?: &f->win.live;
	/* The mapping's copy (if any), for its readers' acquire. */
	smp_store_release(mirror, live);
	/* Adds' acquire of cur then finds live stored. */
	smp_store_release(&f->win.cur, le32_to_cpu(win->cur_plane));
}

struct kbloom_apply_arg {
	const u8 *bits;
	u64 keep;
};

/* The image's words of a stripe's key blocks, under that stripe. */
static void apply_blocks(struct kbloom_filter *f, u64 first, u64 end,
			 const void *arg)
{
	const struct kbloom_apply_arg *a = arg;
	u64 block_words = (u64)KBLOOM_BLOCK_WORDS << f->geo.plane_order;
	u64 b, w;

	for (b = first; b < end; b += KBLOOM_WRITE_STRIPES)
		for (w = b * block_words; w < (b + 1) * block_words; w++)
			WRITE_ONCE(f->words[w],
				   get_unaligned_le64(a->bits + w * 8) &
				   a->keep);
}

void kbloom_image_put_cells(struct kbloom_filter *f, const void *cells)
{
	struct kbloom_apply_arg a = {
		.bits = cells,
		.keep = ~0ULL,
	};

	kbloom_rewrite(f, apply_blocks, &a);
}

void kbloom_image_apply(struct kbloom_filter *f, const void *img)
{
	const u8 *start = img;
	struct kbloom_apply_arg a = {
		.bits = start + KBLOOM_HDR2_BYTES,
		.keep = ~0ULL,
	};
	struct kbloom_image_window win;
	struct kbloom_counts counts;

	if (f->geo.type == KBLOOM_TYPE_WINDOW) {
		memcpy(&win, start + KBLOOM_HDR_BYTES, sizeof(win));
		/* A crafted image's bits in the spare are not kept. */
		a.keep = window_cells_mask(f, le64_to_cpu(win.live));
	}
	kbloom_rewrite(f, apply_blocks, &a);
	if (f->geo.type == KBLOOM_TYPE_WINDOW)
		window_apply(f, &win);
	/* The check counts are the filter's own; the image does not hold them. */
	kbloom_counts_read(f, &counts);
	counts.add_calls = get_unaligned_le64(start +
			offsetof(struct kbloom_image_header, add_calls));
	counts.add_new = get_unaligned_le64(start +
			offsetof(struct kbloom_image_header, add_new));
	counts.delete_calls = 0;
	counts.delete_hits = 0;
	kbloom_counts_set(f, &counts);
}

int kbloom_image_load(struct kbloom_filter *f, const void *img, size_t len)
{
	int ret = kbloom_image_validate(f, img, len);

	if (!ret)
		kbloom_image_apply(f, img);
	return ret;
}
