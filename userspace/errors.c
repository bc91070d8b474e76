// SPDX-License-Identifier: GPL-2.0
/*
 * Error messages.  Each names what went wrong in the user's terms and the
 * way out; an errno alone tells a user nothing about a kernel module.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kbloomctl.h"

int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", PROG);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_ERR;
}

bool module_loaded(void)
{
	struct stat st;

	return stat(KBL_CONTROL_PATH, &st) == 0 ||
	       stat(KBL_SYSFS_DIR, &st) == 0;
}

int fail_module_missing(void)
{
	return fail("kbloom module not loaded (%s missing; try: modprobe kbloom)",
		    KBL_CONTROL_PATH);
}

/*
 * The owner's name from /etc/passwd, read directly: a static binary cannot
 * use the C library's name service, and the VM has no such service.
 */
static void user_name(uid_t uid, char *buf, size_t size)
{
	char line[512];
	FILE *pw;

	snprintf(buf, size, "%u", (unsigned int)uid);
	if (uid == 0) {
		snprintf(buf, size, "root");
		return;
	}
	pw = fopen("/etc/passwd", "re");
	if (!pw)
		return;
	while (fgets(line, sizeof(line), pw)) {
		/* name:password:uid:... */
		char *pass = strchr(line, ':');
		char *id = pass ? strchr(pass + 1, ':') : NULL;
		char *end;

		if (!id)
			continue;
		*pass = '\0';
		if (strtoul(id + 1, &end, 10) == uid && *end == ':') {
			size_t len = strlen(line);

			if (len < size) {
				memcpy(buf, line, len + 1);
				break;
			}
		}
	}
	fclose(pw);
}

/* "mode 0600, owner root" of a node, or its stat error. */
static void describe_node(const char *path, char *buf, size_t size)
{
	char owner[64];
	struct stat st;

	if (stat(path, &st)) {
		snprintf(buf, size, "%s", strerror(errno));
		return;
	}
	user_name(st.st_uid, owner, sizeof(owner));
	snprintf(buf, size, "mode %04o, owner %s", st.st_mode & 07777, owner);
}

static int fail_permission(const char *path, const char *needs)
{
	char desc[128];

	describe_node(path, desc, sizeof(desc));
	return fail("permission denied: %s is %s (%s; run as its owner or root)",
		    path, desc, needs);
}

/*
 * ENOENT: libkbloom tells a missing filter from a missing module; the
 * first gets the way to see which filters exist.
 */
static int fail_not_found(int err, const char *call, const char *name)
{
	char msg[256];

	kbl_error_message(err, call, name, msg, sizeof(msg));
	if (!module_loaded())
		return fail("%s", msg);
	return fail("%s (see: kbloomctl list)", msg);
}

/* What fail_filter() and fail_control() say of the errnos they share. */
static int fail_request(int err, const char *name, const char *what)
{
	if (err == ENOMEM)
		return fail("cannot %s filter '%s': out of kernel memory",
			    what, name);
	return fail("cannot %s filter '%s': %s", what, name,
		    kbl_strerror(err));
}

int fail_call(int err, const char *call, const char *name)
{
	char msg[1024];

	return fail("%s", kbl_error_message(err, call, name, msg,
					    sizeof(msg)));
}

int fail_name(const char *name)
{
	return fail("invalid filter name '%s': use 1 to %d characters of A-Z a-z 0-9 . _ -",
		    name, KBLOOM_NAME_MAX - 1);
}

int fail_open(int err, const char *name, int access)
{
	char path[KBL_NODE_PATH_MAX];

	err = err < 0 ? -err : err;
	kbl_node_path(name, path, sizeof(path));
	switch (err) {
	case ENOENT:
		return fail_not_found(err, "kbl_open", name);
	case EACCES:
	case EPERM:
		return fail_permission(path, access == O_RDWR ?
				       "this needs write access" :
				       "this needs read access");
	case EINVAL:
		return fail_name(name);
	case ENODEV:
	case ENXIO:
		return fail("filter '%s' is being destroyed (see: kbloomctl list)",
			    name);
	default:
		return fail("cannot open %s: %s", path, kbl_strerror(err));
	}
}

