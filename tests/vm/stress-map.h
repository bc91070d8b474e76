/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader of a filter's mapping, shared by the VM stress programs
 * (fuzz-ioctl, torture): map a node whole, judge its header page, and
 * check keys with the module's own core (kbloom_lookup*, linked in through
 * $(KBLOOM_CORE)) on the mapped cells under the header's sequence count,
 * as the uapi's "Mapping" section prescribes.  No second probe
 * implementation: the answers are the core's.
 *
 * A scalable filter's mapping (version 3) is read as a chain of the core
 * (kbloom_chain.h) whose sub-filters' words point into the mapping, so
 * its checks are kbloom_chain_lookup()'s.  Such a mapping covers the
 * sub-filters present when it was made: st_map_behind() says when the
 * filter grew past it or was cleared or loaded since (its sequence
 * moved), and st_map_remap() maps it again.
 */
#ifndef KBLOOM_STRESS_MAP_H
#define KBLOOM_STRESS_MAP_H

#include <setjmp.h>
#include <signal.h>

#include "stress.h"
#include "../../userspace/kbloom_chain_map.h"

#define ST_PAGE		4096

/*
 * Reads of a mapping that may fault (SIGBUS past what the filter still
 * maps, SIGSEGV after munmap), run by st_guarded() with those signals
 * caught once st_guard_signals() installed the handler.
 */
static sigjmp_buf st_guard_env;
static volatile sig_atomic_t st_guarding;

