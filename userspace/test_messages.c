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
#include <stddef.h>
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

/*
 * kbl_create_sized() judges the caller's struct before any device is
 * opened: each rejection returns before the control node, so the errno
 * here is the library's own, module or not.
 */
static void expect_errno(const char *name, int got, int want)
{
	char why[64];

	snprintf(why, sizeof(why), "%d", got);
	expect(name, got == want ? "ok" : why, "ok");
}

static void spec_cases(void)
{
	unsigned char big[sizeof(struct kbl_spec) + 16];
	struct kbl_spec spec = { .capacity = 1000, .fp_ppb = 10000000 };

	expect_errno("create-sized-short",
		     kbl_create_sized("w", &spec, KBL_SPEC_SIZE_0_1 - 1),
		     -EINVAL);
	expect_errno("create-sized-null", kbl_create_sized("w", NULL,
							   sizeof(spec)),
		     -EINVAL);
	memset(big, 0, sizeof(big));
	memcpy(big, &spec, sizeof(spec));
	big[sizeof(spec) + 3] = 1;
	expect_errno("create-sized-unknown-field",
		     kbl_create_sized("w", (const struct kbl_spec *)big,
				      sizeof(big)), -E2BIG);
	spec.pad = 1;
	expect_errno("create-pad", kbl_create("w", &spec), -EINVAL);
	/* 0.1.0's entry point never reads the pad (nor anything after type). */
	expect_errno("create-0.1-ignores-new-fields",
		     (kbl_create)("w", &spec) == -EINVAL ? -EINVAL : 0, 0);
	spec.pad = 0;
	spec.pad2 = 1;
	expect_errno("create-pad2", kbl_create("w", &spec), -EINVAL);
	expect("spec-size-0.1", KBL_SPEC_SIZE_0_1 == 48 ? "ok" : "changed",
	       "ok");
}

/*
 * A scalable filter's spec, judged by the library before the control
 * node: each refusal is -EINVAL with or without the module, and the
 * message kbloomctl and other callers print names the rule.
 */
