// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's mapping operations (see fuzz-ioctl.c for the rest): mmap()
 * of pool nodes with random, mostly wrong, protections, flags, offsets and
 * lengths, each answered with exactly the errno the uapi's "Mapping"
 * section and the generic mmap code give for it; partial munmap(), and
 * mprotect() and mremap() of the mappings kept; reads of mapped pages,
 * which must never fault inside map_bytes, before or after the filter is
 * destroyed; and checks of the worker's good filter through its mapping
 * with the module's own core under the sequence count, where a known key
 * found absent is a false negative and any answer must equal CHECK's.
 *
 * A read that faults is caught (SIGBUS/SIGSEGV, sigsetjmp) so the run can
 * report it: outside fault injection it is a failure; under fault
 * injection a SIGBUS is only counted (a fault that cannot allocate its
 * page table may end so), SIGSEGV never allowed.
 */

#include "../fuzz-ioctl.h"

/* Per worker process (each has its own copy after fork()). */
static struct kbloom_key kv[KBLOOM_BATCH_MAX];
static unsigned long kv_res[BITS_TO_LONGS(KBLOOM_BATCH_MAX)];
static uint64_t sink;



static void fault_signal(struct worker *w, enum op op, int sig,
			 const char *what)
{
	w->st->map.signals++;
	if (w->fault && sig == SIGBUS)
		return;
	record_fail(w, F_MAPPED, "worker %d %s: %s inside the mapping: %s",
		    w->id, op_names[op], sigabbrev_np(sig), what);
}

/* ---- the table of live mappings ---- */

static void map_forget(struct worker *w, struct fz_map *m)
{
	*m = w->maps[--w->nmaps];
}

static void map_drop(struct worker *w, struct fz_map *m)
{
	munmap(m->addr, m->len);
	map_forget(w, m);
}

static struct fz_map *pick_map(struct worker *w)
{
	return w->nmaps ? &w->maps[st_below(&w->rng, w->nmaps)] : NULL;
}

static struct fz_map *map_add(struct worker *w)
{
	if (w->nmaps == MAX_MAPS)
		map_drop(w, pick_map(w));
	memset(&w->maps[w->nmaps], 0, sizeof(w->maps[0]));
	if ((uint64_t)w->nmaps + 1 > w->st->map.most_live)
		w->st->map.most_live = w->nmaps + 1;
	return &w->maps[w->nmaps++];
}

/* ---- mmap ---- */

/*
 * The errnos an mmap() of p with these arguments may give, in the order
 * the kernel decides them: the syscall's own argument checks, the
 * generic file checks (access mode, MAP_SHARED_VALIDATE's flags, a noexec
 * /dev), then the module's (MAP_PRIVATE, write or exec, the range, a
 * destroyed filter).  A scalable filter's length is not known here
 * (map_pages 0): it moves as the filter grows and is cleared.
 */
static errset map_allowed(const struct pool_fd *p, int prot, int flags,
			  uint64_t off_bytes, uint64_t len_bytes)
{
	int type = flags & MAP_TYPE;
	bool shared = type == MAP_SHARED || type == MAP_SHARED_VALIDATE;
	uint64_t off = off_bytes / PAGE, pages = (len_bytes + PAGE - 1) / PAGE;

	if (!len_bytes || off_bytes % PAGE ||
	    (!shared && type != MAP_PRIVATE))
		return ALLOW(EINVAL);
	if (type == MAP_SHARED_VALIDATE && (flags & MAP_SYNC))
		return ALLOW(EOPNOTSUPP);
	if (shared && (prot & PROT_WRITE) && !can_write(p))
		return ALLOW(EACCES);
	if (!can_read(p))
		return ALLOW(EACCES);
	if (!shared)
		return prot & PROT_EXEC ? ALLOW(EINVAL, EPERM) : ALLOW(EINVAL);
	if (prot & (PROT_WRITE | PROT_EXEC))
		return ALLOW(EPERM);
	if (!p->map_pages)
		return ALLOW(0, EINVAL, ENODEV);
	if (off >= p->map_pages || pages > p->map_pages - off)
		return ALLOW(EINVAL);
	return ALLOW(0, ENODEV);
}

