// SPDX-License-Identifier: GPL-2.0
/*
 * The places where the uapi header used to be silent or disagree with the
 * module (settled in e56a161, 2026-12-01), one behaviour per
 * case, each run over every type of vt_types[] (semantics/<case>/<type>):
 * REPORT's bound, self-MERGE, calls after destroy, the bits_per_key limit,
 * the image header judged as its bytes arrive, the offset after a rejected
 * image, and a loaded image's capacity and rate target.
 */
#include "vmtest.h"

#define SEED	0x5e3a47c1d00dULL
#define FP_1PC	10000000U
#define HDR	VT_IMAGE_HDR

static int report(int fd, uint64_t fp, uint64_t tp, uint64_t tn)
{
	struct kbloom_report rep = {
		.false_positives = fp, .true_positives = tp,
		.true_negatives = tn,
	};

	return ioctl(fd, KBLOOM_IOC_REPORT, &rep);
}

/* ---- REPORT: at most KBLOOM_REPORT_MAX answers per call ---- */

static const char *report_over_max_rejected(const struct vt_type *t)
{
	const uint64_t max = KBLOOM_REPORT_MAX;
	struct kbloom_info info;
	int fd = vt_fresh("sem-repmax", t->type, 1000, 0, 0, SEED);

	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(max == 1ULL << 32, "KBLOOM_REPORT_MAX %llu",
	       (unsigned long long)max);
	/* One answer over, in each field and spread over all three. */
	EXPECT_ERRNO(report(fd, max + 1, 0, 0), EINVAL);
	EXPECT_ERRNO(report(fd, 0, max + 1, 0), EINVAL);
	EXPECT_ERRNO(report(fd, 0, 0, max + 1), EINVAL);
	EXPECT_ERRNO(report(fd, max / 2, max / 2, 1), EINVAL);
	/* A sum that wraps 64 bits to something small is still refused. */
	EXPECT_ERRNO(report(fd, UINT64_MAX, 2, 0), EINVAL);
	EXPECT_ERRNO(report(fd, 1, UINT64_MAX, UINT64_MAX), EINVAL);
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(!info.reported_fp && !info.reported_tp && !info.reported_tn,
	       "a refused report was recorded: %llu %llu %llu",
	       (unsigned long long)info.reported_fp,
	       (unsigned long long)info.reported_tp,
	       (unsigned long long)info.reported_tn);
	/* Exactly the bound is one report. */
	EXPECT_OK(report(fd, max / 4, max / 4, max / 2));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.reported_fp == max / 4 && info.reported_tn == max / 2 &&
	       info.observed_fp_ppb == KBLOOM_PPB / 3,
	       "fp %llu tn %llu observed %u",
	       (unsigned long long)info.reported_fp,
	       (unsigned long long)info.reported_tn, info.observed_fp_ppb);
	return vt_done(fd, "sem-repmax", NULL);
}

/* ---- MERGE of a filter with itself ---- */

static const char *self_merge_is_noop(const struct vt_type *t)
{
	struct kbloom_other other;
	struct vt_snap snap;
	const char *msg;
	int fd, ro;

	fd = vt_fresh("sem-self", t->type, 1000, 0, 0, SEED);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "self", 0, 300) > 0, "add");
	ro = vt_open("sem-self", O_RDONLY);
	EXPECT(ro >= 0, "open: %s", vt_errno_name(errno));
	msg = vt_snap_take(fd, &snap);
	if (msg)
		return vt_done(fd, "sem-self", msg);
	/* Through the same file and through another file of it. */
	memset(&other, 0, sizeof(other));
	other.fd = fd;
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_MERGE, &other));
	other.fd = ro;
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_MERGE, &other));
	close(ro);
	/* Cells (counters too) and add counters as they were. */
	return vt_done(fd, "sem-self", vt_snap_same(fd, &snap));
}

/* ---- a destroyed filter ---- */