static inline void st_guard_signal(int sig)
{
	if (st_guarding)
		siglongjmp(st_guard_env, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

static inline void st_guard_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = st_guard_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
}

/* Runs fn(arg) with faults caught; returns the signal that hit, or 0. */
static inline int st_guarded(void (*fn)(void *), void *arg)
{
	int sig;

	st_guarding = 1;
	sig = sigsetjmp(st_guard_env, 1);
	if (!sig)
		fn(arg);
	st_guarding = 0;
	return sig;
}

struct st_map {
	uint8_t *base;		/* NULL when not mapped */
	size_t len;
	const struct kbloom_map_header *hdr;
	struct kbloom_filter f;	/* geometry from the header, mapped cells */
	/*
	 * A scalable filter's sub-filters as this mapping covers them
	 * (chain.subs NULL for a fixed filter), and its sequence when they
	 * were read from the table.
	 */
	struct kbloom_chain chain;
	struct kbloom_chain_sub *subs;
	uint64_t seq0;
};

/* The pages a filter of nblocks blocks maps: the header, then the cells. */
static inline uint64_t st_map_pages(uint64_t nblocks)
{
	return 1 + (nblocks * 64 + ST_PAGE - 1) / ST_PAGE;
}

/*
 * A scalable filter's header (version 3): its own fields, and a length
 * that can only be a whole number of pages past its table.
 */
static inline const char *st_map_chain_problem(
	const struct kbloom_map_header *h, size_t len)
{
	uint32_t n = __atomic_load_n(&h->subfilters, __ATOMIC_ACQUIRE);

	if (h->header_bytes != sizeof(*h))
		return "header_bytes is not sizeof(struct kbloom_map_header)";
	if (h->type > KBLOOM_TYPE_COUNTING || h->k < 1 || h->k > KBLOOM_K_MAX)
		return "scalable: type or k out of range";
	if (h->generations || h->plane_order || h->live || h->rotations)
		return "scalable: window fields set";
	if (h->expansion < KBLOOM_EXPANSION_MIN ||
	    h->expansion > KBLOOM_EXPANSION_MAX)
		return "scalable: expansion out of range";
	if (!n || n > KBLOOM_SUBFILTERS_MAX)
		return "scalable: subfilters out of range";
	if (h->page_size != ST_PAGE || h->subs_offset != ST_PAGE ||
	    h->cells_offset % ST_PAGE || h->cells_offset <= h->subs_offset)
		return "scalable: table or cells not where they belong";
	if (!h->nblocks || h->cells_bytes != h->nblocks * 64)
		return "scalable: cells_bytes is not nblocks * 64";
	if (h->map_bytes % ST_PAGE || h->map_bytes < h->cells_offset +
	    h->cells_bytes)
		return "scalable: map_bytes short of sub-filter 0's cells";
	/* len is not judged: a CLEAR may shrink map_bytes under a mapping. */
	(void)len;
	if (h->flags & ~KBLOOM_MAP_DEAD)
		return "unknown flags";
	if (h->reserved[0])
		return "reserved not zero";
	return NULL;
}

/*
 * What is wrong with a header mapped in len bytes, or NULL.  Everything
 * but sequence and flags is fixed for a filter's life, so this holds at
 * any time, destroyed or not.
 */
static inline const char *st_map_header_problem(
	const struct kbloom_map_header *h, size_t len)
{
	int i;

	if (h->magic != KBLOOM_MAP_MAGIC)
		return "bad magic";
	if (h->version == KBLOOM_MAP_VERSION_CHAIN)
		return st_map_chain_problem(h, len);
	if (h->version != KBLOOM_MAP_VERSION)
		return "bad version";
	if (h->header_bytes != sizeof(*h))
		return "header_bytes is not sizeof(struct kbloom_map_header)";
	if (h->type > KBLOOM_TYPE_WINDOW || h->k < 1 || h->k > KBLOOM_K_MAX)
		return "type or k out of range";
	if (h->type != KBLOOM_TYPE_WINDOW &&
	    (h->generations || h->plane_order || h->live || h->rotations))
		return "window fields set for a filter that is not a window";
	if (h->type == KBLOOM_TYPE_WINDOW &&
	    (h->generations < KBLOOM_GENERATIONS_MIN ||
	     h->generations > KBLOOM_GENERATIONS_MAX ||
	     h->plane_order != kbloom_plane_order(h->generations) ||
	     h->nblocks % (1ULL << h->plane_order)))
		return "window generations, plane_order or nblocks wrong";
	if (h->type == KBLOOM_TYPE_WINDOW &&
	    (__builtin_popcountll(__atomic_load_n(&h->live, __ATOMIC_ACQUIRE)) !=
	     (int)h->generations))
		return "a window's live does not hold g planes";
	if (!h->nblocks || h->cells_bytes != h->nblocks * 64)
		return "cells_bytes is not nblocks * 64";
	if (h->page_size != ST_PAGE || h->cells_offset != ST_PAGE)
		return "cells_offset or page_size is not the page size";
	if (h->map_bytes != st_map_pages(h->nblocks) * ST_PAGE)
		return "map_bytes is not the header page plus the cells' pages";
	if (len && len != h->map_bytes)
		return "map_bytes differs from the mapping's length";
	if (h->flags & ~KBLOOM_MAP_DEAD)
		return "unknown flags";
	for (i = 0; i < (int)(sizeof(h->reserved) / sizeof(h->reserved[0]));
	     i++)
		if (h->reserved[i])
			return "reserved not zero";
	return NULL;
}

/*
 * A scalable filter's mapping at base, len bytes, as a chain: each
 * table entry judged as the header is (a geometry the core accepts,
 * page-aligned cells after the ones before it), sub-filter 0's the
 * header's.  Sequence first: a CLEAR or load after it makes the view
 * behind, whatever the table said.  Sub-filters past len (grown after
 * the length was read) are left out: the view is then behind at once.
 */
static inline int st_map_attach_chain(struct st_map *m, uint8_t *base,
				      size_t len)
{
	const struct kbloom_map_header *h = (const void *)base;
	uint32_t n;

	if (st_map_header_problem(h, len) ||
	    h->version != KBLOOM_MAP_VERSION_CHAIN)
		return EPROTO;
	m->base = base;
	m->len = len;
	m->hdr = h;
	m->seq0 = __atomic_load_n(&h->sequence, __ATOMIC_ACQUIRE);
	/* Pairs with the release that publishes a table entry. */
	n = __atomic_load_n(&h->subfilters, __ATOMIC_ACQUIRE);
	if (!n || n > KBLOOM_SUBFILTERS_MAX)
		return EPROTO;
	kbloom_geometry_of_map(&m->f.geo, h);
	m->f.words = (u64 *)(base + h->cells_offset);
	m->f.counts = NULL;
	if (kbloom_geometry_validate(&m->f.geo))
		return EPROTO;
	m->subs = calloc(n, sizeof(*m->subs));
	m->chain.subs = calloc(n, sizeof(*m->chain.subs));
	if (!m->subs || !m->chain.subs)
		return ENOMEM;
	/* The module's core judges the table, as libkbloom's reader does. */
	return kbloom_chain_map_view(&m->chain, m->subs, m->chain.subs, base,
				     len, n, ST_PAGE) < 0 ? EPROTO : 0;
}

/*
 * The length to map a scalable filter with: its header's map_bytes, read
 * from hdr (a mapping the caller holds) or else from its header page
 * mapped alone, since GET_INFO does not tell it.  The count first: a
 * growth raises map_bytes before it, so the length covers the
 * sub-filters counted.
 */
static inline int st_map_chain_len(int fd, const struct kbloom_map_header *hdr,
				   size_t *len)
{
	void *p = NULL;

	if (!hdr) {
		p = mmap(NULL, ST_PAGE, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return errno;
		hdr = p;
	}
	__atomic_load_n(&hdr->subfilters, __ATOMIC_ACQUIRE);
	*len = __atomic_load_n(&hdr->map_bytes, __ATOMIC_RELAXED);
	if (p)
		munmap(p, ST_PAGE);
	return 0;
}

static inline void st_map_chain_free(struct st_map *m)
{
	free(m->chain.subs);
	free(m->subs);
}

/*
 * A scalable filter mapped whole and read as a chain: 0, an errno of
 * mmap, or EPROTO.  hdr (or NULL) is a mapping of the same filter the
 * caller holds, to learn the length from.  A CLEAR or load may shrink
 * map_bytes between its read and mmap() (EINVAL): read again, a few
 * times, from the header page alone.
 */
static inline int st_map_open_chain(int fd, struct st_map *m,
				    const struct kbloom_map_header *hdr)
{
	size_t len = 0;
	int tries, e;
	void *p;

	memset(m, 0, sizeof(*m));
	for (tries = 0;; tries++, hdr = NULL) {
		e = st_map_chain_len(fd, hdr, &len);
		if (e)
			return e;
		p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED)
			break;
		if (errno != EINVAL || tries == 3)
			return errno;
	}
	e = st_map_attach_chain(m, p, len);
	if (e) {
		st_map_chain_free(m);
		munmap(p, len);
		memset(m, 0, sizeof(*m));
	}
	return e;
}

/*
 * Maps fd's filter whole, read-only.  0, an errno of GET_INFO or mmap, or
 * EPROTO for a header that does not describe the mapping.  The length
 * comes from GET_INFO, not from mapping the header first: an munmap() of
 * that first mapping can itself fail (ENOMEM under fault injection) and
 * would leave a mapping behind.
 */
static inline int st_map_open(int fd, struct st_map *m)
{
	const struct kbloom_map_header *h;
	struct kbloom_info info;
	uint64_t bytes;
	void *p;

	memset(m, 0, sizeof(*m));
	if (ioctl(fd, KBLOOM_IOC_GET_INFO, &info))
		return errno;
	if (info.expansion)
		return st_map_open_chain(fd, m, NULL);
	bytes = st_map_pages(info.nblocks) * ST_PAGE;
	p = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return errno;
	h = p;
	m->base = p;
	m->len = bytes;
	m->hdr = h;
	if (st_map_header_problem(h, bytes)) {
		munmap(p, bytes);
		memset(m, 0, sizeof(*m));
		return EPROTO;
	}
	kbloom_geometry_of_map(&m->f.geo, h);
	m->f.words = (u64 *)(m->base + h->cells_offset);
	m->f.counts = NULL;
	if (kbloom_geometry_validate(&m->f.geo)) {
		munmap(p, bytes);
		memset(m, 0, sizeof(*m));
		return EPROTO;
	}
	return 0;
}

static inline void st_map_close(struct st_map *m)
{
	if (m->base)
		munmap(m->base, m->len);
	st_map_chain_free(m);
	memset(m, 0, sizeof(*m));
}

/*
 * Whether a scalable filter's mapping no longer covers the filter: it
 * grew past the sub-filters the view has, or a CLEAR or load moved the
 * sequence since the view was read (the sub-filters it freed stay in the
 * mapping, stale, and pages of them not yet touched fault with SIGBUS).
 * Checked before touching any cells; a fixed filter's is never behind.
 */
static inline bool st_map_behind(const struct st_map *m)
{
	if (!m->chain.subs)
		return false;
	return __atomic_load_n(&m->hdr->sequence, __ATOMIC_ACQUIRE) !=
	       m->seq0 ||
	       __atomic_load_n(&m->hdr->subfilters, __ATOMIC_ACQUIRE) !=
	       m->chain.nsubs;
}

/*
 * Maps fd's filter again, for a mapping that is behind: 0, or an errno
 * with the old mapping kept.  The new one is made before the old goes.
 */
static inline int st_map_remap(int fd, struct st_map *m)
{
	struct st_map fresh;
	int e = m->chain.subs ? st_map_open_chain(fd, &fresh, m->hdr) :
		st_map_open(fd, &fresh);

	if (e)
		return e;
	st_map_close(m);
	*m = fresh;
	return 0;
}

/* The reader's side of the sequence count: s1 before the check ... */
static inline uint64_t st_map_seq_begin(const struct st_map *m)
{
	return __atomic_load_n(&m->hdr->sequence, __ATOMIC_ACQUIRE);
}

/* ... and after it: true when the check saw one state of the filter. */
static inline bool st_map_seq_consistent(const struct st_map *m, uint64_t s1)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return !(s1 & 1) &&
	       __atomic_load_n(&m->hdr->sequence, __ATOMIC_RELAXED) == s1;
}

