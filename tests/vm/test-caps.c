// SPDX-License-Identifier: GPL-2.0
/*
 * The memory caps, set at run time through /sys/module/kbloom/parameters:
 * a create past max_filter_bytes or max_total_bytes fails with E2BIG, past
 * max_filters with ENOSPC, an allocation the machine cannot give fails with
 * ENOMEM (quietly), an image being restored past max_total_bytes fails
 * with E2BIG, and the module-wide totals return to where they were;
 * every cap once per filter type (caps/<case>/<type>).
 */
#include "vmtest.h"

#define FP_1PC	10000000U

struct caps {
	uint64_t filter_bytes, total_bytes, filters;
};

static struct caps saved;

static int caps_restore(void)
{
	return vt_param_set("max_filter_bytes", saved.filter_bytes) |
	       vt_param_set("max_total_bytes", saved.total_bytes) |
	       vt_param_set("max_filters", saved.filters);
}

static uint64_t total(const char *what)
{
	char path[128];
	uint64_t v = ~0ULL;

	snprintf(path, sizeof(path), VT_SYSFS "/total_%s", what);
	vt_read_u64_file(path, &v);
	return v;
}

/* A filter of type t holding exactly bytes (a multiple of 64) of cells. */
static int create_bytes(const char *name, const struct vt_type *t,
			uint64_t bytes)
{
	struct kbloom_create req;

	vt_create_req(&req, name, 0, 0);
	req.bits = bytes * 8;
	vt_req_type(&req, t);
	return vt_create_raw(&req);
}

/*
 * What a filter of type t with bytes of cells holds (sysfs held_bytes,
 * what the caps count: the cells and the rest), read off one created
 * under the caps as they are and destroyed again; 0 if it cannot be.
 */
static uint64_t held_of(const struct vt_type *t, uint64_t bytes)
{
	uint64_t held = 0;

	vt_destroy("cap-probe");
	if (create_bytes("cap-probe", t, bytes) ||
	    vt_sysfs_u64("cap-probe", "held_bytes", &held))
		held = 0;
	vt_destroy("cap-probe");
	return held;
}

/* A filter of type t sized by rate (no destroy first: EEXIST shows). */
static int create_rate(const char *name, const struct vt_type *t,
		       uint64_t capacity)
{
	struct kbloom_create req;

	vt_create_req(&req, name, capacity, FP_1PC);
	vt_req_type(&req, t);
	return vt_create_raw(&req);
}

static const char *cleanup(const char *const *names, size_t n,
			   const char *msg)
{
	size_t i;

	for (i = 0; i < n; i++)
		vt_destroy(names[i]);
	if (caps_restore() && !msg)
		msg = "cannot restore the parameters";
	return msg;
}

static const char *params_documented_defaults(void)
{
	EXPECT(saved.filter_bytes == 1ULL << 30, "max_filter_bytes %llu",
	       (unsigned long long)saved.filter_bytes);
	EXPECT(saved.total_bytes == 4ULL << 30, "max_total_bytes %llu",
	       (unsigned long long)saved.total_bytes);
	EXPECT(saved.filters == 1024, "max_filters %llu",
	       (unsigned long long)saved.filters);
	return NULL;
}

static const char *per_filter_cap(const struct vt_type *t)
{
	static const char *const names[] = { "cap-fit", "cap-over" };
	const char *msg = NULL;
	uint64_t before = total("bytes"), held = held_of(t, 8192);

	cleanup(names, 2, NULL);
	/* The rest is the same for any size, and never nothing. */
	if (held <= 8192 || held_of(t, 16384) != held + 8192)
		return vt_fail("held_bytes %llu for 8 KiB of cells, %llu for 16",
			       (unsigned long long)held,
			       (unsigned long long)held_of(t, 16384));
	if (vt_param_set("max_filter_bytes", held))
		return "cannot set max_filter_bytes";
	if (create_bytes("cap-fit", t, 8192))
		msg = vt_fail("8192 bytes at a cap of what they hold: %s",
			      vt_errno_name(errno));
	/* The caps count more than cells: 8192 of them alone do not fit. */
	else if (vt_param_set("max_filter_bytes", 8192) ||
		 create_bytes("cap-over", t, 8192) != -1 || errno != E2BIG)
		msg = vt_fail("8192 bytes at a cap of 8192: %s, want E2BIG",
			      vt_errno_name(errno));
	else if (vt_param_set("max_filter_bytes", held) ||
		 create_bytes("cap-over", t, 8192 + 64) != -1 ||
		 errno != E2BIG)
		msg = vt_fail("8256 bytes: %s, want E2BIG",
			      vt_errno_name(errno));
	/* By rate too: 100000 keys at 1 % need 120 KiB or more. */
	else if (create_rate("cap-over", t, 100000) != -1 ||
		 errno != E2BIG)
		msg = vt_fail("by rate: %s, want E2BIG", vt_errno_name(errno));
	else if (!access("/dev/kbloom/cap-over", F_OK))
		msg = "refused filter has a node";
	else if (total("bytes") != before + held)
		msg = vt_fail("total_bytes %llu, want %llu",
			      (unsigned long long)total("bytes"),
			      (unsigned long long)before + held);
	return cleanup(names, 2, msg);
}

