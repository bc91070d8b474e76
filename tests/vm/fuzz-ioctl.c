// SPDX-License-Identifier: GPL-2.0
/*
 * A multi-process fuzzer of kbloom's whole user interface: several forked
 * workers issue random and mutated ioctls, reads, writes, seeks, mmaps and
 * sysfs reads on the control node and on filter nodes, create and destroy
 * filters under each other's feet, open and close nodes, and try to unload
 * the module while they hold it.
 *
 * It is an oracle, not just a load: every call's errno must be one the ABI
 * allows for what was passed (EFAULT only for a bad pointer, EINVAL only
 * for a bad field, exactly the documented image errnos, ...).  Each worker
 * also owns a "good" filter that nobody else can reach; every key it added
 * must be found again at any time (no false negatives), through merges,
 * image restores and rejected images.  A call that does not return within
 * the hang limit is a failure.  With -F the workers run under the kernel's
 * fault injection (the caller sets up failslab / fail_page_alloc with
 * task-filter); ENOMEM is then allowed everywhere, and at the end each
 * worker, with injection off, checks that its filters still work.
 *
 * The mapping operations (mmap, partial munmap, mprotect, mremap, reads
 * of mapped pages, checks of the good filter's keys through its mapping)
 * are in fuzz/mmap.c; the in-kernel API's (through the companion module,
 * which the fuzzer loads from KO and unloads at the end) and the BPF
 * kfuncs' (programs run with BPF_PROG_TEST_RUN, when kbloom has BTF) in
 * fuzz/kernel.c.
 *
 * Usage: fuzz-ioctl [-s SEED] [-p PROCS] [-n OPS] [-t SECONDS] [-m MIN_OPS]
 *                   [-H HANG_SECONDS] [-F] [-N SUITE] [-K KO]
 * OPS is per process; the run also stops after SECONDS.  Everything a worker
 * does follows from SEED and its index, so a failure can be replayed.  KO
 * is the companion module, /kmod/kbloom_kapi_test.ko by default ("" for
 * none: its operations are then skipped, and said so).
 * Prints per-operation counts with the errnos seen, then PASS:/FAIL: lines.
 */
#include <dirent.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "fuzz-ioctl.h"

#define MAX_PROCS	16

const char *const op_names[NR_SLOTS] = { OPS(OP_NAME) "final" };
/* fz_kernel_init() sets those of the operations the kernel lacks to 0. */
static unsigned int op_weights[NR_OPS] = { OPS(OP_WEIGHT) };
const char *const fail_names[NR_FAIL_KINDS] = {
	"errno-classes", "no-false-negatives", "results", "unload-refused",
	"usable-after", "no-hang", "mapped-reads",
};

static struct wstats *stats;
static int nprocs = 4;

void record_fail(struct worker *w, enum fail_kind kind, const char *fmt, ...)
{
	va_list ap;

	if (!w->st->fails[kind]++) {
		va_start(ap, fmt);
		vsnprintf(w->st->fail_msg[kind], sizeof(w->st->fail_msg[kind]),
			  fmt, ap);
		va_end(ap);
	}
}

static int errslot(int e)
{
	return e >= 0 && e < NR_ERRNO ? e : NR_ERRNO;
}

/*
 * Counts the outcome e of one call of op and checks it against allowed;
 * under fault injection ENOMEM is always allowed.  Returns e.
 */
int outcome(struct worker *w, enum op op, int e, errset allowed,
	    const char *what)
{
	w->st->syscalls++;
	w->st->errs[op][errslot(e)]++;
	if (e >= 0 && e < 128 && (allowed >> e & 1))
		return e;
	if (w->fault && e == ENOMEM)
		return e;
	record_fail(w, F_ERRNO, "worker %d %s: %s gave %s", w->id,
		    op_names[op], what, st_errname(e));
	return e;
}

int sys_err(long ret)
{
	return ret < 0 ? errno : 0;
}

/* ---- pointers ---- */

/*
 * A pointer through which no copy of size bytes can succeed: NULL, a
 * PROT_NONE page, kernel memory, past the end of user space, read-only
 * memory for an output, or (straddle) a range that starts readable and
 * runs into a guard page within the first copy the kernel makes.
 */
static void *bad_ptr_kind(struct worker *w, size_t size, bool output,
			  bool straddle)
{
	size_t readable = size / 2 < PAGE / 2 ? size / 2 : PAGE / 2;

	switch (st_below(&w->rng, 6)) {
	case 0:
		return NULL;
	case 1:
		return w->noaccess;
	case 2:
		return (void *)0xffff888000000000ULL;
	case 3:
		return (void *)0x0000800000000000ULL;
	case 4:
		if (straddle)
			return w->guard - readable;
		return w->noaccess;
	default:
		return output ? w->rdonly : w->noaccess;
	}
}

static void *bad_ptr(struct worker *w, size_t size, bool output)
{
	return bad_ptr_kind(w, size, output, true);
}

/* ---- names and requests ---- */

void pool_name(char *name, int slot)
{
	memset(name, 0, KBLOOM_NAME_MAX);
	if (slot == SHARED_SLOT)
		strcpy(name, "fz-shared");
	else
		snprintf(name, KBLOOM_NAME_MAX, "fz-%d", slot);
}

static void bad_name(struct worker *w, char *name)
{
	static const char *const bad[] = {
		"", ".", "..", "a/b", "a b", "fz\n", "\xc3\xa9t\xc3\xa9",
		"semi;colon", "*", "tab\t",
	};

	memset(name, 0, KBLOOM_NAME_MAX);
	switch (st_below(&w->rng, 4)) {
	case 0:
		strcpy(name, bad[st_below(&w->rng, sizeof(bad) / sizeof(*bad))]);
		break;
	case 1:
		/* No terminating NUL. */
		memset(name, 'a' + st_below(&w->rng, 26), KBLOOM_NAME_MAX);
		break;
	case 2:
		/* Garbage after the terminator. */
		strcpy(name, "fz-1");
		name[5 + st_below(&w->rng, KBLOOM_NAME_MAX - 5)] = 'x';
		break;
	default:
		/* Random bytes with at least one outside the alphabet. */
		st_fill(&w->rng, name, KBLOOM_NAME_MAX - 1);
		name[st_below(&w->rng, 8)] = '/';
		if (!name[0])
			name[0] = '?';
		break;
	}
}

static void valid_create(struct worker *w, struct kbloom_create *req)
{
	static const uint32_t rates[] = {
		1000, 100000, 1000000, 10000000, 50000000, 300000000,
	};
	static const uint32_t modes[] = { 0, 0600, 0644, 0666, 0400 };

	memset(req, 0, sizeof(*req));
	pool_name(req->name, st_below(&w->rng, POOL));
	req->node_mode = modes[st_below(&w->rng, 5)];
	switch (st_below(&w->rng, 10)) {
	case 0: case 1: case 2: case 3:
		req->bits = TEMPLATE_BITS;
		req->k = TEMPLATE_K;
		req->seed = TEMPLATE_SEED;
		req->flags = KBLOOM_CREATE_SEED;
		if (st_one_in(&w->rng, 5))
			req->type = KBLOOM_TYPE_COUNTING;
		return;
	case 4: case 5:
		req->capacity = 1 + st_below(&w->rng, 20000);
		req->fp_ppb = rates[st_below(&w->rng, 6)];
		break;
	case 6: case 7:
		req->bits = 1 + st_below(&w->rng, 1 << 20);
		req->k = st_below(&w->rng, KBLOOM_K_MAX + 1);
		if (st_one_in(&w->rng, 2))
			req->capacity = st_below(&w->rng, 20000);
		break;
	default:
		req->capacity = 1 + st_below(&w->rng, 20000);
		req->bits_per_key = 1 + st_below(&w->rng, 64);
		req->k = st_below(&w->rng, KBLOOM_K_MAX + 1);
		break;
	}
	if (st_one_in(&w->rng, 2)) {
		req->flags = KBLOOM_CREATE_SEED;
		req->seed = st_below(&w->rng, 3);
	}
	if (st_one_in(&w->rng, 4))
		req->type = KBLOOM_TYPE_COUNTING;
}

