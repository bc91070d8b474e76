// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's oracles (see fuzz-ioctl.c): the outcome of every call,
 * whose errno must be one the ABI allows for what was passed, and each
 * worker's good filter, which nobody else reaches: every key it added must
 * be found again at any time, through deletes of its own keys, merges,
 * image restores and rejected images.
 */
#include <stdarg.h>

#include "../fuzz-ioctl.h"

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

void good_verify_window(struct worker *w, enum op op)
{
	uint64_t first, n;

	if (w->good_added == w->good_deleted)
		return;
	first = w->good_deleted +
		st_below(&w->rng, w->good_added - w->good_deleted);
	n = w->good_added - first;
	good_verify(w, op, first, n > 256 ? 256 : n);
}

void good_verify_all(struct worker *w, enum op op)
{
	uint64_t first;

	for (first = w->good_deleted; first < w->good_added; first += 4096) {
		uint64_t n = w->good_added - first;

		good_verify(w, op, first, n > 4096 ? 4096 : n);
	}
}

void do_good_add(struct worker *w)
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
void do_good_delete(struct worker *w)
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
void do_good_restore(struct worker *w)
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
void do_good_bad_image(struct worker *w)
{
	struct kbloom_image_header *h = (void *)w->iobuf;
	struct kbloom_image_window *win = (void *)(w->iobuf + sizeof(*h));
	size_t len, bits_at = ST_IMAGE_HDR;
	int fd, want, e, how;

	if (read_image(w, OP_good_bad_image, w->good_fd, ALLOW(0), &len) ||
	    !image_sane(w, OP_good_bad_image, w->iobuf, len))
		return;
	fd = st_open(w->good_name, O_RDWR);
	if (outcome(w, OP_good_bad_image, sys_err(fd), ALLOW(0), "open good"))
		return;
	how = st_below(&w->rng, 14);
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
		/* Past 4, a scalable filter's (EXDEV here). */
		h->version = KBLOOM_IMAGE_VERSION_CHAIN + 1 +
			     st_below(&w->rng, 1000);
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
	case 11:
		/* The good filters are no windows: their window part is 0. */
		win->generations = KBLOOM_GENERATIONS_MIN +
				   st_below(&w->rng, KBLOOM_GENERATIONS_MAX - 1);
		want = EINVAL;
		break;
	case 12:
		switch (st_below(&w->rng, 4)) {
		case 0: win->live = 1ULL << st_below(&w->rng, 64); break;
		case 1: win->rotations = 1 + st_below(&w->rng, 1000); break;
		case 2: win->reserved[st_below(&w->rng, 4)] = 1; break;
		default: win->plane_adds[st_below(&w->rng, 64)] = 1; break;
		}
		want = EINVAL;
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
void do_good_merge(struct worker *w)
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
