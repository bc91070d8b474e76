// SPDX-License-Identifier: GPL-2.0
/*
 * Images through read() and write() of the real device, every case once
 * per filter type: the format, short and sequential reads, bit-exact
 * restores, every image errno with the filter left unchanged, reads racing
 * adds, reads cut by a clear, and images byte for byte the filter core's.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "vmtest.h"
#include "kbloom_core.h"

#define SEED	0x1111222233334444ULL
#define FP_1PC	10000000U
#define HDR	VT_IMAGE_HDR

static int fresh(const char *name, const struct vt_type *t, uint64_t capacity)
{
	return vt_fresh(name, t->type, capacity, 0, 0, SEED);
}

/* Hidden from the compiler, which would warn about the bad pointer. */
static void *volatile bad_pointer = (void *)16;

#define HFIELD(img, f)							\
	(sizeof(((struct kbloom_image_header *)0)->f) == 8 ?		\
	 le64((img) + offsetof(struct kbloom_image_header, f)) :	\
	 sizeof(((struct kbloom_image_header *)0)->f) == 4 ?		\
	 le32((img) + offsetof(struct kbloom_image_header, f)) :	\
	 (uint32_t)((img)[offsetof(struct kbloom_image_header, f)] |	\
		    (img)[offsetof(struct kbloom_image_header, f) + 1] << 8))

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* Rewrites the CRC after the test changed the image on purpose. */
static void reseal(uint8_t *img, size_t len)
{
	put_le32(img + len - 4, crc32c_ref(img, len - 4));
}

static const char *image_format(const struct vt_type *t)
{
	struct kbloom_info info;
	uint8_t *img;
	size_t len;
	int fd;

	fd = fresh("img-format", t, 5000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "f", 0, 3000) > 0, "add");
	EXPECT_OK(vt_info(fd, &info));
	img = vt_read_image(fd, 4096, &len);
	EXPECT(img, "read: %s", vt_errno_name(errno));
	EXPECT(len == vt_image_bytes(info.nblocks), "length %zu for %llu blocks",
	       len, (unsigned long long)info.nblocks);
	EXPECT(HFIELD(img, magic) == KBLOOM_IMAGE_MAGIC &&
	       HFIELD(img, version) == KBLOOM_IMAGE_VERSION &&
	       HFIELD(img, header_bytes) == HDR, "magic/version/size");
	EXPECT(HFIELD(img, k) == info.k && HFIELD(img, type) == info.type &&
	       HFIELD(img, nblocks) == info.nblocks &&
	       HFIELD(img, seed) == SEED && HFIELD(img, capacity) == 5000 * vt_window_gens(t) &&
	       HFIELD(img, fp_target_ppb) == FP_1PC, "geometry fields");
	EXPECT(HFIELD(img, add_calls) == 3000 &&
	       HFIELD(img, add_new) == info.add_new, "counters");
	EXPECT(!HFIELD(img, flags) && !HFIELD(img, reserved[0]) &&
	       !HFIELD(img, reserved[1]) && !HFIELD(img, reserved[2]),
	       "flags/reserved not zero");
	EXPECT(le32(img + len - 4) == crc32c_ref(img, len - 4),
	       "CRC32C mismatch");
	EXPECT(vt_image_cells(img, len, t) == info.bits_set,
	       "image has %llu cells set, info %llu",
	       (unsigned long long)vt_image_cells(img, len, t),
	       (unsigned long long)info.bits_set);
	free(img);
	return vt_done(fd, "img-format", NULL);
}

/* Any read size gives the same bytes; the end reads 0 for good. */
static const char *short_reads(const struct vt_type *t)
{
	static const size_t steps[] = { 1, 3, 64, 87, 88, 89, 4095, 1 << 20 };
	uint8_t *ref, *img, c;
	size_t ref_len, len, i;
	int fd;

	fd = fresh("img-short", t, 20000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "s", 0, 10000) > 0, "add");
	ref = vt_read_image(fd, 65536, &ref_len);
	EXPECT(ref, "read: %s", vt_errno_name(errno));
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		img = vt_read_image(fd, steps[i], &len);
		EXPECT(img, "read by %zu: %s", steps[i], vt_errno_name(errno));
		EXPECT(len == ref_len && vt_image_same(img, ref, len),
		       "reads of %zu bytes differ", steps[i]);
		free(img);
	}
	EXPECT(read(fd, &c, 1) == 0 && read(fd, &c, 1) == 0,
	       "no end of file");
	free(ref);
	return vt_done(fd, "img-short", NULL);
}

