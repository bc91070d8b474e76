// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A filter mapped read-only (mmap() of /dev/kbloom/<name>): checks answered
 * from the mapped cells with no system call.  They run the module's own
 * core (kmod/core/kbloom_core.c, built for userspace through
 * kmod/core/kbloom_kernel_shim.h), through kbloom_lookup() and
 * kbloom_lookup_batch(), which count nothing and write nothing: the
 * answer is the one KBLOOM_IOC_CHECK gives because it is the same code on
 * the same words.
 *
 * Consistency is the header's sequence count (include/uapi/linux/kbloom.h,
 * "Mapping"): read it with acquire before a check, re-read it after an
 * acquire fence; odd or moved means a CLEAR, INTERSECT or image load ran
 * meanwhile and the answer may mix two states, so the caller asks the
 * module instead.  The core's READ_ONCE() is a relaxed load in userspace,
 * which is why the ordering is made here with __atomic builtins.
 *
 * A window filter's rotation does not move the count: it stores the
 * header's live planes once, and only then clears the retired plane.  So
 * each check loads live (acquire) once, after the count, and runs the
 * core's lookup on a view of the filter whose win.live is that value:
 * a view on the caller's stack, not the shared struct, because a handle's
 * mapped checks may run in several threads at once, each with its own
 * moment's live planes.
 *
 * A scalable filter's mapping (version 3) lists its sub-filters in a
 * table; attach builds a chain (kbloom_chain.h) whose sub-filters' words
 * point into the mapping, and checks run the core's chain lookups on it.
 * The mapping covers the sub-filters there were when it was made: a
 * check that finds the header's count of sub-filters moved, or the
 * sequence moved since then (a CLEAR or load freed sub-filters whose old
 * pages the mapping keeps), says -EAGAIN, and the caller asks the module;
 * kbl_map() maps again (kbl_map_stale() says when it should).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kbloom_chain_map.h"
#include "libkbloom_map.h"

struct kbl_map {
	const struct kbloom_map_header *hdr;	/* the mapping's first page */
	size_t len;
	bool owned;		/* mmap()ed by kbl_map_open(): munmap() it */
	struct kbloom_filter filter;	/* words point into the mapping */
	/* A scalable filter's: its sub-filters, as the mapping covers them. */
	struct kbloom_chain chain;
	struct kbloom_chain_sub *subs;
	uint64_t seq0;		/* sequence when mapped */
};

static bool multiple_of(uint64_t x, uint64_t align)
{
	return align && x % align == 0;
}

int kbl_map_header_check(const struct kbloom_map_header *hdr, size_t len,
			 size_t page_size)
{
	struct kbloom_geometry geo;
	uint64_t cells_end;

	if (len < sizeof(*hdr) || hdr->magic != KBLOOM_MAP_MAGIC ||
	    (hdr->version != KBLOOM_MAP_VERSION &&
	     hdr->version != KBLOOM_MAP_VERSION_CHAIN) ||
	    hdr->header_bytes < sizeof(*hdr) || hdr->page_size != page_size)
		return -EPROTO;
	/* The table, the page after the header, before the cells. */
	if (hdr->version == KBLOOM_MAP_VERSION_CHAIN &&
	    (hdr->type == KBLOOM_TYPE_WINDOW ||
	     hdr->expansion < KBLOOM_EXPANSION_MIN ||
	     hdr->expansion > KBLOOM_EXPANSION_MAX ||
	     hdr->subs_offset != page_size ||
	     hdr->cells_offset <= hdr->subs_offset))
		return -EPROTO;
	kbloom_geometry_of_map(&geo, hdr);
	/*
	 * For a window also generations and plane_order, which the lookup
	 * trusts (a key block of 2^plane_order lines).
	 */
	if (kbloom_geometry_validate(&geo))
		return -EPROTO;
	/* Validated: nblocks <= 2^31, so nblocks * 64 cannot overflow. */
	if (hdr->cells_bytes != kbloom_geometry_bytes(&geo))
		return -EPROTO;
	/* The cells start on a page of their own, after the header. */
	if (hdr->cells_offset < hdr->header_bytes ||
	    !multiple_of(hdr->cells_offset, page_size))
		return -EPROTO;
	if (__builtin_add_overflow(hdr->cells_offset, hdr->cells_bytes,
				   &cells_end) ||
	    !multiple_of(hdr->map_bytes, page_size) ||
	    hdr->map_bytes < cells_end ||
	    /* A scalable filter's sub-filters follow sub-filter 0's cells. */
	    (hdr->version == KBLOOM_MAP_VERSION &&
	     hdr->map_bytes - cells_end >= page_size) ||
	    (uint64_t)(size_t)hdr->map_bytes != hdr->map_bytes)
		return -EPROTO;
	return 0;
}

