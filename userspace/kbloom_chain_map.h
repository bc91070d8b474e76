/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * The one reader of a scalable filter's mapped table, in userspace:
 * libkbloom's mapped checks (libkbloom_map.c) and the VM tests' own
 * reader (tests/vm/stress-map.h) build the core's chain over the mapped
 * cells with it, so that both judge a table alike.  The module writes
 * the table (kmod/kbloom_mmap.c) and never reads it.
 */
#ifndef KBLOOM_CHAIN_MAP_H
#define KBLOOM_CHAIN_MAP_H

#include "../kmod/core/kbloom_chain.h"

/*
 * A chain over a scalable filter's mapping (include/uapi/linux/kbloom.h,
 * "Mapping"), for the readers of one in userspace (libkbloom, the VM
 * tests), so that they judge a table alike: base is the mapping, len
 * bytes long, its header already judged; n is its subfilters as the
 * caller loaded it (acquire); subs and slots have room for n.  Each
 * entry must be a geometry the core accepts, with no reserved bits and
 * its cells on pages (page bytes, a power of two) of their own after the
 * ones before; entry 0 must be the header's own sub-filter.  An entry
 * whose cells end past len (the filter grew after the length was read)
 * ends the view there.  The view only looks up.  Returns the sub-filters
 * it covers (at least 1), or -EPROTO.
 */
static inline int kbloom_chain_map_view(struct kbloom_chain *c,
					struct kbloom_chain_sub *subs,
					struct kbloom_chain_sub **slots,
					const void *base, u64 len, u32 n,
					u64 page)
{
	const struct kbloom_map_header *hdr = base;
	const struct kbloom_map_subfilter *table;
	u64 prev_end = hdr->cells_offset, at;
	u32 i;

	if (!n || n > KBLOOM_SUBFILTERS_MAX || hdr->cells_offset > len ||
	    hdr->subs_offset > hdr->cells_offset ||
	    (u64)n * sizeof(*table) > hdr->cells_offset - hdr->subs_offset)
		return -EPROTO;
	table = (const void *)((const u8 *)base + hdr->subs_offset);
	c->params = (struct kbloom_chain_params){
		.capacity = hdr->capacity, .seed = hdr->seed,
		.type = hdr->type, .fp_ppb = 1, .expansion = hdr->expansion,
	};
	c->subs = slots;
	for (i = 0; i < n; i++) {
		struct kbloom_filter *f = &subs[i].f;
		struct kbloom_map_header one = *hdr;

		at = table[i].cells_offset;
		one.nblocks = table[i].nblocks;
		one.seed = table[i].seed;
		one.k = table[i].k;
		kbloom_geometry_of_map(&f->geo, &one);
		if (kbloom_geometry_validate(&f->geo) || table[i].reserved ||
		    at < prev_end || (at & (page - 1)) ||
		    (!i && (at != hdr->cells_offset ||
			    table[i].nblocks != hdr->nblocks ||
			    table[i].seed != hdr->seed || table[i].k != hdr->k)))
			return -EPROTO;
		/* Validated: nblocks <= 2^31, so the bytes cannot wrap. */
		if (at > len || kbloom_geometry_bytes(&f->geo) > len - at)
			break;
		f->words = (u64 *)((const u8 *)base + at);
		f->counts = NULL;
		slots[i] = &subs[i];
		prev_end = at + kbloom_geometry_bytes(&f->geo);
	}
	c->nsubs = i;
	return i ? (int)i : -EPROTO;
}

#endif /* KBLOOM_CHAIN_MAP_H */
