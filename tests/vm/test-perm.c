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

/*
 * sysfs as a user who may not read the node: the geometry is everyone's,
 * each statistic root's (a cell-walking one, an add count, a window's
 * generations, the rotation state), and so are the seed and reporters.
 */
static const char *user_sysfs_hidden(const char *name)
{
	static const char *const hidden[] = {
		"add_calls", "check_hits", "fill_ppb", "est_keys",
		"gen_fill_ppb", "rotations", "mappings", "seed",
	};
	char path[128];
	uint64_t v;
	size_t i;

	EXPECT_OK(vt_sysfs_u64(name, "capacity", &v));
	EXPECT_OK(vt_sysfs_u64(name, "fp_design_ppb", &v));
	for (i = 0; i < ARRAY_SIZE(hidden); i++) {
		errno = 0;
		EXPECT(vt_sysfs_u64(name, hidden[i], &v) == -1 &&
		       errno == EACCES, "%s/%s: %s, want EACCES", name,
		       hidden[i], vt_errno_name(errno));
	}
	snprintf(path, sizeof(path), VT_SYSFS "/%s/reporters", name);
	EXPECT_ERRNO(open(path, O_RDONLY | O_CLOEXEC), EACCES);
	return NULL;
}

static const char *user_no_access(void)
{
	EXPECT_ERRNO(vt_open("perm-0600", O_RDONLY), EACCES);
	EXPECT_ERRNO(vt_open("perm-0600", O_WRONLY), EACCES);
	EXPECT_ERRNO(vt_open("perm-0600", O_RDWR), EACCES);
	return user_sysfs_hidden("perm-0600");
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
	/*
	 * sysfs: statistics for all, as the node is everyone's to read; the
	 * seed and reporters (other users' uids) for root only.
	 */
	{
		uint64_t v;

		EXPECT_OK(vt_sysfs_u64("perm-0644", "capacity", &v));
		EXPECT_OK(vt_sysfs_u64("perm-0644", "add_calls", &v));
		EXPECT(v == 10, "add_calls %llu, want 10",
		       (unsigned long long)v);
		EXPECT_OK(vt_sysfs_u64("perm-0644", "fill_ppb", &v));
		EXPECT_ERRNO(vt_sysfs_u64("perm-0644", "seed", &v), EACCES);
		EXPECT_ERRNO(open(VT_SYSFS "/perm-0644/reporters",
				  O_RDONLY | O_CLOEXEC), EACCES);
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

static const char *user_0622_sysfs(void)
{
	return user_sysfs_hidden("perm-0622");
}

static const char *mode_0622_serves_writers(void)
{
	const char *msg;
	int fd;

	EXPECT_OK(create_mode("perm-0622", 0622));
	msg = as_plain_user(user_write_only);
	if (!msg)
		msg = as_plain_user(user_0622_sysfs);
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

/* Every way of opening name is refused to this user. */
static const char *refused_all(const char *name)
{
	EXPECT_ERRNO(vt_open(name, O_RDONLY), EACCES);
	EXPECT_ERRNO(vt_open(name, O_WRONLY), EACCES);
	EXPECT_ERRNO(vt_open(name, O_RDWR), EACCES);
	return NULL;
}

static const char *user_no_access_0660(void)
{
	return refused_all("perm-0660");
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
	return refused_all("perm-own");
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

/* ---- who may destroy a filter ---- */

/*
 * The setup the udev rule suggests: the control node group-writable, the
 * users in its group.  Write access to it lets them create, but destroy
 * also needs the right to the filter itself.
 */
static const char *open_control_to_group(void)
{
	EXPECT_OK(chown(VT_CONTROL, 0, GROUP));
	EXPECT_OK(chmod(VT_CONTROL, 0660));
	return NULL;
}

static const char *close_control(const char *msg)
{
	if ((chmod(VT_CONTROL, 0600) || chown(VT_CONTROL, 0, 0)) && !msg)
		msg = "cannot restore the control node";
	return msg;
}

static const char *user_destroy_refused(void)
{
	EXPECT_ERRNO(vt_destroy("perm-victim"), EACCES);
	return NULL;
}

static const char *user_destroy_allowed(void)
{
	EXPECT_OK(vt_destroy("perm-victim"));
	return NULL;
}

/* The filter still answers: keys added before are there. */
static const char *victim_intact(void)
{
	int fd = vt_open("perm-victim", O_RDWR);
	long hits;

	EXPECT(fd >= 0, "the filter is gone: %s", vt_errno_name(errno));
	hits = vt_check_prefix(fd, "v", 0, 10);
	close(fd);
	EXPECT(hits == 10, "the filter lost its keys (%ld of 10)", hits);
	return NULL;
}

static int create_victim(uint32_t mode)
{
	int fd;
	long n;

	if (create_mode("perm-victim", mode))
		return -1;
	fd = vt_open("perm-victim", O_RDWR);
	if (fd < 0)
		return -1;
	n = vt_add_prefix(fd, "v", 0, 10);
	close(fd);
	return n < 0 ? -1 : 0;
}

/* A group member with control access, not the filter's owner: EACCES. */
static const char *destroy_needs_filter_right(void)
{
	const char *msg;

	EXPECT_OK(create_victim(0600));
	msg = open_control_to_group();
	if (!msg)
		msg = as_plain_user(user_destroy_refused);
	if (!msg)
		msg = victim_intact();
	msg = close_control(msg);
	vt_destroy("perm-victim");
	return msg;
}

/* Write permission on the filter's node by its mode: group, then other. */
static const char *destroy_by_node_write_permission(void)
{
	static const gid_t root_group[] = { 0 };
	const char *msg;

	/* Root's filter, group 0 writable, the caller in group 0. */
	EXPECT_OK(create_victim(0620));
	msg = open_control_to_group();
	if (!msg)
		msg = as_user(USER, GROUP, root_group, 1,
			      user_destroy_allowed);
	if (!msg && !access("/dev/kbloom/perm-victim", F_OK))
		msg = "the node is still there";
	/* Not in group 0: the group's write bit does not help. */
	if (!msg && create_victim(0620))
		msg = vt_fail("create: %s", vt_errno_name(errno));
	if (!msg)
		msg = as_plain_user(user_destroy_refused);
	if (!msg)
		msg = victim_intact();
	/* Other-writable: anyone outside the owner and group. */
	if (!msg && create_victim(0602))
		msg = vt_fail("create: %s", vt_errno_name(errno));
	if (!msg)
		msg = as_plain_user(user_destroy_allowed);
	/* In the group, whose bits say no: the other bits do not apply. */
	if (!msg && create_victim(0602))
		msg = vt_fail("create: %s", vt_errno_name(errno));
	if (!msg)
		msg = as_user(USER, GROUP, root_group, 1,
			      user_destroy_refused);
	if (!msg)
		msg = victim_intact();
	msg = close_control(msg);
	vt_destroy("perm-victim");
	return msg;
}

static const char *user_creates_victim(void)
{
	struct kbloom_create req;
	int fd;

	/* Read-only even for its owner: ownership is what counts. */
	vt_create_req(&req, "perm-victim", 1000, 10000000);
	req.node_mode = 0400;
	EXPECT_OK(vt_create_raw(&req));
	fd = vt_open("perm-victim", O_RDONLY);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	close(fd);
	return NULL;
}

/* The owner always; root (CAP_SYS_ADMIN) always; another member never. */
static const char *destroy_by_owner_or_admin(void)
{
	static const gid_t in_group[] = { GROUP };
	const char *msg;

	vt_destroy("perm-victim");
	msg = open_control_to_group();
	if (!msg)
		msg = as_plain_user(user_creates_victim);
	if (!msg)
		msg = as_user(OTHER, OTHER, in_group, 1,
			      user_destroy_refused);
	if (!msg && access("/dev/kbloom/perm-victim", F_OK))
		msg = "another user destroyed the owner's filter";
	if (!msg)
		msg = as_plain_user(user_destroy_allowed);
	/* Root destroys a user's 0600 filter it does not own. */
	if (!msg)
		msg = as_plain_user(user_creates_victim);
	if (!msg && vt_destroy("perm-victim"))
		msg = vt_fail("root's destroy: %s", vt_errno_name(errno));
	msg = close_control(msg);
	vt_destroy("perm-victim");
	EXPECT(access("/dev/kbloom/perm-victim", F_OK), "filter left behind");
	return msg;
}

/* ---- REPORT: who reported what ---- */

static struct kbloom_report child_report;
static int child_reports;

static const char *user_reports(void)
{
	int fd = vt_open("perm-rep", O_RDONLY);
	int i;

	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	for (i = 0; i < child_reports; i++)
		EXPECT_OK(ioctl(fd, KBLOOM_IOC_REPORT, &child_report));
	close(fd);
	return NULL;
}

static const char *report_as(uid_t uid, uint64_t fp, uint64_t tp,
			     uint64_t tn, int times)
{
	memset(&child_report, 0, sizeof(child_report));
	child_report.false_positives = fp;
	child_report.true_positives = tp;
	child_report.true_negatives = tn;
	child_reports = times;
	return as_user(uid, uid, NULL, 0, user_reports);
}

static const char *reporters_are(const char *want)
{
	static char got[1024];
	ssize_t n;
	int fd = open(VT_SYSFS "/perm-rep/reporters", O_RDONLY | O_CLOEXEC);

	EXPECT(fd >= 0, "open reporters: %s", vt_errno_name(errno));
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	EXPECT(n >= 0, "read reporters: %s", vt_errno_name(errno));
	got[n] = 0;
	EXPECT(!strcmp(got, want), "reporters:\n%s\nwant:\n%s", got, want);
	return NULL;
}

static const char *reporters_by_uid(void)
{
	struct kbloom_report over = { .true_negatives = KBLOOM_REPORT_MAX + 1 };
	struct kbloom_report mine = {
		.false_positives = 1, .true_positives = 2, .true_negatives = 3,
	};
	const char *msg = NULL;
	uint8_t *img = NULL;
	size_t len;
	uid_t uid;
	int fd;

	EXPECT_OK(create_mode("perm-rep", 0644));
	fd = vt_open("perm-rep", O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	img = vt_read_image(fd, 1 << 16, &len);
	EXPECT(img, "read image: %s", vt_errno_name(errno));
#define STEP(expr) do { if (!msg) msg = (expr); } while (0)
	STEP(reporters_are(""));
	if (!msg && ioctl(fd, KBLOOM_IOC_REPORT, &mine))
		msg = vt_fail("root's report: %s", vt_errno_name(errno));
	STEP(report_as(USER, 10, 0, 0, 2));
	STEP(report_as(OTHER, 0, 0, 5, 1));
	/* A refused report and an empty one record nothing. */
	if (!msg && (ioctl(fd, KBLOOM_IOC_REPORT, &over) != -1 ||
		     errno != EINVAL))
		msg = vt_fail("over KBLOOM_REPORT_MAX: %s, want EINVAL",
			      vt_errno_name(errno));
	STEP(report_as(3000, 0, 0, 0, 1));
	STEP(reporters_are("0 1 2 3\n1000 20 0 0\n1001 0 0 5\n"));
	/* Eight uids get a line each; the rest are summed as "other". */
	for (uid = 2000; uid < 2010; uid++)
		STEP(report_as(uid, 1, 0, 1, 1));
	STEP(reporters_are("0 1 2 3\n1000 20 0 0\n1001 0 0 5\n"
			   "2000 1 0 1\n2001 1 0 1\n2002 1 0 1\n2003 1 0 1\n"
			   "2004 1 0 1\nother 5 0 5\n"));
	/* A known uid keeps its line after the table is full. */
	STEP(report_as(USER, 1, 1, 1, 1));
	STEP(reporters_are("0 1 2 3\n1000 21 1 1\n1001 0 0 5\n"
			   "2000 1 0 1\n2001 1 0 1\n2002 1 0 1\n2003 1 0 1\n"
			   "2004 1 0 1\nother 5 0 5\n"));
	/* CLEAR resets them with the sums. */
	if (!msg && ioctl(fd, KBLOOM_IOC_CLEAR, 0))
		msg = vt_fail("CLEAR: %s", vt_errno_name(errno));
	STEP(reporters_are(""));
	/* So does an image load. */
	STEP(report_as(USER, 7, 0, 0, 1));
	STEP(reporters_are("1000 7 0 0\n"));
	if (!msg && vt_write_image(fd, img, len, len))
		msg = vt_fail("load: %s", vt_errno_name(errno));
	STEP(reporters_are(""));
#undef STEP
	free(img);
	close(fd);
	return done("perm-rep", msg);
}

static const struct vt_case cases[] = {
	VT_CASE(control_root_only),
	VT_CASE(default_mode_refuses_others),
	VT_CASE(mode_0644_serves_readers),
	VT_CASE(mode_0622_serves_writers),
	VT_CASE(mode_0660_serves_group),
	VT_CASE(creator_owns_node),
	VT_CASE(destroy_needs_filter_right),
	VT_CASE(destroy_by_node_write_permission),
	VT_CASE(destroy_by_owner_or_admin),
	VT_CASE(reporters_by_uid),
};

int main(void)
{
	if (geteuid() != 0) {
		printf("FAIL: perm/setup: must run as root\n");
		return 1;
	}
	return vt_run("perm", cases, ARRAY_SIZE(cases));
}
