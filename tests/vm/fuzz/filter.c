// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's operations on filter nodes (see fuzz-ioctl.c): open and
 * close, batches valid and bad, clear, merge and intersect, info and
 * report, random commands and sysfs reads.
 */
#include <dirent.h>

#include "../fuzz-ioctl.h"

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
	w->fds[w->nfds++] = (struct pool_fd){ fd, slot, acc, -1, false, 0, -1 };
	if (can_read(&w->fds[w->nfds - 1])) {
		struct kbloom_info info;

		e = sys_err(ioctl(fd, KBLOOM_IOC_GET_INFO, &info));
		outcome(w, OP_open, e, ALLOW(0, ENODEV), "get_info after open");
		if (!e) {
			w->fds[w->nfds - 1].type = info.type;
			w->fds[w->nfds - 1].scalable = !!info.expansion;
			/* A scalable filter's moves: not known. */
			w->fds[w->nfds - 1].map_pages = info.expansion ? 0 :
				st_map_pages(info.nblocks);
		}
	}
}

void do_close(struct worker *w)
{
	if (w->nfds)
		drop_fd(w, pick_fd(w));
}

errset scalable_gate(const struct pool_fd *p, errset otherwise)
{
	if (p->scalable > 0)
		return ALLOW(EOPNOTSUPP, ENODEV);
	if (p->scalable < 0)
		return otherwise | ALLOW(EOPNOTSUPP);
	return otherwise;
}

/*
 * What ADD and MERGE may return on p, otherwise: a scalable filter (or
 * one not known not to be) that cannot grow says why.
 */
static errset grow_gate(const struct pool_fd *p, errset otherwise)
{
	return p->scalable ? otherwise | ALLOW(E2BIG, ENOMEM) : otherwise;
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
 * The same for a batch command: DELETE on a bits or window filter is
 * EOPNOTSUPP, decided before the batch is looked at.
 */
static errset batch_gate(const struct pool_fd *p, unsigned long cmd,
			 errset otherwise)
{
	if (cmd != KBLOOM_IOC_DELETE)
		return gate(p, cmd == KBLOOM_IOC_ADD, otherwise);
	if (!can_write(p))
		return ALLOW(EBADF);
	if (p->type == KBLOOM_TYPE_COUNTING)
		return otherwise;
	if (p->type >= 0)
		return ALLOW(EOPNOTSUPP, ENODEV);
	return otherwise | ALLOW(EOPNOTSUPP);
}

/*
 * What a window-only command may return on p: EBADF (access), ENODEV,
 * EOPNOTSUPP (the type, when it is not a window), then the argument's
 * errno (arg_err, or 0 for a good argument).
 */
static errset window_gate(const struct pool_fd *p, bool need_write,
			  int arg_err)
{
	errset good = ALLOW(arg_err, ENODEV);

	if (need_write ? !can_write(p) : !can_read(p))
		return ALLOW(EBADF);
	if (p->type == KBLOOM_TYPE_WINDOW)
		return good;
	if (p->type >= 0)
		return ALLOW(EOPNOTSUPP, ENODEV);
	return good | ALLOW(EOPNOTSUPP);
}

/*
 * ROTATE, mostly good (any filter, any file: EOPNOTSUPP for the types
 * that do not rotate), now and then with an argument (EINVAL).  Pool
 * windows rotate by their timers and counts meanwhile.
 */
void do_rotate(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	unsigned long arg = 0;

	if (!p)
		return do_open(w);
	if (st_one_in(&w->rng, 5))
		arg = st_one_in(&w->rng, 2) ? 1 + st_below(&w->rng, 1000) :
					      (unsigned long)w->keybuf;
	outcome(w, OP_rotate, sys_err(ioctl(p->fd, KBLOOM_IOC_ROTATE, arg)),
		window_gate(p, true, arg ? EINVAL : 0), "rotate");
}

/* GET_WINDOW: the answer must be a window's, whatever runs meanwhile. */
void do_window_info(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	struct kbloom_window_info wi;
	bool bad = st_one_in(&w->rng, 6);
	void *arg = bad ? bad_ptr(w, sizeof(wi), true) : (void *)&wi;
	uint32_t g, i;
	bool sane;
	int e;

	if (!p)
		return do_open(w);
	memset(&wi, 0x5a, sizeof(wi));
	e = sys_err(ioctl(p->fd, KBLOOM_IOC_GET_WINDOW, arg));
	outcome(w, OP_window_info, e, window_gate(p, false, bad ? EFAULT : 0),
		"get_window");
	if (e || bad)
		return;
	g = wi.generations;
	sane = g >= KBLOOM_GENERATIONS_MIN && g <= KBLOOM_GENERATIONS_MAX &&
	       wi.plane_order == kbloom_plane_order(g) &&
	       (!wi.rotate_ms || (wi.rotate_ms >= KBLOOM_ROTATE_MS_MIN &&
				  wi.rotate_ms <= KBLOOM_ROTATE_MS_MAX)) &&
	       wi.rotate_every <= KBLOOM_ROTATE_EVERY_MAX &&
	       /* the timer's period in whole jiffies: HZ 100 at the coarsest */
	       wi.next_rotation_ms <= wi.rotate_ms + 10 &&
	       (wi.rotate_ms || !wi.next_rotation_ms) &&
	       !wi.reserved[0] && !wi.reserved[1] && !wi.reserved[2];
	for (i = 0; sane && i < KBLOOM_GENERATIONS_MAX; i++) {
		const struct kbloom_generation *gen = &wi.gen[i];

		if (i >= g)
			sane = !gen->add_calls && !gen->bits_set &&
			       !gen->est_keys && !gen->fill_ppb && !gen->pad;
		else
			sane = gen->fill_ppb <= KBLOOM_PPB && !gen->pad;
	}
	if (!sane)
		record_fail(w, F_RESULT, "worker %d get_window: inconsistent (g %u order %u ms %llu next %llu)",
			    w->id, g, wi.plane_order,
			    (unsigned long long)wi.rotate_ms,
			    (unsigned long long)wi.next_rotation_ms);
}

static unsigned long random_batch_cmd(struct worker *w)
{
	static const unsigned long cmds[] = {
		KBLOOM_IOC_ADD, KBLOOM_IOC_CHECK, KBLOOM_IOC_DELETE,
	};

	return cmds[st_below(&w->rng, 3)];
}

void do_add_check(struct worker *w, enum op op)
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
	st_batch_of(&b, &k, res);
	if (res)
		memset(res, 0xa5, (k.count + 63) / 64 * 8);
	e = sys_err(ioctl(p->fd, cmd, &b));
	outcome(w, op, e, batch_gate(p, cmd, cmd == KBLOOM_IOC_ADD ?
				     grow_gate(p, ALLOW(0, ENODEV)) :
				     ALLOW(0, ENODEV)), "valid batch");
	if (!e && res)
		check_results(w, op, res, k.count, b.hits);
}