/* Breaks one thing in a valid request; returns the errno it must get. */
static int mutate_create(struct worker *w, struct kbloom_create *req)
{
	switch (st_below(&w->rng, 14)) {
	case 0:
		bad_name(w, req->name);
		return EINVAL;
	case 1:
		req->flags |= 2U << st_below(&w->rng, 31);
		return EINVAL;
	case 2:
		req->reserved[st_below(&w->rng, 4)] = 1 + st_next(&w->rng) % 1000;
		return EINVAL;
	case 3:
		req->type = KBLOOM_TYPE_COUNTING + 1 + st_below(&w->rng, 1000);
		return EINVAL;
	case 4:
		req->node_mode |= 01000U << st_below(&w->rng, 20);
		return EINVAL;
	case 5:
		req->fp_ppb = 0;
		req->bits = 0;
		req->bits_per_key = 0;
		return EINVAL;
	case 6:
		req->fp_ppb = 10000000;
		req->bits = 4096;
		req->capacity = 100;
		return EINVAL;
	case 7:
		req->k = KBLOOM_K_MAX + 1 + st_below(&w->rng, 1000);
		return EINVAL;
	case 8:
		req->bits = 0;
		req->bits_per_key = 0;
		req->k = 0;
		req->capacity = 1000;
		req->fp_ppb = KBLOOM_PPB + st_below(&w->rng, 1000);
		return EINVAL;
	case 9:
		req->bits = 0;
		req->bits_per_key = 0;
		req->k = 0;
		req->capacity = 0;
		req->fp_ppb = 10000000;
		return EINVAL;
	case 10:
		req->fp_ppb = 0;
		req->bits = 0;
		req->capacity = 100;
		req->bits_per_key = MAX_BITS_PER_KEY + 1 +
				    st_below(&w->rng, 1000);
		return EINVAL;
	case 11:
		req->flags = 0;
		req->seed = 1 + st_below(&w->rng, 1000);
		return EINVAL;
	case 12:
		/* 2^33 blocks: over the core's limit. */
		req->fp_ppb = 0;
		req->bits_per_key = 0;
		req->k = 0;
		req->bits = 1ULL << (42 + st_below(&w->rng, 20));
		return E2BIG;
	default:
		/* 2 GiB: over the default per-filter cap of 1 GiB. */
		req->fp_ppb = 0;
		req->bits_per_key = 0;
		req->k = 7;
		req->bits = 1ULL << 34;
		return E2BIG;
	}
}

/* ---- pool files ---- */

struct pool_fd *pick_fd(struct worker *w)
{
	return w->nfds ? &w->fds[st_below(&w->rng, w->nfds)] : NULL;
}

static void drop_fd(struct worker *w, struct pool_fd *p)
{
	int e = sys_err(close(p->fd));

	/* A partly written image is reported as truncated at close. */
	outcome(w, OP_close, e, ALLOW(0, ENODATA), "close");
	*p = w->fds[--w->nfds];
}

bool can_read(const struct pool_fd *p)
{
	return p->acc != O_WRONLY;
}

bool can_write(const struct pool_fd *p)
{
	return p->acc != O_RDONLY;
}

/* ---- keys ---- */

/* Random keys: mostly small batches of short keys, sometimes huge. */
void random_keys(struct worker *w, struct st_keys *k)
{
	uint32_t n, i, maxlen = 32;
	uint64_t r = st_below(&w->rng, 100);

	k->bytes = w->keybuf;
	k->lens = w->lens;
	if (r < 90) {
		n = 1 + st_below(&w->rng, 64);
	} else if (r < 99) {
		n = 1 + st_below(&w->rng, 2048);
	} else {
		n = 1 + st_below(&w->rng, MAX_KEYS);
		maxlen = 16;
	}
	k->count = n;
	k->keys_len = 0;
	for (i = 0; i < n; i++) {
		uint32_t len = 1 + st_below(&w->rng, maxlen);

		if (n < 8 && st_one_in(&w->rng, 20))
			len = KBLOOM_KEY_MAX;
		k->lens[i] = len;
		k->keys_len += len;
	}
	st_fill(&w->rng, k->bytes, k->keys_len);
}

static void batch_of(struct kbloom_batch *b, const struct st_keys *k,
		     uint64_t *results)
{
	memset(b, 0, sizeof(*b));
	b->keys = (uintptr_t)k->bytes;
	b->lens = (uintptr_t)k->lens;
	b->keys_len = k->keys_len;
	b->count = k->count;
	b->results = (uintptr_t)results;
}

/* results must hold exactly hits set bits, none past count. */
static void check_results(struct worker *w, enum op op, const uint64_t *res,
			  uint32_t count, uint32_t hits)
{
	uint64_t words = (count + 63) / 64, i, set = 0;

	for (i = 0; i < words; i++)
		set += __builtin_popcountll(res[i]);
	if (set != hits)
		record_fail(w, F_RESULT, "worker %d %s: %llu result bits, hits %u",
			    w->id, op_names[op], (unsigned long long)set, hits);
	if (count % 64 && res[words - 1] >> (count % 64))
		record_fail(w, F_RESULT, "worker %d %s: result bits past count %u",
			    w->id, op_names[op], count);
	if (hits > count)
		record_fail(w, F_RESULT, "worker %d %s: hits %u of %u keys",
			    w->id, op_names[op], hits, count);
}

/* ---- images ---- */

/*
 * Reads a whole image from fd in random chunks into w->iobuf.  Returns 0
 * with *len set, or the first errno (op decides which are allowed).
 */
static int read_image(struct worker *w, enum op op, int fd, errset allowed,
		      size_t *len)
{
	size_t have = 0;
	ssize_t n;
	int e;

	/* A destroyed filter refuses the seek as it refuses the stream. */
	e = sys_err(lseek(fd, 0, SEEK_SET));
	if (outcome(w, op, e, ALLOW(0) | (allowed & ALLOW(ENODEV)), "lseek 0"))
		return e;
	for (;;) {
		size_t chunk = st_one_in(&w->rng, 2) ?
			       1 + st_below(&w->rng, 100) :
			       1 + st_below(&w->rng, 70000);

		if (chunk > IMAGE_CAP + 1 - have)
			chunk = IMAGE_CAP + 1 - have;
		if (!chunk)
			return E2BIG;	/* too big to keep; not an error */
		n = read(fd, w->iobuf + have, chunk);
		e = sys_err(n);
		if (outcome(w, op, e, allowed, "read image"))
			return e;
		if (!n)
			break;
		have += n;
	}
	*len = have;
	return 0;
}

/* A complete image read from a filter must be well formed. */
static bool image_sane(struct worker *w, enum op op, const uint8_t *img,
		       size_t len)
{
	const struct kbloom_image_header *h = (const void *)img;
	uint32_t crc;

	if (len < sizeof(*h) + 4 || h->magic != KBLOOM_IMAGE_MAGIC ||
	    len != st_image_bytes(h->nblocks)) {
		record_fail(w, F_RESULT, "worker %d %s: image of %zu bytes malformed",
			    w->id, op_names[op], len);
		return false;
	}
	memcpy(&crc, img + len - 4, 4);
	if (crc != st_crc32c(img, len - 4)) {
		record_fail(w, F_RESULT, "worker %d %s: image CRC wrong",
			    w->id, op_names[op]);
		return false;
	}
	return true;
}

static void keep_image(struct worker *w, const uint8_t *img, size_t len)
{
	int i = w->nimg < MAX_IMAGES ? w->nimg++ :
					(int)st_below(&w->rng, MAX_IMAGES);

	memcpy(w->img[i], img, len);
	w->img_len[i] = len;
}

/*
 * Writes len bytes of buf to fd from offset 0 in random chunks.  Returns 0
 * or the first errno.
 */
static int write_image(struct worker *w, enum op op, int fd,
		       const uint8_t *buf, size_t len, errset allowed)
{
	size_t done = 0;
	ssize_t n;
	int e;

	/* A destroyed filter refuses the seek as it refuses the stream. */
	e = sys_err(lseek(fd, 0, SEEK_SET));
	if (outcome(w, op, e, ALLOW(0) | (allowed & ALLOW(ENODEV)), "lseek 0"))
		return e;
	while (done < len) {
		size_t chunk = st_one_in(&w->rng, 3) ?
			       1 + st_below(&w->rng, 200) : len - done;

		if (chunk > len - done)
			chunk = len - done;
		n = write(fd, buf + done, chunk);
		e = sys_err(n);
		if (outcome(w, op, e, allowed, "write image"))
			return e;
		if (n == 0 || (size_t)n > chunk) {
			record_fail(w, F_RESULT, "worker %d %s: write returned %zd of %zu",
				    w->id, op_names[op], n, chunk);
			return EIO;
		}
		done += n;
	}
	return 0;
}

/* ---- the good filter ---- */

/*
 * Checks good keys [first, first + n) with one CHECK; every one must be
 * there.
 */
static void good_verify(struct worker *w, enum op op, uint64_t first,
			uint32_t n)
{
	struct st_keys k = { w->keybuf, w->lens, 0, 0 };
	char tag[16];
	uint32_t hits = 0, i;
	int e;

	if (!n)
		return;
	snprintf(tag, sizeof(tag), "g%d", w->id);
	st_keys_fill(&k, tag, first, n);
	e = st_batch(w->good_fd, KBLOOM_IOC_CHECK, &k, w->results, &hits);
	if (outcome(w, op, e, ALLOW(0), "check good keys"))
		return;
	w->st->good_checked += n;
	if (hits == n)
		return;
	for (i = 0; i < n; i++)
		if (!(w->results[i / 64] >> (i % 64) & 1))
			break;
	record_fail(w, F_FALSE_NEG, "worker %d after %s: %u of %u good keys missing, first %s-%llu",
		    w->id, op_names[op], n - hits, n, tag,
		    (unsigned long long)(first + i));
}

static void good_verify_window(struct worker *w, enum op op)
{
	uint64_t first, n;

	if (w->good_added == w->good_deleted)
		return;
	first = w->good_deleted +
		st_below(&w->rng, w->good_added - w->good_deleted);
	n = w->good_added - first;
	good_verify(w, op, first, n > 256 ? 256 : n);
}