static void expansion_cases(void)
{
	const struct kbl_spec good = { .capacity = 1000, .fp_ppb = 10000000,
				       .expansion = 2 };
	struct kbl_spec spec;
	char buf[512];
	const char *m;

	spec = good;
	spec.expansion = KBLOOM_EXPANSION_MAX + 1;
	expect_errno("create-expansion-over-max", kbl_create("w", &spec),
		     -EINVAL);
	spec.expansion = UINT32_MAX;
	expect_errno("create-expansion-u32-max", kbl_create("w", &spec),
		     -EINVAL);
	spec = good;
	spec.type = KBLOOM_TYPE_WINDOW;
	spec.generations = 3;
	expect_errno("create-expansion-window", kbl_create("w", &spec),
		     -EINVAL);
	spec = good;
	spec.fp_ppb = 0;
	spec.bits = 65536;
	expect_errno("create-expansion-bits", kbl_create("w", &spec),
		     -EINVAL);
	spec = good;
	spec.fp_ppb = 0;
	spec.bits_per_key = 10;
	expect_errno("create-expansion-bits-per-key", kbl_create("w", &spec),
		     -EINVAL);
	spec = good;
	spec.k = 3;
	expect_errno("create-expansion-k", kbl_create("w", &spec), -EINVAL);
	/* Fields past the caller's size read as 0: no expansion to refuse. */
	spec = good;
	spec.expansion = KBLOOM_EXPANSION_MAX + 1;
	expect_errno("create-sized-before-expansion",
		     kbl_create_sized("w", &spec,
				      offsetof(struct kbl_spec, expansion)) ==
		     -EINVAL ? -EINVAL : 0, 0);

	m = kbl_error_message(-EINVAL, "kbl_create", "w", buf, sizeof(buf));
	expect("create-invalid-expansion-range", m,
	       "expansion 0, or 1 to 16 for a scalable filter");
	expect("create-invalid-expansion-window", m,
	       "bits or counting, never a window");
	expect("create-invalid-expansion-sized", m,
	       "sized by capacity and rate alone, without bits, bits per key or k");
	m = kbl_error_message(-EOPNOTSUPP, "kbl_subfilter", "a", buf,
			      sizeof(buf));
	expect("subfilter-not-scalable", m,
	       "cannot get sub-filter information on filter 'a': not a scalable filter: only those have sub-filters");
	m = kbl_error_message(-ERANGE, "kbl_subfilter", "a", buf, sizeof(buf));
	expect("subfilter-range", m,
	       "cannot get sub-filter information on filter 'a': no sub-filter of that index (kbl_info() gives how many there are now)");
	m = kbl_error_message(-EOPNOTSUPP, "kbl_intersect", "a", buf,
			      sizeof(buf));
	expect("intersect-scalable", m,
	       "cannot intersect filter 'a': a scalable filter cannot be intersected");
	m = kbl_error_message(-EOPNOTSUPP, "kbl_merge", "a", buf, sizeof(buf));
	expect("merge-counting-scalable", m,
	       "cannot merge into filter 'a': a counting scalable filter takes no merge");
	/*
	 * Scalable filters have images (version 4): only a module older
	 * than those refuses them, and the fix is a newer module.
	 */
	m = kbl_error_message(-EOPNOTSUPP, "kbl_save", "a", buf, sizeof(buf));
	expect("save-scalable-old-module", m,
	       "cannot save filter 'a': the kbloom module is older than scalable filter images (version 4) and refuses them: update the module to save or load a scalable filter");
	m = kbl_error_message(-EOPNOTSUPP, "kbl_load", "a", buf, sizeof(buf));
	expect("load-scalable-old-module", m,
	       "cannot load an image into filter 'a': the kbloom module is older than scalable filter images (version 4)");
	/* Which filter an image loads into depends on its version. */
	m = kbl_error_message(-EXDEV, "kbl_load", "a", buf, sizeof(buf));
	expect("load-exdev-v3", m,
	       "cannot load an image into filter 'a': the image does not fit the filter: a version 3 image loads only into a fixed-size filter");
	expect("load-exdev-v4", m,
	       "a version 4 (scalable) image only into a scalable filter of equal capacity, rate, expansion, type and seed (create one to match)");
	expect("strerror-exdev-images", kbl_strerror(-EXDEV),
	       "; a version 4 image, a scalable filter's, loads only into a scalable filter of equal capacity, rate, expansion, type and seed, a version 3 image only into a fixed-size filter");
	m = kbl_error_message(-E2BIG, "kbl_load", "a", buf, sizeof(buf));
	expect("load-cannot-grow", m,
	       "cannot load an image into filter 'a': the image does not fit: staging it (it counts against the module's max_total_bytes) or growing the scalable filter to the image's sub-filters would pass max_filter_bytes or max_total_bytes");
	m = kbl_error_message(-EOPNOTSUPP, "kbl_map", "a", buf, sizeof(buf));
	expect("map-scalable", m,
	       "cannot map filter 'a': the kbloom module is older than scalable filter mappings and refuses them: update the module to map a scalable filter (checks go through ioctls meanwhile)");
	m = kbl_error_message(-E2BIG, "kbl_add_one", "a", buf, sizeof(buf));
	expect("add-cannot-grow", m,
	       "cannot add a key to filter 'a': the scalable filter cannot grow: a new sub-filter would pass the module's max_filter_bytes or max_total_bytes, or it has its last sub-filter");
	m = kbl_error_message(-E2BIG, "kbl_merge", "a", buf, sizeof(buf));
	expect("merge-cannot-grow", m,
	       "cannot merge into filter 'a': the scalable filter cannot grow");
	m = kbl_error_message(-EXDEV, "kbl_merge", "a", buf, sizeof(buf));
	expect("merge-exdev-scalable", m,
	       "(scalable filters: in capacity, rate, expansion, type or seed, or only one of them is scalable)");
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
	       "cannot merge into filter 'a': filters or image differ in geometry, type, seed or generations");
	/* EOPNOTSUPP is a type's refusal: the call says which type it needs. */
	m = kbl_error_message(-EOPNOTSUPP, "kbl_delete", "a", buf, sizeof(buf));
	expect("delete-not-counting", m,
	       "cannot delete keys from filter 'a': not a counting filter: delete needs one");
	m = kbl_error_message(-EOPNOTSUPP, "kbl_delete_one", "a", buf,
			      sizeof(buf));
	expect("delete-one-not-counting", m,
	       "cannot delete a key from filter 'a': not a counting filter: delete needs one");
	m = kbl_error_message(-EOPNOTSUPP, "kbl_rotate", "a", buf, sizeof(buf));
	expect("rotate-not-window", m,
	       "cannot rotate filter 'a': not a window filter");
	m = kbl_error_message(-EOPNOTSUPP, "kbl_window_info", "a", buf,
			      sizeof(buf));
	expect("window-info-not-window", m,
	       "cannot get window information on filter 'a': not a window filter");
	expect("strerror-eopnotsupp", kbl_strerror(-EOPNOTSUPP),
	       "not supported by this filter's type (delete needs a counting filter, rotate a window filter; a scalable filter has no intersect)");
	m = kbl_error_message(-EINVAL, "kbl_create", "w", buf, sizeof(buf));
	expect("create-invalid", m,
	       "cannot create filter 'w': invalid parameters (");
	expect("create-invalid-generations", m,
	       "a window needs 2 to 63 generations, rotate_ms 0 or 10 to 2^31, rotate_every 0 to 2^48");
	m = kbl_error_message(-EPROTO, "kbl_load", "w", buf, sizeof(buf));
	expect("load-old-version", m,
	       "images of kbloom 0.1 place cells otherwise (rebuild the filter from its keys)");
	m = kbl_error_message(-ESTALE, "kbl_save", "w", buf, sizeof(buf));
	expect("save-stale", m,
	       "cannot save filter 'w': the filter was rewritten (clear, intersect, load or rotation) during the read; read again");
	expect("type-window", kbl_type_name(KBLOOM_TYPE_WINDOW), "window");
	expect("type-unknown", kbl_type_name(KBLOOM_TYPE_WINDOW + 1),
	       "unknown");
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

	spec_cases();
	expansion_cases();

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
