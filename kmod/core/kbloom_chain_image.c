// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * A scalable filter's image, version 4 (format in the uapi header): the
 * header and window part of version 3 (the window part zero), a
 * struct kbloom_image_chain, one struct kbloom_image_subfilter per
 * sub-filter, the cells of each sub-filter in turn, then the CRC32C of
 * all before it, as kbloom_image.c writes the rest.
 *
 * Everything in the header but the keys follows from the chain's
 * parameters, so a load checks each field against what the schedule
 * gives its index and trusts none: a sub-filter's nblocks, seed and k
 * are the ones its index has in this chain, and the image's length is
 * known from the header and the chain part alone (header_bytes says how
 * many sub-filters, the schedule their blocks) before any of the rest
 * arrives.  The chain part comes first among those checks because its
 * expansion is one of the parameters: an image of another expansion is
 * EXDEV, as one of another seed is, not EINVAL for blocks its schedule
 * would not have.
 *
 * The descriptors are written from the chain as the stream reaches them,
 * not kept: up to 1024 of them would make every open file's cursor
 * 32 KiB larger.  A sub-filter's keys are read then, with the cells that
 * follow; the CRC covers what was written.
 */
#include "kbloom_chain.h"

#ifdef __KERNEL__
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/string.h>
#endif

#define HDR_BYTES	sizeof(struct kbloom_image_header)
#define WIN_BYTES	sizeof(struct kbloom_image_window)
#define CHAIN_AT	(HDR_BYTES + WIN_BYTES)
#define SUBS_AT		KBLOOM_CHAIN_IMAGE_HEAD
#define SUB_BYTES	sizeof(struct kbloom_image_subfilter)
#define CRC_BYTES	sizeof(__le32)

static u64 header_bytes(u32 subs)
{
	return SUBS_AT + (u64)subs * SUB_BYTES;
}

/* The image's length from its (valid) header's own fields. */
static u64 image_bytes(const struct kbloom_image_header *hdr)
{
	return le16_to_cpu(hdr->header_bytes) +
	       le64_to_cpu(hdr->nblocks) * KBLOOM_BLOCK_BYTES + CRC_BYTES;
}

u64 kbloom_chain_image_bytes(const struct kbloom_chain *c, u32 subs)
{
	u64 nblocks = 0;
	u32 i;

	for (i = 0; i < subs; i++)
		nblocks += kbloom_chain_sub(c, i)->f.geo.nblocks;
	return header_bytes(subs) + nblocks * KBLOOM_BLOCK_BYTES + CRC_BYTES;
}

void kbloom_chain_image_start(const struct kbloom_chain *c,
			      const struct kbloom_counts *counts,
			      struct kbloom_image_cursor *cur)
{
	const struct kbloom_geometry *geo = &kbloom_chain_sub(c, 0)->f.geo;
	struct kbloom_image_header *hdr = &cur->hdr;
	u32 subs = kbloom_chain_subs(c), i;
	u64 nblocks = 0;

	memset(cur, 0, sizeof(*cur));
	for (i = 0; i < subs; i++)
		nblocks += kbloom_chain_sub(c, i)->f.geo.nblocks;
	hdr->magic = cpu_to_le32(KBLOOM_IMAGE_MAGIC);
	hdr->version = cpu_to_le16(KBLOOM_IMAGE_VERSION_CHAIN);
	hdr->header_bytes = cpu_to_le16(header_bytes(subs));
	hdr->k = cpu_to_le32(geo->k);
	hdr->type = cpu_to_le32(c->params.type);
	hdr->nblocks = cpu_to_le64(nblocks);
	hdr->seed = cpu_to_le64(c->params.seed);
	hdr->capacity = cpu_to_le64(c->params.capacity);
	hdr->fp_target_ppb = cpu_to_le32(c->params.fp_ppb);
	hdr->add_calls = cpu_to_le64(counts->add_calls);
	hdr->add_new = cpu_to_le64(counts->add_new);
	cur->chain.expansion = cpu_to_le32(c->params.expansion);
	cur->chain.subfilters = cpu_to_le32(subs);
	cur->crc = ~0U;
}

static void sub_describe(const struct kbloom_chain_sub *sub,
			 struct kbloom_image_subfilter *d)
{
	memset(d, 0, sizeof(*d));
	d->nblocks = cpu_to_le64(sub->f.geo.nblocks);
	d->seed = cpu_to_le64(sub->f.geo.seed);
	d->keys = cpu_to_le64(atomic64_read(&sub->keys));
	d->k = cpu_to_le32(sub->f.geo.k);
}