static void good_verify_all(struct worker *w, enum op op)
{
	uint64_t first;

	for (first = w->good_deleted; first < w->good_added; first += 4096) {
		uint64_t n = w->good_added - first;

		good_verify(w, op, first, n > 4096 ? 4096 : n);
	}
}

static void do_good_add(struct worker *w)
{
	struct st_keys k = { w->keybuf, w->lens, 0, 0 };
	uint32_t n = 1 + st_below(&w->rng, 256), hits = 0;
	char tag[16];
	int e;

	if (w->good_added + n > GOOD_MAX_KEYS) {
		good_verify_window(w, OP_good_add);
		return;
	}
	snprintf(tag, sizeof(tag), "g%d", w->id);
	st_keys_fill(&k, tag, w->good_added, n);
	e = st_batch(w->good_fd, KBLOOM_IOC_ADD, &k, w->results, &hits);
	if (outcome(w, OP_good_add, e, ALLOW(0), "add good keys"))
		return;
	check_results(w, OP_good_add, w->results, n, hits);
	w->good_added += n;
	w->st->good_keys = w->good_added;
}

/*
 * Delete the oldest good keys, each added once and deleted once: a
 * counting filter must find every one (all removed), and must still find
 * every key not deleted.  A bits filter refuses with EOPNOTSUPP.
 */
static void do_good_delete(struct worker *w)
{
	struct st_keys k = { w->keybuf, w->lens, 0, 0 };
	uint32_t n = 1 + st_below(&w->rng, 64), hits = 0;
	char tag[16];
	int e;

	/* Keep a good number of keys in to check. */
	if (w->good_added - w->good_deleted < 1000 + n)
		return good_verify_window(w, OP_good_delete);
	snprintf(tag, sizeof(tag), "g%d", w->id);
	st_keys_fill(&k, tag, w->good_deleted, n);
	e = st_batch(w->good_fd, KBLOOM_IOC_DELETE, &k, w->results, &hits);
	if (GOOD_TYPE(w->id) == KBLOOM_TYPE_BITS) {
		outcome(w, OP_good_delete, e, ALLOW(EOPNOTSUPP),
			"delete on a bits filter");
		return;
	}
	if (outcome(w, OP_good_delete, e, ALLOW(0), "delete good keys"))
		return;
	check_results(w, OP_good_delete, w->results, n, hits);
	if (hits != n)
		record_fail(w, F_FALSE_NEG, "worker %d: delete found %u of %u added keys",
			    w->id, hits, n);
	w->good_deleted += n;
	good_verify_window(w, OP_good_delete);
}

/* Save the good filter and restore it unchanged: must load. */
static void do_good_restore(struct worker *w)
{
	size_t len;

	if (read_image(w, OP_good_restore, w->good_fd, ALLOW(0), &len))
		return;
	if (!image_sane(w, OP_good_restore, w->iobuf, len))
		return;
	if (!write_image(w, OP_good_restore, w->good_fd, w->iobuf, len,
			 ALLOW(0)))
		w->st->images_loaded++;
	good_verify_window(w, OP_good_restore);
}

/*
 * Damage the good filter's own image in one way and write it through a
 * second file: it must be refused with exactly the errno for that damage,
 * and the filter must not change.
 */
static void do_good_bad_image(struct worker *w)
{
	struct kbloom_image_header *h = (void *)w->iobuf;
	size_t len, bits_at = sizeof(*h);
	int fd, want, e, how;

	if (read_image(w, OP_good_bad_image, w->good_fd, ALLOW(0), &len) ||
	    !image_sane(w, OP_good_bad_image, w->iobuf, len))
		return;
	fd = st_open(w->good_name, O_RDWR);
	if (outcome(w, OP_good_bad_image, sys_err(fd), ALLOW(0), "open good"))
		return;
	how = st_below(&w->rng, 12);
	switch (how) {
	case 0:
		w->iobuf[bits_at + st_below(&w->rng, len - bits_at - 4)] ^=
			1 << st_below(&w->rng, 8);
		want = EBADMSG;
		break;
	case 1:
		w->iobuf[len - 1 - st_below(&w->rng, 4)] ^= 0x10;
		want = EBADMSG;
		break;
	case 2:
		h->magic ^= 1U << st_below(&w->rng, 32);
		want = ENOEXEC;
		break;
	case 3:
		h->version = 2 + st_below(&w->rng, 1000);
		want = EPROTO;
		break;
	case 4:
		h->flags = 1U << st_below(&w->rng, 32);
		want = EINVAL;
		break;
	case 5:
		h->reserved[st_below(&w->rng, 3)] = 1;
		want = EINVAL;
		break;
	case 6:
		h->header_bytes = st_below(&w->rng, sizeof(*h));
		want = EINVAL;
		break;
	case 7:
		h->k = KBLOOM_K_MAX + 1 + st_below(&w->rng, 100);
		want = EINVAL;
		break;
	case 8:
		h->seed ^= 1ULL << st_below(&w->rng, 64);
		want = EXDEV;
		break;
	case 9:
		h->nblocks += 1 + st_below(&w->rng, 100);
		want = EXDEV;
		break;
	case 10:
		w->iobuf[len] = 0;
		len++;
		want = EMSGSIZE;
		break;
	default:
		/* Truncated: every write succeeds, close says ENODATA. */
		len -= 1 + st_below(&w->rng, len - 1);
		want = 0;
		break;
	}
	e = write_image(w, OP_good_bad_image, fd, w->iobuf, len,
			ALLOW(0, ENOEXEC, EPROTO, EINVAL, EXDEV, EMSGSIZE,
			      EBADMSG));
	if (e == 0 && want == 0)
		want = ENODATA, e = sys_err(close(fd)), fd = -1;
	if (e != want && !(w->fault && e == ENOMEM))
		record_fail(w, F_ERRNO, "worker %d good_bad_image (damage %d): got %s, want %s",
			    w->id, how, st_errname(e), st_errname(want));
	else
		w->st->images_rejected++;
	if (fd >= 0)
		close(fd);
	good_verify_window(w, OP_good_bad_image);
}

/*
 * Union and intersection with ground truth: keys put in a side filter of
 * the good geometry must be in the good filter after merging the side in,
 * and must survive intersecting the side with the good filter.
 */
static void do_good_merge(struct worker *w)
{
	struct st_keys k = { w->keybuf, w->lens, 0, 0 };
	struct kbloom_other other;
	char side[KBLOOM_NAME_MAX], tag[16];
	uint32_t hits = 0;
	int fd, e;

	snprintf(side, sizeof(side), "fzside-%d", w->id);
	snprintf(tag, sizeof(tag), "s%d", w->id);
	st_destroy(w->ctl, side);	/* left by a killed earlier run */
	e = st_create_type(w->ctl, side, GOOD_TYPE(w->id), GOOD_BITS(w->id),
			   GOOD_K, GOOD_SEED + w->id);
	if (outcome(w, OP_good_merge, e, ALLOW(0), "create side"))
		return;
	fd = st_open(side, O_RDWR);
	if (outcome(w, OP_good_merge, sys_err(fd), ALLOW(0), "open side"))
		goto destroy;
	/*
	 * Nobody else touches this name, so its node can only lead to this
	 * filter, unless an earlier destroy left the node behind and its
	 * device number now belongs to another filter.
	 */
	{
		struct kbloom_info info;

		e = sys_err(ioctl(fd, KBLOOM_IOC_GET_INFO, &info));
		if (outcome(w, OP_good_merge, e, ALLOW(0), "get_info side"))
			goto close;
		if (strcmp(info.name, side)) {
			record_fail(w, F_RESULT, "worker %d: /dev/kbloom/%s opened filter %.32s (a node left by an earlier destroy?)",
				    w->id, side, info.name);
			goto close;
		}
	}
	st_keys_fill(&k, tag, w->st->ops[OP_good_merge] * 16, 16);
	e = st_batch(fd, KBLOOM_IOC_ADD, &k, NULL, NULL);
	if (outcome(w, OP_good_merge, e, ALLOW(0), "add side"))
		goto close;
	memset(&other, 0, sizeof(other));
	other.fd = fd;
	e = sys_err(ioctl(w->good_fd, KBLOOM_IOC_MERGE, &other));
	if (outcome(w, OP_good_merge, e, ALLOW(0), "merge side into good"))
		goto close;
	e = st_batch(w->good_fd, KBLOOM_IOC_CHECK, &k, NULL, &hits);
	if (!outcome(w, OP_good_merge, e, ALLOW(0), "check merged") &&
	    hits != k.count)
		record_fail(w, F_FALSE_NEG, "worker %d: %u of 16 merged keys missing",
			    w->id, k.count - hits);
	other.fd = w->good_fd;
	e = sys_err(ioctl(fd, KBLOOM_IOC_INTERSECT, &other));
	if (outcome(w, OP_good_merge, e, ALLOW(0), "intersect side"))
		goto close;
	e = st_batch(fd, KBLOOM_IOC_CHECK, &k, NULL, &hits);
	if (!outcome(w, OP_good_merge, e, ALLOW(0), "check intersected") &&
	    hits != k.count)
		record_fail(w, F_FALSE_NEG, "worker %d: %u of 16 keys lost by intersect",
			    w->id, k.count - hits);
close:
	close(fd);
destroy:
	e = st_destroy(w->ctl, side);
	outcome(w, OP_good_merge, e, ALLOW(0), "destroy side");
	good_verify_window(w, OP_good_merge);
}

