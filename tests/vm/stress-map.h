/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader of a filter's mapping, shared by the VM stress programs
 * (fuzz-ioctl, torture): map a node whole, judge its header page, and
 * check keys with the module's own core (kbloom_lookup*, linked in through
 * $(KBLOOM_CORE)) on the mapped cells under the header's sequence count,
 * as the uapi's "Mapping" section prescribes.  No second probe
 * implementation: the answers are the core's.
 */
#ifndef KBLOOM_STRESS_MAP_H
#define KBLOOM_STRESS_MAP_H

#include <setjmp.h>
#include <signal.h>

#include "stress.h"
#include "../../kmod/kbloom_core.h"

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
};

/* The pages a filter of nblocks blocks maps: the header, then the cells. */
static inline uint64_t st_map_pages(uint64_t nblocks)
{
	return 1 + (nblocks * 64 + ST_PAGE - 1) / ST_PAGE;
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
	memset(m, 0, sizeof(*m));
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
 * Checks keys through the mapping; *missing gets how many were absent and
 * *first the index of the first absent one.  Returns true when the answer
 * is from one state of the filter (else it must not be judged).
 */
static inline bool st_map_check(const struct st_map *m,
				const struct st_keys *k, uint32_t *missing,
				uint32_t *first)
{
	uint64_t s1 = st_map_seq_begin(m), at = 0;
	uint32_t i;

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