static const char *destroyed_lseek_enodev(const struct vt_type *t)
{
	int fd = vt_fresh("sem-dead", t->type, 1000, 0, 0, SEED);

	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(vt_destroy("sem-dead"));
	EXPECT_ERRNO(lseek(fd, 0, SEEK_SET), ENODEV);
	EXPECT_ERRNO(lseek(fd, 0, SEEK_CUR), ENODEV);
	/* Checked before anything else, the kernel's rule for ioctls. */
	EXPECT_ERRNO(ioctl(fd, _IO(KBLOOM_IOC_MAGIC, 0x30), 0), ENOTTY);
	EXPECT_ERRNO(ioctl(fd, _IOR(KBLOOM_IOC_MAGIC, 0x15, __u64), 0),
		     ENOTTY);
	EXPECT_OK(close(fd));
	return NULL;
}

/* ---- create: bits_per_key up to KBLOOM_MAX_BITS_PER_KEY ---- */

static const char *bits_per_key_limit(const struct vt_type *t)
{
	struct kbloom_create req;
	struct kbloom_info info;
	int fd;

	EXPECT(KBLOOM_MAX_BITS_PER_KEY == 64, "KBLOOM_MAX_BITS_PER_KEY %d",
	       KBLOOM_MAX_BITS_PER_KEY);
	vt_destroy("sem-bpk");
	vt_create_req(&req, "sem-bpk", 100, 0);
	vt_req_type(&req, t);
	req.bits_per_key = KBLOOM_MAX_BITS_PER_KEY + 1;
	EXPECT_ERRNO(vt_create_raw(&req), EINVAL);
	EXPECT(access("/dev/kbloom/sem-bpk", F_OK), "filter created");
	req.bits_per_key = KBLOOM_MAX_BITS_PER_KEY;
	EXPECT_OK(vt_create_raw(&req));
	fd = vt_open("sem-bpk", O_RDONLY);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(info.bits >= 100 * KBLOOM_MAX_BITS_PER_KEY &&
	       info.type == t->type, "bits %llu type %u",
	       (unsigned long long)info.bits, info.type);
	return vt_done(fd, "sem-bpk", NULL);
}

/* ---- images: the header judged as its bytes arrive ---- */

/* A filter with keys and its own image; the caller frees *img. */
static const char *with_image(const char *name, uint32_t type, int *fd,
			      uint8_t **img, size_t *len)
{
	*img = NULL;
	*fd = vt_fresh(name, type, 1000, 0, 0, SEED);
	if (*fd < 0)
		return vt_fail("create: %s", vt_errno_name(errno));
	if (vt_add_prefix(*fd, "img", 0, 200) <= 0)
		return vt_fail("add: %s", vt_errno_name(errno));
	*img = vt_read_image(*fd, 1 << 16, len);
	if (!*img)
		return vt_fail("read image: %s", vt_errno_name(errno));
	return NULL;
}

/*
 * Writes of a spoiled header prefix of n bytes: refused by that very
 * write with want, the filter unchanged.
 */
static const char *header_prefix(uint32_t type, size_t n, size_t at,
				 uint8_t value, int want)
{
	struct vt_snap snap;
	const char *msg;
	uint8_t *img;
	size_t len;
	int fd, wo;

	msg = with_image("sem-hdr", type, &fd, &img, &len);
	if (!msg)
		msg = vt_snap_take(fd, &snap);
	if (msg) {
		free(img);
		return vt_done(fd, "sem-hdr", msg);
	}
	img[at] = value;
	wo = vt_open("sem-hdr", O_WRONLY);
	EXPECT(wo >= 0, "open: %s", vt_errno_name(errno));
	errno = 0;
	if (write(wo, img, n) != -1 || errno != want)
		msg = vt_fail("write of %zu header bytes, byte %zu = %#x: %s, want %s",
			      n, at, value, vt_errno_name(errno),
			      vt_errno_name(want));
	/* Nothing is held: close() has no truncated image to report. */
	if (close(wo) && !msg)
		msg = vt_fail("close: %s", vt_errno_name(errno));
	free(img);
	if (msg) {
		vt_snap_free(&snap);
		return vt_done(fd, "sem-hdr", msg);
	}
	return vt_done(fd, "sem-hdr", vt_snap_same(fd, &snap));
}