static inline bool st_map_dead(const struct st_map *m)
{
	return __atomic_load_n(&m->hdr->flags, __ATOMIC_ACQUIRE) &
	       KBLOOM_MAP_DEAD;
}

/*
 * A window's live planes, loaded (acquire) once for a check or a batch
 * into the core's view of the mapping, as a reader must (uapi header,
 * "Mapping"): the core's lookup ANDs each key's cells with it.  m->f is
 * the caller's own memory, never const itself; only its view is shared.
 */
static inline void st_map_live(const struct st_map *m)
{
	struct kbloom_filter *f = (struct kbloom_filter *)&m->f;

	f->win.live = __atomic_load_n(&m->hdr->live, __ATOMIC_ACQUIRE);
}

/*
 * st_map_check() of a scalable filter: judged (true) only when the view
 * covered the whole filter from before the first key to after the last,
 * the sequence even and where it was when the view was read and the
 * count of sub-filters the view's.  A view that is behind touches no
 * cells (its pages past the sub-filters present would fault): the
 * caller maps again (st_map_behind(), st_map_remap()).
 */
static inline bool st_map_chain_check(const struct st_map *m,
				      const struct st_keys *k,
				      uint32_t *missing, uint32_t *first)
{
	uint64_t s1 = st_map_seq_begin(m), at = 0;
	uint32_t n1, i;

	*missing = 0;
	*first = 0;
	n1 = __atomic_load_n(&m->hdr->subfilters, __ATOMIC_ACQUIRE);
	if ((s1 & 1) || s1 != m->seq0 || n1 != m->chain.nsubs)
		return false;
	for (i = 0; i < k->count; i++) {
		if (!kbloom_chain_lookup(&m->chain, k->bytes + at,
					 k->lens[i]) && !(*missing)++)
			*first = i;
		at += k->lens[i];
	}
	return st_map_seq_consistent(m, s1) &&
	       __atomic_load_n(&m->hdr->subfilters, __ATOMIC_RELAXED) == n1;
}

/*
 * Checks keys through the mapping; *missing gets how many were absent and
 * *first the index of the first absent one.  Returns true when the answer
 * is from one state of the filter (else it must not be judged).
 */
static inline bool st_map_check(const struct st_map *m,
				const struct st_keys *k, uint32_t *missing,
				uint32_t *first)
{
	uint64_t s1, at = 0;
	uint32_t i;

	if (m->chain.subs)
		return st_map_chain_check(m, k, missing, first);
	s1 = st_map_seq_begin(m);

	*missing = 0;
	*first = 0;
	st_map_live(m);
	for (i = 0; i < k->count; i++) {
		if (!kbloom_lookup(&m->f, k->bytes + at, k->lens[i]) &&
		    !(*missing)++)
			*first = i;
		at += k->lens[i];
	}
	return st_map_seq_consistent(m, s1);
}

#endif /* KBLOOM_STRESS_MAP_H */