static size_t page_size(void)
{
	/* glibc answers from the auxiliary vector: no system call. */
	return (size_t)sysconf(_SC_PAGESIZE);
}

static bool map_dead(const struct kbloom_map_header *hdr)
{
	return __atomic_load_n(&hdr->flags, __ATOMIC_RELAXED) &
	       KBLOOM_MAP_DEAD;
}

static void kbl_map_close_view(struct kbl_map *m)
{
	free(m->chain.subs);
	free(m->subs);
	free(m);
}

/*
 * The sub-filters of a scalable filter's mapping, each checked as the
 * header is (a geometry the core accepts, page-aligned cells inside the
 * mapping, after the ones before it).  Sequence first: a CLEAR or load
 * after it makes the view stale, whatever the table said.
 */
static int attach_chain(struct kbl_map *m, const void *base)
{
	const struct kbloom_map_header *hdr = m->hdr;
	uint32_t n;
	int ret;

	m->seq0 = __atomic_load_n(&hdr->sequence, __ATOMIC_ACQUIRE);
	/* Pairs with the release that publishes a table entry. */
	n = __atomic_load_n(&hdr->subfilters, __ATOMIC_ACQUIRE);
	if (!n || n > KBLOOM_SUBFILTERS_MAX)
		return -EPROTO;
	m->subs = calloc(n, sizeof(*m->subs));
	m->chain.subs = calloc(n, sizeof(*m->chain.subs));
	if (!m->subs || !m->chain.subs)
		return -ENOMEM;
	ret = kbloom_chain_map_view(&m->chain, m->subs, m->chain.subs, base,
				    m->len, n, page_size());
	return ret < 0 ? ret : 0;
}

int kbl_map_attach(const void *base, size_t len, struct kbl_map **out)
{
	const struct kbloom_map_header *hdr = base;
	struct kbl_map *m;
	int ret;

	*out = NULL;
	ret = kbl_map_header_check(hdr, len, page_size());
	if (ret)
		return ret;
	/*
	 * A scalable filter may have grown since its length was read: the
	 * mapping then covers the sub-filters inside it (attach_chain()).
	 */
	if (hdr->map_bytes > len && hdr->version != KBLOOM_MAP_VERSION_CHAIN)
		return -EPROTO;
	/* The ioctl on a destroyed filter says ENODEV; so does kbl_map(). */
	if (map_dead(hdr))
		return -ENODEV;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->hdr = hdr;
	m->len = len;
	kbloom_geometry_of_map(&m->filter.geo, hdr);
	/* Read-only: only the lookups, which write nothing, are used. */
	m->filter.words = (u64 *)((const char *)base + hdr->cells_offset);
	m->filter.counts = NULL;
	if (hdr->version == KBLOOM_MAP_VERSION_CHAIN) {
		ret = attach_chain(m, base);
		if (ret) {
			kbl_map_close_view(m);
			return ret;
		}
	}
	*out = m;
	return 0;
}

static int neg_errno(void)
{
	return errno ? -errno : -EIO;
}

/*
 * The header page alone first, to learn how long the mapping is (it cannot
 * be grown afterwards: mremap() of it is EFAULT), then the whole of it.
 */
int kbl_map_open(int fd, struct kbl_map **out)
{
	size_t page = page_size(), len;
	struct kbloom_map_header hdr;
	bool retried = false;
	void *p;
	int ret;

again:
	*out = NULL;
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return neg_errno();
	hdr = *(const struct kbloom_map_header *)p;
	munmap(p, page);
	ret = kbl_map_header_check(&hdr, page, page);
	if (ret)
		return ret;
	len = (size_t)hdr.map_bytes;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	/* A scalable filter a CLEAR or load shrank meanwhile: once more. */
	if (p == MAP_FAILED && errno == EINVAL && !retried &&
	    hdr.version == KBLOOM_MAP_VERSION_CHAIN) {
		retried = true;
		goto again;
	}
	if (p == MAP_FAILED)
		return neg_errno();
	ret = kbl_map_attach(p, len, out);
	/* Grown or cleared between the two mmap()s: once more. */
	if (!ret && kbl_map_stale(*out) && !retried) {
		kbl_map_close(*out);
		*out = NULL;
		munmap(p, len);
		retried = true;
		goto again;
	}
	if (ret) {
		munmap(p, len);
		return ret;
	}
	(*out)->owned = true;
	return 0;
}

void kbl_map_close(struct kbl_map *m)
{
	if (!m)
		return;
	if (m->owned)
		munmap((void *)m->hdr, m->len);
	kbl_map_close_view(m);
}