static const char *image_header_judged_early(const struct vt_type *t)
{
	const size_t version = offsetof(struct kbloom_image_header, version);

	/* The magic alone, and its first byte alone. */
	EXPECT_NULL(header_prefix(t->type, 4, 0, 'X', ENOEXEC));
	EXPECT_NULL(header_prefix(t->type, 1, 0, 'X', ENOEXEC));
	EXPECT_NULL(header_prefix(t->type, 4, 3, 0, ENOEXEC));
	/*
	 * A good magic and a bad version (4, a scalable filter's, is EXDEV
	 * here once the whole header is in: test-scalable shows it).
	 */
	EXPECT_NULL(header_prefix(t->type, 6, version,
				  KBLOOM_IMAGE_VERSION_CHAIN + 1, EPROTO));
	EXPECT_NULL(header_prefix(t->type, 6, version + 1, 1, EPROTO));
	/* A bad magic in an 8-byte write is refused by that write too. */
	EXPECT_NULL(header_prefix(t->type, 8, 1, 'x', ENOEXEC));
	return NULL;
}

/*
 * A spoiled byte at off that only the whole of the first upto bytes can
 * show: writes of 8 bytes and up to byte upto - 2 are taken, and the
 * EINVAL comes with byte upto - 1.
 */
static const char *spoiled_until(const struct vt_type *t, size_t off,
				 size_t upto)
{
	uint8_t *img;
	const char *msg;
	size_t len;
	int fd, wo;

	msg = with_image("sem-hrest", t->type, &fd, &img, &len);
	if (msg) {
		free(img);
		return vt_done(fd, "sem-hrest", msg);
	}
	img[off] ^= 0x40;
	wo = vt_open("sem-hrest", O_WRONLY);
	EXPECT(wo >= 0, "open: %s", vt_errno_name(errno));
	if (write(wo, img, 8) != 8)
		msg = vt_fail("8 bytes: %s, want them taken",
			      vt_errno_name(errno));
	else if (write(wo, img + 8, upto - 9) != (ssize_t)(upto - 9))
		msg = vt_fail("up to byte %zu: %s", upto - 2,
			      vt_errno_name(errno));
	else if (write(wo, img + upto - 1, 1) != -1 || errno != EINVAL)
		msg = vt_fail("byte %zu, spoiled at %zu: %s, want EINVAL",
			      upto - 1, off, vt_errno_name(errno));
	close(wo);
	free(img);
	return vt_done(fd, "sem-hrest", msg);
}

/*
 * The other header fields wait for the whole header: a good magic and
 * version with a bad header_bytes in the first 8 bytes is taken, and the
 * EINVAL comes with the header's last byte.  The window part of version
 * 2 (zero but for windows, its reserved words zero for all) is judged
 * when all of it has come, header_bytes in.
 */
static const char *image_header_rest_when_whole(const struct vt_type *t)
{
	EXPECT_NULL(spoiled_until(t, offsetof(struct kbloom_image_header,
					      header_bytes),
				  sizeof(struct kbloom_image_header)));
	return spoiled_until(t, sizeof(struct kbloom_image_header) +
			     offsetof(struct kbloom_image_window, reserved) + 7,
			     HDR);
}

/* ---- images: after a rejection the next image starts at offset 0 ---- */

/*
 * Writes img in the given pieces without any lseek(); the last piece must
 * fail with want.  The failing write moved no offset: it is first_piece,
 * where that write found it, and a write there is ESPIPE unless it is 0.
 * After lseek(0) the good image loads.
 */