/* ---- control node ---- */

static void do_create(struct worker *w)
{
	struct kbloom_create req;

	valid_create(w, &req);
	outcome(w, OP_create, st_ctl(w->ctl, KBLOOM_CTL_CREATE, &req),
		ALLOW(0, EEXIST), "valid create");
}

static void do_create_bad(struct worker *w)
{
	struct kbloom_create req;
	int want, e;

	valid_create(w, &req);
	want = mutate_create(w, &req);
	e = st_ctl(w->ctl, KBLOOM_CTL_CREATE, &req);
	outcome(w, OP_create_bad, e, ALLOW(want), "mutated create");
	if (!e)	/* not reachable unless the check above failed */
		st_destroy(w->ctl, req.name);
}

static void do_create_badptr(struct worker *w)
{
	int e;

	if (st_one_in(&w->rng, 8)) {
		/* Read-only control file: creating is a write. */
		struct kbloom_create req;

		valid_create(w, &req);
		e = st_ctl(w->ctl_ro, KBLOOM_CTL_CREATE, &req);
		outcome(w, OP_create_badptr, e, ALLOW(EBADF), "create on O_RDONLY");
		return;
	}
	e = st_ctl(w->ctl, KBLOOM_CTL_CREATE,
		   bad_ptr(w, sizeof(struct kbloom_create), false));
	outcome(w, OP_create_badptr, e, ALLOW(EFAULT), "create bad pointer");
}

static void do_destroy(struct worker *w)
{
	char name[KBLOOM_NAME_MAX];

	pool_name(name, st_below(&w->rng, POOL));
	outcome(w, OP_destroy, st_destroy(w->ctl, name), ALLOW(0, ENOENT),
		"destroy");
}

static void do_destroy_bad(struct worker *w)
{
	struct kbloom_name req;
	int e;

	memset(&req, 0, sizeof(req));
	switch (st_below(&w->rng, 3)) {
	case 0:
		bad_name(w, req.name);
		e = st_ctl(w->ctl, KBLOOM_CTL_DESTROY, &req);
		outcome(w, OP_destroy_bad, e, ALLOW(EINVAL), "destroy bad name");
		break;
	case 1:
		pool_name(req.name, st_below(&w->rng, POOL));
		req.reserved[st_below(&w->rng, 2)] = 1 + st_below(&w->rng, 99);
		e = st_ctl(w->ctl, KBLOOM_CTL_DESTROY, &req);
		outcome(w, OP_destroy_bad, e, ALLOW(EINVAL), "destroy reserved");
		break;
	default:
		e = st_ctl(w->ctl, KBLOOM_CTL_DESTROY,
			   bad_ptr(w, sizeof(req), false));
		outcome(w, OP_destroy_bad, e, ALLOW(EFAULT), "destroy bad pointer");
		break;
	}
}

static bool is_kbloom_cmd(unsigned long cmd)
{
	return cmd == KBLOOM_CTL_CREATE || cmd == KBLOOM_CTL_DESTROY ||
	       cmd == KBLOOM_IOC_ADD || cmd == KBLOOM_IOC_CHECK ||
	       cmd == KBLOOM_IOC_DELETE ||
	       cmd == KBLOOM_IOC_CLEAR || cmd == KBLOOM_IOC_MERGE ||
	       cmd == KBLOOM_IOC_INTERSECT || cmd == KBLOOM_IOC_GET_INFO ||
	       cmd == KBLOOM_IOC_REPORT;
}

/*
 * An ioctl number no kbloom node knows: mostly near misses of real ones
 * (our magic, wrong number, size or direction).  Types the VFS handles
 * itself for every file are never used ('X' includes FIFREEZE, which would
 * freeze /dev).
 */
static unsigned long random_cmd(struct worker *w)
{
	static const char vfs_types[] = { 0, 'X', 'f', 'T', (char)0x94 };
	unsigned long cmd;
	unsigned int type, i;

	do {
		type = st_one_in(&w->rng, 5) ? st_below(&w->rng, 256) :
					       KBLOOM_IOC_MAGIC;
		for (i = 0; i < sizeof(vfs_types); i++)
			if (type == (unsigned char)vfs_types[i])
				type = KBLOOM_IOC_MAGIC;
		cmd = _IOC(st_below(&w->rng, 4), type, st_below(&w->rng, 256),
			   st_below(&w->rng, 4) ? st_below(&w->rng, 300) :
			   st_below(&w->rng, 1 << 14));
	} while (is_kbloom_cmd(cmd));
	return cmd;
}

static void do_ctl_random(struct worker *w)
{
	unsigned long cmd = random_cmd(w);
	void *arg = st_one_in(&w->rng, 2) ? (void *)w->keybuf :
					    bad_ptr(w, 64, true);

	outcome(w, OP_ctl_random, sys_err(ioctl(w->ctl, cmd, arg)),
		ALLOW(ENOTTY), "unknown control ioctl");
}

static void do_ctl_rw(struct worker *w)
{
	char buf[16];

	/* The control node has no read() or write(). */
	if (st_one_in(&w->rng, 2))
		outcome(w, OP_ctl_rw, sys_err(read(w->ctl, buf, sizeof(buf))),
			ALLOW(EINVAL), "read control");
	else
		outcome(w, OP_ctl_rw, sys_err(write(w->ctl, buf, sizeof(buf))),
			ALLOW(EINVAL), "write control");
}

/* The module is in use (our files are open): unloading must fail. */
static void do_unload(struct worker *w)
{
	long ret = syscall(SYS_delete_module, "kbloom", O_NONBLOCK);
	int e = sys_err(ret);

	if (!e) {
		record_fail(w, F_UNLOAD, "worker %d: delete_module succeeded with files open",
			    w->id);
		return;
	}
	outcome(w, OP_unload, e, ALLOW(EAGAIN, EBUSY), "delete_module");
	w->st->unload_refused++;
}

/* ---- filter nodes ---- */

void do_open(struct worker *w)
{
	static const int accs[] = { O_RDONLY, O_WRONLY, O_RDWR };
	char name[KBLOOM_NAME_MAX];
	int slot = st_below(&w->rng, POOL), acc = accs[st_below(&w->rng, 3)];
	int fd, e;

	if (w->nfds == MAX_FDS)
		drop_fd(w, pick_fd(w));
	pool_name(name, slot);
	fd = st_open(name, acc | (st_one_in(&w->rng, 4) ? O_NONBLOCK : 0));
	e = sys_err(fd);
	/* ENODEV: destroyed after lookup; ENXIO: its cdev already gone. */
	outcome(w, OP_open, e, ALLOW(0, ENOENT, ENODEV, ENXIO), "open");
	if (e)
		return;
	w->fds[w->nfds++] = (struct pool_fd){ fd, slot, acc, -1, false, 0 };
	if (can_read(&w->fds[w->nfds - 1])) {
		struct kbloom_info info;

		e = sys_err(ioctl(fd, KBLOOM_IOC_GET_INFO, &info));
		outcome(w, OP_open, e, ALLOW(0, ENODEV), "get_info after open");
		if (!e) {
			w->fds[w->nfds - 1].type = info.type;
			w->fds[w->nfds - 1].map_pages =
				st_map_pages(info.nblocks);
		}
	}
}

static void do_close(struct worker *w)
{
	if (w->nfds)
		drop_fd(w, pick_fd(w));
}

/* What an ioctl needing read or write access may return on p. */
static errset gate(const struct pool_fd *p, bool need_write,
		   errset otherwise)
{
	if (need_write ? !can_write(p) : !can_read(p))
		return ALLOW(EBADF);
	return otherwise;
}

/*
 * The same for a batch command: DELETE on a bits filter is EOPNOTSUPP,
 * decided before the batch is looked at.
 */
static errset batch_gate(const struct pool_fd *p, unsigned long cmd,
			 errset otherwise)
{
	if (cmd != KBLOOM_IOC_DELETE)
		return gate(p, cmd == KBLOOM_IOC_ADD, otherwise);
	if (!can_write(p))
		return ALLOW(EBADF);
	if (p->type == KBLOOM_TYPE_BITS)
		return ALLOW(EOPNOTSUPP, ENODEV);
	if (p->type == KBLOOM_TYPE_COUNTING)
		return otherwise;
	return otherwise | ALLOW(EOPNOTSUPP);
}

static unsigned long random_batch_cmd(struct worker *w)
{
	static const unsigned long cmds[] = {
		KBLOOM_IOC_ADD, KBLOOM_IOC_CHECK, KBLOOM_IOC_DELETE,
	};

	return cmds[st_below(&w->rng, 3)];
}