static const char *reject_read_offset(const struct vt_type *t)
{
	uint8_t buf[256];
	int fd;

	fd = fresh("img-offset", t, 1000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(read(fd, buf, 100) == 100, "read");
	EXPECT_ERRNO(pread(fd, buf, 10, 50), ESPIPE);
	EXPECT_ERRNO(pread(fd, buf, 10, 101), ESPIPE);
	EXPECT_ERRNO(lseek(fd, 10, SEEK_SET), ESPIPE);
	EXPECT_ERRNO(lseek(fd, 0, SEEK_END), ESPIPE);
	EXPECT_ERRNO(lseek(fd, 5, SEEK_CUR), ESPIPE);
	/* Where it is, and rewinding, are fine; the stream goes on. */
	EXPECT(lseek(fd, 0, SEEK_CUR) == 100, "tell");
	EXPECT(pread(fd, buf, 10, 100) == 10, "pread at the stream's offset");
	EXPECT(lseek(fd, 0, SEEK_SET) == 0, "rewind");
	EXPECT(read(fd, buf, 4) == 4 && le32(buf) == KBLOOM_IMAGE_MAGIC,
	       "read after rewind");
	return vt_done(fd, "img-offset", NULL);
}

/* Restores in writes of every size reproduce the source bit for bit. */
static const char *restore_exact(const struct vt_type *t)
{
	static const size_t steps[] = { 1, 7, 88, 89, 1000, 1 << 20 };
	struct kbloom_info ia, ib;
	uint8_t *img, *back;
	size_t len, back_len, i;
	int a, b;

	a = fresh("img-src", t, 3000);
	b = fresh("img-dst", t, 3000);
	EXPECT(a >= 0 && b >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(a, "r", 0, 2500) > 0, "add");
	img = vt_read_image(a, 65536, &len);
	EXPECT(img, "read: %s", vt_errno_name(errno));
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		EXPECT_OK(ioctl(b, KBLOOM_IOC_CLEAR, 0));
		EXPECT_OK(vt_write_image(b, img, len, steps[i]));
		back = vt_read_image(b, 65536, &back_len);
		EXPECT(back, "read back: %s", vt_errno_name(errno));
		EXPECT(back_len == len && vt_image_same(back, img, len),
		       "restore by %zu-byte writes differs", steps[i]);
		free(back);
	}
	EXPECT_OK(vt_info(a, &ia));
	EXPECT_OK(vt_info(b, &ib));
	EXPECT(ia.bits_set == ib.bits_set && ia.add_calls == ib.add_calls &&
	       ia.add_new == ib.add_new && ia.fp_now_ppb == ib.fp_now_ppb,
	       "info differs after restore");
	EXPECT(vt_check_prefix(b, "r", 0, 2500) == 2500, "keys lost");
	free(img);
	close(b);
	vt_destroy("img-dst");
	return vt_done(a, "img-src", NULL);
}