static const char *restart_one(uint32_t type, const char *what,
			       size_t spoil_at, size_t first_piece, int want)
{
	uint8_t *img, *bad;
	struct kbloom_info info;
	const char *msg;
	size_t len, done_bytes = 0;
	ssize_t n;
	int fd, wo;

	msg = with_image("sem-restart", type, &fd, &img, &len);
	if (msg) {
		free(img);
		return vt_done(fd, "sem-restart", msg);
	}
	bad = malloc(len);
	EXPECT(bad, "malloc");
	memcpy(bad, img, len);
	bad[spoil_at] ^= 0x21;
	/* Something to see the load by: clear what the image holds. */
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_CLEAR, 0));
	wo = vt_open("sem-restart", O_WRONLY);
	EXPECT(wo >= 0, "open: %s", vt_errno_name(errno));
	if (first_piece && write(wo, bad, first_piece) !=
	    (ssize_t)first_piece) {
		msg = vt_fail("%s: first %zu bytes: %s", what, first_piece,
			      vt_errno_name(errno));
		goto out;
	}
	done_bytes = first_piece;
	errno = 0;
	n = write(wo, bad + done_bytes, len - done_bytes);
	if (n != -1 || errno != want) {
		msg = vt_fail("%s: rest: %zd (%s), want %s", what, n,
			      vt_errno_name(errno), vt_errno_name(want));
		goto out;
	}
	if (lseek(wo, 0, SEEK_CUR) != (off_t)first_piece) {
		msg = vt_fail("%s: offset %lld after the rejection, want %zu, "
			      "where the failing write found it", what,
			      (long long)lseek(wo, 0, SEEK_CUR), first_piece);
		goto out;
	}
	errno = 0;
	if (first_piece && (write(wo, img, len) != -1 || errno != ESPIPE)) {
		msg = vt_fail("%s: the good image at offset %zu, without "
			      "lseek: %s, want ESPIPE", what, first_piece,
			      vt_errno_name(errno));
		goto out;
	}
	if (lseek(wo, 0, SEEK_SET) != 0) {
		msg = vt_fail("%s: rewind: %s", what, vt_errno_name(errno));
		goto out;
	}
	n = write(wo, img, len);
	if (n != (ssize_t)len) {
		msg = vt_fail("%s: the good image after it, at offset 0: %zd "
			      "(%s)", what, n, vt_errno_name(errno));
		goto out;
	}
	if (vt_info(fd, &info) || info.add_calls != 200)
		msg = vt_fail("%s: image not loaded (add_calls %llu)", what,
			      (unsigned long long)info.add_calls);
out:
	close(wo);
	free(bad);
	free(img);
	return vt_done(fd, "sem-restart", msg);
}

static const char *image_rejection_keeps_offset(const struct vt_type *t)
{
	const size_t seed = offsetof(struct kbloom_image_header, seed);

	/* Refused in the first write: the offset never moved. */
	EXPECT_NULL(restart_one(t->type, "magic, one write", 0, 0, ENOEXEC));
	/* Refused after earlier writes were taken. */
	EXPECT_NULL(restart_one(t->type, "magic", 2, 2, ENOEXEC));
	EXPECT_NULL(restart_one(t->type, "seed", seed, 10, EXDEV));
	EXPECT_NULL(restart_one(t->type, "checksum", HDR + 5, HDR + 64,
				EBADMSG));
	return NULL;
}

/* ---- images: capacity and rate target stay the filter's own ---- */

