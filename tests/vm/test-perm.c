// SPDX-License-Identifier: GPL-2.0
/*
 * Permissions: the control node is root's; a filter node carries its
 * creator's uid and gid and the requested mode, and what an open file may
 * do follows its access mode.  Each case forks a child that drops to an
 * unprivileged user and reports back through its exit status.
 */
#include <grp.h>
#include <sys/wait.h>

#include "vmtest.h"

#define USER	1000
#define GROUP	1000
#define OTHER	1001

static const char *done(const char *name, const char *msg)
{
	if (vt_destroy(name) && !msg)
		return vt_fail("destroy %s: %s", name, vt_errno_name(errno));
	return msg;
}

static int create_mode(const char *name, uint32_t mode)
{
	struct kbloom_create req;

	vt_destroy(name);
	vt_create_req(&req, name, 1000, 10000000);
	req.node_mode = mode;
	return vt_create_raw(&req);
}

/*
 * Runs fn as uid/gid (with only the given supplementary groups) in a
 * child.  The child's message comes back through a pipe.
 */
static const char *as_user(uid_t uid, gid_t gid, const gid_t *groups,
			   int ngroups, const char *(*fn)(void))
{
	static char msg[512];
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd))
		return "pipe";
	pid = fork();
	if (pid < 0)
		return "fork";
	if (pid == 0) {
		const char *m;

		close(pipefd[0]);
		if (setgroups(ngroups, groups) || setgid(gid) || setuid(uid))
			m = "cannot drop privileges";
		else
			m = fn();
		if (m && write(pipefd[1], m, strlen(m)) < 0)
			_exit(2);
		_exit(m ? 1 : 0);
	}
	close(pipefd[1]);
	n = read(pipefd[0], msg, sizeof(msg) - 1);
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return NULL;
	if (n <= 0)
		return vt_fail("child died (status %#x)", status);
	msg[n] = 0;
	return msg;
}

static const char *as_plain_user(const char *(*fn)(void))
{
	return as_user(USER, GROUP, NULL, 0, fn);
}

/* ---- the control node ---- */

static const char *user_control(void)
{
	EXPECT_ERRNO(vt_ctl(O_RDWR), EACCES);
	EXPECT_ERRNO(vt_ctl(O_RDONLY), EACCES);
	EXPECT_ERRNO(vt_create("perm-user", 1000, 10000000, 0), EACCES);
	return NULL;
}

static const char *control_root_only(void)
{
	struct stat st;

	EXPECT_OK(stat(VT_CONTROL, &st));
	EXPECT((st.st_mode & 07777) == 0600 && st.st_uid == 0 &&
	       st.st_gid == 0, "control node mode %o uid %u gid %u",
	       st.st_mode & 07777, st.st_uid, st.st_gid);
	EXPECT_NULL(as_plain_user(user_control));
	EXPECT(access("/dev/kbloom/perm-user", F_OK), "user created a filter");
	return NULL;
}

/* ---- filter nodes by mode ---- */

static const char *user_no_access(void)
{
	EXPECT_ERRNO(vt_open("perm-0600", O_RDONLY), EACCES);
	EXPECT_ERRNO(vt_open("perm-0600", O_WRONLY), EACCES);
	EXPECT_ERRNO(vt_open("perm-0600", O_RDWR), EACCES);
	return NULL;
}

static const char *default_mode_refuses_others(void)
{
	struct stat st;
	int fd;

	EXPECT_OK(create_mode("perm-0600", 0));
	EXPECT_OK(stat("/dev/kbloom/perm-0600", &st));
	EXPECT((st.st_mode & 07777) == 0600, "mode %o", st.st_mode & 07777);
	/* Root still works on it. */
	fd = vt_open("perm-0600", O_RDWR);
	EXPECT(vt_add_prefix(fd, "r", 0, 10) >= 0, "root add");
	close(fd);
	return done("perm-0600", as_plain_user(user_no_access));
}

static const char *user_read_only(void)
{
	struct kbloom_report rep = { .true_negatives = 1 };
	struct kbloom_info info;
	struct kbloom_batch b;
	struct vt_keys k;
	uint8_t buf[128];
	int fd;

	EXPECT_ERRNO(vt_open("perm-0644", O_RDWR), EACCES);
	EXPECT_ERRNO(vt_open("perm-0644", O_WRONLY), EACCES);
	fd = vt_open("perm-0644", O_RDONLY);
	EXPECT(fd >= 0, "open read-only: %s", vt_errno_name(errno));
	EXPECT(vt_check_prefix(fd, "r", 0, 10) == 10, "CHECK: %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_REPORT, &rep));
	EXPECT(read(fd, buf, sizeof(buf)) == sizeof(buf), "read(): %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_keys_make(&k, "u", 0, 10));
	vt_batch(&b, &k, NULL);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_ADD, &b), EBADF);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_CLEAR, 0), EBADF);
	EXPECT_ERRNO(write(fd, buf, sizeof(buf)), EBADF);
	vt_keys_free(&k);
	/* sysfs: statistics for all, the seed for root only. */
	{
		uint64_t v;

		EXPECT_OK(vt_sysfs_u64("perm-0644", "capacity", &v));
		EXPECT_ERRNO(vt_sysfs_u64("perm-0644", "seed", &v), EACCES);
	}
	close(fd);
	return NULL;
}