void do_map(struct worker *w)
{
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_WRITE, PROT_READ | PROT_EXEC,
		PROT_EXEC, PROT_NONE, PROT_READ | PROT_WRITE | PROT_EXEC,
	};
	static const int types[] = {
		MAP_SHARED_VALIDATE, MAP_SHARED_VALIDATE, MAP_PRIVATE, 0,
		MAP_SHARED_VALIDATE | MAP_SYNC,
	};
	struct pool_fd *p = pick_fd(w);
	uint64_t mp, off, pages, off_bytes, len_bytes;
	int prot = PROT_READ, flags = MAP_SHARED, e;
	struct fz_map *m;
	char what[96];
	uint8_t *addr;
	errset allowed;

	if (!p)
		return do_open(w);
	/* Unknown (a write-only file): a guess, the range may be wrong. */
	mp = p->map_pages ? p->map_pages : 2 + st_below(&w->rng, 64);
	if (st_below(&w->rng, 10) < 3)
		prot = prots[st_below(&w->rng, 6)];
	if (st_below(&w->rng, 4) == 0)
		flags = types[st_below(&w->rng, 5)];
	if (st_one_in(&w->rng, 4))
		flags |= MAP_POPULATE;
	if (st_one_in(&w->rng, 8))
		flags |= MAP_LOCKED;
	off = st_below(&w->rng, 10) < 7 ? 0 : st_below(&w->rng, mp + 2);
	switch (st_below(&w->rng, 10)) {
	case 0: case 1: case 2:
		pages = 1 + st_below(&w->rng, mp + 1);
		break;
	case 3:
		pages = mp - (off < mp ? off : 0) + 1;	/* one too many */
		break;
	default:
		pages = off < mp ? mp - off : 1;
		break;
	}
	off_bytes = off * PAGE;
	len_bytes = pages * PAGE;
	switch (st_below(&w->rng, 30)) {
	case 0:
		len_bytes = 0;
		break;
	case 1:
		off_bytes += 1 + st_below(&w->rng, PAGE - 1);
		break;
	case 2:
		/* Not a whole number of pages: mmap() rounds it up. */
		len_bytes -= 1 + st_below(&w->rng, PAGE - 1);
		break;
	default:
		break;
	}
	allowed = map_allowed(p, prot, flags, off_bytes, len_bytes);
	addr = mmap(NULL, len_bytes, prot, flags, p->fd, off_bytes);
	e = addr == MAP_FAILED ? errno : 0;
	snprintf(what, sizeof(what), "mmap(prot %#x, flags %#x, offset %#llx, length %#llx of %llu pages, %s)",
		 prot, flags, (unsigned long long)off_bytes,
		 (unsigned long long)len_bytes,
		 (unsigned long long)p->map_pages,
		 p->acc == O_RDONLY ? "O_RDONLY" :
		 p->acc == O_WRONLY ? "O_WRONLY" : "O_RDWR");
	outcome(w, OP_map, e, allowed, what);
	if (e)
		return;
	len_bytes = pages * PAGE;
	if (!(allowed & 1) || (prot & ~PROT_READ)) {
		munmap(addr, len_bytes);	/* already a failure */
		return;
	}
	if (prot == PROT_NONE) {
		e = sys_err(mprotect(addr, len_bytes, PROT_READ));
		if (outcome(w, OP_map, e, ALLOW(0), "mprotect to PROT_READ")) {
			munmap(addr, len_bytes);
			return;
		}
	}
	m = map_add(w);
	m->addr = addr;
	m->len = len_bytes;
	m->off = off;
	m->map_pages = p->map_pages;
	m->scalable = p->scalable != 0;
}

/* ---- munmap, mprotect, mremap ---- */