/* Breaks one field of a valid batch; must give EINVAL. */
void do_batch_bad(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	unsigned long cmd = random_batch_cmd(w);
	struct kbloom_batch b;
	struct st_keys k;
	uint32_t i;

	if (!p)
		return do_open(w);
	random_keys(w, &k);
	st_batch_of(&b, &k, w->results);
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
		b.reserved[0] = 1 + st_below(&w->rng, 1000);
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
		b.done = 1;	/* output only too */
		b.keys_len = (uint64_t)b.count * KBLOOM_KEY_MAX + 1;
		break;
	}
	outcome(w, OP_batch_bad, sys_err(ioctl(p->fd, cmd, &b)),
		batch_gate(p, cmd, ALLOW(EINVAL, ENODEV)), "mutated batch");
}

/* A valid batch with one pointer bad; must give EFAULT. */
void do_batch_badptr(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	unsigned long cmd = random_batch_cmd(w);
	struct kbloom_batch b;
	struct st_keys k;
	void *arg = &b;

	if (!p)
		return do_open(w);
	random_keys(w, &k);
	st_batch_of(&b, &k, w->results);
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

void do_clear(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	unsigned long arg = st_one_in(&w->rng, 4) ? 1 + st_below(&w->rng, 99) : 0;

	if (!p)
		return do_open(w);
	outcome(w, OP_clear, sys_err(ioctl(p->fd, KBLOOM_IOC_CLEAR, arg)),
		gate(p, true, arg ? ALLOW(EINVAL, ENODEV) : ALLOW(0, ENODEV)),
		"clear");
}

void do_combine(struct worker *w, enum op op)
{
	struct pool_fd *p = pick_fd(w), *q = pick_fd(w);
	unsigned long cmd = op == OP_merge ? KBLOOM_IOC_MERGE :
					     KBLOOM_IOC_INTERSECT;
	struct kbloom_other other;
	bool src_readable;
	errset allowed;
	int q_scalable;

	if (!p)
		return do_open(w);
	q_scalable = q->scalable;
	memset(&other, 0, sizeof(other));
	/* The source may be another pool file or this worker's good one. */
	if (st_one_in(&w->rng, 4)) {
		other.fd = w->good_fd;
		src_readable = true;
		q_scalable = 0;		/* the worker's own, of fixed size */
	} else {
		other.fd = q->fd;
		src_readable = can_read(q);
	}
	/*
	 * This file's access is checked first, then liveness, then the
	 * source; a merge may grow a scalable filter (a counting one takes
	 * none: EOPNOTSUPP), and an intersect with one on either side is
	 * EOPNOTSUPP.
	 */
	if (!can_write(p))
		allowed = ALLOW(EBADF);
	else if (!src_readable)
		allowed = ALLOW(EBADF, ENODEV);
	else if (op == OP_merge)
		allowed = grow_gate(p, p->scalable ?
				    ALLOW(0, EXDEV, ENODEV, EOPNOTSUPP) :
				    ALLOW(0, EXDEV, ENODEV));
	else if (p->scalable > 0 || q_scalable > 0)
		allowed = ALLOW(EOPNOTSUPP, ENODEV);
	else if (p->scalable || q_scalable)
		allowed = ALLOW(0, EXDEV, ENODEV, EOPNOTSUPP);
	else
		allowed = ALLOW(0, EXDEV, ENODEV);
	outcome(w, op, sys_err(ioctl(p->fd, cmd, &other)), allowed,
		op_names[op]);
}

void do_combine_bad(struct worker *w)
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

void do_info(struct worker *w)
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
	    info.type > KBLOOM_TYPE_WINDOW ||
	    (p->type >= 0 && info.type != (uint32_t)p->type) ||
	    info.bits != info.nblocks * 512 || info.bytes != info.nblocks * 64 ||
	    info.fill_ppb > KBLOOM_PPB || info.fp_now_ppb > KBLOOM_PPB ||
	    /* 512 cells a block, 128 counters, 128 or fewer window masks */
	    info.bits_set > info.nblocks * (info.type ? 128 : 512) ||
	    info.held_bytes <= info.bytes ||
	    info.pad || info.reserved[0] || info.reserved[2])
		record_fail(w, F_RESULT, "worker %d get_info of %s: inconsistent (name %.32s k %u bits %llu set %llu)",
			    w->id, name, info.name, info.k,
			    (unsigned long long)info.bits,
			    (unsigned long long)info.bits_set);
}