static const char *total_cap(const struct vt_type *t)
{
	static const char *const names[] = { "tot-a", "tot-b", "tot-c" };
	const char *msg = NULL;
	uint64_t base, held = held_of(t, 8192);
	int fd;

	cleanup(names, 3, NULL);
	base = total("bytes");
	if (!held || vt_param_set("max_total_bytes", base + 2 * held))
		return "cannot set max_total_bytes";
	if (create_bytes("tot-a", t, 8192) || create_bytes("tot-b", t, 8192))
		msg = vt_fail("up to the cap: %s", vt_errno_name(errno));
	else if (create_bytes("tot-c", t, 64) != -1 || errno != E2BIG)
		msg = vt_fail("past the cap: %s, want E2BIG",
			      vt_errno_name(errno));
	else if (total("bytes") != base + 2 * held)
		msg = "total_bytes wrong at the cap";
	if (msg)
		return cleanup(names, 3, msg);

	/* Destroyed but open: its memory still counts until the close. */
	fd = vt_open("tot-a", O_RDONLY);
	if (fd < 0 || vt_destroy("tot-a"))
		msg = vt_fail("open/destroy: %s", vt_errno_name(errno));
	else if (create_bytes("tot-c", t, 64) != -1 || errno != E2BIG)
		msg = vt_fail("while a destroyed filter is open: %s, want E2BIG",
			      vt_errno_name(errno));
	else if (close(fd) || create_bytes("tot-c", t, 8192))
		msg = vt_fail("after the last close: %s",
			      vt_errno_name(errno));
	if (msg)
		return cleanup(names, 3, msg);

	/* A cap lowered below what is held stops creates, nothing else. */
	if (vt_param_set("max_total_bytes", base / 2))
		return cleanup(names, 3, "cannot lower max_total_bytes");
	fd = vt_open("tot-b", O_RDWR);
	if (create_bytes("tot-a", t, 64) != -1 || errno != E2BIG)
		msg = vt_fail("under a lowered cap: %s, want E2BIG",
			      vt_errno_name(errno));
	else if (fd < 0 || vt_add_prefix(fd, "k", 0, 100) != 100 ||
		 vt_check_prefix(fd, "k", 0, 100) != 100)
		msg = "existing filter unusable under a lowered cap";
	if (fd >= 0)
		close(fd);
	msg = cleanup(names, 3, msg);
	if (!msg && total("bytes") != base)
		msg = vt_fail("total_bytes %llu after cleanup, was %llu",
			      (unsigned long long)total("bytes"),
			      (unsigned long long)base);
	return msg;
}

static const char *filter_count_cap(const struct vt_type *t)
{
	static const char *const names[] = { "cnt-a", "cnt-b", "cnt-c" };
	const char *msg = NULL;
	uint64_t base;

	cleanup(names, 3, NULL);
	base = total("filters");
	if (vt_param_set("max_filters", base + 2))
		return "cannot set max_filters";
	if (create_rate("cnt-a", t, 100) ||
	    create_rate("cnt-b", t, 100))
		msg = vt_fail("up to the cap: %s", vt_errno_name(errno));
	else if (create_rate("cnt-c", t, 100) != -1 || errno != ENOSPC)
		msg = vt_fail("past the cap: %s, want ENOSPC",
			      vt_errno_name(errno));
	else if (total("filters") != base + 2)
		msg = "total_filters wrong";
	else if (vt_destroy("cnt-a") || create_rate("cnt-c", t, 100))
		msg = vt_fail("after a destroy: %s", vt_errno_name(errno));
	/* A duplicate name at the cap is still a duplicate. */
	else if (create_rate("cnt-b", t, 100) != -1 || errno != EEXIST)
		msg = vt_fail("duplicate at the cap: %s, want EEXIST",
			      vt_errno_name(errno));
	msg = cleanup(names, 3, msg);
	if (!msg && total("filters") != base)
		msg = "total_filters not back";
	return msg;
}