void do_map_unmap(struct worker *w)
{
	struct fz_map *m = pick_map(w), *tail;
	size_t pages, a, n;
	int e;

	if (!m)
		return do_map(w);
	pages = m->len / PAGE;
	switch (pages < 2 ? 0 : st_below(&w->rng, 4)) {
	case 0:
		e = sys_err(munmap(m->addr, m->len));
		if (!outcome(w, OP_map_unmap, e, ALLOW(0), "munmap whole"))
			map_forget(w, m);
		return;
	case 1:
		n = 1 + st_below(&w->rng, pages - 1);
		e = sys_err(munmap(m->addr, n * PAGE));
		if (outcome(w, OP_map_unmap, e, ALLOW(0), "munmap head"))
			return;
		m->addr += n * PAGE;
		m->len -= n * PAGE;
		m->off += n;
		return;
	case 2:
		n = 1 + st_below(&w->rng, pages - 1);
		e = sys_err(munmap(m->addr + m->len - n * PAGE, n * PAGE));
		if (!outcome(w, OP_map_unmap, e, ALLOW(0), "munmap tail"))
			m->len -= n * PAGE;
		return;
	default:
		if (pages < 3)
			return;
		a = 1 + st_below(&w->rng, pages - 2);
		n = 1 + st_below(&w->rng, pages - 1 - a);
		e = sys_err(munmap(m->addr + a * PAGE, n * PAGE));
		if (outcome(w, OP_map_unmap, e, ALLOW(0), "munmap middle"))
			return;
		if (w->nmaps == MAX_MAPS) {
			/* No room to keep the far side: unmap it too. */
			munmap(m->addr + (a + n) * PAGE,
			       (pages - a - n) * PAGE);
			m->len = a * PAGE;
			return;
		}
		tail = &w->maps[w->nmaps++];
		*tail = *m;
		tail->addr = m->addr + (a + n) * PAGE;
		tail->len = (pages - a - n) * PAGE;
		tail->off = m->off + a + n;
		m->len = a * PAGE;
		if ((uint64_t)w->nmaps > w->st->map.most_live)
			w->st->map.most_live = w->nmaps;
		return;
	}
}

void do_map_protect(struct worker *w)
{
	struct fz_map *m = pick_map(w);
	size_t pages, a, n;
	int prot, e;

	if (!m)
		return do_map(w);
	pages = m->len / PAGE;
	a = st_one_in(&w->rng, 2) ? 0 : st_below(&w->rng, pages);
	n = 1 + st_below(&w->rng, pages - a);
	switch (st_below(&w->rng, 10)) {
	case 0: case 1: case 2: case 3:
		e = sys_err(mprotect(m->addr + a * PAGE, n * PAGE, PROT_READ));
		outcome(w, OP_map_protect, e, ALLOW(0), "mprotect PROT_READ");
		return;
	case 4: case 5: case 6: case 7:
		/* Never writable or executable, whatever asks. */
		prot = (int[]){ PROT_READ | PROT_WRITE, PROT_WRITE,
				PROT_READ | PROT_EXEC,
				PROT_EXEC }[st_below(&w->rng, 4)];
		e = sys_err(mprotect(m->addr + a * PAGE, n * PAGE, prot));
		outcome(w, OP_map_protect, e, ALLOW(EACCES),
			prot & PROT_WRITE ? "mprotect adding PROT_WRITE" :
					    "mprotect adding PROT_EXEC");
		if (!e)	/* already a failure; make it readable again */
			mprotect(m->addr + a * PAGE, n * PAGE, PROT_READ);
		return;
	default:
		/* Away and back: splits the area into more vmas. */
		e = sys_err(mprotect(m->addr + a * PAGE, n * PAGE, PROT_NONE));
		if (outcome(w, OP_map_protect, e, ALLOW(0), "mprotect PROT_NONE"))
			return;
		e = sys_err(mprotect(m->addr + a * PAGE, n * PAGE, PROT_READ));
		if (outcome(w, OP_map_protect, e, ALLOW(0),
			    "mprotect PROT_READ again"))
			map_drop(w, m);
		return;
	}
}

/*
 * How many vmas cover the area, from /proc/self/maps (faults paused), or
 * -1 when it cannot be read.  Whether an area is split is the kernel's
 * word, not a model's: under fault injection a partial munmap() or
 * mprotect() splits off one end, fails to split off the other or to
 * store the result, returns ENOMEM and leaves the split.  A model that
 * marked only the mprotect() case let "mremap move gave EFAULT" through
 * as a failure in one fault-injection run of 2026-12-03 (12bd920).
 */
static int area_vmas(struct worker *w, const struct fz_map *m)
{
	unsigned long start, end, lo = (unsigned long)m->addr;
	unsigned long hi = lo + m->len;
	char line[512];
	int n = 0;
	FILE *f;

	fz_fault_pause(w, true);
	f = fopen("/proc/self/maps", "re");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%lx-%lx", &start, &end) == 2 &&
			    start < hi && end > lo)
				n++;
		fclose(f);
	}
	fz_fault_pause(w, false);
	return f ? n : -1;
}