static const char *restore_resets_reports(const struct vt_type *t)
{
	struct kbloom_report rep = { .false_positives = 4,
				     .true_negatives = 6 };
	struct kbloom_info info;
	uint8_t *img;
	size_t len;
	int fd;

	fd = fresh("img-reports", t, 1000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	img = vt_read_image(fd, 65536, &len);
	EXPECT(img, "read: %s", vt_errno_name(errno));
	EXPECT_OK(ioctl(fd, KBLOOM_IOC_REPORT, &rep));
	EXPECT_OK(vt_write_image(fd, img, len, len));
	EXPECT_OK(vt_info(fd, &info));
	EXPECT(!info.reported_fp && !info.reported_tn && !info.observed_fp_ppb,
	       "reports survive a load");
	free(img);
	return vt_done(fd, "img-reports", NULL);
}

/*
 * The rejection harness: a filter with keys, a valid image of a filter
 * of the same geometry to spoil, and a check that a rejected write leaves
 * the filter as it was.
 */
struct rejection {
	int fd;
	uint8_t *img;
	size_t len;
	struct vt_snap snap;
};

static const char *rejection_setup(const char *name, const struct vt_type *t,
				   struct rejection *r)
{
	int other;

	memset(r, 0, sizeof(*r));
	r->fd = fresh(name, t, 2000);
	if (r->fd < 0)
		return vt_fail("create: %s", vt_errno_name(errno));
	if (vt_add_prefix(r->fd, "keep", 0, 500) < 0)
		return vt_fail("add: %s", vt_errno_name(errno));
	other = fresh("img-other", t, 2000);
	if (other < 0)
		return vt_fail("create other: %s", vt_errno_name(errno));
	vt_add_prefix(other, "image", 0, 700);
	r->img = vt_read_image(other, 65536, &r->len);
	close(other);
	vt_destroy("img-other");
	if (!r->img)
		return vt_fail("read other: %s", vt_errno_name(errno));
	return vt_snap_take(r->fd, &r->snap);
}

static const char *rejection_done(const char *name, struct rejection *r,
				  const char *msg)
{
	if (!msg)
		msg = vt_snap_same(r->fd, &r->snap);
	else
		vt_snap_free(&r->snap);
	free(r->img);
	return vt_done(r->fd, name, msg);
}

/*
 * The end of a case whose last write completed r's image: the filter holds
 * exactly that image now.
 */
static const char *loaded_done(const char *name, struct rejection *r)
{
	size_t back_len;
	uint8_t *back = vt_read_image(r->fd, 65536, &back_len);
	const char *msg = NULL;

	if (!back || back_len != r->len || !vt_image_same(back, r->img, r->len))
		msg = vt_fail("image not loaded");
	free(back);
	free(r->img);
	return vt_done(r->fd, name, msg);
}

/* A write of the whole image at once, on a fresh file; -1 and errno. */
static int write_whole(const char *name, const uint8_t *img, size_t len)
{
	int fd = vt_open(name, O_WRONLY), ret, saved;

	if (fd < 0)
		return -1;
	ret = write(fd, img, len) == (ssize_t)len ? 0 : -1;
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

#define REJECTION(fn, name, want, spoil)				\
	static const char *fn(const struct vt_type *t)			\
	{								\
		struct rejection r;					\
		const char *msg = rejection_setup(name, t, &r);		\
		uint8_t *img = r.img;					\
		size_t len = r.len;					\
									\
		if (!msg) {						\
			spoil;						\
			errno = 0;					\
			if (write_whole(name, img, len) != -1 ||	\
			    errno != (want))				\
				msg = vt_fail("write: %s, want %s",	\
					      vt_errno_name(errno),	\
					      vt_errno_name(want));	\
		}							\
		(void)img;						\
		(void)len;						\
		return rejection_done(name, &r, msg);			\
	}

REJECTION(reject_image_magic, "img-magic", ENOEXEC,
	  (img[0] ^= 1, reseal(img, len)))
REJECTION(reject_image_version, "img-version", EPROTO,
	  (img[4] = KBLOOM_IMAGE_VERSION_CHAIN + 1, reseal(img, len)))
/* A scalable filter's version: an image of another kind of filter. */
REJECTION(reject_image_version_chain, "img-version4", EXDEV,
	  (img[4] = KBLOOM_IMAGE_VERSION_CHAIN, reseal(img, len)))
REJECTION(reject_image_version_zero, "img-version0", EPROTO,
	  (img[4] = 0, reseal(img, len)))
REJECTION(reject_image_header_size, "img-hsize", EINVAL,
	  (img[6] = (HDR + 8) & 0xff, img[7] = (HDR + 8) >> 8,
	   reseal(img, len)))
REJECTION(reject_image_flags, "img-flags", EINVAL,
	  (img[offsetof(struct kbloom_image_header, flags)] = 1,
	   reseal(img, len)))
REJECTION(reject_image_reserved, "img-reserved", EINVAL,
	  (img[offsetof(struct kbloom_image_header, reserved) + 23] = 1,
	   reseal(img, len)))
REJECTION(reject_image_k_invalid, "img-k0", EINVAL,
	  (memset(img + offsetof(struct kbloom_image_header, k), 0, 4),
	   reseal(img, len)))
REJECTION(reject_image_type, "img-type", EINVAL,
	  (img[offsetof(struct kbloom_image_header, type)] = 7,
	   reseal(img, len)))
REJECTION(reject_image_seed, "img-seed", EXDEV,
	  (img[offsetof(struct kbloom_image_header, seed)] ^= 1,
	   reseal(img, len)))
REJECTION(reject_image_k_differs, "img-k", EXDEV,
	  (img[offsetof(struct kbloom_image_header, k)] =
		img[offsetof(struct kbloom_image_header, k)] == 1 ? 2 : 1,
	   reseal(img, len)))
REJECTION(reject_image_nblocks, "img-nblocks", EXDEV,
	  (img[offsetof(struct kbloom_image_header, nblocks)] += 1,
	   reseal(img, len)))
REJECTION(reject_image_crc_bits, "img-crc-bits", EBADMSG,
	  img[HDR + 100] ^= 0x10)
REJECTION(reject_image_crc_header, "img-crc-hdr", EBADMSG,
	  img[offsetof(struct kbloom_image_header, add_calls)] ^= 1)
REJECTION(reject_image_crc_value, "img-crc-value", EBADMSG,
	  img[len - 1] ^= 0x80)
REJECTION(reject_image_too_long, "img-long", EMSGSIZE,
	  (img = realloc(r.img, len + 1), r.img = img, img[len++] = 0))

/*
 * The first n bytes of a good image (all but its last byte when n is 0)
 * on a fresh file: the close() reports the image as incomplete.
 */
static const char *close_incomplete(const struct vt_type *t,
				    const char *name, size_t n)
{
	struct rejection r;
	const char *msg = rejection_setup(name, t, &r);
	int fd;

	if (msg)
		return rejection_done(name, &r, msg);
	n = n ? n : r.len - 1;
	fd = vt_open(name, O_WRONLY);
	if (fd < 0 || write(fd, r.img, n) != (ssize_t)n)
		msg = vt_fail("write: %s", vt_errno_name(errno));
	else if (close(fd) != -1 || errno != ENODATA)
		msg = vt_fail("close: %s, want ENODATA", vt_errno_name(errno));
	return rejection_done(name, &r, msg);
}

static const char *reject_image_truncated(const struct vt_type *t)
{
	return close_incomplete(t, "img-trunc", 0);
}

static const char *reject_image_header_only(const struct vt_type *t)
{
	return close_incomplete(t, "img-hdronly", 10);
}

/* A byte past a complete image: the image loaded, the byte refused. */
static const char *reject_image_byte_after_end(const struct vt_type *t)
{
	struct rejection r;
	const char *msg = rejection_setup("img-after", t, &r);
	int fd;

	if (msg)
		return rejection_done("img-after", &r, msg);
	vt_snap_free(&r.snap);
	fd = vt_open("img-after", O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT(write(fd, r.img, r.len) == (ssize_t)r.len, "write: %s",
	       vt_errno_name(errno));
	EXPECT_ERRNO(write(fd, "x", 1), EMSGSIZE);
	EXPECT_OK(close(fd));
	return loaded_done("img-after", &r);
}

static const char *reject_write_offset(const struct vt_type *t)
{
	struct rejection r;
	const char *msg = rejection_setup("img-woff", t, &r);
	int fd;

	if (msg)
		return rejection_done("img-woff", &r, msg);
	fd = vt_open("img-woff", O_WRONLY);
	if (fd < 0 || write(fd, r.img, 100) != 100)
		msg = vt_fail("write: %s", vt_errno_name(errno));
	else if (pwrite(fd, r.img + 500, 100, 500) != -1 || errno != ESPIPE)
		msg = vt_fail("pwrite: %s, want ESPIPE", vt_errno_name(errno));
	if (fd >= 0)
		close(fd);
	return rejection_done("img-woff", &r, msg);
}

static const char *reject_write_bad_pointer(const struct vt_type *t)
{
	struct rejection r;
	const char *msg = rejection_setup("img-wptr", t, &r);
	int fd;

	if (msg)
		return rejection_done("img-wptr", &r, msg);
	fd = vt_open("img-wptr", O_WRONLY);
	if (fd < 0 || write(fd, bad_pointer, r.len) != -1 || errno != EFAULT)
		msg = vt_fail("write: %s, want EFAULT", vt_errno_name(errno));
	/* Part of a good image, then a fault: nothing loads. */
	else if (write(fd, r.img, 200) != 200 ||
		 write(fd, bad_pointer, r.len - 200) != -1 || errno != EFAULT)
		msg = vt_fail("second write: %s, want EFAULT",
			      vt_errno_name(errno));
	if (fd >= 0)
		close(fd);
	return rejection_done("img-wptr", &r, msg);
}

/*
 * A child's close of its inherited copy of fd, as its exit would do: its
 * errno, or 0.
 */
static int close_in_child(int fd)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (!pid)
		_exit(close(fd) ? errno : 0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return EIO;
	return WEXITSTATUS(status);
}

/*
 * Half an image, then closes of a dup() and of a child's inherited copy:
 * they are not the last close of the open file, so they report nothing,
 * and the rest of the image, written through the first descriptor, loads.
 */
static const char *close_dup_midway(const struct vt_type *t)
{
	size_t half;
	struct rejection r;
	const char *msg = rejection_setup("img-dup", t, &r);
	int fd, dup_fd, err;

	if (msg)
		return rejection_done("img-dup", &r, msg);
	vt_snap_free(&r.snap);
	half = r.len / 2;
	fd = vt_open("img-dup", O_WRONLY);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT(write(fd, r.img, half) == (ssize_t)half, "write: %s",
	       vt_errno_name(errno));
	dup_fd = dup(fd);
	EXPECT(dup_fd >= 0, "dup: %s", vt_errno_name(errno));
	EXPECT_OK(close(dup_fd));
	err = close_in_child(fd);
	EXPECT(!err, "a child's close of its inherited copy: %s, want 0",
	       vt_errno_name(err));
	EXPECT(write(fd, r.img + half, r.len - half) == (ssize_t)(r.len - half),
	       "write of the rest: %s", vt_errno_name(errno));
	EXPECT_OK(close(fd));
	return loaded_done("img-dup", &r);
}

/* The last close after a dup's still reports the truncated image. */
static const char *close_last_after_dup(const struct vt_type *t)
{
	struct rejection r;
	const char *msg = rejection_setup("img-duplast", t, &r);
	int fd, dup_fd = -1;

	if (msg)
		return rejection_done("img-duplast", &r, msg);
	fd = vt_open("img-duplast", O_WRONLY);
	if (fd < 0 || write(fd, r.img, r.len / 2) != (ssize_t)(r.len / 2))
		msg = vt_fail("write: %s", vt_errno_name(errno));
	else if ((dup_fd = dup(fd)) < 0 || close(fd))
		msg = vt_fail("close of the first of two: %s, want 0",
			      vt_errno_name(errno));
	else if (close(dup_fd) != -1 || errno != ENODATA)
		msg = vt_fail("last close: %s, want ENODATA",
			      vt_errno_name(errno));
	return rejection_done("img-duplast", &r, msg);
}

/*
 * A rejected pwrite() leaves the file offset where write() put it: pwrite
 * moves no offset, and a failing call none either.
 */
static const char *reject_pwrite_keeps_offset(const struct vt_type *t)
{
	struct rejection r;
	const char *msg = rejection_setup("img-pwoff", t, &r);
	off_t at;
	int fd;

	if (msg)
		return rejection_done("img-pwoff", &r, msg);
	fd = vt_open("img-pwoff", O_WRONLY);
	if (fd < 0 || write(fd, r.img, 100) != 100) {
		msg = vt_fail("write: %s", vt_errno_name(errno));
	} else {
		r.img[0] ^= 0xff;	/* a bad magic: ENOEXEC */
		if (pwrite(fd, r.img, r.len, 0) != -1 || errno != ENOEXEC)
			msg = vt_fail("pwrite: %s, want ENOEXEC",
				      vt_errno_name(errno));
		else if ((at = lseek(fd, 0, SEEK_CUR)) != 100)
			msg = vt_fail("file offset %lld after a rejected "
				      "pwrite(), want 100", (long long)at);
	}
	if (fd >= 0)
		close(fd);
	return rejection_done("img-pwoff", &r, msg);
}

/*
 * A write() rejected part way leaves the offset where it found it; the
 * next image starts at offset 0 (ESPIPE elsewhere) and loads.
 */
static const char *reject_write_then_rewind(const struct vt_type *t)
{
	uint8_t *bad;
	struct rejection r;
	const char *msg = rejection_setup("img-wrew", t, &r);
	off_t at;
	int fd;

	if (msg)
		return rejection_done("img-wrew", &r, msg);
	vt_snap_free(&r.snap);
	bad = malloc(r.len);
	EXPECT(bad, "malloc");
	memcpy(bad, r.img, r.len);
	bad[offsetof(struct kbloom_image_header, seed)] ^= 1;	/* EXDEV */
	fd = vt_open("img-wrew", O_WRONLY);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT(write(fd, bad, 10) == 10, "write: %s", vt_errno_name(errno));
	EXPECT_ERRNO(write(fd, bad + 10, r.len - 10), EXDEV);
	at = lseek(fd, 0, SEEK_CUR);
	EXPECT(at == 10, "file offset %lld after the rejected write(), want "
	       "10, where it was", (long long)at);
	EXPECT_ERRNO(write(fd, r.img, r.len), ESPIPE);
	EXPECT(lseek(fd, 0, SEEK_SET) == 0, "rewind: %s", vt_errno_name(errno));
	EXPECT(write(fd, r.img, r.len) == (ssize_t)r.len, "write after "
	       "rewinding: %s", vt_errno_name(errno));
	EXPECT_OK(close(fd));
	free(bad);
	return loaded_done("img-wrew", &r);
}

static const char *reject_read_bad_pointer(const struct vt_type *t)
{
	int fd = fresh("img-rptr", t, 1000);

	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_ERRNO(read(fd, bad_pointer, 4096), EFAULT);
	/* The failed stream does not poison the next one. */
	EXPECT(lseek(fd, 0, SEEK_SET) == 0, "rewind");
	{
		uint8_t buf[8];

		EXPECT(read(fd, buf, 8) == 8 && le32(buf) == KBLOOM_IMAGE_MAGIC,
		       "read after EFAULT");
	}
	return vt_done(fd, "img-rptr", NULL);
}

/* A CLEAR between two reads of one stream ends it: no spliced image. */
static const char *read_cut_by_clear(const struct vt_type *t)
{
	uint8_t buf[4096];
	int fd, other;

	fd = fresh("img-stale", t, 100000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	other = vt_open("img-stale", O_RDWR);
	EXPECT(other >= 0, "open: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "x", 0, 1000) > 0, "add");
	EXPECT(read(fd, buf, sizeof(buf)) == sizeof(buf), "read");
	EXPECT_OK(ioctl(other, KBLOOM_IOC_CLEAR, 0));
	EXPECT_ERRNO(read(fd, buf, sizeof(buf)), ESTALE);
	EXPECT_ERRNO(read(fd, buf, sizeof(buf)), ESTALE);
	/* Adds and merges do not cut a stream (they only set bits)... */
	EXPECT(lseek(fd, 0, SEEK_SET) == 0, "rewind");
	EXPECT(read(fd, buf, sizeof(buf)) == sizeof(buf), "read");
	EXPECT(vt_add_prefix(other, "y", 0, 1000) > 0, "add");
	EXPECT(read(fd, buf, sizeof(buf)) == sizeof(buf), "read after add");
	{
		struct kbloom_other o = { .fd = fd };

		EXPECT_OK(ioctl(other, KBLOOM_IOC_MERGE, &o));
	}
	EXPECT(read(fd, buf, sizeof(buf)) == sizeof(buf), "read after merge");
	/* ...an intersect does. */
	{
		struct kbloom_other o = { .fd = fd };

		EXPECT_OK(ioctl(other, KBLOOM_IOC_INTERSECT, &o));
	}
	EXPECT_ERRNO(read(fd, buf, sizeof(buf)), ESTALE);
	/* After a rewind the stream starts over from the bits as they are. */
	EXPECT(lseek(fd, 0, SEEK_SET) == 0, "rewind");
	EXPECT_OK(ioctl(other, KBLOOM_IOC_CLEAR, 0));
	EXPECT(read(fd, buf, sizeof(buf)) == sizeof(buf), "read after clear");
	close(other);
	return vt_done(fd, "img-stale", NULL);
}

/*
 * A child adds keys all the time; each round the parent adds a batch of
 * its own, reads the image, restores it into a twin and checks that every
 * key of every finished batch is there.
 */
static const char *read_racing_adds(const struct vt_type *t)
{
	const uint32_t rounds = 20, per_round = 2000;
	uint32_t r;
	long found = 0;
	pid_t child;
	int fd, twin, status;
	uint8_t *img;
	size_t len;

	fd = fresh("img-race", t, 200000);
	twin = fresh("img-twin", t, 200000);
	EXPECT(fd >= 0 && twin >= 0, "create: %s", vt_errno_name(errno));
	child = fork();
	EXPECT(child >= 0, "fork");
	if (child == 0) {
		uint64_t i;

		for (i = 0;; i += 500)
			if (vt_add_prefix(fd, "noise", i, 500) < 0)
				_exit(errno == ENODEV ? 0 : 1);
	}
	for (r = 0; r < rounds; r++) {
		if (vt_add_prefix(fd, "done", (uint64_t)r * per_round,
				  per_round) < 0)
			break;
		img = vt_read_image(fd, 8192, &len);
		if (!img)
			break;
		if (vt_write_image(twin, img, len, len)) {
			free(img);
			break;
		}
		free(img);
		found = vt_check_prefix(twin, "done", 0, (r + 1) * per_round);
		if (found != (long)((r + 1) * per_round))
			break;
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	EXPECT(r == rounds, "round %u: %s; %ld of %u keys in the image", r,
	       vt_errno_name(errno), found, (r + 1) * per_round);
	close(twin);
	vt_destroy("img-twin");
	return vt_done(fd, "img-race", NULL);
}

/* ---- images of every type, byte for byte the filter core's ---- */

static int sh(const char *cmd)
{
	int status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t *buf;
	struct stat st;
	ssize_t got;

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc(st.st_size + 1);
	got = buf ? read(fd, buf, st.st_size + 1) : -1;
	close(fd);
	if (got < 0) {
		free(buf);
		return NULL;
	}
	*len = got;
	return buf;
}

/*
 * The keys of image_round_trip_with_cat: "img-0".."img-2999", the first
 * five added 25 times more (a counter sticks at its largest count), and,
 * where the type deletes, "img-1000".."img-1999" deleted again.
 */
static const char *feed(int fd, const struct vt_type *t)
{
	int j;

	EXPECT(vt_add_prefix(fd, "img", 0, 3000) > 0, "add");
	for (j = 0; j < 25; j++)
		EXPECT(vt_add_prefix(fd, "img", 0, 5) >= 0, "add");
	if (t->caps & VT_DELETES)
		EXPECT(vt_delete_prefix(fd, "img", 1000, 1000) == 1000,
		       "delete");
	return NULL;
}

/* The core's image of a filter fed as feed() feeds the device's. */
static uint8_t *core_image(const struct vt_type *t,
			   const struct kbloom_info *info, size_t *len)
{
	struct kbloom_geometry g = {
		.nblocks = info->nblocks, .capacity = info->capacity,
		.seed = info->seed, .k = info->k, .type = info->type,
		.fp_target_ppb = info->fp_target_ppb,
		.generations = t->generations,
		.plane_order = t->generations ?
			       kbloom_plane_order(t->generations) : 0,
	};
	struct kbloom_image_cursor cur;
	struct kbloom_filter f;
	char key[32];
	uint8_t *img;
	int i, j;

	if (kbloom_filter_init(&f, &g))
		return NULL;
	for (i = 0; i < 3000; i++)
		kbloom_add(&f, key, sprintf(key, "img-%d", i));
	for (j = 0; j < 25; j++)
		for (i = 0; i < 5; i++)
			kbloom_add(&f, key, sprintf(key, "img-%d", i));
	for (i = 1000; i < 2000 && (t->caps & VT_DELETES); i++)
		kbloom_delete(&f, key, sprintf(key, "img-%d", i));
	img = malloc(kbloom_image_bytes(&g));
	if (img) {
		kbloom_image_start(&f, &cur);
		*len = kbloom_image_emit(&f, &cur, img, kbloom_image_bytes(&g));
	}
	kbloom_filter_free(&f);
	return img;
}

/*
 * cat out and cat in: the image is the core's, its header names the type,
 * the restored cells answer (and delete) as the originals, and a filter
 * of another type with the same blocks, k and seed refuses it.
 */
static const char *image_round_trip_with_cat(const struct vt_type *t)
{
	struct kbloom_info src, dst;
	size_t len = 0, core_len = 0;
	const struct vt_type *u;
	uint8_t *img, *core;
	int fd, to, other;

	fd = fresh("img-cat", t, 3000);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_NULL(feed(fd, t));
	EXPECT_OK(vt_info(fd, &src));

	EXPECT(!sh("cat /dev/kbloom/img-cat > /tmp/img-cat.img"), "cat out");
	img = read_file("/tmp/img-cat.img", &len);
	EXPECT(img && len == vt_image_bytes(src.nblocks), "image %zu bytes",
	       len);
	EXPECT(HFIELD(img, type) == t->type, "header type %u",
	       (unsigned int)HFIELD(img, type));
	EXPECT(le32(img + len - 4) == crc32c_ref(img, len - 4), "bad CRC");
	core = core_image(t, &src, &core_len);
	/* But for the time since the last rotation, which the module fills. */
	EXPECT(core && core_len == len && vt_image_same(core, img, len),
	       "the kernel's image differs from the core's (%zu vs %zu bytes)",
	       len, core_len);
	free(core);

	to = fresh("img-cat2", t, 3000);
	EXPECT(to >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(to, "other", 0, 50) > 0, "add");
	if (t->caps & VT_DELETES)
		EXPECT(vt_delete_prefix(to, "other", 0, 5) == 5, "delete");
	EXPECT(!sh("cat /tmp/img-cat.img > /dev/kbloom/img-cat2"), "cat in");
	EXPECT_OK(vt_info(to, &dst));
	EXPECT(dst.bits_set == src.bits_set && dst.add_calls == src.add_calls &&
	       dst.add_new == src.add_new && !dst.delete_calls &&
	       !dst.delete_hits, "loaded: %llu cells, %llu adds, %llu deletes",
	       (unsigned long long)dst.bits_set,
	       (unsigned long long)dst.add_calls,
	       (unsigned long long)dst.delete_calls);
	EXPECT(vt_check_prefix(to, "img", 0, 1000) == 1000 &&
	       vt_check_prefix(to, "img", 2000, 1000) == 1000,
	       "keys of the image lost");
	/* The restored counters delete as the originals. */
	if (t->caps & VT_DELETES) {
		EXPECT(vt_delete_prefix(to, "img", 2000, 1000) == 1000,
		       "keys of the image not deletable");
		EXPECT(vt_check_prefix(to, "img", 0, 5) == 5,
		       "saturated keys lost");
		EXPECT(vt_delete_prefix(to, "img", 5, 995) == 995,
		       "delete rest");
	}
	close(to);
	vt_destroy("img-cat2");

	vt_for_each_type(u, 0) {
		if (u == t)
			continue;
		other = vt_fresh_like("img-cat-other", u->type, &src);
		EXPECT(other >= 0, "create: %s", vt_errno_name(errno));
		EXPECT_ERRNO(vt_write_image(other, img, len, len), EXDEV);
		close(other);
		vt_destroy("img-cat-other");
	}
	free(img);
	unlink("/tmp/img-cat.img");
	return vt_done(fd, "img-cat", NULL);
}

static const struct vt_case cases[] = {
	/* reads and restores */
	VT_TYPED(image_format),
	VT_TYPED(short_reads),
	VT_TYPED(reject_read_offset),
	VT_TYPED(restore_exact),
	VT_TYPED(restore_resets_reports),
	/* each refused image, the filter left as it was */
	VT_TYPED(reject_image_magic),
	VT_TYPED(reject_image_version),
	VT_TYPED(reject_image_version_chain),
	VT_TYPED(reject_image_version_zero),
	VT_TYPED(reject_image_header_size),
	VT_TYPED(reject_image_flags),
	VT_TYPED(reject_image_reserved),
	VT_TYPED(reject_image_k_invalid),
	VT_TYPED(reject_image_type),
	VT_TYPED(reject_image_seed),
	VT_TYPED(reject_image_k_differs),
	VT_TYPED(reject_image_nblocks),
	VT_TYPED(reject_image_crc_bits),
	VT_TYPED(reject_image_crc_header),
	VT_TYPED(reject_image_crc_value),
	VT_TYPED(reject_image_too_long),
	VT_TYPED(reject_image_truncated),
	VT_TYPED(reject_image_header_only),
	VT_TYPED(close_dup_midway),
	VT_TYPED(close_last_after_dup),
	VT_TYPED(reject_image_byte_after_end),
	/* the file offset and bad buffers */
	VT_TYPED(reject_write_offset),
	VT_TYPED(reject_write_bad_pointer),
	VT_TYPED(reject_pwrite_keeps_offset),
	VT_TYPED(reject_write_then_rewind),
	VT_TYPED(reject_read_bad_pointer),
	/* streams against changes */
	VT_TYPED(read_cut_by_clear),
	VT_TYPED(read_racing_adds),
	VT_TYPED(image_round_trip_with_cat),
};

int main(void)
{
	return vt_run("image-io", cases, ARRAY_SIZE(cases));
}