/*
 * GET_SUBFILTER, mostly of an index a small filter has, now and then
 * with a bad argument.  In the header's order: EBADF (access), ENODEV,
 * EOPNOTSUPP (a filter of fixed size), then EFAULT, EINVAL, ERANGE.
 */
void do_subfilter(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	errset arg = ALLOW(0, ERANGE, ENODEV), allowed;
	struct kbloom_subfilter sf;
	void *ptr = &sf;
	int e;

	if (!p)
		return do_open(w);
	memset(&sf, 0, sizeof(sf));
	sf.index = st_one_in(&w->rng, 8) ? (uint32_t)st_next(&w->rng) :
					   st_below(&w->rng, 8);
	switch (st_below(&w->rng, 8)) {
	case 0:
		sf.flags = 1U << st_below(&w->rng, 32);
		arg = ALLOW(EINVAL, ENODEV);
		break;
	case 1:
		sf.reserved[st_below(&w->rng, 4)] = 1 + st_below(&w->rng, 1000);
		arg = ALLOW(EINVAL, ENODEV);
		break;
	case 2:
		ptr = bad_ptr(w, sizeof(sf), true);
		arg = ALLOW(EFAULT, ENODEV);
		break;
	default:
		break;
	}
	e = sys_err(ioctl(p->fd, KBLOOM_IOC_GET_SUBFILTER, ptr));
	if (!can_read(p))
		allowed = ALLOW(EBADF);
	else if (!p->scalable)
		allowed = ALLOW(EOPNOTSUPP, ENODEV);
	else if (p->scalable > 0)
		allowed = arg;
	else
		allowed = arg | ALLOW(EOPNOTSUPP);
	outcome(w, OP_subfilter, e, allowed, "get_subfilter");
	/* Merges may fill a sub-filter past its capacity: keys unchecked. */
	if (!e && (!sf.k || sf.k > KBLOOM_K_MAX || !sf.capacity ||
		   sf.bytes != sf.nblocks * 64 || sf.fill_ppb > KBLOOM_PPB ||
		   sf.fp_now_ppb > KBLOOM_PPB ||
		   sf.bits_set > sf.nblocks * 512 || sf.reserved[0] ||
		   sf.reserved[3]))
		record_fail(w, F_RESULT, "worker %d get_subfilter %u: inconsistent (k %u capacity %llu blocks %llu set %llu)",
			    w->id, sf.index, sf.k,
			    (unsigned long long)sf.capacity,
			    (unsigned long long)sf.nblocks,
			    (unsigned long long)sf.bits_set);
}

void do_info_badptr(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);

	if (!p)
		return do_open(w);
	outcome(w, OP_info_badptr,
		sys_err(ioctl(p->fd, KBLOOM_IOC_GET_INFO,
			      bad_ptr(w, sizeof(struct kbloom_info), true))),
		gate(p, false, ALLOW(EFAULT, ENODEV)), "get_info bad pointer");
}

void do_report(struct worker *w, enum op op)
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

void do_dev_random(struct worker *w)
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
void do_sysfs(struct worker *w)
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