static void do_add_check(struct worker *w, enum op op)
{
	struct pool_fd *p = pick_fd(w);
	unsigned long cmd = op == OP_add ? KBLOOM_IOC_ADD :
			    op == OP_check ? KBLOOM_IOC_CHECK : KBLOOM_IOC_DELETE;
	struct kbloom_batch b;
	struct st_keys k;
	uint64_t *res = st_one_in(&w->rng, 2) ? w->results : NULL;
	int e;

	if (!p)
		return do_open(w);
	random_keys(w, &k);
	batch_of(&b, &k, res);
	if (res)
		memset(res, 0xa5, (k.count + 63) / 64 * 8);
	e = sys_err(ioctl(p->fd, cmd, &b));
	outcome(w, op, e, batch_gate(p, cmd, ALLOW(0, ENODEV)), "valid batch");
	if (!e && res)
		check_results(w, op, res, k.count, b.hits);
}

/* Breaks one field of a valid batch; must give EINVAL. */
static void do_batch_bad(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	unsigned long cmd = random_batch_cmd(w);
	struct kbloom_batch b;
	struct st_keys k;
	uint32_t i;

	if (!p)
		return do_open(w);
	random_keys(w, &k);
	batch_of(&b, &k, w->results);
	i = st_below(&w->rng, k.count);
	switch (st_below(&w->rng, 10)) {
	case 0:
		b.count = 0;
		break;
	case 1:
		b.count = KBLOOM_BATCH_MAX + 1 + st_below(&w->rng, 1 << 20);
		break;
	case 2:
		b.flags = 1U << st_below(&w->rng, 32);
		break;
	case 3:
		b.pad = 1 + st_below(&w->rng, 1000);
		break;
	case 4:
		b.reserved[st_below(&w->rng, 2)] = 1 + st_below(&w->rng, 1000);
		break;
	case 5:
		b.keys_len += 1 + st_below(&w->rng, 100);
		break;
	case 6:
		b.keys_len -= 1 + st_below(&w->rng, b.keys_len);
		break;
	case 7:
		/* One length zero, the total kept. */
		b.keys_len -= k.lens[i];
		k.lens[i] = 0;
		break;
	case 8:
		/* One length over the key limit, the total kept. */
		b.keys_len += KBLOOM_KEY_MAX + 1 - k.lens[i];
		k.lens[i] = KBLOOM_KEY_MAX + 1;
		break;
	default:
		b.hits = 1;	/* output only: must be ignored */
		b.keys_len = (uint64_t)b.count * KBLOOM_KEY_MAX + 1;
		break;
	}
	outcome(w, OP_batch_bad, sys_err(ioctl(p->fd, cmd, &b)),
		batch_gate(p, cmd, ALLOW(EINVAL, ENODEV)), "mutated batch");
}

/* A valid batch with one pointer bad; must give EFAULT. */
static void do_batch_badptr(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	unsigned long cmd = random_batch_cmd(w);
	struct kbloom_batch b;
	struct st_keys k;
	void *arg = &b;

	if (!p)
		return do_open(w);
	random_keys(w, &k);
	batch_of(&b, &k, w->results);
	switch (st_below(&w->rng, 4)) {
	case 0:
		b.keys = (uintptr_t)bad_ptr(w, k.keys_len, false);
		break;
	case 1:
		b.lens = (uintptr_t)bad_ptr(w, k.count * 4, false);
		break;
	case 2:
		b.results = (uintptr_t)bad_ptr(w, (k.count + 63) / 64 * 8,
						true);
		if (!b.results)	/* NULL means "no results" */
			b.results = (uintptr_t)w->rdonly;
		break;
	default:
		arg = bad_ptr(w, sizeof(b), false);
		break;
	}
	outcome(w, OP_batch_badptr, sys_err(ioctl(p->fd, cmd, arg)),
		batch_gate(p, cmd, ALLOW(EFAULT, ENODEV)),
		"batch with a bad pointer");
}

static void do_clear(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	unsigned long arg = st_one_in(&w->rng, 4) ? 1 + st_below(&w->rng, 99) : 0;

	if (!p)
		return do_open(w);
	outcome(w, OP_clear, sys_err(ioctl(p->fd, KBLOOM_IOC_CLEAR, arg)),
		gate(p, true, arg ? ALLOW(EINVAL, ENODEV) : ALLOW(0, ENODEV)),
		"clear");
}

static void do_combine(struct worker *w, enum op op)
{
	struct pool_fd *p = pick_fd(w), *q = pick_fd(w);
	unsigned long cmd = op == OP_merge ? KBLOOM_IOC_MERGE :
					     KBLOOM_IOC_INTERSECT;
	struct kbloom_other other;
	bool src_readable;

	if (!p)
		return do_open(w);
	memset(&other, 0, sizeof(other));
	/* The source may be another pool file or this worker's good one. */
	if (st_one_in(&w->rng, 4)) {
		other.fd = w->good_fd;
		src_readable = true;
	} else {
		other.fd = q->fd;
		src_readable = can_read(q);
	}
	/* This file's access is checked first, then liveness, then the source. */
	outcome(w, op, sys_err(ioctl(p->fd, cmd, &other)),
		!can_write(p) ? ALLOW(EBADF) :
		!src_readable ? ALLOW(EBADF, ENODEV) :
		ALLOW(0, EXDEV, ENODEV), op_names[op]);
}

static void do_combine_bad(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	unsigned long cmd = st_one_in(&w->rng, 2) ? KBLOOM_IOC_MERGE :
						    KBLOOM_IOC_INTERSECT;
	struct kbloom_other other;
	errset allowed;
	void *arg = &other;

	if (!p)
		return do_open(w);
	memset(&other, 0, sizeof(other));
	other.fd = p->fd;
	switch (st_below(&w->rng, 6)) {
	case 0:
		other.fd = w->ctl;	/* not a filter */
		allowed = ALLOW(EBADF, ENODEV);
		break;
	case 1:
		other.fd = 900 + st_below(&w->rng, 100);	/* not open */
		allowed = ALLOW(EBADF, ENODEV);
		break;
	case 2:
		other.fd = (uint32_t)-1 - st_below(&w->rng, 4);
		allowed = ALLOW(EBADF, ENODEV);
		break;
	case 3:
		other.flags = 1U << st_below(&w->rng, 32);
		allowed = ALLOW(EINVAL, ENODEV);
		break;
	case 4:
		other.reserved[st_below(&w->rng, 2)] = 1;
		allowed = ALLOW(EINVAL, ENODEV);
		break;
	default:
		arg = bad_ptr(w, sizeof(other), false);
		allowed = ALLOW(EFAULT, ENODEV);
		break;
	}
	if (!can_write(p))
		allowed = ALLOW(EBADF);
	outcome(w, OP_combine_bad, sys_err(ioctl(p->fd, cmd, arg)), allowed,
		"mutated merge/intersect");
}

static void do_info(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	struct kbloom_info info;
	char name[KBLOOM_NAME_MAX];
	int e;

	if (!p)
		return do_open(w);
	memset(&info, 0x5a, sizeof(info));
	e = sys_err(ioctl(p->fd, KBLOOM_IOC_GET_INFO, &info));
	outcome(w, OP_info, e, gate(p, false, ALLOW(0, ENODEV)), "get_info");
	if (e)
		return;
	pool_name(name, p->slot);
	/*
	 * Opening a node is by device number: if its filter was destroyed
	 * and another created with the same minor while our open() was
	 * between the path walk and the device, we hold that other filter.
	 * Counted, not failed: the kernel's char devices all work this way.
	 */
	if (strcmp(info.name, name))
		w->st->opened_other++;
	if (info.k < 1 || info.k > KBLOOM_K_MAX ||
	    info.type > KBLOOM_TYPE_COUNTING ||
	    (p->type >= 0 && info.type != (uint32_t)p->type) ||
	    info.bits != info.nblocks * 512 || info.bytes != info.nblocks * 64 ||
	    info.fill_ppb > KBLOOM_PPB || info.fp_now_ppb > KBLOOM_PPB ||
	    info.bits_set > info.nblocks * (info.type ? 128 : 512) ||
	    info.pad || info.reserved[0] || info.reserved[4])
		record_fail(w, F_RESULT, "worker %d get_info of %s: inconsistent (name %.32s k %u bits %llu set %llu)",
			    w->id, name, info.name, info.k,
			    (unsigned long long)info.bits,
			    (unsigned long long)info.bits_set);
}

static void do_info_badptr(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);

	if (!p)
		return do_open(w);
	outcome(w, OP_info_badptr,
		sys_err(ioctl(p->fd, KBLOOM_IOC_GET_INFO,
			      bad_ptr(w, sizeof(struct kbloom_info), true))),
		gate(p, false, ALLOW(EFAULT, ENODEV)), "get_info bad pointer");
}