/* Copies what is left of part (bytes long) from at, up to room bytes. */
static size_t emit_part(u8 *out, const void *part, u64 bytes, u64 at,
			size_t room)
{
	size_t take = min_t(u64, room, bytes - at);

	memcpy(out, (const u8 *)part + at, take);
	return take;
}

/* Cells from offset at of the cells section: the sub-filter holding it. */
static size_t emit_cells(const struct kbloom_chain *c, u32 subs, u64 at,
			 u8 *out, size_t room)
{
	u32 i;

	for (i = 0; i < subs; i++) {
		const struct kbloom_filter *f = &kbloom_chain_sub(c, i)->f;
		u64 bytes = f->geo.nblocks * KBLOOM_BLOCK_BYTES;

		if (at < bytes) {
			size_t take = min_t(u64, room, bytes - at);

			kbloom_image_copy_cells(f, at, out, take, ~0ULL);
			return take;
		}
		at -= bytes;
	}
	return 0;	/* not reached: the header counts these cells */
}

size_t kbloom_chain_image_emit(const struct kbloom_chain *c,
			       struct kbloom_image_cursor *cur, void *buf,
			       size_t len)
{
	u32 subs = le32_to_cpu(cur->chain.subfilters);
	u64 hbytes = header_bytes(subs);
	u64 total = image_bytes(&cur->hdr);
	u64 cells_end = total - CRC_BYTES;
	u8 *out = buf;
	size_t copied = 0;

	while (copied < len && cur->pos < total) {
		size_t room = len - copied, take;
		u64 pos = cur->pos;

		if (pos < HDR_BYTES) {
			take = emit_part(out, &cur->hdr, HDR_BYTES, pos, room);
		} else if (pos < CHAIN_AT) {
			take = emit_part(out, &cur->win, WIN_BYTES,
					 pos - HDR_BYTES, room);
		} else if (pos < SUBS_AT) {
			take = emit_part(out, &cur->chain, sizeof(cur->chain),
					 pos - CHAIN_AT, room);
		} else if (pos < hbytes) {
			struct kbloom_image_subfilter d;
			u64 at = pos - SUBS_AT;

			sub_describe(kbloom_chain_sub(c, at / SUB_BYTES), &d);
			take = emit_part(out, &d, SUB_BYTES, at % SUB_BYTES,
					 room);
		} else if (pos < cells_end) {
			take = emit_cells(c, subs, pos - hbytes, out,
					  min_t(u64, room, cells_end - pos));
		} else {
			__le32 crc = cpu_to_le32(~cur->crc);

			take = emit_part(out, &crc, CRC_BYTES, pos - cells_end,
					 room);
		}
		if (pos < cells_end)
			cur->crc = kbloom_crc32c(cur->crc, out, take);
		out += take;
		copied += take;
		cur->pos += take;
	}
	return copied;
}

/*
 * Blocks of the first subs sub-filters of c's schedule, or 0 when the
 * schedule has no such sub-filters.  From the parameters alone, never
 * the sub-filters, which a CLEAR may free meanwhile: the checks run
 * without the caller's locks.  Sizes each: process context.
 */
static u64 schedule_nblocks(const struct kbloom_chain *c, u32 subs)
{
	struct kbloom_geometry geo;
	u64 nblocks = 0;
	u32 i;

	for (i = 0; i < subs; i++) {
		if (kbloom_chain_sub_geometry(&geo, &c->params, i))
			return 0;
		nblocks += geo.nblocks;
		/* Up to KBLOOM_SUBFILTERS_MAX sizings: let others run. */
		cond_resched();
	}
	return nblocks;
}