void do_map_remap(struct worker *w)
{
	struct fz_map *m = pick_map(w);
	size_t pages, n;
	uint8_t *to, *got;
	char what[64];
	int e, vmas;

	if (!m)
		return do_map(w);
	pages = m->len / PAGE;
	switch (st_below(&w->rng, 10)) {
	case 0: case 1: case 2:
		if (pages < 2)
			return;
		n = 1 + st_below(&w->rng, pages - 1);
		got = mremap(m->addr, m->len, n * PAGE, 0);
		e = got == MAP_FAILED ? errno : 0;
		if (outcome(w, OP_map_remap, e, ALLOW(0), "mremap shrink"))
			return;
		m->len = n * PAGE;
		return;
	case 3: case 4: case 5:
		/* VM_DONTEXPAND: no growing, in place or moved. */
		n = pages + 1 + st_below(&w->rng, 4);
		got = mremap(m->addr, m->len, n * PAGE,
			     st_one_in(&w->rng, 2) ? MREMAP_MAYMOVE : 0);
		e = got == MAP_FAILED ? errno : 0;
		outcome(w, OP_map_remap, e, ALLOW(EFAULT), "mremap grow");
		if (!e) {	/* already a failure; the old range is gone */
			munmap(got, n * PAGE);
			map_forget(w, m);
		}
		return;
	case 6:
		got = mremap(m->addr, m->len, m->len,
			     MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
		e = got == MAP_FAILED ? errno : 0;
		outcome(w, OP_map_remap, e, ALLOW(EINVAL), "mremap DONTUNMAP");
		if (!e)
			munmap(got, m->len);
		return;
	default:
		/* Moved whole to where a placeholder was. */
		to = mmap(NULL, m->len, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (to == MAP_FAILED) {
			outcome(w, OP_map_remap, errno, ALLOW(0),
				"mmap placeholder");
			return;
		}
		got = mremap(m->addr, m->len, m->len,
			     MREMAP_MAYMOVE | MREMAP_FIXED, to);
		e = got == MAP_FAILED ? errno : 0;
		/* A range over two vmas cannot move as one. */
		vmas = e == EFAULT ? area_vmas(w, m) : 1;
		snprintf(what, sizeof(what), "mremap move (area in %d vmas)",
			 vmas);
		outcome(w, OP_map_remap, e,
			vmas > 1 ? ALLOW(0, EFAULT) : ALLOW(0), what);
		if (e) {
			munmap(to, m->len);
			return;
		}
		m->addr = got;
		return;
	}
}

/* ---- reads ---- */

struct touch {
	const uint8_t *addr;
	size_t pages;
	bool header;
	uint64_t picks[10];
	int npicks;
	struct kbloom_map_header h;
};

static void touch_fn(void *arg)
{
	struct touch *t = arg;
	uint64_t sum = 0;
	int i;

	if (t->header)
		memcpy(&t->h, t->addr, sizeof(t->h));
	for (i = 0; i < t->npicks; i++)
		sum += *(volatile const uint64_t *)(t->addr + t->picks[i]);
	sink += sum;
}

/*
 * Reads the header (if mapped here) and words of random pages, the last
 * one always; judges the header.  The filter may be gone: the cells stay.
 */
void do_map_touch(struct worker *w)
{
	struct fz_map *m = pick_map(w);
	struct touch t;
	const char *problem;
	int i, sig;

	if (!m)
		return do_map(w);
	memset(&t, 0, sizeof(t));
	t.addr = m->addr;
	t.pages = m->len / PAGE;
	t.header = m->off == 0;
	t.npicks = 1 + st_below(&w->rng, 9);
	for (i = 0; i < t.npicks; i++)
		t.picks[i] = (i ? st_below(&w->rng, t.pages) : t.pages - 1) *
			     PAGE + st_below(&w->rng, PAGE / 8) * 8;
	sig = st_guarded(touch_fn, &t);
	w->st->syscalls++;
	w->st->errs[OP_map_touch][0]++;
	/*
	 * Past the sub-filters a CLEAR or load left, a page of zeros: no
	 * signal within a mapping's length, scalable or not.
	 */
	if (sig) {
		fault_signal(w, OP_map_touch, sig, "reading mapped pages");
		return;
	}
	w->st->map.pages_read += t.npicks;
	if (!t.header)
		return;
	w->st->map.headers_read++;
	problem = st_map_header_problem(&t.h, 0);
	if (!problem && m->map_pages &&
	    t.h.map_bytes != m->map_pages * PAGE)
		problem = "map_bytes differs from the filter's geometry";
	if (!problem && t.h.sequence < m->last_seq)
		problem = "sequence went backwards";
	if (!problem && m->dead && !(t.h.flags & KBLOOM_MAP_DEAD))
		problem = "KBLOOM_MAP_DEAD cleared again";
	if (problem) {
		record_fail(w, F_MAPPED, "worker %d map_touch: header: %s",
			    w->id, problem);
		return;
	}
	m->last_seq = t.h.sequence;
	if (!m->map_pages && t.h.version != KBLOOM_MAP_VERSION_CHAIN)
		m->map_pages = t.h.map_bytes / PAGE;
	if (t.h.flags & KBLOOM_MAP_DEAD) {
		m->dead = true;
		w->st->map.dead_reads++;
	}
}

/* ---- the good filter through its mapping ---- */

struct lookup {
	const struct st_map *map;
	const struct st_keys *keys;
	uint32_t missing, first;
	bool consistent;
	bool batch;		/* kbloom_lookup_batch into kv_res */
	uint64_t s1;
};

static void lookup_fn(void *arg)
{
	struct lookup *l = arg;
	uint64_t at = 0;
	uint32_t i;

	if (!l->batch) {
		l->consistent = st_map_check(l->map, l->keys, &l->missing,
					     &l->first);
		return;
	}
	for (i = 0; i < l->keys->count; i++) {
		kv[i].data = l->keys->bytes + at;
		kv[i].len = l->keys->lens[i];
		at += l->keys->lens[i];
	}
	st_map_live(l->map);
	kbloom_lookup_batch(&l->map->f, kv, l->keys->count, kv_res);
	l->consistent = st_map_seq_consistent(l->map, l->s1);
}

static bool good_mapped(struct worker *w, enum op op)
{
	int e;

	if (w->good_map.base)
		return true;
	e = st_map_open(w->good_fd, &w->good_map);
	return !outcome(w, op, e, ALLOW(0), "map the good filter");
}

/* Good keys [first, first + n) through the mapping; false: retry. */
static bool good_map_verify(struct worker *w, enum op op, uint64_t first,
			    uint32_t n)
{
	struct st_keys k = { w->keybuf, w->lens, 0, 0 };
	struct lookup l = { &w->good_map, &k, 0, 0, false, false, 0 };
	char tag[16];
	int sig;

	snprintf(tag, sizeof(tag), "g%d", w->id);
	st_keys_fill(&k, tag, first, n);
	sig = st_guarded(lookup_fn, &l);
	if (sig) {
		fault_signal(w, op, sig, "checking good keys");
		return true;
	}
	if (!l.consistent) {
		w->st->map.retries++;
		return false;
	}
	w->st->map.keys_checked += n;
	if (l.missing)
		record_fail(w, F_FALSE_NEG, "worker %d %s: %u of %u good keys missing through the mapping (sequence %llu), first %s-%llu",
			    w->id, op_names[op], l.missing, n,
			    (unsigned long long)w->good_map.hdr->sequence, tag,
			    (unsigned long long)(first + l.first));
	return true;
}

/*
 * Random keys through the mapping (kbloom_lookup_batch) and through CHECK
 * must get the same answers: nobody else writes the good filter.
 */
static void good_map_compare(struct worker *w)
{
	struct st_keys k;
	struct lookup l = { &w->good_map, &k, 0, 0, false, true, 0 };
	struct kbloom_batch b;
	uint32_t i;
	int e, sig;

	random_keys(w, &k);
	memset(&b, 0, sizeof(b));
	b.keys = (uintptr_t)k.bytes;
	b.lens = (uintptr_t)k.lens;
	b.keys_len = k.keys_len;
	b.count = k.count;
	b.results = (uintptr_t)w->results;
	l.s1 = st_map_seq_begin(&w->good_map);
	e = sys_err(ioctl(w->good_fd, KBLOOM_IOC_CHECK, &b));
	if (outcome(w, OP_good_map_check, e, ALLOW(0), "check random keys"))
		return;
	sig = st_guarded(lookup_fn, &l);
	if (sig)
		return fault_signal(w, OP_good_map_check, sig,
				    "checking random keys");
	if (!l.consistent) {
		w->st->map.retries++;
		return;
	}
	w->st->map.compared += k.count;
	for (i = 0; i < k.count; i++)
		if (test_bit(i, kv_res) != (w->results[i / 64] >> (i % 64) & 1))
			break;
	if (i < k.count)
		record_fail(w, F_RESULT, "worker %d good_map_check: key %u of %u: mapping says %d, CHECK says %d",
			    w->id, i, k.count, test_bit(i, kv_res),
			    (int)(w->results[i / 64] >> (i % 64) & 1));
}

void do_good_map_check(struct worker *w)
{
	struct kbloom_info info;
	uint64_t first, n;
	int e, tries;

	if (!good_mapped(w, OP_good_map_check))
		return;
	if (st_one_in(&w->rng, 8)) {
		/* This worker's one mapping is all the good filter has. */
		e = sys_err(ioctl(w->good_fd, KBLOOM_IOC_GET_INFO, &info));
		if (!outcome(w, OP_good_map_check, e, ALLOW(0), "get_info good") &&
		    info.mappings != 1)
			record_fail(w, F_RESULT, "worker %d: good filter mapped once, get_info says %llu mappings",
				    w->id, (unsigned long long)info.mappings);
	}
	if (st_one_in(&w->rng, 3))
		good_map_compare(w);
	if (w->good_added == w->good_deleted)
		return;
	first = w->good_deleted +
		st_below(&w->rng, w->good_added - w->good_deleted);
	n = w->good_added - first;
	for (tries = 0; tries < 4; tries++)
		if (good_map_verify(w, OP_good_map_check, first,
				    n > 256 ? 256 : n))
			break;
}

/* ---- the worker's side ---- */

void fz_map_setup(struct worker *w)
{
	st_guard_signals();
	w->nmaps = 0;
	memset(&w->good_map, 0, sizeof(w->good_map));
}

/*
 * With fault injection off: every good key through the mapping, every
 * mapping read once more, then all unmapped; the good filter must then
 * count no mapping.
 */
void fz_map_final(struct worker *w)
{
	struct kbloom_info info;
	uint64_t first;
	int tries;

	if (!good_mapped(w, OP_final)) {
		record_fail(w, F_USABLE, "worker %d: cannot map the good filter after the run",
			    w->id);
	} else {
		for (first = w->good_deleted; first < w->good_added;
		     first += 4096) {
			uint64_t n = w->good_added - first;

			for (tries = 0; tries < 10; tries++)
				if (good_map_verify(w, OP_final, first,
						    n > 4096 ? 4096 : n))
					break;
		}
	}
	while (w->nmaps) {
		w->rng.s ^= 1;	/* any mapping, any pages */
		do_map_touch(w);
		map_drop(w, &w->maps[0]);
	}
	st_map_close(&w->good_map);
	if (ioctl(w->good_fd, KBLOOM_IOC_GET_INFO, &info))
		record_fail(w, F_USABLE, "worker %d: get_info good after unmapping: %s",
			    w->id, st_errname(errno));
	else if (info.mappings)
		record_fail(w, F_RESULT, "worker %d: %llu mappings of the good filter left after munmap",
			    w->id, (unsigned long long)info.mappings);
}

void fz_map_print(const struct wstats *stats, int nprocs)
{
	struct fz_map_stats s = { 0 };
	int p;

	for (p = 0; p < nprocs; p++) {
		const struct fz_map_stats *m = &stats[p].map;

		s.pages_read += m->pages_read;
		s.headers_read += m->headers_read;
		s.dead_reads += m->dead_reads;
		s.keys_checked += m->keys_checked;
		s.retries += m->retries;
		s.compared += m->compared;
		s.signals += m->signals;
		if (m->most_live > s.most_live)
			s.most_live = m->most_live;
	}
	printf("mappings: %llu pages read (%llu headers, %llu of them of destroyed filters), at most %llu live per worker\n",
	       (unsigned long long)s.pages_read,
	       (unsigned long long)s.headers_read,
	       (unsigned long long)s.dead_reads,
	       (unsigned long long)s.most_live);
	printf("mapped checks: %llu good keys, %llu random keys compared with CHECK, %llu retried (sequence moved), %llu SIGBUS/SIGSEGV\n",
	       (unsigned long long)s.keys_checked,
	       (unsigned long long)s.compared,
	       (unsigned long long)s.retries,
	       (unsigned long long)s.signals);
}