static void do_report(struct worker *w, enum op op)
{
	struct pool_fd *p = pick_fd(w);
	struct kbloom_report rep;
	errset allowed = ALLOW(0, ENODEV);
	void *arg = &rep;

	if (!p)
		return do_open(w);
	memset(&rep, 0, sizeof(rep));
	rep.false_positives = st_below(&w->rng, 1000);
	rep.true_positives = st_below(&w->rng, 1000);
	rep.true_negatives = st_below(&w->rng, 100000);
	/* The largest report there may be, or more, which records nothing. */
	if (st_one_in(&w->rng, 10)) {
		rep.true_negatives = KBLOOM_REPORT_MAX - rep.false_positives -
				     rep.true_positives;
	} else if (st_one_in(&w->rng, 10)) {
		rep.true_negatives = st_one_in(&w->rng, 2) ? ~0ULL :
				     KBLOOM_REPORT_MAX + 1;
		allowed = ALLOW(EINVAL, ENODEV);
	}
	if (op == OP_report_bad) {
		switch (st_below(&w->rng, 4)) {
		case 0:
			rep.flags = 1U << st_below(&w->rng, 32);
			allowed = ALLOW(EINVAL, ENODEV);
			break;
		case 1:
			rep.pad = 1;
			allowed = ALLOW(EINVAL, ENODEV);
			break;
		case 2:
			rep.reserved[st_below(&w->rng, 2)] = 1;
			allowed = ALLOW(EINVAL, ENODEV);
			break;
		default:
			arg = bad_ptr(w, sizeof(rep), false);
			allowed = ALLOW(EFAULT, ENODEV);
			break;
		}
	}
	outcome(w, op, sys_err(ioctl(p->fd, KBLOOM_IOC_REPORT, arg)),
		gate(p, false, allowed), "report");
}

static void do_read(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	size_t len;

	if (!p)
		return do_open(w);
	if (!can_read(p)) {
		outcome(w, OP_read, sys_err(read(p->fd, w->iobuf, 64)),
			ALLOW(EBADF), "read on O_WRONLY");
		return;
	}
	if (p->shared) {
		read_image(w, OP_read, p->fd, ALLOW(0, ENODEV, ESTALE, ESPIPE),
			   &len);
		return;
	}
	/* ESTALE: a clear, merge or load rewrote the filter mid-stream. */
	if (read_image(w, OP_read, p->fd, ALLOW(0, ENODEV, ESTALE), &len))
		return;
	if (image_sane(w, OP_read, w->iobuf, len))
		keep_image(w, w->iobuf, len);
}

static void do_read_bad(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	ssize_t n;

	if (!p)
		return do_open(w);
	if (st_one_in(&w->rng, 2)) {
		/*
		 * Not where the stream is: there is no random access (on
		 * the shared file, another worker's stream may be there).
		 */
		n = pread(p->fd, w->iobuf, 64, 1 + st_below(&w->rng, 5000));
		outcome(w, OP_read_bad, sys_err(n),
			can_read(p) ? ALLOW(0, ESPIPE, ENODEV, ESTALE) :
				      ALLOW(EBADF), "pread");
		return;
	}
	/* Whole-range bad only: a short image could fit a straddle. */
	lseek(p->fd, 0, SEEK_SET);
	n = read(p->fd, bad_ptr_kind(w, 4096, true, false), 4096);
	outcome(w, OP_read_bad, sys_err(n),
		!can_read(p) ? ALLOW(EBADF) :
		p->shared ? ALLOW(0, EFAULT, ENODEV, ESTALE, ESPIPE) :
		ALLOW(EFAULT, ENODEV), "read into a bad buffer");
}

static void do_write(struct worker *w, enum op op)
{
	struct pool_fd *p = pick_fd(w);
	errset allowed;
	bool whole = true;
	size_t len, i;
	int e;

	if (!p)
		return do_open(w);
	if (!w->nimg)
		return do_read(w);
	i = st_below(&w->rng, w->nimg);
	len = w->img_len[i];
	memcpy(w->iobuf, w->img[i], len);
	if (!can_write(p)) {
		outcome(w, op, sys_err(write(p->fd, w->iobuf, len)),
			ALLOW(EBADF), "write on O_RDONLY");
		return;
	}
	allowed = ALLOW(0, EXDEV, ENODEV);
	if (op == OP_write_mutated || p->shared) {
		allowed = ALLOW(0, ENOEXEC, EPROTO, EINVAL, EXDEV, EMSGSIZE,
				EBADMSG, ENODEV);
		if (p->shared)
			allowed |= ALLOW(ESPIPE);
	}
	if (op == OP_write_mutated) {
		switch (st_below(&w->rng, 6)) {
		case 0: {
			/* Random damage, CRC recomputed half the time. */
			uint32_t flips = 1 + st_below(&w->rng, 8), crc;

			while (flips--)
				w->iobuf[st_below(&w->rng, len)] ^=
					1 << st_below(&w->rng, 8);
			if (st_one_in(&w->rng, 2)) {
				crc = st_crc32c(w->iobuf, len - 4);
				memcpy(w->iobuf + len - 4, &crc, 4);
			}
			break;
		}
		case 1:
			/* A truncated image: partial, then abandoned. */
			len = st_below(&w->rng, len);
			whole = false;
			break;
		case 2: {
			/* Longer than its header says. */
			size_t extra = 1 + st_below(&w->rng, 100);

			st_fill(&w->rng, w->iobuf + len, extra);
			len += extra;
			break;
		}
		case 3:
			/* Noise from the start. */
			st_fill(&w->rng, w->iobuf, len);
			break;
		case 4: {
			/* A header field changed, CRC fixed. */
			uint32_t crc;

			w->iobuf[st_below(&w->rng, sizeof(struct kbloom_image_header))] =
				st_next(&w->rng);
			crc = st_crc32c(w->iobuf, len - 4);
			memcpy(w->iobuf + len - 4, &crc, 4);
			break;
		}
		default:
			/* Whole-range bad: a readable head would be parsed. */
			lseek(p->fd, 0, SEEK_SET);
			e = sys_err(write(p->fd, bad_ptr_kind(w, len, false, false),
					  len));
			outcome(w, op, e, p->shared ?
				ALLOW(EFAULT, ENODEV, ESPIPE, EMSGSIZE) :
				ALLOW(EFAULT, ENODEV), "write from a bad buffer");
			return;
		}
	}
	e = write_image(w, op, p->fd, w->iobuf, len, allowed);
	if (!e && whole)
		w->st->images_loaded++;
}

static void do_seek(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	int whence = st_below(&w->rng, 7);
	off_t off = st_one_in(&w->rng, 2) ? 0 : (off_t)st_below(&w->rng, 1 << 20);
	off_t r;
	int e;

	if (!p)
		return do_open(w);
	r = lseek(p->fd, off, whence);
	e = sys_err(r);
	/* The VFS judges whence; the module then refuses a dead filter. */
	if (whence > SEEK_HOLE)
		outcome(w, OP_seek, e, ALLOW(EINVAL), "lseek bad whence");
	else if (whence == SEEK_SET && !off)
		outcome(w, OP_seek, e, ALLOW(0, ENODEV), "lseek 0");
	else if (whence == SEEK_CUR && !off)
		outcome(w, OP_seek, e, ALLOW(0, ENODEV), "lseek cur");
	else
		outcome(w, OP_seek, e, ALLOW(ESPIPE, ENODEV), "lseek elsewhere");
}

static void do_dev_random(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	unsigned long cmd = random_cmd(w);

	if (!p)
		return do_open(w);
	outcome(w, OP_dev_random,
		sys_err(ioctl(p->fd, cmd, st_one_in(&w->rng, 2) ?
			      (void *)w->keybuf : bad_ptr(w, 64, true))),
		ALLOW(ENOTTY), "unknown filter ioctl");
}

/* Reads every attribute of one pool filter while others destroy it. */
static void do_sysfs(struct worker *w)
{
	char dir[64], path[320], buf[64], name[KBLOOM_NAME_MAX];
	struct dirent *de;
	DIR *d;
	int fd;

	pool_name(name, st_below(&w->rng, POOL));
	snprintf(dir, sizeof(dir), "/sys/class/kbloom/%s", name);
	d = opendir(dir);
	if (!d) {
		outcome(w, OP_sysfs, errno, ALLOW(ENOENT), "opendir");
		return;
	}
	while ((de = readdir(d))) {
		ssize_t n;

		if (de->d_type != DT_REG)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			/* ENODEV: kernfs refuses a node being removed. */
			outcome(w, OP_sysfs, errno, ALLOW(ENOENT, ENODEV),
				"open attribute");
			continue;
		}
		n = read(fd, buf, sizeof(buf));
		outcome(w, OP_sysfs, sys_err(n), ALLOW(0, ENODEV),
			"read attribute");
		close(fd);
	}
	closedir(d);
}

/* ---- a worker ---- */

static enum op pick_op(struct worker *w)
{
	static unsigned int total;
	unsigned int r, i;

	if (!total)
		for (i = 0; i < NR_OPS; i++)
			total += op_weights[i];
	r = st_below(&w->rng, total);
	for (i = 0; r >= op_weights[i]; i++)
		r -= op_weights[i];
	return i;
}