bool kbl_map_stale(const struct kbl_map *m)
{
	const struct kbloom_map_header *hdr = m->hdr;

	if (hdr->version != KBLOOM_MAP_VERSION_CHAIN || map_dead(hdr))
		return false;
	return __atomic_load_n(&hdr->sequence, __ATOMIC_ACQUIRE) != m->seq0 ||
	       __atomic_load_n(&hdr->subfilters, __ATOMIC_ACQUIRE) !=
	       m->chain.nsubs;
}

const struct kbloom_map_header *kbl_map_hdr(const struct kbl_map *m)
{
	return m->hdr;
}

/*
 * The reader's side of the sequence count: 0, -ENODEV or -EAGAIN.  *f is
 * the filter to look up in: the mapping's own, or for a window a view of
 * it in *view with the live planes of this moment.
 */
static int read_begin(const struct kbl_map *m, uint64_t *seq,
		      struct kbloom_filter *view,
		      const struct kbloom_filter **f)
{
	*seq = __atomic_load_n(&m->hdr->sequence, __ATOMIC_ACQUIRE);
	if (map_dead(m->hdr))
		return -ENODEV;
	if (*seq & 1)
		return -EAGAIN;
	/* A scalable filter's mapping that no longer covers all of it. */
	if (m->hdr->version == KBLOOM_MAP_VERSION_CHAIN &&
	    (*seq != m->seq0 ||
	     __atomic_load_n(&m->hdr->subfilters, __ATOMIC_ACQUIRE) !=
	     m->chain.nsubs))
		return -EAGAIN;
	*f = &m->filter;
	if (m->filter.geo.type == KBLOOM_TYPE_WINDOW) {
		/*
		 * All but the window state, of which the lookups read live
		 * alone: a copy of a few words per check, not 600 bytes.
		 */
		memcpy(view, &m->filter, offsetof(struct kbloom_filter, win));
		view->win.live = __atomic_load_n(&m->hdr->live,
						 __ATOMIC_ACQUIRE);
		*f = view;
	}
	return 0;
}

/* True when the cells read since read_begin() may mix two states. */
static bool read_moved(const struct kbl_map *m, uint64_t seq)
{
	/* Every cell load before the second look at the count. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&m->hdr->sequence, __ATOMIC_RELAXED) != seq;
}

int kbl_map_check_one(const struct kbl_map *m, const void *key, size_t len)
{
	const struct kbloom_filter *f;
	struct kbloom_filter view;
	uint64_t seq;
	bool maybe;
	int ret;

	ret = read_begin(m, &seq, &view, &f);
	if (ret)
		return ret;
	if (m->chain.subs)
		maybe = kbloom_chain_lookup(&m->chain, key, (u32)len);
	else
		maybe = kbloom_lookup(f, key, (u32)len);
	return read_moved(m, seq) ? -EAGAIN : maybe;
}

/* n <= KBL_MAP_CHUNK keys; the result bits as 64-bit words. */
static int check_chunk(const struct kbl_map *m, const struct kbloom_key *keys,
		       size_t n, uint64_t *bits, uint64_t *hits)
{
	unsigned long res[BITS_TO_LONGS(KBL_MAP_CHUNK)];
	const struct kbloom_filter *f;
	struct kbloom_filter view;
	uint64_t seq;
	size_t i;
	u32 found;
	int ret;

	ret = read_begin(m, &seq, &view, &f);
	if (ret)
		return ret;
	if (m->chain.subs)
		found = kbloom_chain_lookup_batch(&m->chain, keys, (u32)n,
						  res);
	else
		found = kbloom_lookup_batch(f, keys, (u32)n, res);
	if (read_moved(m, seq))
		return -EAGAIN;
	/* Longs of 32 or 64 bits, into words of 64. */
	for (i = 0; i < (n + 63) / 64; i++)
		bits[i] = 0;
	for (i = 0; i < BITS_TO_LONGS(n); i++)
		bits[i * BITS_PER_LONG / 64] |=
			(uint64_t)res[i] << (i * BITS_PER_LONG % 64);
	*hits = found;
	return 0;
}

int kbl_map_check_packed(const struct kbl_map *m, const char *data,
			 const uint32_t *lens, size_t n, uint64_t *bits,
			 uint64_t *hits)
{
	struct kbloom_key keys[KBL_MAP_CHUNK];
	size_t i;

	for (i = 0; i < n; i++) {
		keys[i].data = data;
		keys[i].len = lens[i];
		data += lens[i];
	}
	return check_chunk(m, keys, n, bits, hits);
}

int kbl_map_check_ptrs(const struct kbl_map *m, const void *const *keys,
		       const size_t *lens, size_t n, uint64_t *bits,
		       uint64_t *hits)
{
	struct kbloom_key k[KBL_MAP_CHUNK];
	size_t i;

	for (i = 0; i < n; i++) {
		k[i].data = keys[i];
		k[i].len = (u32)lens[i];
	}
	return check_chunk(m, k, n, bits, hits);
}