/* More than the machine has: ENOMEM, no warning, nothing held. */
static const char *allocation_failure(const struct vt_type *t)
{
	static const char *const names[] = { "cap-huge" };
	const char *msg = NULL;
	uint64_t before = total("bytes");

	cleanup(names, 1, NULL);
	if (vt_param_set("max_filter_bytes", 1ULL << 40) ||
	    vt_param_set("max_total_bytes", 1ULL << 40))
		return cleanup(names, 1, "cannot raise the caps");
	/* 64 GiB of bits in a VM of 1 GiB. */
	if (create_bytes("cap-huge", t, 64ULL << 30) != -1 || errno != ENOMEM)
		msg = vt_fail("64 GiB: %s, want ENOMEM", vt_errno_name(errno));
	else if (!access("/dev/kbloom/cap-huge", F_OK))
		msg = "failed filter has a node";
	else if (total("bytes") != before)
		msg = "failed create still counted";
	return cleanup(names, 1, msg);
}

/*
 * An image being restored is staged whole, so each open file restoring
 * holds its filter's size: the buffers count against max_total_bytes.
 * 16 files restoring into a 256 MiB filter under a cap with room for two
 * such images: two stage, fourteen get E2BIG; after they close, the room
 * is all back (one more file stages under a cap with room for one).
 */
#define RS_BYTES	(256ULL << 20)
#define RS_FILES	16

static const char *restores_within_total_cap(const struct vt_type *t)
{
	static const char *const names[] = { "rs" };
	uint64_t base, img = vt_image_bytes(RS_BYTES / 64), staged = 0;
	uint8_t hdr[VT_IMAGE_HDR];
	const char *msg = NULL;
	int fds[RS_FILES], i;

	cleanup(names, 1, NULL);
	for (i = 0; i < RS_FILES; i++)
		fds[i] = -1;
	base = total("bytes");
	if (vt_param_set("max_total_bytes", base + RS_BYTES + 2 * img + img / 2))
		return cleanup(names, 1, "cannot set max_total_bytes");
	if (create_bytes("rs", t, RS_BYTES))
		return cleanup(names, 1, vt_fail("create 256 MiB: %s",
						 vt_errno_name(errno)));
	/* With the filter, which holds a few KiB past its cells. */
	base = total("bytes");
	if (vt_param_set("max_total_bytes", base + 2 * img + img / 2))
		return cleanup(names, 1, "cannot set max_total_bytes");
	fds[0] = vt_open("rs", O_RDWR);
	if (fds[0] < 0 || read(fds[0], hdr, sizeof(hdr)) != sizeof(hdr)) {
		msg = vt_fail("read the image header: %s",
			      vt_errno_name(errno));
		goto out;
	}
	for (i = 0; i < RS_FILES && !msg; i++) {
		if (fds[i] < 0)
			fds[i] = vt_open("rs", O_RDWR);
		if (fds[i] < 0 || lseek(fds[i], 0, SEEK_SET)) {
			msg = vt_fail("open %d: %s", i, vt_errno_name(errno));
			break;
		}
		if (write(fds[i], hdr, sizeof(hdr)) == sizeof(hdr))
			staged++;
		else if (errno != E2BIG)
			msg = vt_fail("file %d: %s, want E2BIG past the cap", i,
				      vt_errno_name(errno));
	}
	if (!msg && staged != 2)
		msg = vt_fail("%llu of %d files staged a 256 MiB image under a cap with room for 2",
			      (unsigned long long)staged, RS_FILES);
	for (i = 0; i < RS_FILES; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
	if (msg)
		goto out;
	/* Every buffer given back: room for exactly one image again. */
	if (vt_param_set("max_total_bytes", base + img)) {
		msg = "cannot set max_total_bytes";
		goto out;
	}
	fds[0] = vt_open("rs", O_RDWR);
	if (fds[0] < 0 || write(fds[0], hdr, sizeof(hdr)) != sizeof(hdr))
		msg = vt_fail("after the files closed, one image under a cap with room for one: %s",
			      vt_errno_name(errno));
out:
	for (i = 0; i < RS_FILES; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return cleanup(names, 1, msg);
}

static const struct vt_case cases[] = {
	VT_CASE(params_documented_defaults),
	VT_TYPED(per_filter_cap),
	VT_TYPED(total_cap),
	VT_TYPED(filter_count_cap),
	VT_TYPED(allocation_failure),
	VT_TYPED(restores_within_total_cap),
};

int main(void)
{
	int ret;

	if (vt_param_get("max_filter_bytes", &saved.filter_bytes) ||
	    vt_param_get("max_total_bytes", &saved.total_bytes) ||
	    vt_param_get("max_filters", &saved.filters)) {
		printf("FAIL: caps/setup: cannot read %s\n", VT_PARAMS);
		return 1;
	}
	ret = vt_run("caps", cases, ARRAY_SIZE(cases));
	if (caps_restore()) {
		printf("FAIL: caps/restore: parameters not restored\n");
		ret = 1;
	}
	return ret;
}