static const char *mode_0644_serves_readers(void)
{
	struct kbloom_info info;
	const char *msg;
	int fd;

	EXPECT_OK(create_mode("perm-0644", 0644));
	fd = vt_open("perm-0644", O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "r", 0, 10) >= 0, "root add");
	msg = as_plain_user(user_read_only);
	EXPECT_OK(vt_info(fd, &info));
	close(fd);
	if (!msg && (info.add_calls != 10 || info.reported_tn != 1))
		msg = vt_fail("add_calls %llu reported_tn %llu",
			      (unsigned long long)info.add_calls,
			      (unsigned long long)info.reported_tn);
	return done("perm-0644", msg);
}

static const char *user_write_only(void)
{
	struct kbloom_info info;
	struct kbloom_batch b;
	struct vt_keys k;
	uint8_t buf[16];
	int fd;

	EXPECT_ERRNO(vt_open("perm-0622", O_RDONLY), EACCES);
	EXPECT_ERRNO(vt_open("perm-0622", O_RDWR), EACCES);
	fd = vt_open("perm-0622", O_WRONLY);
	EXPECT(fd >= 0, "open write-only: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "w", 0, 20) >= 0, "ADD: %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_keys_make(&k, "w", 0, 20));
	vt_batch(&b, &k, NULL);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_CHECK, &b), EBADF);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_GET_INFO, &info), EBADF);
	EXPECT_ERRNO(read(fd, buf, sizeof(buf)), EBADF);
	vt_keys_free(&k);
	close(fd);
	return NULL;
}

static const char *mode_0622_serves_writers(void)
{
	const char *msg;
	int fd;

	EXPECT_OK(create_mode("perm-0622", 0622));
	msg = as_plain_user(user_write_only);
	fd = vt_open("perm-0622", O_RDONLY);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	if (!msg && vt_check_prefix(fd, "w", 0, 20) != 20)
		msg = "the user's adds are missing";
	close(fd);
	return done("perm-0622", msg);
}

static const char *user_group_member(void)
{
	int fd = vt_open("perm-0660", O_RDWR);

	EXPECT(fd >= 0, "group member open: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "g", 0, 5) >= 0, "ADD");
	EXPECT(vt_check_prefix(fd, "g", 0, 5) == 5, "CHECK");
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_CLEAR, 0));
	close(fd);
	return NULL;
}

static const char *user_no_access_0660(void)
{
	EXPECT_ERRNO(vt_open("perm-0660", O_RDONLY), EACCES);
	EXPECT_ERRNO(vt_open("perm-0660", O_RDWR), EACCES);
	return NULL;
}

static const char *mode_0660_serves_group(void)
{
	static const gid_t root_group[] = { 0 };
	const char *msg;

	EXPECT_OK(create_mode("perm-0660", 0660));
	/* In group 0 through a supplementary group: served. */
	msg = as_user(USER, GROUP, root_group, 1, user_group_member);
	if (msg)
		return done("perm-0660", msg);
	/* Not in it: refused. */
	msg = as_user(USER, GROUP, NULL, 0, user_no_access_0660);
	return done("perm-0660", msg);
}

/* ---- a user's own filter ---- */

static const char *user_creates_own(void)
{
	struct stat st;
	int fd;

	EXPECT_OK(vt_create("perm-own", 1000, 10000000, 0));
	EXPECT_OK(stat("/dev/kbloom/perm-own", &st));
	EXPECT(st.st_uid == USER && st.st_gid == GROUP &&
	       (st.st_mode & 07777) == 0600, "node uid %u gid %u mode %o",
	       st.st_uid, st.st_gid, st.st_mode & 07777);
	fd = vt_open("perm-own", O_RDWR);
	EXPECT(fd >= 0, "owner open: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "o", 0, 10) >= 0, "owner ADD");
	close(fd);
	return NULL;
}

static const char *other_user_refused(void)
{
	EXPECT_ERRNO(vt_open("perm-own", O_RDONLY), EACCES);
	EXPECT_ERRNO(vt_open("perm-own", O_WRONLY), EACCES);
	return NULL;
}

static const char *user_destroys_own(void)
{
	EXPECT_OK(vt_destroy("perm-own"));
	return NULL;
}

/*
 * With the control node opened up by root (chmod), a user creates a
 * filter: its node is the user's, mode 0600, closed to other users.
 */
static const char *creator_owns_node(void)
{
	const char *msg;

	vt_destroy("perm-own");
	EXPECT_OK(chmod(VT_CONTROL, 0666));
	msg = as_plain_user(user_creates_own);
	if (!msg)
		msg = as_user(OTHER, OTHER, NULL, 0, other_user_refused);
	if (!msg)
		msg = as_plain_user(user_destroys_own);
	if (chmod(VT_CONTROL, 0600) && !msg)
		msg = "cannot restore the control node's mode";
	if (msg)
		vt_destroy("perm-own");
	EXPECT(access("/dev/kbloom/perm-own", F_OK), "filter left behind");
	return msg;
}

static const struct vt_case cases[] = {
#define CASE(fn) { #fn, fn }
	CASE(control_root_only),
	CASE(default_mode_refuses_others),
	CASE(mode_0644_serves_readers),
	CASE(mode_0622_serves_writers),
	CASE(mode_0660_serves_group),
	CASE(creator_owns_node),
#undef CASE
};

int main(void)
{
	if (geteuid() != 0) {
		printf("FAIL: perm/setup: must run as root\n");
		return 1;
	}
	return vt_run("perm", cases, sizeof(cases) / sizeof(cases[0]));
}