static const char *image_keeps_own_sizing(const struct vt_type *t)
{
	/* vt_fresh()'s capacities, as a window scales them */
	const uint64_t own = 12345 * vt_window_gens(t);
	const uint64_t src_cap = 1000 * vt_window_gens(t);
	struct kbloom_info src_info, dst_info, after;
	const char *msg = NULL;
	uint8_t *img;
	size_t len;
	int src, dst;

	/* By rate: capacity 1000 and a 1 % target. */
	src = vt_fresh("sem-src", t->type, 1000, 0, 0, SEED);
	EXPECT(src >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(src, "own", 0, 100) > 0, "add");
	EXPECT_OK(vt_info(src, &src_info));
	/* The same bits, k and seed, by bits: another capacity, no target. */
	dst = vt_fresh("sem-dst", t->type, 12345, src_info.bits, src_info.k, SEED);
	EXPECT(dst >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(dst, &dst_info));
	EXPECT(dst_info.nblocks == src_info.nblocks &&
	       dst_info.capacity == own && !dst_info.fp_target_ppb,
	       "setup: nblocks %llu/%llu capacity %llu target %u",
	       (unsigned long long)dst_info.nblocks,
	       (unsigned long long)src_info.nblocks,
	       (unsigned long long)dst_info.capacity,
	       dst_info.fp_target_ppb);
	img = vt_read_image(src, 1 << 16, &len);
	EXPECT(img, "read: %s", vt_errno_name(errno));
	if (vt_write_image(dst, img, len, len))
		msg = vt_fail("load: %s", vt_errno_name(errno));
	else if (vt_info(dst, &after))
		msg = vt_fail("GET_INFO: %s", vt_errno_name(errno));
	else if (after.capacity != own || after.fp_target_ppb ||
		 after.fp_design_ppb != dst_info.fp_design_ppb)
		msg = vt_fail("after load: capacity %llu target %u design %u, want %llu, 0, %u",
			      (unsigned long long)after.capacity,
			      after.fp_target_ppb, after.fp_design_ppb,
			      (unsigned long long)own, dst_info.fp_design_ppb);
	else if (after.add_calls != 100 || after.bits_set != src_info.bits_set)
		msg = vt_fail("image cells not loaded");
	/* And the other way: the rate-sized filter keeps 1000 and 1 %. */
	if (!msg) {
		free(img);
		img = vt_read_image(dst, 1 << 16, &len);
		EXPECT(img, "read: %s", vt_errno_name(errno));
		if (vt_write_image(src, img, len, 4096))
			msg = vt_fail("load back: %s", vt_errno_name(errno));
		else if (vt_info(src, &after))
			msg = vt_fail("GET_INFO: %s", vt_errno_name(errno));
		else if (after.capacity != src_cap ||
			 after.fp_target_ppb != FP_1PC)
			msg = vt_fail("loaded back: capacity %llu target %u",
				      (unsigned long long)after.capacity,
				      after.fp_target_ppb);
	}
	free(img);
	close(src);
	vt_destroy("sem-src");
	return vt_done(dst, "sem-dst", msg);
}

/* ---- DELETE through a read-only file: access before anything ---- */

/*
 * A read-only file's DELETE is EBADF before EOPNOTSUPP (test-abi's
 * reject_read_only_writes) and before ENODEV: access is judged first,
 * even once the filter is destroyed.
 */
static const char *delete_read_only_ebadf(const struct vt_type *t)
{
	struct kbloom_batch b;
	int fd, ro;

	fd = vt_fresh("sem-delro", t->type, 1000, 0, 0, SEED);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	ro = vt_open("sem-delro", O_RDONLY);
	EXPECT(ro >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_destroy("sem-delro"));
	memset(&b, 0, sizeof(b));
	EXPECT_ERRNO(ioctl(ro, KBLOOM_IOC_DELETE, &b), EBADF);
	EXPECT_ERRNO(ioctl(fd, KBLOOM_IOC_DELETE, &b), ENODEV);
	close(ro);
	close(fd);
	return NULL;
}

static const struct vt_case cases[] = {
	VT_TYPED(report_over_max_rejected),
	VT_TYPED(self_merge_is_noop),
	VT_TYPED(destroyed_lseek_enodev),
	VT_TYPED(bits_per_key_limit),
	VT_TYPED(image_header_judged_early),
	VT_TYPED(image_header_rest_when_whole),
	VT_TYPED(image_rejection_keeps_offset),
	VT_TYPED(image_keeps_own_sizing),
	VT_TYPED(delete_read_only_ebadf),
};

int main(void)
{
	return vt_run("semantics", cases, ARRAY_SIZE(cases));
}
