// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's operations on the control node (see fuzz-ioctl.c): create
 * and destroy, valid, mutated and with bad pointers; random commands,
 * reads and writes; module unloads, which must be refused while in use.
 */
#include <sys/syscall.h>

#include "../fuzz-ioctl.h"

void do_create(struct worker *w)
{
	struct kbloom_create req;

	valid_create(w, &req);
	outcome(w, OP_create, st_ctl(w->ctl, KBLOOM_CTL_CREATE, &req),
		ALLOW(0, EEXIST), "valid create");
}

void do_create_bad(struct worker *w)
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

void do_create_badptr(struct worker *w)
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

void do_destroy(struct worker *w)
{
	char name[KBLOOM_NAME_MAX];

	pool_name(name, st_below(&w->rng, POOL));
	outcome(w, OP_destroy, st_destroy(w->ctl, name), ALLOW(0, ENOENT),
		"destroy");
}

void do_destroy_bad(struct worker *w)
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
	       cmd == KBLOOM_IOC_REPORT || cmd == KBLOOM_IOC_ROTATE ||
	       cmd == KBLOOM_IOC_GET_WINDOW || cmd == KBLOOM_IOC_GET_SUBFILTER;
}

/*
 * An ioctl number no kbloom node knows: mostly near misses of real ones
 * (our magic, wrong number, size or direction).  Types the VFS handles
 * itself for every file are never used ('X' includes FIFREEZE, which would
 * freeze /dev).
 */
unsigned long random_cmd(struct worker *w)
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

void do_ctl_random(struct worker *w)
{
	unsigned long cmd = random_cmd(w);
	void *arg = st_one_in(&w->rng, 2) ? (void *)w->keybuf :
					    bad_ptr(w, 64, true);

	outcome(w, OP_ctl_random, sys_err(ioctl(w->ctl, cmd, arg)),
		ALLOW(ENOTTY), "unknown control ioctl");
}

void do_ctl_rw(struct worker *w)
{
	char buf[16] = "";

	/* The control node has no read() or write(). */
	if (st_one_in(&w->rng, 2))
		outcome(w, OP_ctl_rw, sys_err(read(w->ctl, buf, sizeof(buf))),
			ALLOW(EINVAL), "read control");
	else
		outcome(w, OP_ctl_rw, sys_err(write(w->ctl, buf, sizeof(buf))),
			ALLOW(EINVAL), "write control");
}

/* The module is in use (our files are open): unloading must fail. */
void do_unload(struct worker *w)
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