static void run_op(struct worker *w, enum op op)
{
	switch (op) {
	case OP_create: do_create(w); break;
	case OP_create_bad: do_create_bad(w); break;
	case OP_create_badptr: do_create_badptr(w); break;
	case OP_destroy: do_destroy(w); break;
	case OP_destroy_bad: do_destroy_bad(w); break;
	case OP_ctl_random: do_ctl_random(w); break;
	case OP_ctl_rw: do_ctl_rw(w); break;
	case OP_open: do_open(w); break;
	case OP_close: do_close(w); break;
	case OP_add: case OP_check: case OP_delete:
		do_add_check(w, op);
		break;
	case OP_batch_bad: do_batch_bad(w); break;
	case OP_batch_badptr: do_batch_badptr(w); break;
	case OP_clear: do_clear(w); break;
	case OP_merge: case OP_intersect: do_combine(w, op); break;
	case OP_combine_bad: do_combine_bad(w); break;
	case OP_info: do_info(w); break;
	case OP_info_badptr: do_info_badptr(w); break;
	case OP_report: case OP_report_bad: do_report(w, op); break;
	case OP_read: do_read(w); break;
	case OP_read_bad: do_read_bad(w); break;
	case OP_write: case OP_write_mutated: do_write(w, op); break;
	case OP_seek: do_seek(w); break;
	case OP_dev_random: do_dev_random(w); break;
	case OP_sysfs: do_sysfs(w); break;
	case OP_unload: do_unload(w); break;
	case OP_good_add: do_good_add(w); break;
	case OP_good_check: good_verify_window(w, OP_good_check); break;
	case OP_good_restore: do_good_restore(w); break;
	case OP_good_bad_image: do_good_bad_image(w); break;
	case OP_good_merge: do_good_merge(w); break;
	case OP_good_delete: do_good_delete(w); break;
	default:
		if (!fz_kernel_op(w, op))
			fz_map_op(w, op);
		break;
	}
}

