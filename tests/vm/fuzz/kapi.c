// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's in-kernel API operations (fuzz/bpf.c has its BPF ones,
 * fuzz-ioctl.c the rest), and the fz_kernel_*() that run both: kbloom's
 * in-kernel API through the companion module
 * (tests/kmod/kbloom_kapi_test.c; its top comment lists the commands) on
 * the pool filters that the other operations create, destroy, clear, load
 * and intersect meanwhile.
 *
 * The companion is one global state: a stack of references, a key prefix
 * and a churn timer.  The workers take turns at it (an flock of
 * KF_LOCK_FILE around each operation's commands) and keep a model of that
 * state in memory they share, so that every command's errno is known
 * before it is written: ENOSPC for a ninth reference, EBUSY for a second
 * churn, EINVAL for a command that needs a reference when none is held
 * and for every malformed one, whose answer must then say "error=".
 * In the answers, every errno must be one that kbloom_api.h allows for
 * that call: ENOENT or EINVAL for gets (EINVAL for a bad name only,
 * ENOENT for a stale or impossible id), ENODEV only from a filter that
 * can have been destroyed, EDEADLK only for adds with interrupts off or
 * in a hard interrupt, and for all of the keys, EINVAL for bad keys and a
 * NULL filter.  A filter a worker creates, holds and destroys must then
 * answer ENODEV to every call, and its id and name ENOENT.
 *
 * The good filters: the keys "k<worker>-<i>" that a worker adds to its
 * own good filter through the companion, and the keys a BPF program adds
 * to it, must then be found by CHECK, by the companion and by programs;
 * its keys "g<worker>-<i>" added by ioctl must be found by the companion.
 *
 * Under fault injection (-F) the allocations that fail are the
 * companion's (the keys of a batch, the bad key), kernfs' (a command's
 * copy), seq_file's (the answer) and the device's (create, destroy).  A
 * failed write did nothing, so the model stays exact; an answer that
 * cannot be read is read again.  The flock is taken with injection
 * paused: it is no part of the test.
 */
#include <sys/file.h>

#include "../fuzz-ioctl.h"

#define KF_LOCK_FILE	"/tmp/fz-kapi.lock"
#define KF_REFS		8	/* the companion's KAPI_REFS */
#define KF_PREFIX_MAX	16	/* its KAPI_PREFIX_MAX */
#define KF_ARGS		6	/* its KAPI_ARGS: words in a command */
#define KF_GOOD_MAX	8000	/* keys a worker adds through it */

/* Key range commands: odd ones add, from 2 on batches. */
static const char *const kf_ranges[] = {
	"check", "add", "check-keys", "add-keys",
};

/* The companion's commands and how many words follow each. */
static const struct {
	const char *name;
	int min, max;
} kf_cmds[] = {
	{ "hold", 1, 1 }, { "hold-id", 1, 1 }, { "put", 0, 0 },
	{ "put-softirq", 0, 0 }, { "put-hardirq", 0, 0 }, { "release", 0, 0 },
	{ "id", 0, 0 }, { "check", 3, 3 }, { "add", 3, 3 },
	{ "check-keys", 3, 4 }, { "add-keys", 3, 4 }, { "badkey", 1, 1 },
	{ "null", 0, 0 }, { "prefix", 0, 1 }, { "churn-start", 1, 1 },
	{ "churn-stop", 0, 0 },
};

/*
 * What a reference on the companion's stack is to: a pool filter (may be
 * destroyed any time), a good filter (never destroyed during the run), a
 * worker's own filter, alive, and the same once that worker destroyed it.
 */
enum kf_kind { KF_POOL, KF_GOOD, KF_OWN, KF_DEAD };

struct kf_ref {
	uint32_t id;
	uint8_t kind;
	uint8_t owner;		/* the worker that took it */
};

/* The model of the companion's state, shared; changed under the flock. */
struct kf_shared {
	int nrefs;
	struct kf_ref refs[KF_REFS];
	bool churning;
	char prefix[KF_PREFIX_MAX + 1];
	uint32_t good_id[MAX_PROCS];	/* ids of the good filters */
	bool loaded_here;	/* the fuzzer loaded the companion */
};

static struct kf_shared *kf;
static bool kf_kapi;	/* what the run has; set before fork() */
static const char *kf_kapi_why = "";
static char kf_res[4096];	/* the last answer, per process */
static char kf_last[160];	/* the last command, printable */

/* ---- the companion: turns, commands and answers ---- */

static void kf_lock(struct worker *w)
{
	int r;

	fz_fault_pause(w, true);
	while ((r = flock(w->kern.lock_fd, LOCK_EX)) && errno == EINTR)
		;
	/* Without the turns, workers would read each other's answers. */
	if (r) {
		printf("FAIL: fuzz/kapi-turns: flock: %s (a kernel without CONFIG_FILE_LOCKING?)\n",
		       strerror(errno));
		fflush(stdout);
		_exit(2);
	}
	fz_fault_pause(w, false);
}

static void kf_unlock(struct worker *w)
{
	fz_fault_pause(w, true);
	while (flock(w->kern.lock_fd, LOCK_UN) && errno == EINTR)
		;
	fz_fault_pause(w, false);
}

/*
 * The answer to the last command into kf_res, its newline gone.  Under
 * fault injection the read may fail for want of memory: the answer stays
 * until the next command, which only this worker can write now.
 */
static int kf_read(struct worker *w, enum op op)
{
	int tries, e;

	for (tries = 0; tries < 100; tries++) {
		e = st_kapi_read(w->kern.res_fd, kf_res, sizeof(kf_res));
		if (e != ENOMEM)
			break;
		outcome(w, op, ENOMEM, ALLOW(0), "read the answer");
	}
	if (e == ENOMEM) {
		fz_fault_pause(w, true);
		e = st_kapi_read(w->kern.res_fd, kf_res, sizeof(kf_res));
		fz_fault_pause(w, false);
	}
	if (e)
		outcome(w, op, e, ALLOW(0), "read the answer");
	return e;
}

/*
 * Writes one command of len bytes and reads its answer.  The write's
 * errno must be in allowed (and ENOMEM under fault injection: nothing
 * was done); a refused command must leave "error=..." as its answer.
 * Returns the write's errno, or -1 when the answer could not be read.
 */
static int kf_send(struct worker *w, enum op op, errset allowed,
		   const char *cmd, size_t len)
{
	static char prev[sizeof(kf_res)];
	char what[200];
	ssize_t n;
	size_t i;
	int e;

	for (i = 0; i < len && i < sizeof(kf_last) - 1; i++)
		kf_last[i] = cmd[i] >= ' ' && cmd[i] < 127 ? cmd[i] : '?';
	kf_last[i] = 0;
	snprintf(what, sizeof(what), "companion '%s'", kf_last);
	memcpy(prev, kf_res, sizeof(prev));
	n = pwrite(w->kern.cmd_fd, cmd, len, 0);
	e = sys_err(n);
	w->st->kern.cmds++;
	outcome(w, op, e, allowed, what);
	/* Longer than a page is cut to one, which is then judged. */
	if (!e && (size_t)n != len && !(len > PAGE && n == PAGE))
		record_fail(w, F_RESULT, "worker %d %s: %s: wrote %zd of %zu bytes",
			    w->id, op_names[op], what, n, len);
	if (kf_read(w, op))
		return -1;
	/*
	 * ENOMEM from kernfs (its copy of the command) leaves the last
	 * answer; from the companion, a new one that says so.
	 */
	if (e == ENOMEM) {
		if (strcmp(kf_res, prev) && !strncmp(kf_res, "error=no memory", 15))
			w->st->kern.companion_nomem++;
		return e;
	}
	if (e && strncmp(kf_res, "error=", 6))
		record_fail(w, F_RESULT, "worker %d %s: %s refused (%s), answer '%.60s' names no error",
			    w->id, op_names[op], what, st_errname(e), kf_res);
	return e;
}

static int kf_cmd(struct worker *w, enum op op, errset allowed,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int kf_cmd(struct worker *w, enum op op, errset allowed,
		  const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return kf_send(w, op, allowed, cmd, len);
}

static bool kf_num(const char *name, long long *v)
{
	return st_kapi_num(kf_res, name, v);
}

static bool kf_has(const char *pairs)
{
	return st_kapi_has(kf_res, pairs);
}

static void kf_bad_answer(struct worker *w, enum op op)
{
	record_fail(w, F_RESULT, "worker %d %s: companion '%s' answered '%.100s'",
		    w->id, op_names[op], kf_last, kf_res);
}

/* ---- the model ---- */

static struct kf_ref *kf_top(void)
{
	return kf->nrefs ? &kf->refs[kf->nrefs - 1] : NULL;
}

static bool kf_may_die(const struct kf_ref *r)
{
	return r->kind == KF_POOL || r->kind == KF_DEAD;
}

/* A filter of this worker's, never destroyed behind its back. */
static bool kf_mine(const struct worker *w, const struct kf_ref *r)
{
	return (r->kind == KF_GOOD || r->kind == KF_OWN) && r->owner == w->id;
}

/*
 * Whether this worker may add through the newest reference: not to
 * another worker's good or own filter, which only its owner changes (its
 * mapped checks compare with CHECK, key by key, and fuzz/mmap.c would see
 * a key that appeared in between).
 */
static bool kf_may_add(const struct worker *w)
{
	const struct kf_ref *r = kf_top();

	return !r || r->kind == KF_POOL || r->kind == KF_DEAD || kf_mine(w, r);
}

/*
 * An answer that breaks the model (none should): start again from no
 * references, so that the rest of the run is judged right.
 */
static void kf_resync(struct worker *w, enum op op)
{
	kf_bad_answer(w, op);
	if (!kf_cmd(w, op, ALLOW(0), "release"))
		kf->nrefs = 0;
}

/*
 * hold NAME, or hold-id ID (by_id), the model updated.  ret is what the
 * get may answer; a reference taken is of kind and, by id, must be to
 * that id (want_id; by name, when not 0).  Returns the id held, or 0.
 */
static uint32_t kf_hold(struct worker *w, enum op op, const char *arg,
			bool by_id, errset ret, enum kf_kind kind,
			uint32_t want_id)
{
	long long got, id = 0, refs;
	struct kf_ref *r;
	int e;

	e = kf_cmd(w, op, ALLOW(kf->nrefs == KF_REFS ? ENOSPC : 0), "%s %s",
		   by_id ? "hold-id" : "hold", arg);
	if (e || kf->nrefs == KF_REFS)
		return 0;
	if (!kf_num("ret", &got) || !kf_num("refs", &refs) || got > 0) {
		kf_resync(w, op);
		return 0;
	}
	outcome(w, op, (int)-got, ret, by_id ? "kbloom_filter_get_id()" :
		"kbloom_filter_get()");
	if (got) {
		if (refs != kf->nrefs)
			kf_bad_answer(w, op);
		return 0;
	}
	if (!kf_num("id", &id) || refs != kf->nrefs + 1 || !id ||
	    id > KF_INT_MAX || (want_id && id != want_id)) {
		kf_bad_answer(w, op);
		if (refs != kf->nrefs + 1)
			return kf_resync(w, op), 0;
	}
	r = &kf->refs[kf->nrefs++];
	r->id = id;
	/* A get that should have failed found something: who knows what. */
	r->kind = ret & ALLOW(0) ? kind : KF_POOL;
	r->owner = w->id;
	w->st->kern.holds++;
	return id;
}

/* put, put-softirq or put-hardirq (how) of the newest reference. */
static void kf_put(struct worker *w, enum op op, int how)
{
	long long refs;

	if (kf_cmd(w, op, ALLOW(kf->nrefs ? 0 : EINVAL), "%s", st_kapi_put(how)) ||
	    !kf->nrefs)
		return;
	if (!kf_num("refs", &refs) || refs != kf->nrefs - 1 ||
	    !kf_has("ret=0") || !kf_has("ctx=ok"))
		kf_bad_answer(w, op);
	kf->nrefs--;
}

/* The key prefix of later ranges: "" for the bare numbers; 0 or errno. */
static int kf_prefix(struct worker *w, enum op op, const char *tag)
{
	char want[64];
	int e;

	if (!strcmp(kf->prefix, tag))
		return 0;
	e = kf_cmd(w, op, ALLOW(0), *tag ? "prefix %s" : "prefix", tag);
	if (e)
		return e;
	snprintf(want, sizeof(want), "ret=0 prefix=%s", tag);
	if (strcmp(kf_res, want))
		kf_bad_answer(w, op);
	snprintf(kf->prefix, sizeof(kf->prefix), "%s", tag);
	return 0;
}

/* What a key range answered. */
struct kf_range {
	long long keys, yes, no, sum, errors, err, missing, badret;
};

/*
 * A key range command (kf_ranges[cmd]) in ctx on the newest reference,
 * keys [start, start + count) of the current prefix, batch keys a call
 * (0: the companion's default).  Judged by what the reference is to.
 * Returns 0 with *r filled, or the write's errno, or -1.
 */
static int kf_range(struct worker *w, enum op op, int cmd, int ctx,
		    uint32_t start, uint32_t count, uint32_t batch,
		    struct kf_range *r)
{
	const struct kf_ref *ref = kf_top();
	bool refused = (cmd & 1) && ctx >= ST_KAPI_IRQOFF, all;
	char tail[16] = "";
	errset allowed;
	int e;

	if (batch)
		snprintf(tail, sizeof(tail), " %u", batch);
	e = kf_cmd(w, op, ALLOW(ref ? 0 : EINVAL), "%s %s %u %u%s",
		   kf_ranges[cmd], st_kapi_ctx(ctx), start, count, tail);
	if (e || !ref)
		return e ? e : -1;
	if (!kf_num("keys", &r->keys) || !kf_num("yes", &r->yes) ||
	    !kf_num("no", &r->no) || !kf_num("sum", &r->sum) ||
	    !kf_num("errors", &r->errors) || !kf_num("err", &r->err) ||
	    !kf_num("missing", &r->missing) || !kf_num("badret", &r->badret) ||
	    r->keys != count || r->yes + r->no + r->errors != r->keys ||
	    r->badret || !kf_has("ctx=ok") || r->missing > r->keys) {
		kf_bad_answer(w, op);
		return -1;
	}
	w->st->kern.keys += r->keys;
	if (!r->keys)
		return 0;
	/* A destroyed filter is refused first, then an add where none may be. */
	all = ref->kind == KF_DEAD || refused;
	if (ref->kind == KF_DEAD)
		allowed = ALLOW(ENODEV);
	else if (refused)
		allowed = kf_may_die(ref) ? ALLOW(EDEADLK, ENODEV) :
					    ALLOW(EDEADLK);
	else
		allowed = kf_may_die(ref) ? ALLOW(0, ENODEV) : ALLOW(0);
	/*
	 * A pool filter may be scalable: its adds wait for growth (EAGAIN)
	 * or stop at a cap (E2BIG, ENOMEM), and its batches of adds are
	 * refused (EOPNOTSUPP).
	 */
	if (ref->kind == KF_POOL && (cmd & 1))
		allowed |= ALLOW(EAGAIN, E2BIG, ENOMEM, EOPNOTSUPP);
	outcome(w, op, r->errors ? (int)-r->err : 0, allowed,
		"a key range's calls");
	if (all && r->errors != r->keys)
		record_fail(w, F_ERRNO, "worker %d %s: companion '%s': %lld of %lld keys refused, wanted all",
			    w->id, op_names[op], kf_last, r->errors, r->keys);
	if (r->errors && r->err == -ENODEV)
		w->st->kern.enodev++;
	if (r->errors && r->err == -EDEADLK)
		w->st->kern.edeadlk++;
	/* Nobody else clears or loads this worker's own filters. */
	if (kf_mine(w, ref) && r->missing)
		record_fail(w, F_FALSE_NEG, "worker %d %s: companion '%s': %lld keys not found by the check right after their add",
			    w->id, op_names[op], kf_last, r->missing);
	return 0;
}

/* ---- names and ids ---- */

/* A name no filter can have, one word (the companion splits on blanks). */
void kf_bad_name(struct worker *w, char *name, size_t size)
{
	static const char *const bad[] = {
		".", "..", "a/b", "*", "semi;colon", "\xc3\xa9t\xc3\xa9",
		"fz-1/x", "fz-1\x01", "fz\x7f", "-?", "back\\slash",
	};
	size_t len, i;

	switch (st_below(&w->rng, 3)) {
	case 0:
		snprintf(name, size, "%s",
			 bad[st_below(&w->rng, sizeof(bad) / sizeof(*bad))]);
		break;
	case 1:
		/* Valid characters, but 32 to 60 of them. */
		len = KBLOOM_NAME_MAX + st_below(&w->rng, 29);
		for (i = 0; i < len && i < size - 1; i++)
			name[i] = 'a' + st_below(&w->rng, 26);
		name[i] = 0;
		break;
	default:
		snprintf(name, size, "fz-%d%c", (int)st_below(&w->rng, POOL),
			 "!@#$%^&()+=,:"[st_below(&w->rng, 13)]);
		break;
	}
}

/* The id sysfs shows for a filter; 0 (and the errno judged) if none. */
uint32_t kf_sysfs_id(struct worker *w, enum op op, const char *name)
{
	int e;
	uint32_t id = st_filter_id(name, &e);

	/* ENOENT: no such filter; ENODEV: kernfs refuses a node being removed. */
	outcome(w, op, e, ALLOW(0, ENOENT, ENODEV), "sysfs id");
	return id;
}

/*
 * An id that may be a live filter's, of a pool's or of none; never a good
 * filter's, which a reference taken as a pool's could then add to.
 */
uint32_t kf_random_id(struct worker *w)
{
	uint32_t id = 1 + st_below(&w->rng, 100000);
	int p;

	for (p = 0; p < MAX_PROCS; p++)
		if (id == kf->good_id[p])
			return KF_INT_MAX + 1;
	return id;
}

uint32_t kf_good_id(int worker)
{
	return kf->good_id[worker];
}

static void kf_good_tag(char *tag, size_t size, char kind, int worker)
{
	snprintf(tag, size, "%c%d", kind, worker);
}

/* ---- the companion's operations ---- */

void do_kapi_hold(struct worker *w)
{
	enum op op = OP_kapi_hold;
	uint64_t r = st_below(&w->rng, 20);
	char name[80];

	kf_lock(w);
	if (r < 12) {
		pool_name(name, st_below(&w->rng, POOL));
		kf_hold(w, op, name, false, ALLOW(0, ENOENT), KF_POOL, 0);
	} else if (r < 15) {
		kf_hold(w, op, w->good_name, false, ALLOW(0), KF_GOOD,
			kf->good_id[w->id]);
	} else if (r < 19) {
		kf_bad_name(w, name, sizeof(name));
		kf_hold(w, op, name, false, ALLOW(EINVAL), KF_POOL, 0);
	} else {
		snprintf(name, sizeof(name), "fznone-%d", w->id);
		kf_hold(w, op, name, false, ALLOW(ENOENT), KF_POOL, 0);
	}
	kf_unlock(w);
}

void do_kapi_hold_id(struct worker *w)
{
	static const char *const malformed[] = {
		"abc", "-1", "4294967296", "0x", "1x", "99999999999999999999",
		"0b1",
	};
	enum op op = OP_kapi_hold_id;
	uint64_t r = st_below(&w->rng, 10);
	char name[KBLOOM_NAME_MAX], arg[32];
	uint32_t id;

	if (r < 5) {
		/* A pool filter's, read now: it may be gone at the hold. */
		pool_name(name, st_below(&w->rng, POOL));
		id = kf_sysfs_id(w, op, name);
		if (!id)
			id = kf_random_id(w);
		snprintf(arg, sizeof(arg), "%u", id);
		kf_lock(w);
		kf_hold(w, op, arg, true, ALLOW(0, ENOENT), KF_POOL, id);
		kf_unlock(w);
		return;
	}
	kf_lock(w);
	if (r == 5) {
		id = kf->good_id[w->id];
		snprintf(arg, sizeof(arg), "%u", id);
		kf_hold(w, op, arg, true, ALLOW(0), KF_GOOD, id);
	} else if (r == 6 && w->kern.nstale) {
		/* Destroyed by this worker: ids are not reused. */
		id = w->kern.stale[st_below(&w->rng, w->kern.nstale)];
		snprintf(arg, sizeof(arg), "%u", id);
		kf_hold(w, op, arg, true, ALLOW(ENOENT), KF_POOL, id);
	} else if (r <= 7) {
		id = st_one_in(&w->rng, 3) ? 0 :
		     KF_INT_MAX + 1 + st_below(&w->rng, KF_INT_MAX);
		snprintf(arg, sizeof(arg), "%u", id);
		kf_hold(w, op, arg, true, ALLOW(ENOENT), KF_POOL, id);
	} else {
		/* Not a number below 2^32: refused, unless the stack is full. */
		kf_cmd(w, op, ALLOW(kf->nrefs == KF_REFS ? ENOSPC : EINVAL),
		       "hold-id %s",
		       malformed[st_below(&w->rng, sizeof(malformed) /
						   sizeof(*malformed))]);
	}
	kf_unlock(w);
}

void do_kapi_put(struct worker *w)
{
	enum op op = OP_kapi_put;
	uint64_t r = st_below(&w->rng, 10);
	long long id;

	kf_lock(w);
	if (r < 7) {
		kf_put(w, op, r / 3 < 3 ? r / 3 : 0);
	} else if (r == 7) {
		if (!kf_cmd(w, op, ALLOW(0), "release")) {
			if (strcmp(kf_res, "ret=0 refs=0"))
				kf_bad_answer(w, op);
			kf->nrefs = 0;
		}
	} else if (!kf_cmd(w, op, ALLOW(kf->nrefs ? 0 : EINVAL), "id") &&
		   kf->nrefs) {
		/* A destroyed filter's reference still has its id. */
		if (!kf_has("ret=0") || !kf_num("id", &id) ||
		    id != kf_top()->id)
			kf_bad_answer(w, op);
	}
	kf_unlock(w);
}

/* Takes a reference for a key range, mostly to a pool filter. */
static void kf_hold_some(struct worker *w, enum op op)
{
	char name[KBLOOM_NAME_MAX];

	if (st_one_in(&w->rng, 3)) {
		kf_hold(w, op, w->good_name, false, ALLOW(0), KF_GOOD,
			kf->good_id[w->id]);
		return;
	}
	pool_name(name, st_below(&w->rng, POOL));
	kf_hold(w, op, name, false, ALLOW(0, ENOENT), KF_POOL, 0);
}

/*
 * Random key ranges in random contexts on the newest reference, with the
 * bare numbers, this worker's good keys or another prefix.  On its own
 * good filter, a check of good keys it knows are in must find them all.
 */
void do_kapi_range(struct worker *w)
{
	enum op op = OP_kapi_range;
	uint64_t r = st_below(&w->rng, 10), lo = 0, hi = 0;
	int cmd = st_below(&w->rng, 4), ctx = st_below(&w->rng, ST_KAPI_NR_CTX);
	uint32_t start, count, batch = 0;
	struct kf_range res;
	char tag[KF_PREFIX_MAX + 1];
	bool known = false;
	size_t i, len;

	kf_lock(w);
	if (!kf->nrefs && !st_one_in(&w->rng, 4))
		kf_hold_some(w, op);
	if (r < 4) {
		tag[0] = 0;
	} else if (r < 6) {
		kf_good_tag(tag, sizeof(tag), 'g', w->id);
		lo = w->good_deleted;
		hi = w->good_added;
	} else if (r < 8) {
		kf_good_tag(tag, sizeof(tag), 'k', w->id);
		hi = w->kern.kapi_added;
	} else if (r < 9) {
		kf_good_tag(tag, sizeof(tag), 'g', (int)st_below(&w->rng, 16));
	} else {
		len = 1 + st_below(&w->rng, KF_PREFIX_MAX);
		for (i = 0; i < len; i++)
			tag[i] = "abcdefghijklmnopqrstuvwxyz0123456789._-"
				 [st_below(&w->rng, 39)];
		tag[len] = 0;
	}
	if (kf_prefix(w, op, tag))
		goto unlock;
	r = st_below(&w->rng, 20);
	/*
	 * Mostly one chunk: in softirq each chunk waits for a timer tick,
	 * and the other workers wait for this one.
	 */
	count = r == 0 ? 0 : r < 15 ? 1 + st_below(&w->rng, 64) :
		r < 19 ? 1 + st_below(&w->rng, 1024) :
		1 + st_below(&w->rng, 4096);
	start = st_one_in(&w->rng, 2) ? st_below(&w->rng, 50000) :
		st_below(&w->rng, (1ULL << 32) - count + 1);
	/* Keys it knows are in its good filter, through its reference. */
	if (kf->nrefs && kf_mine(w, kf_top()) && kf_top()->kind == KF_GOOD &&
	    !(cmd & 1) && hi > lo && st_one_in(&w->rng, 2)) {
		start = lo + st_below(&w->rng, hi - lo);
		if (count > hi - start)
			count = hi - start;
		known = count > 0;
	}
	if (cmd >= 2 && st_one_in(&w->rng, 2))
		batch = st_one_in(&w->rng, 4) ? 1 + st_below(&w->rng, 65536) :
			1 + st_below(&w->rng, 300);
	if (!kf_may_add(w))
		cmd &= ~1;
	if (kf_range(w, op, cmd, ctx, start, count, batch, &res))
		goto unlock;
	if (known) {
		w->st->kern.good_checked += res.keys;
		if (res.yes != res.keys)
			record_fail(w, F_FALSE_NEG, "worker %d %s: companion '%s' found %lld of %lld good keys",
				    w->id, op_names[op], kf_last, res.yes,
				    res.keys);
	}
unlock:
	kf_unlock(w);
}

/* The six answers of badkey on ref, or of null (ref NULL), judged. */
static void kf_judge_bad(struct worker *w, enum op op,
			 const struct kf_ref *ref, bool valid_len)
{
	static const char *const names[] = {
		"check", "add", "check_keys", "add_keys", "mixed_check",
		"mixed_add",
	};
	long long v[6], hi;
	errset allowed;
	int i;

	for (i = 0; i < 6; i++)
		if (!kf_num(names[i], &v[i]))
			return kf_bad_answer(w, op);
	if (!ref) {
		/* null: no filter, whatever the key. */
		for (i = 0; i < 6; i++)
			outcome(w, op, (int)-v[i], ALLOW(EINVAL), "a NULL filter");
		return;
	}
	/* The filter's state is judged before the key. */
	allowed = ref->kind == KF_DEAD ? ALLOW(ENODEV) :
		  valid_len ? ALLOW(0) : ALLOW(EINVAL);
	if (ref->kind == KF_POOL)
		allowed |= ALLOW(ENODEV);
	for (i = 0; i < 6; i++) {
		errset a = allowed;

		hi = i < 4 ? 1 : 2;
		if (v[i] > hi)
			return kf_bad_answer(w, op);
		/*
		 * A pool filter may be scalable: with good keys, an add waits
		 * for its growth (EAGAIN) or stops at a cap, and batches of
		 * adds (add_keys, mixed_add) are refused.
		 */
		if (ref->kind == KF_POOL && valid_len && (i & 1))
			a |= i == 1 ? ALLOW(EAGAIN, E2BIG, ENOMEM) :
				      ALLOW(EOPNOTSUPP);
		outcome(w, op, v[i] < 0 ? (int)-v[i] : 0, a,
			"a key of that length");
	}
	/*
	 * Its own filter, the key added by the second call: found by the
	 * third, nothing new from the fourth, found (with a good key) by the
	 * fifth, and at most the good key new from the sixth.
	 */
	if (valid_len && kf_mine(w, ref) &&
	    (v[2] != 1 || v[3] != 0 || v[4] < 1 || v[5] > 1))
		record_fail(w, F_FALSE_NEG, "worker %d %s: companion '%s' on its own filter: '%s'",
			    w->id, op_names[op], kf_last, kf_res);
}

void do_kapi_bad(struct worker *w)
{
	enum op op = OP_kapi_bad;
	uint64_t r = st_below(&w->rng, 6);
	uint32_t len;

	kf_lock(w);
	if (r == 0) {
		if (!kf_cmd(w, op, ALLOW(0), "null"))
			kf_judge_bad(w, op, NULL, false);
		goto unlock;
	}
	if (r == 5) {
		/* LEN is 0 to 4097. */
		if (st_one_in(&w->rng, 2))
			kf_cmd(w, op, ALLOW(EINVAL), "badkey %u",
			       KBLOOM_KEY_MAX + 2 +
			       (uint32_t)st_below(&w->rng, 100000));
		else
			kf_cmd(w, op, ALLOW(EINVAL), "badkey %s",
			       st_one_in(&w->rng, 2) ? "x" : "-1");
		goto unlock;
	}
	len = r == 1 ? 0 : r == 2 ? KBLOOM_KEY_MAX + 1 :
	      1 + st_below(&w->rng, KBLOOM_KEY_MAX);
	/* A key of a valid length is added. */
	if (len && len <= KBLOOM_KEY_MAX && !kf_may_add(w))
		len = 0;
	if (!kf_cmd(w, op, ALLOW(kf->nrefs ? 0 : EINVAL), "badkey %u", len) &&
	    kf->nrefs)
		kf_judge_bad(w, op, kf_top(), len && len <= KBLOOM_KEY_MAX);
unlock:
	kf_unlock(w);
}

/*
 * The churn's answer: only lost keys (an add that a CLEAR or an image
 * load of the pool filter undid before the check right after it) may be
 * among the unexpected; the rest counts as the header says (full: adds
 * a scalable pool filter had no room for).
 */
static void kf_churn_judge(struct worker *w, enum op op)
{
	static const char *const names[] = {
		"rounds", "got", "enoent", "worked", "enodev", "full", "lost",
		"hrounds", "hgot", "hid", "edeadlk", "bad", "bad_err",
	};
	enum { ROUNDS, GOT, ENOENTS, WORKED, ENODEVS, FULL, LOST, HROUNDS,
	       HGOT, HID, EDEADLKS, BAD, BAD_ERR };
	long long v[13];
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!kf_num(names[i], &v[i]))
			return kf_bad_answer(w, op);
	if (v[BAD] != v[LOST])
		record_fail(w, F_ERRNO, "worker %d %s: churn: %lld unexpected answers in softirq or hardirq, not lost keys, first %s: '%s'",
			    w->id, op_names[op], v[BAD] - v[LOST],
			    v[BAD_ERR] < 0 ? st_errname((int)-v[BAD_ERR]) : "a NULL",
			    kf_res);
	if (!kf_has("ctx=ok") || v[GOT] + v[ENOENTS] > v[ROUNDS] ||
	    v[WORKED] + v[ENODEVS] + v[FULL] > v[GOT] ||
	    v[HGOT] > v[HROUNDS] ||
	    v[HID] > v[HGOT] || v[EDEADLKS] > v[HGOT])
		kf_bad_answer(w, op);
	w->st->kern.churn_rounds += v[ROUNDS] + v[HROUNDS];
}

void do_kapi_churn(struct worker *w)
{
	enum op op = OP_kapi_churn;
	uint64_t r = st_below(&w->rng, 10);
	char name[80];

	kf_lock(w);
	if (kf->churning && r < 8) {
		if (!kf_cmd(w, op, ALLOW(0), "churn-stop")) {
			kf->churning = false;
			kf_churn_judge(w, op);
		}
	} else if (kf->churning || r < 7) {
		/* A pool filter, which the others create and destroy. */
		pool_name(name, st_below(&w->rng, POOL));
		if (!kf_cmd(w, op, ALLOW(kf->churning ? EBUSY : 0),
			    "churn-start %s", name) && !kf->churning) {
			if (strcmp(kf_res, "ret=0"))
				kf_bad_answer(w, op);
			kf->churning = true;
		}
	} else if (r == 7) {
		/* 32 bytes and more: no name fits the companion's 31. */
		memset(name, 'c', sizeof(name));
		name[KBLOOM_NAME_MAX + st_below(&w->rng, 20)] = 0;
		kf_cmd(w, op, ALLOW(EINVAL), "churn-start %s", name);
	} else {
		kf_cmd(w, op, ALLOW(EINVAL), "churn-stop");
	}
	kf_unlock(w);
}

/* Appends count random words of [a-z0-9] to cmd. */
static size_t kf_words(struct worker *w, char *cmd, size_t len, int count)
{
	int i, j, n;

	for (i = 0; i < count; i++) {
		cmd[len++] = ' ';
		n = 1 + st_below(&w->rng, 8);
		for (j = 0; j < n; j++)
			cmd[len++] = "abcdefghijklmnopqrstuvwxyz0123456789"
				     [st_below(&w->rng, 36)];
	}
	cmd[len] = 0;
	return len;
}

/*
 * Commands the companion must refuse with EINVAL and "error=": unknown
 * words, a known command with the wrong number of words, a key range with
 * one bad field, too many words, too many bytes, random bytes, a prefix
 * too long; a churn name too long (EBUSY while one runs).
 */
void do_kapi_garbage(struct worker *w)
{
	static const char *const bad_ctx[] = {
		"kernel", "PROCESS", "irq", "1", "NMI", "softirq,", "-",
	};
	static const char *const bad_num[] = {
		"x", "-1", "4294967296", "1e3", "0x", "18446744073709551617",
	};
	static const char *const blank[] = { " ", "\n", "\t \t", "  \n" };
	enum op op = OP_kapi_garbage;
	static char cmd[8192];
	bool churn_name = false;
	size_t len = 0, i, n;
	int c, words;

	switch (st_below(&w->rng, 9)) {
	case 0:
		c = st_below(&w->rng, sizeof(kf_cmds) / sizeof(*kf_cmds));
		if (kf_cmds[c].min && st_one_in(&w->rng, 2))
			words = st_below(&w->rng, kf_cmds[c].min);
		else
			words = kf_cmds[c].max + 1 +
				st_below(&w->rng, KF_ARGS - kf_cmds[c].max);
		len = snprintf(cmd, sizeof(cmd), "%s", kf_cmds[c].name);
		len = kf_words(w, cmd, len, words);
		break;
	case 1: {
		const char *f[4] = {
			st_kapi_ctx(st_below(&w->rng, ST_KAPI_NR_CTX)), "1", "10", "",
		};

		c = st_below(&w->rng, 4);
		switch (st_below(&w->rng, 5)) {
		case 0:
			f[0] = bad_ctx[st_below(&w->rng, 7)];
			break;
		case 1:
			f[1] = bad_num[st_below(&w->rng, 6)];
			break;
		case 2:
			f[2] = bad_num[st_below(&w->rng, 6)];
			break;
		case 3:
			/* Past key 4294967295. */
			if (st_one_in(&w->rng, 2)) {
				f[1] = "4294967295";
				f[2] = "2";
			} else {
				f[1] = "4000000000";
				f[2] = "300000000";
			}
			break;
		default:
			c |= 2;
			f[3] = st_one_in(&w->rng, 2) ? " 0" : " 65537";
			break;
		}
		len = snprintf(cmd, sizeof(cmd), "%s %s %s %s%s", kf_ranges[c],
			       f[0], f[1], f[2], f[3]);
		break;
	}
	case 2:
		/* Near misses of real names, and a word no command starts with. */
		c = st_below(&w->rng, sizeof(kf_cmds) / sizeof(*kf_cmds));
		len = snprintf(cmd, sizeof(cmd), "%s%s",
			       st_one_in(&w->rng, 2) ? "#" : kf_cmds[c].name,
			       st_one_in(&w->rng, 2) ? "x" : "-");
		len = kf_words(w, cmd, len, st_below(&w->rng, 3));
		break;
	case 3:
		len = snprintf(cmd, sizeof(cmd), "check process 1 2");
		len = kf_words(w, cmd, len,
			       KF_ARGS - 3 + st_below(&w->rng, 6));
		break;
	case 4:
		/* 128 bytes and more; past a page, kernfs cuts to one. */
		n = 128 + (st_one_in(&w->rng, 4) ? st_below(&w->rng, 6000) :
						   st_below(&w->rng, 200));
		len = snprintf(cmd, sizeof(cmd), "hold ");
		while (len < n)
			cmd[len++] = 'a';
		cmd[len] = 0;
		break;
	case 5:
		/* One word of bytes that are neither blank nor NUL. */
		n = 1 + st_below(&w->rng, 200);
		cmd[len++] = '#';
		for (i = 0; i < n; i++) {
			uint8_t b = 0x21 + st_below(&w->rng, 0xff - 0x21 + 1);

			cmd[len++] = b == 0x7f || b == 0xa0 ? '~' : b;
		}
		cmd[len] = 0;
		break;
	case 6:
		len = snprintf(cmd, sizeof(cmd), "prefix ");
		n = KF_PREFIX_MAX + 1 + st_below(&w->rng, 30);
		for (i = 0; i < n; i++)
			cmd[len++] = 'p';
		cmd[len] = 0;
		break;
	case 7:
		/* Refused for the name, or for a churn already running. */
		churn_name = true;
		len = snprintf(cmd, sizeof(cmd), "churn-start ");
		n = KBLOOM_NAME_MAX + st_below(&w->rng, 30);
		for (i = 0; i < n; i++)
			cmd[len++] = 'c';
		cmd[len] = 0;
		break;
	default:
		len = snprintf(cmd, sizeof(cmd), "%s",
			       blank[st_below(&w->rng, 4)]);
		break;
	}
	/* A trailing newline, as echo writes, changes nothing. */
	if (st_one_in(&w->rng, 4) && len < sizeof(cmd) - 1) {
		cmd[len++] = '\n';
		cmd[len] = 0;
	}
	kf_lock(w);
	kf_send(w, op, ALLOW(churn_name && kf->churning ? EBUSY : EINVAL), cmd,
		len);
	kf_unlock(w);
}

/* Marks every reference to a filter now destroyed. */
static void kf_mark_dead(uint32_t id)
{
	int i;

	for (i = 0; i < kf->nrefs; i++)
		if (kf->refs[i].id == id)
			kf->refs[i].kind = KF_DEAD;
}

/*
 * A filter of this worker's own, held, destroyed while held: every call
 * on the reference is then ENODEV, its id and its name find nothing, and
 * the last put (from any context) frees it.
 */
void do_kapi_stale(struct worker *w)
{
	enum op op = OP_kapi_stale;
	char name[KBLOOM_NAME_MAX], arg[16];
	struct kf_range res;
	bool destroyed = false, by_id;
	uint32_t id;
	long long got;
	int e, i;

	snprintf(name, sizeof(name), "fzk-%d", w->id);
	e = st_create_type(w->ctl, name, st_below(&w->rng, 2), 1 << 14, 5, 7);
	if (outcome(w, op, e, ALLOW(0), "create own"))
		return;
	id = kf_sysfs_id(w, op, name);
	if (!id) {
		if (!w->fault)
			record_fail(w, F_RESULT, "worker %d %s: no sysfs id for %s",
				    w->id, op_names[op], name);
		goto destroy;
	}
	snprintf(arg, sizeof(arg), "%u", id);
	kf_lock(w);
	/* Room for it, and for the refused holds to be refused by ENOENT. */
	while (kf->nrefs > KF_REFS - 2)
		if (kf_cmd(w, op, ALLOW(0), "put"))
			goto unlock;
		else
			kf->nrefs--;
	by_id = st_one_in(&w->rng, 2);
	if (!kf_hold(w, op, by_id ? arg : name, by_id, ALLOW(0), KF_OWN, id))
		goto unlock;
	kf_range(w, op, 3, ST_KAPI_PROCESS, 0, 64, 0, &res);
	e = st_destroy(w->ctl, name);
	if (outcome(w, op, e, ALLOW(0), "destroy own while held")) {
		kf_put(w, op, 0);
		goto unlock;
	}
	destroyed = true;
	kf_mark_dead(id);
	w->st->kern.dead_held++;
	for (i = 0; i < 2; i++)
		kf_range(w, op, st_below(&w->rng, 4),
			 st_below(&w->rng, ST_KAPI_NR_CTX), st_below(&w->rng, 100000),
			 1 + st_below(&w->rng, 300), 0, &res);
	if (st_one_in(&w->rng, 2)) {
		uint32_t len = st_below(&w->rng, KBLOOM_KEY_MAX + 2);

		if (!kf_cmd(w, op, ALLOW(0), "badkey %u", len))
			kf_judge_bad(w, op, kf_top(), len && len <= KBLOOM_KEY_MAX);
	}
	kf_hold(w, op, arg, true, ALLOW(ENOENT), KF_POOL, id);
	kf_hold(w, op, name, false, ALLOW(ENOENT), KF_POOL, 0);
	if (!kf_cmd(w, op, ALLOW(0), "id") &&
	    (!kf_num("id", &got) || got != id))
		kf_bad_answer(w, op);
	kf_put(w, op, st_below(&w->rng, 3));
	if (w->kern.nstale < 8)
		w->kern.stale[w->kern.nstale++] = id;
	else
		w->kern.stale[st_below(&w->rng, 8)] = id;
unlock:
	kf_unlock(w);
destroy:
	if (!destroyed) {
		/* Whatever failed, the filter goes, and references to it die. */
		fz_fault_pause(w, true);
		st_destroy(w->ctl, name);
		fz_fault_pause(w, false);
		if (id) {
			kf_lock(w);
			kf_mark_dead(id);
			kf_unlock(w);
		}
	}
}

/* Its good keys "k<worker>-<i>" of [first, first + n) by CHECK: all there. */
static void kf_good_verify(struct worker *w, enum op op, uint64_t first,
			   uint32_t n)
{
	struct st_keys k = { w->keybuf, w->lens, 0, 0 };
	uint32_t hits = 0;
	char tag[16];
	int e;

	if (!n)
		return;
	kf_good_tag(tag, sizeof(tag), 'k', w->id);
	st_keys_fill(&k, tag, first, n);
	e = st_batch(w->good_fd, KBLOOM_IOC_CHECK, &k, NULL, &hits);
	if (outcome(w, op, e, ALLOW(0), "check keys added by the companion"))
		return;
	w->st->good_checked += n;
	if (hits != n)
		record_fail(w, F_FALSE_NEG, "worker %d after %s: CHECK found %u of %u keys the companion added, from %s-%llu",
			    w->id, op_names[op], hits, n, tag,
			    (unsigned long long)first);
}

/*
 * A check of keys [first, first + n) of prefix tag through the companion
 * on its good filter (the newest reference): all must be found.
 */
static void kf_good_check(struct worker *w, enum op op, const char *tag,
			  uint64_t first, uint32_t n, int ctx)
{
	struct kf_range res;

	if (!n || kf_prefix(w, op, tag) ||
	    kf_range(w, op, st_one_in(&w->rng, 2) ? 0 : 2, ctx, first, n, 0,
		     &res))
		return;
	w->st->kern.good_checked += res.keys;
	if (res.yes != res.keys)
		record_fail(w, F_FALSE_NEG, "worker %d %s: companion '%s' found %lld of %lld good keys",
			    w->id, op_names[op], kf_last, res.yes, res.keys);
}

/*
 * The good filter through the companion: keys added in process, rcu,
 * spinlock or softirq context are then found by the companion and by
 * CHECK; those refused with interrupts off or in a hard interrupt
 * change nothing (the range says so key by key); the keys added by ioctl
 * are found by the companion too.
 */
void do_good_kapi(struct worker *w)
{
	enum op op = OP_good_kapi;
	uint64_t first = 0, added = w->kern.kapi_added;
	uint32_t n = 1 + st_below(&w->rng, 256), m = 0;
	int cmd = st_one_in(&w->rng, 2) ? 1 : 3;
	uint32_t id = kf->good_id[w->id];
	bool by_id = st_one_in(&w->rng, 2);
	struct kf_range res;
	char tag[16], arg[16];

	kf_lock(w);
	if (kf->nrefs == KF_REFS)
		kf_put(w, op, 0);
	snprintf(arg, sizeof(arg), "%u", id);
	if (kf->nrefs == KF_REFS ||
	    !kf_hold(w, op, by_id ? arg : w->good_name, by_id, ALLOW(0),
		     KF_GOOD, id))
		goto unlock;
	kf_good_tag(tag, sizeof(tag), 'k', w->id);
	if (kf_prefix(w, op, tag))
		goto put;
	if (added + n <= KF_GOOD_MAX) {
		if (!kf_range(w, op, cmd, st_below(&w->rng, ST_KAPI_IRQOFF), added, n,
			      cmd == 3 && st_one_in(&w->rng, 2) ?
			      1 + st_below(&w->rng, n) : 0, &res) &&
		    !res.errors) {
			w->kern.kapi_added += n;
			w->st->kern.good_added += n;
		}
		/* The next keys, refused: judged by kf_range(). */
		if (st_one_in(&w->rng, 4))
			kf_range(w, op, cmd, ST_KAPI_IRQOFF + st_below(&w->rng, 2),
				 w->kern.kapi_added, n, 0, &res);
	}
	added = w->kern.kapi_added;
	if (added) {
		first = st_below(&w->rng, added);
		m = added - first > 256 ? 256 : added - first;
		kf_good_check(w, op, tag, first, m,
			      st_below(&w->rng, ST_KAPI_NR_CTX));
	}
	if (w->good_added > w->good_deleted) {
		uint64_t g = w->good_deleted +
			     st_below(&w->rng, w->good_added - w->good_deleted);

		kf_good_tag(tag, sizeof(tag), 'g', w->id);
		kf_good_check(w, op, tag, g,
			      w->good_added - g > 256 ? 256 : w->good_added - g,
			      st_below(&w->rng, ST_KAPI_NR_CTX));
	}
put:
	kf_put(w, op, st_below(&w->rng, 3));
unlock:
	kf_unlock(w);
	kf_good_verify(w, op, first, m);
}

/* ---- the worker's side ---- */

/* Before fault injection: the companion's files, a BPF object. */
void fz_kernel_setup(struct worker *w)
{
	memset(&w->kern, 0, sizeof(w->kern));
	w->kern.cmd_fd = -1;
	w->kern.res_fd = -1;
	w->kern.lock_fd = -1;
	if (kf_kapi) {
		/* Its own open file: an flock of a shared one locks nothing. */
		w->kern.lock_fd = open(KF_LOCK_FILE, O_RDWR | O_CLOEXEC);
		if (st_kapi_open(&w->kern.cmd_fd, &w->kern.res_fd) ||
		    w->kern.lock_fd < 0)
			record_fail(w, F_USABLE, "worker %d: open the companion's parameters or %s: %s",
				    w->id, KF_LOCK_FILE, st_errname(errno));
	}
	kf_bpf_setup(w);
}

/*
 * With fault injection off: every good key added through the companion
 * and through BPF, by CHECK, by the companion and by a program.
 */
void fz_kernel_final(struct worker *w)
{
	uint64_t first, added = w->kern.kapi_added;
	char tag[16];

	for (first = 0; first < added; first += 4096)
		kf_good_verify(w, OP_final, first,
			       added - first > 4096 ? 4096 : added - first);
	if (kf_kapi && w->kern.cmd_fd >= 0) {
		kf_lock(w);
		if (kf->nrefs == KF_REFS)
			kf_put(w, OP_final, 0);
		kf_good_tag(tag, sizeof(tag), 'k', w->id);
		if (kf_hold(w, OP_final, w->good_name, false, ALLOW(0), KF_GOOD,
			    kf->good_id[w->id])) {
			if (added)
				kf_good_check(w, OP_final, tag, 0, added,
					      ST_KAPI_PROCESS);
			kf_put(w, OP_final, 0);
		}
		kf_unlock(w);
	}
	kf_bpf_final(w);
}

/* ---- the parent ---- */

static int kf_parent_cmd(const char *cmd)
{
	int cmd_fd, res_fd, e = st_kapi_open(&cmd_fd, &res_fd) ?:
		st_kapi_cmd(cmd_fd, res_fd, kf_res, sizeof(kf_res), "%s", cmd);

	if (cmd_fd >= 0)
		close(cmd_fd);
	if (res_fd >= 0)
		close(res_fd);
	return e;
}

/* Set when what the run should have could not be set up (said so). */
static bool kf_kapi_failed;

/*
 * Loads the companion from ko unless it is loaded already, and a BPF
 * object once to see that it loads; what the run lacks gets weight 0
 * (said by fz_kernel_finish()).  After the good filters exist.
 */
void fz_kernel_init(const char *suite, const char *ko, int nprocs,
		    unsigned int *weights)
{
	static char why[256];
	int fd, e, p, op;
	uint64_t t0 = 0;

	kf = st_shared(sizeof(*kf));
	e = *ko || !access(ST_KAPI_PARAMS "/cmd", W_OK) ?
	    st_kapi_load(ko, &kf->loaded_here) : ENOENT;
	if (!e) {
		kf_kapi = true;
	} else if (!*ko) {
		kf_kapi_why = "no companion module (-K \"\")";
	} else if (e == ENOENT) {
		snprintf(why, sizeof(why), "no %s: make module builds it beside kbloom.ko",
			 ko);
		kf_kapi_why = why;
	} else {
		printf("FAIL: %s/kernel-api: load %s: %s\n", suite, ko,
		       st_errname(e));
		kf_kapi_failed = true;
		kf_kapi_why = "the companion did not load";
	}
	if (kf_kapi) {
		/* A known state: whatever an earlier run left goes. */
		kf_parent_cmd("churn-stop");
		kf_parent_cmd("release");
		kf_parent_cmd("prefix");
		fd = open(KF_LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0) {
			printf("FAIL: %s/kernel-api: create %s: %s\n", suite,
			       KF_LOCK_FILE, st_errname(errno));
			kf_kapi_failed = true;
			kf_kapi = false;
		}
		close(fd);
	}
	for (p = 0; p < nprocs; p++) {
		char name[KBLOOM_NAME_MAX];

		snprintf(name, sizeof(name), "fzgood-%d", p);
		kf->good_id[p] = st_filter_id(name, NULL);
	}
	t0 = kf_bpf_init(suite);
	for (op = FZ_KAPI_FIRST; op <= FZ_KERNEL_LAST; op++)
		if (op < FZ_BPF_FIRST ? !kf_kapi : !kf_bpf)
			weights[op] = 0;
	printf("%s: in-kernel API %s%s%s, BPF kfuncs %s%s", suite,
	       kf_kapi ? "through " ST_KAPI_MODULE : "skipped: ", kf_kapi_why,
	       kf->loaded_here ? " (loaded for this run)" : "",
	       kf_bpf ? "through bpf/test.bpf.o" : "skipped: ",
	       kf_bpf ? "" : kf_bpf_why);
	if (kf_bpf)
		printf(" (its programs load in %llu ms)",
		       (unsigned long long)t0);
	printf("\n");
}

static struct fz_kernel_stats kf_sum(const struct wstats *stats, int nprocs)
{
	struct fz_kernel_stats s = { 0 };
	uint64_t *to = (uint64_t *)&s;
	size_t i, n = sizeof(s) / sizeof(uint64_t);
	int p;

	for (p = 0; p < nprocs; p++)
		for (i = 0; i < n; i++)
			to[i] += ((const uint64_t *)&stats[p].kern)[i];
	return s;
}

/* What struct fz_kernel_stats counts, field by field: the API's first. */
static const char *const kf_stat_names[] = {
	"commands", "commands that failed for want of memory in the companion",
	"keys in ranges", "references taken", "filters destroyed while held",
	"ranges that met ENODEV", "ranges of adds refused (EDEADLK)",
	"good keys added", "good keys checked through it", "churn rounds",
	"test_runs", "NULL acquires", "calls that met ENODEV", "loads",
	"good keys added", "good keys checked by CHECK",
};
#define KF_BPF_STATS	10	/* the first of the kfuncs' */

void fz_kernel_print(const struct wstats *stats, int nprocs)
{
	struct fz_kernel_stats s = kf_sum(stats, nprocs);
	const uint64_t *v = (const uint64_t *)&s;
	size_t i;

	_Static_assert(sizeof(kf_stat_names) / sizeof(*kf_stat_names) ==
		       sizeof(s) / sizeof(uint64_t), "a name for each count");
	for (i = 0; i < sizeof(s) / sizeof(uint64_t); i++) {
		if (!(i < KF_BPF_STATS ? kf_kapi : kf_bpf))
			continue;
		if (!i || i == KF_BPF_STATS)
			printf("%s:", i ? "BPF kfuncs" : "in-kernel API");
		printf(" %llu %s%s", (unsigned long long)v[i], kf_stat_names[i],
		       i == KF_BPF_STATS - 1 || i == sizeof(s) / sizeof(uint64_t) - 1 ? "\n" : ",");
	}
}

/* One verdict line: PASS with what was done, else FAIL with why. */
static int kf_verdict(const char *suite, const char *name, const char *why,
		      const char *detail)
{
	printf("%s: %s/%s%s%s%s%s\n", why ? "FAIL" : "PASS", suite, name,
	       why ? ": " : " (", why ? why : detail, why ? ": " : ")",
	       why ? detail : "");
	return !!why;
}

/*
 * After the workers: the churn stopped (only lost keys unexpected), the
 * references released, the companion unloaded if this run loaded it;
 * one line each for the API and the kfuncs.  Returns the failures.
 */
int fz_kernel_finish(const char *suite, const struct wstats *stats,
		     int nprocs)
{
	struct fz_kernel_stats s = kf_sum(stats, nprocs);
	int failed = kf_kapi_failed + kf_bpf_failed;
	long long bad = 0, lost = 0;
	const char *why = NULL;
	char detail[128] = "";
	int e;

	if (kf_kapi) {
		if (kf->churning && (kf_parent_cmd("churn-stop") ||
				     !kf_num("bad", &bad) ||
				     !kf_num("lost", &lost) || bad != lost))
			why = "the churn's calls gave unexpected answers";
		else if (kf_parent_cmd("release") ||
			 strcmp(kf_res, "ret=0 refs=0"))
			why = "release failed";
		snprintf(detail, sizeof(detail), "answer '%.100s'", kf_res);
		/* Gone even so: kbloom must unload after the run. */
		e = kf->loaded_here ? st_kapi_unload() : 0;
		if (e && !why) {
			why = "rmmod " ST_KAPI_MODULE " failed after the run";
			snprintf(detail, sizeof(detail), "%s", st_errname(e));
		}
		if (!why && (!s.holds || !s.keys || !s.good_added))
			why = "no reference taken, no key done or no good key added";
		if (!why || !strncmp(why, "no ", 3))
			snprintf(detail, sizeof(detail),
				 "%llu commands, %llu references, %llu keys, %llu good keys added",
				 (unsigned long long)s.cmds,
				 (unsigned long long)s.holds,
				 (unsigned long long)s.keys,
				 (unsigned long long)s.good_added);
		failed += kf_verdict(suite, "kernel-api", why, detail);
	} else if (!kf_kapi_failed) {
		printf("SKIP: %s/kernel-api: %s\n", suite, kf_kapi_why);
	}
	if (kf_bpf) {
		snprintf(detail, sizeof(detail),
			 "%llu test_runs, %llu good keys added",
			 (unsigned long long)s.bpf_runs,
			 (unsigned long long)s.bpf_good_added);
		failed += kf_verdict(suite, "bpf", !s.bpf_runs ||
				     !s.bpf_good_added ? "too little done" :
				     NULL, detail);
	} else if (!kf_bpf_failed && !kf_bpf_off) {
		printf("SKIP: %s/bpf: %s\n", suite, kf_bpf_why);
	}
	return failed;
}