int kbloom_chain_image_check_header(const struct kbloom_chain *c,
				    const void *img, size_t len, u32 *subs,
				    u64 *bytes)
{
	const struct kbloom_chain_params *cp = &c->params;
	struct kbloom_image_header hdr, one;
	struct kbloom_image_chain ch;
	u64 hbytes, n;
	u32 i;

	if (len < HDR_BYTES)
		return -ENODATA;
	memcpy(&hdr, img, sizeof(hdr));
	/* Magic and version before the length: another kind of image. */
	if (le32_to_cpu(hdr.magic) != KBLOOM_IMAGE_MAGIC)
		return -ENOEXEC;
	/* A filter of fixed size's image. */
	if (le16_to_cpu(hdr.version) == KBLOOM_IMAGE_VERSION)
		return -EXDEV;
	if (le16_to_cpu(hdr.version) != KBLOOM_IMAGE_VERSION_CHAIN)
		return -EPROTO;
	/* nblocks counts every sub-filter: the schedule judges it below. */
	if (!hdr.nblocks)
		return -EINVAL;
	memcpy(&one, &hdr, sizeof(one));
	one.nblocks = cpu_to_le64(1);
	if (!kbloom_image_fields_valid(&one) ||
	    le32_to_cpu(hdr.type) == KBLOOM_TYPE_WINDOW)
		return -EINVAL;
	if (le32_to_cpu(hdr.type) != cp->type ||
	    le64_to_cpu(hdr.seed) != cp->seed ||
	    le64_to_cpu(hdr.capacity) != cp->capacity ||
	    le32_to_cpu(hdr.fp_target_ppb) != cp->fp_ppb)
		return -EXDEV;
	if (len < SUBS_AT)
		return -ENODATA;
	memcpy(&ch, (const u8 *)img + CHAIN_AT, sizeof(ch));
	if (le32_to_cpu(ch.expansion) != cp->expansion)
		return -EXDEV;
	/* Equal parameters: sub-filter 0 (never freed) is this chain's. */
	if (le32_to_cpu(hdr.k) != kbloom_chain_sub(c, 0)->f.geo.k)
		return -EINVAL;
	hbytes = le16_to_cpu(hdr.header_bytes);
	if (hbytes < header_bytes(1) || (hbytes - SUBS_AT) % SUB_BYTES)
		return -EINVAL;
	n = (hbytes - SUBS_AT) / SUB_BYTES;
	if (n > kbloom_chain_max_subs(cp) || le32_to_cpu(ch.subfilters) != n)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(ch.reserved); i++)
		if (ch.reserved[i])
			return -EINVAL;
	if (le64_to_cpu(hdr.nblocks) != schedule_nblocks(c, n))
		return -EINVAL;
	*subs = n;
	*bytes = image_bytes(&hdr);
	return 0;
}

/* The descriptors: each the one its index has in c's schedule. */
static int check_subs(const struct kbloom_chain *c, const u8 *img, u32 subs)
{
	struct kbloom_image_subfilter d;
	struct kbloom_geometry geo;
	u32 i;

	for (i = 0; i < subs; i++) {
		memcpy(&d, img + SUBS_AT + (u64)i * SUB_BYTES, sizeof(d));
		if (kbloom_chain_sub_geometry(&geo, &c->params, i))
			return -EINVAL;
		if (le64_to_cpu(d.nblocks) != geo.nblocks ||
		    le64_to_cpu(d.seed) != geo.seed ||
		    le32_to_cpu(d.k) != geo.k || d.reserved)
			return -EINVAL;
		cond_resched();
	}
	return 0;
}

int kbloom_chain_image_validate(const struct kbloom_chain *c,
				const void *img, size_t len, u32 *subs)
{
	struct kbloom_image_window win;
	const u8 *start = img;
	u64 total;
	u32 n;
	int ret;

	ret = kbloom_chain_image_check_header(c, img, len, &n, &total);
	if (ret)
		return ret;
	if (len < total)
		return -ENODATA;
	if (len > total)
		return -EMSGSIZE;
	memcpy(&win, start + HDR_BYTES, sizeof(win));
	if (memchr_inv(&win, 0, sizeof(win)))
		return -EINVAL;
	ret = check_subs(c, start, n);
	if (ret)
		return ret;
	ret = kbloom_image_check_crc(start, total);
	if (ret)
		return ret;
	*subs = n;
	return 0;
}

void kbloom_chain_image_apply(struct kbloom_chain *c, const void *img,
			      struct kbloom_counts *counts)
{
	const u8 *start = img;
	u32 subs = c->nsubs, i;
	u64 at = header_bytes(subs);

	for (i = 0; i < subs; i++) {
		struct kbloom_chain_sub *sub = kbloom_chain_sub(c, i);
		struct kbloom_counts sc = {};
		u64 keys = get_unaligned_le64(start + SUBS_AT +
				(u64)i * SUB_BYTES +
				offsetof(struct kbloom_image_subfilter, keys));

		kbloom_image_put_cells(&sub->f, start + at);
		at += sub->f.geo.nblocks * KBLOOM_BLOCK_BYTES;
		/* A sub-filter's own counts: the statistics key reads them. */
		sc.add_calls = keys;
		sc.add_new = keys;
		kbloom_counts_set(&sub->f, &sc);
		atomic64_set(&sub->keys, keys);
	}
	memset(counts, 0, sizeof(*counts));
	counts->add_calls = get_unaligned_le64(start +
			offsetof(struct kbloom_image_header, add_calls));
	counts->add_new = get_unaligned_le64(start +
			offsetof(struct kbloom_image_header, add_new));
}