static void *map_or_die(size_t bytes, int prot)
{
	void *p = mmap(NULL, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

static void worker_setup(struct worker *w)
{
	uint8_t *pages;
	int i;

	w->keybuf = map_or_die(KEYBUF_BYTES, PROT_READ | PROT_WRITE);
	w->lens = map_or_die(MAX_KEYS * 4, PROT_READ | PROT_WRITE);
	w->results = map_or_die(MAX_KEYS / 8 + 64, PROT_READ | PROT_WRITE);
	w->iobuf = map_or_die(IMAGE_CAP + 8192, PROT_READ | PROT_WRITE);
	for (i = 0; i < MAX_IMAGES; i++)
		w->img[i] = map_or_die(IMAGE_CAP + 8192, PROT_READ | PROT_WRITE);
	pages = map_or_die(4 * PAGE, PROT_READ | PROT_WRITE);
	memset(pages, 0, 4 * PAGE);
	w->guard = pages + PAGE;
	w->noaccess = pages + 2 * PAGE;
	w->rdonly = pages + 3 * PAGE;
	mprotect(w->guard, PAGE, PROT_NONE);
	mprotect(w->noaccess, PAGE, PROT_NONE);
	mprotect(w->rdonly, PAGE, PROT_READ);
}

/* With injection off: the good filter and a fresh one must both work. */
static void final_checks(struct worker *w)
{
	struct st_keys k = { w->keybuf, w->lens, 0, 0 };
	char name[KBLOOM_NAME_MAX], tag[16];
	uint32_t hits = 0;
	size_t len;
	int fd, e;

	w->fault = false;
	good_verify_all(w, OP_final);
	snprintf(tag, sizeof(tag), "g%d", w->id);
	st_keys_fill(&k, tag, w->good_added, 64);
	if (st_batch(w->good_fd, KBLOOM_IOC_ADD, &k, NULL, NULL) ||
	    st_batch(w->good_fd, KBLOOM_IOC_CHECK, &k, NULL, &hits) ||
	    hits != 64)
		record_fail(w, F_USABLE, "worker %d: good filter: add/check after the run: %s, %u of 64",
			    w->id, st_errname(errno), hits);
	else
		w->good_added += 64;
	e = read_image(w, OP_final, w->good_fd, ALLOW(0), &len);
	if (!e && image_sane(w, OP_final, w->iobuf, len))
		e = write_image(w, OP_final, w->good_fd, w->iobuf, len, ALLOW(0));
	if (e)
		record_fail(w, F_USABLE, "worker %d: good filter: save/restore after the run: %s",
			    w->id, st_errname(e));
	good_verify_all(w, OP_final);

	snprintf(name, sizeof(name), "fzfinal-%d", w->id);
	e = st_create_bits(w->ctl, name, 4096, 5, 7);
	fd = e ? -1 : st_open(name, O_RDWR);
	st_keys_fill(&k, "final", 0, 100);
	if (e || fd < 0 || st_batch(fd, KBLOOM_IOC_ADD, &k, NULL, NULL) ||
	    st_batch(fd, KBLOOM_IOC_CHECK, &k, NULL, &hits) || hits != 100)
		record_fail(w, F_USABLE, "worker %d: fresh filter after the run: %s",
			    w->id, st_errname(e ? e : errno));
	if (fd >= 0)
		close(fd);
	st_destroy(w->ctl, name);
}

/*
 * Turns fault injection for this process on or off through a file opened
 * before it was on: opening a /proc file needs allocations that may then
 * fail.  Writing it does not allocate; turning off is retried until it
 * reads back off.
 */
static int make_it_fail(int fd, int on)
{
	char now = 0;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		if (pwrite(fd, on ? "1" : "0", 1, 0) == 1 &&
		    pread(fd, &now, 1, 0) == 1 && now == (on ? '1' : '0'))
			return 0;
	}
	return -1;
}

/*
 * Fault injection off for a moment (pause) and on again, around what is
 * no part of the test, such as the lock of fuzz/kernel.c's turns.  Not
 * before it is on, nor after the run turned it off.
 */
void fz_fault_pause(struct worker *w, bool pause)
{
	if (w->fault && w->fail_fd >= 0 && make_it_fail(w->fail_fd, !pause))
		record_fail(w, F_USABLE, "worker %d: cannot turn fault injection %s",
			    w->id, pause ? "off" : "on");
}

/* Maps the stack the run will need, so mlockall() covers it. */
static void __attribute__((noinline)) touch_stack(void)
{
	volatile char pad[256 << 10];

	memset((char *)pad, 0, sizeof(pad));
}

static void worker_main(struct worker *w, uint64_t seed, uint64_t max_ops,
			uint64_t deadline_ms, int shared_fd)
{
	int i;
	uint64_t n;

	w->rng.s = seed * 0x9e3779b97f4a7c15ULL + w->id + 1;
	worker_setup(w);
	w->ctl = open(ST_CONTROL, O_RDWR | O_CLOEXEC);
	w->ctl_ro = open(ST_CONTROL, O_RDONLY | O_CLOEXEC);
	snprintf(w->good_name, sizeof(w->good_name), "fzgood-%d", w->id);
	w->good_fd = st_open(w->good_name, O_RDWR);
	if (w->ctl < 0 || w->ctl_ro < 0 || w->good_fd < 0) {
		record_fail(w, F_USABLE, "worker %d: setup: %s", w->id,
			    st_errname(errno));
		return;
	}
	w->fds[w->nfds++] = (struct pool_fd){
		shared_fd, SHARED_SLOT, O_RDWR, KBLOOM_TYPE_BITS, true,
		st_map_pages(TEMPLATE_BITS / 512) };
	fz_map_setup(w);
	w->fail_fd = -1;
	fz_kernel_setup(w);
	if (w->fault) {
		/* No page fault of ours may need an allocation that fails. */
		touch_stack();
		w->fail_fd = open("/proc/self/make-it-fail", O_RDWR | O_CLOEXEC);
		if (w->fail_fd < 0 || mlockall(MCL_CURRENT | MCL_FUTURE) ||
		    make_it_fail(w->fail_fd, 1)) {
			record_fail(w, F_USABLE, "worker %d: fault setup: %s",
				    w->id, st_errname(errno));
			return;
		}
	}
	for (n = 0; n < max_ops && st_now_ms() < deadline_ms; n++) {
		enum op op = pick_op(w);

		w->st->cur_op = op;
		w->st->op_started_ms = st_now_ms();
		run_op(w, op);
		w->st->op_started_ms = 0;
		w->st->ops[op]++;
	}
	if (w->fault && make_it_fail(w->fail_fd, 0))
		record_fail(w, F_USABLE, "worker %d: cannot turn fault injection off",
			    w->id);
	w->st->cur_op = OP_final;
	w->st->op_started_ms = st_now_ms();
	final_checks(w);
	fz_map_final(w);
	fz_kernel_final(w);
	w->st->op_started_ms = 0;
	for (i = 0; i < w->nfds; i++)
		close(w->fds[i].fd);
	close(w->good_fd);
	w->st->finished = 1;
}

/* ---- the parent ---- */

static void print_counts(double secs)
{
	uint64_t total = 0, syscalls = 0, keys = 0, checked = 0, refused = 0;
	uint64_t loaded = 0, rejected = 0, other = 0;
	int op, p, e;

	printf("%-16s %10s  outcomes\n", "operation", "count");
	for (op = 0; op < NR_SLOTS; op++) {
		uint64_t count = 0;
		char line[1024] = "";
		size_t at = 0;

		for (p = 0; p < nprocs; p++)
			count += stats[p].ops[op];
		total += op < NR_OPS ? count : 0;
		for (e = 0; e <= NR_ERRNO; e++) {
			uint64_t c = 0;

			for (p = 0; p < nprocs; p++)
				c += stats[p].errs[op][e];
			if (c && at < sizeof(line) - 40)
				at += snprintf(line + at, sizeof(line) - at,
					       " %s=%llu",
					       e == NR_ERRNO ? "other" :
					       st_errname(e),
					       (unsigned long long)c);
		}
		printf("%-16s %10llu %s\n", op_names[op],
		       (unsigned long long)count, line);
	}
	for (p = 0; p < nprocs; p++) {
		syscalls += stats[p].syscalls;
		keys += stats[p].good_keys;
		checked += stats[p].good_checked;
		refused += stats[p].unload_refused;
		loaded += stats[p].images_loaded;
		rejected += stats[p].images_rejected;
		other += stats[p].opened_other;
	}
	printf("total: %llu operations (%llu checked calls) by %d processes in %.1f s\n",
	       (unsigned long long)total, (unsigned long long)syscalls, nprocs,
	       secs);
	printf("good keys: %llu added, %llu look-ups; images loaded %llu, damaged images refused %llu; unload refused %llu times\n",
	       (unsigned long long)keys, (unsigned long long)checked,
	       (unsigned long long)loaded, (unsigned long long)rejected,
	       (unsigned long long)refused);
	printf("opens that reached a filter created after the path's was destroyed (reused minor): %llu\n",
	       (unsigned long long)other);
	fz_map_print(stats, nprocs);
	fz_kernel_print(stats, nprocs);
}

static uint64_t total_ops(void)
{
	uint64_t total = 0;
	int op, p;

	for (p = 0; p < nprocs; p++)
		for (op = 0; op < NR_OPS; op++)
			total += stats[p].ops[op];
	return total;
}

static void usage(void)
{
	fprintf(stderr, "usage: fuzz-ioctl [-s SEED] [-p PROCS] [-n OPS] [-t SECONDS] [-m MIN_OPS] [-H HANG_SECONDS] [-F] [-N SUITE] [-K KO]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = 1, max_ops = 10000, min_ops = 0, start, deadline;
	unsigned int seconds = 60, hang_s = 60;
	const char *suite = "fuzz-ioctl", *ko = "/kmod/kbloom_kapi_test.ko";
	pid_t pids[MAX_PROCS];
	bool fault = false, hung = false;
	int c, p, ctl, good_fds[MAX_PROCS], kind, failed = 0, alive, shared_fd;

	while ((c = getopt(argc, argv, "s:p:n:t:m:H:FN:K:")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'p': nprocs = atoi(optarg); break;
		case 'n': max_ops = strtoull(optarg, NULL, 0); break;
		case 't': seconds = atoi(optarg); break;
		case 'm': min_ops = strtoull(optarg, NULL, 0); break;
		case 'H': hang_s = atoi(optarg); break;
		case 'F': fault = true; break;
		case 'N': suite = optarg; break;
		case 'K': ko = optarg; break;
		default: usage();
		}
	}
	if (nprocs < 1 || nprocs > MAX_PROCS || !seconds || !hang_s)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("%s: seed %llu, %d processes, up to %llu operations each, %u s%s\n",
	       suite, (unsigned long long)seed, nprocs,
	       (unsigned long long)max_ops, seconds,
	       fault ? ", under fault injection" : "");

	stats = st_shared(sizeof(*stats) * nprocs);
	ctl = open(ST_CONTROL, O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		printf("FAIL: %s/setup: open %s: %s\n", suite, ST_CONTROL,
		       st_errname(errno));
		return 1;
	}
	/* Leftovers of an earlier, killed run. */
	for (p = 0; p < POOL; p++) {
		char name[KBLOOM_NAME_MAX];

		pool_name(name, p);
		st_destroy(ctl, name);
	}
	for (p = 0; p < MAX_PROCS; p++) {
		char name[KBLOOM_NAME_MAX];

		snprintf(name, sizeof(name), "fzside-%d", p);
		st_destroy(ctl, name);
		snprintf(name, sizeof(name), "fzfinal-%d", p);
		st_destroy(ctl, name);
	}
	c = st_create_bits(ctl, "fz-shared", TEMPLATE_BITS, TEMPLATE_K,
			   TEMPLATE_SEED);
	shared_fd = c ? -1 : st_open("fz-shared", O_RDWR);
	if (shared_fd < 0) {
		printf("FAIL: %s/setup: create fz-shared: %s\n", suite,
		       st_errname(c ? c : errno));
		return 1;
	}
	for (p = 0; p < nprocs; p++) {
		char name[KBLOOM_NAME_MAX];
		int e;

		snprintf(name, sizeof(name), "fzgood-%d", p);
		st_destroy(ctl, name);
		e = st_create_type(ctl, name, GOOD_TYPE(p), GOOD_BITS(p), GOOD_K,
				   GOOD_SEED + p);
		/* Held for the whole run, so unloading is always refused. */
		good_fds[p] = e ? -1 : st_open(name, O_RDONLY);
		if (good_fds[p] < 0) {
			printf("FAIL: %s/setup: create %s: %s\n", suite, name,
			       st_errname(e ? e : errno));
			return 1;
		}
	}

	fz_kernel_init(suite, ko, nprocs, op_weights);

	start = st_now_ms();
	deadline = start + seconds * 1000ULL;
	fflush(NULL);
	for (p = 0; p < nprocs; p++) {
		pids[p] = fork();
		if (pids[p] < 0) {
			perror("fork");
			return 2;
		}
		if (!pids[p]) {
			struct worker w = { .id = p, .fault = fault,
					    .st = &stats[p] };

			worker_main(&w, seed, max_ops, deadline, shared_fd);
			_exit(0);
		}
	}

	/* Watch for calls that never return. */
	for (alive = nprocs; alive;) {
		uint64_t now = st_now_ms();

		while (waitpid(-1, NULL, WNOHANG) > 0)
			alive--;
		for (p = 0; p < nprocs && !hung; p++) {
			uint64_t began = stats[p].op_started_ms;

			if (began && now > began + hang_s * 1000ULL) {
				printf("FAIL: %s/no-hang: worker %d stuck in %s for %llu s\n",
				       suite, p, op_names[stats[p].cur_op],
				       (unsigned long long)(now - began) / 1000);
				hung = true;
			}
		}
		if (now > deadline + (hang_s + 120) * 1000ULL && !hung) {
			printf("FAIL: %s/no-hang: workers still running %u s past the deadline\n",
			       suite, hang_s + 120);
			hung = true;
		}
		if (hung) {
			for (p = 0; p < nprocs; p++)
				kill(pids[p], SIGKILL);
			break;
		}
		usleep(100000);
	}

	print_counts((st_now_ms() - start) / 1000.0);
	for (kind = 0; kind < NR_FAIL_KINDS; kind++) {
		uint64_t n = 0;
		const char *msg = NULL;

		for (p = 0; p < nprocs; p++) {
			n += stats[p].fails[kind];
			if (!msg && stats[p].fails[kind])
				msg = stats[p].fail_msg[kind];
		}
		if (kind == F_HANG) {
			if (hung)
				failed++;
			else
				printf("PASS: %s/%s\n", suite, fail_names[kind]);
			continue;
		}
		if (n) {
			printf("FAIL: %s/%s: %llu times; first: %s\n", suite,
			       fail_names[kind], (unsigned long long)n, msg);
			failed++;
		} else {
			printf("PASS: %s/%s\n", suite, fail_names[kind]);
		}
	}
	for (p = 0; p < nprocs; p++)
		if (!stats[p].finished && !hung) {
			printf("FAIL: %s/workers: worker %d did not finish\n",
			       suite, p);
			failed++;
			break;
		}
	if (fault) {
		uint64_t enomem = 0;
		int op;

		for (p = 0; p < nprocs; p++)
			for (op = 0; op < NR_SLOTS; op++)
				enomem += stats[p].errs[op][ENOMEM];
		/* Else the injection was not live and this proved nothing. */
		if (enomem) {
			printf("PASS: %s/faults-injected (%llu calls failed with ENOMEM)\n",
			       suite, (unsigned long long)enomem);
		} else {
			printf("FAIL: %s/faults-injected: no call failed with ENOMEM\n",
			       suite);
			failed++;
		}
	}
	if (!hung)
		failed += fz_kernel_finish(suite, stats, nprocs);
	if (total_ops() < min_ops) {
		printf("FAIL: %s/operations: %llu, wanted at least %llu\n",
		       suite, (unsigned long long)total_ops(),
		       (unsigned long long)min_ops);
		failed++;
	} else {
		printf("PASS: %s/operations (%llu across %d processes)\n",
		       suite, (unsigned long long)total_ops(), nprocs);
	}

	if (!hung) {
		for (p = 0; p < nprocs; p++) {
			char name[KBLOOM_NAME_MAX];

			close(good_fds[p]);
			if (!p)
				close(shared_fd);
			snprintf(name, sizeof(name), "fzgood-%d", p);
			st_destroy(ctl, name);
		}
		for (p = 0; p < POOL; p++) {
			char name[KBLOOM_NAME_MAX];

			pool_name(name, p);
			st_destroy(ctl, name);
		}
	}
	close(ctl);
	return failed ? 1 : 0;
}