int fail_filter(int err, const char *name, const char *what)
{
	err = err < 0 ? -err : err;
	switch (err) {
	case ENODEV:
		return fail("cannot %s filter '%s': it was destroyed meanwhile (see: kbloomctl list)",
			    what, name);
	case EPERM:
	case EBADF:
	case EACCES:
		return fail("cannot %s filter '%s': permission denied (it needs write access to /dev/kbloom/%s)",
			    what, name, name);
	case ENOTTY:
		return fail("cannot %s filter '%s': the loaded kbloom module does not know this request (is it older than kbloomctl %s?)",
			    what, name, kbl_version());
	case EINVAL:
		return fail("cannot %s filter '%s': the module rejected the request as invalid (%s)",
			    what, name, strerror(err));
	default:
		return fail_request(err, name, what);
	}
}

/*
 * Destroy needs the right to the filter as well as write access to the
 * control node (see KBLOOM_CTL_DESTROY): when the control node is ours to
 * write, a refusal came from the filter's owner, group and mode.
 */
static int fail_destroy_denied(const char *name)
{
	char path[KBL_NODE_PATH_MAX], owner[64];
	struct stat st;

	kbl_node_path(name, path, sizeof(path));
	if (stat(path, &st))
		return fail("cannot destroy filter '%s': permission denied: only its owner, a user who may write %s, or root (CAP_SYS_ADMIN) can destroy it",
			    name, path);
	user_name(st.st_uid, owner, sizeof(owner));
	return fail("cannot destroy filter '%s': permission denied: it belongs to %s (%s mode %04o, owner %s, group %u); only its owner, a user who may write %s, or root (CAP_SYS_ADMIN) can destroy it",
		    name, owner, path, st.st_mode & 07777, owner,
		    (unsigned int)st.st_gid, path);
}

/*
 * A filter of another user's under name, whose node is st: names are one
 * namespace for every user who may write the control node, so a name
 * being taken does not make the filter the caller's.  why says what the
 * caller should do instead.
 */
int fail_foreign(const char *name, const struct stat *st, const char *why)
{
	char path[KBL_NODE_PATH_MAX], owner[64];

	kbl_node_path(name, path, sizeof(path));
	user_name(st->st_uid, owner, sizeof(owner));
	return fail("filter '%s' exists and is not yours: %s created it (%s mode %04o, owner %s, group %u; names are shared by every user who may create filters); %s",
		    name, owner, path, st->st_mode & 07777, owner,
		    (unsigned int)st->st_gid, why);
}

/* EEXIST at create: whose the filter is decides what to say. */
static int fail_exists(const char *name)
{
	char path[KBL_NODE_PATH_MAX];
	struct stat st;

	kbl_node_path(name, path, sizeof(path));
	if (!stat(path, &st) && st.st_uid != geteuid())
		return fail_foreign(name, &st, "choose another name, or have its owner or root destroy it");
	return fail("filter '%s' already exists (see: kbloomctl info %s; remove it with: kbloomctl destroy %s)",
		    name, name, name);
}

int fail_control(int err, const char *name, const char *what)
{
	err = err < 0 ? -err : err;
	if ((err == EACCES || err == EPERM) && !strcmp(what, "destroy") &&
	    !access(KBL_CONTROL_PATH, W_OK))
		return fail_destroy_denied(name);
	switch (err) {
	case ENOENT:
		return fail_not_found(err, strcmp(what, "create") ?
				      "kbl_destroy" : "kbl_create", name);
	case EACCES:
	case EPERM:
		return fail_permission(KBL_CONTROL_PATH, "creating and destroying filters needs write access to it; see the udev rule 60-kbloom.rules");
	case EEXIST:
		return fail_exists(name);
	case E2BIG:
		return fail("cannot %s filter '%s': it is larger than the module allows (ask for less, or raise the module parameters max_filter_bytes / max_total_bytes)",
			    what, name);
	case ENOSPC:
		return fail("cannot %s filter '%s': the module's limit on the number of filters is reached (destroy one; see: kbloomctl list)",
			    what, name);
	case EINVAL:
		return fail("cannot %s filter '%s': the module rejected its parameters (see: kbloomctl help %s)",
			    what, name, what);
	case ENOTTY:
		return fail("cannot %s filter '%s': %s does not understand the request (module and kbloomctl versions differ?)",
			    what, name, KBL_CONTROL_PATH);
	default:
		return fail_request(err, name, what);
	}
}
