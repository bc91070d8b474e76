// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kbl_error_message() on the build host: no device, so opening a filter
 * fails with ENOENT and the message must say that the module is not
 * loaded, not that the filter does not exist (kbl_strerror() says "No
 * such file or directory" for both).  The VM's test-kbloomctl-device.sh
 * sees the other side: the module loaded, a missing filter is "no such
 * filter".  The messages that do not depend on the device are checked
 * here too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kbloom.h"

static int failed;

static void expect(const char *name, const char *got, const char *want)
{
	if (got && strstr(got, want)) {
		printf("PASS: messages/%s\n", name);
	} else {
		printf("FAIL: messages/%s: got '%s', wanted '%s'\n", name,
		       got ? got : "(null)", want);
		failed++;
	}
}

int main(void)
{
	char buf[256], tiny[12];
	struct kbl *f;
	const char *m;
	int ret;

	m = kbl_error_message(-EEXIST, "kbl_create", "users", buf,
			      sizeof(buf));
	expect("create-exists", m,
	       "cannot create filter 'users': a filter with that name exists");
	m = kbl_error_message(-EXDEV, "kbl_merge", "a", buf, sizeof(buf));
	expect("merge-exdev", m,
	       "cannot merge into filter 'a': filters or image differ in geometry, type or seed");
	m = kbl_error_message(-ENODEV, "kbl_add", "a", buf, sizeof(buf));
	expect("add-destroyed", m,
	       "cannot add keys to filter 'a': the filter was destroyed");
	m = kbl_error_message(-EINVAL, "kbl_open", "a/b", buf, sizeof(buf));
	expect("open-bad-name", m,
	       "cannot open filter 'a/b': invalid filter name (1 to 31 of A-Z a-z 0-9 . _ -)");
	m = kbl_error_message(-EIO, "frobnicate", NULL, buf, sizeof(buf));
	expect("unknown-call", m, "frobnicate: Input/output error");
	/* Cut to the buffer, still a string; the return value is buf. */
	m = kbl_error_message(-EEXIST, "kbl_create", "users", tiny,
			      sizeof(tiny));
	expect("truncated-to-buffer", m == tiny && strlen(tiny) ==
	       sizeof(tiny) - 1 ? "ok" : tiny, "ok");

	if (access(KBL_CONTROL_PATH, F_OK) == 0) {
		printf("SKIP: messages/open-module-missing: %s exists here\n",
		       KBL_CONTROL_PATH);
		printf("SKIP: messages/destroy-module-missing: %s exists here\n",
		       KBL_CONTROL_PATH);
		return failed != 0;
	}
	ret = kbl_open("users", O_RDONLY, &f);
	m = kbl_error_message(ret, "kbl_open", "users", buf, sizeof(buf));
	expect("open-module-missing", ret == -ENOENT ? m : "not ENOENT",
	       "cannot open filter 'users': kbloom module not loaded (/dev/kbloom-control missing; try: modprobe kbloom)");
	ret = kbl_destroy("users");
	m = kbl_error_message(ret, "kbl_destroy", "users", buf, sizeof(buf));
	expect("destroy-module-missing", ret == -ENOENT ? m : "not ENOENT",
	       "cannot destroy filter 'users': kbloom module not loaded");
	return failed != 0;
}
