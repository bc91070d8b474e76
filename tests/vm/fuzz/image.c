// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's image operations (see fuzz-ioctl.c): whole images read in
 * random chunks, kept, written back whole, mutated or cut; bad buffers,
 * seeks of the image stream.
 */
#include "../fuzz-ioctl.h"

/*
 * The image stream back at its start; 0 or the errno.  A destroyed filter
 * refuses the seek as it refuses the stream.
 */
static int rewind_image(struct worker *w, enum op op, int fd, errset allowed)
{
	return outcome(w, op, sys_err(lseek(fd, 0, SEEK_SET)),
		       ALLOW(0) | (allowed & ALLOW(ENODEV)), "lseek 0");
}

/*
 * Reads a whole image from fd in random chunks into w->iobuf.  Returns 0
 * with *len set, or the first errno (op decides which are allowed).
 */
int read_image(struct worker *w, enum op op, int fd, errset allowed,
	       size_t *len)
{
	size_t have = 0;
	ssize_t n;
	int e;

	e = rewind_image(w, op, fd, allowed);
	if (e)
		return e;
	for (;;) {
		size_t chunk = st_one_in(&w->rng, 2) ?
			       1 + st_below(&w->rng, 100) :
			       1 + st_below(&w->rng, 70000);

		if (chunk > IMAGE_CAP + 1 - have)
			chunk = IMAGE_CAP + 1 - have;
		if (!chunk)
			return E2BIG;	/* too big to keep; not an error */
		n = read(fd, w->iobuf + have, chunk);
		e = sys_err(n);
		if (outcome(w, op, e, allowed, "read image"))
			return e;
		if (!n)
			break;
		have += n;
	}
	*len = have;
	return 0;
}

/* A complete image read from a filter must be well formed. */
bool image_sane(struct worker *w, enum op op, const uint8_t *img,
		size_t len)
{
	const struct kbloom_image_header *h = (const void *)img;
	uint32_t crc;

	/* Version 4 (a scalable filter's): its header_bytes say. */
	if (len < sizeof(*h) + 4 || h->magic != KBLOOM_IMAGE_MAGIC ||
	    len != (h->version == KBLOOM_IMAGE_VERSION_CHAIN ?
		    h->header_bytes + h->nblocks * 64 + 4 :
		    st_image_bytes(h->nblocks))) {
		record_fail(w, F_RESULT, "worker %d %s: image of %zu bytes malformed",
			    w->id, op_names[op], len);
		return false;
	}
	memcpy(&crc, img + len - 4, 4);
	if (crc != crc32c_ref(img, len - 4)) {
		record_fail(w, F_RESULT, "worker %d %s: image CRC wrong",
			    w->id, op_names[op]);
		return false;
	}
	return true;
}

static void keep_image(struct worker *w, const uint8_t *img, size_t len)
{
	int i = w->nimg < MAX_IMAGES ? w->nimg++ :
					(int)st_below(&w->rng, MAX_IMAGES);

	memcpy(w->img[i], img, len);
	w->img_len[i] = len;
}

/*
 * Writes len bytes of buf to fd from offset 0 in random chunks.  Returns 0
 * or the first errno.
 */
int write_image(struct worker *w, enum op op, int fd,
		const uint8_t *buf, size_t len, errset allowed)
{
	size_t done = 0;
	ssize_t n;
	int e;

	e = rewind_image(w, op, fd, allowed);
	if (e)
		return e;
	while (done < len) {
		size_t chunk = st_one_in(&w->rng, 3) ?
			       1 + st_below(&w->rng, 200) : len - done;

		if (chunk > len - done)
			chunk = len - done;
		n = write(fd, buf + done, chunk);
		e = sys_err(n);
		if (outcome(w, op, e, allowed, "write image"))
			return e;
		if (n == 0 || (size_t)n > chunk) {
			record_fail(w, F_RESULT, "worker %d %s: write returned %zd of %zu",
				    w->id, op_names[op], n, chunk);
			return EIO;
		}
		done += n;
	}
	return 0;
}

void do_read(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	size_t len;

	if (!p)
		return do_open(w);
	if (!can_read(p)) {
		outcome(w, OP_read, sys_err(read(p->fd, w->iobuf, 64)),
			ALLOW(EBADF), "read on O_WRONLY");
		return;
	}
	if (p->shared) {
		read_image(w, OP_read, p->fd,
			   ALLOW(0, ENODEV, ESTALE, ESPIPE), &len);
		return;
	}
	/* ESTALE: a clear, merge or load rewrote the filter mid-stream. */
	if (read_image(w, OP_read, p->fd, ALLOW(0, ENODEV, ESTALE), &len))
		return;
	if (image_sane(w, OP_read, w->iobuf, len))
		keep_image(w, w->iobuf, len);
}

void do_read_bad(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	ssize_t n;

	if (!p)
		return do_open(w);
	if (st_one_in(&w->rng, 2)) {
		/*
		 * Not where the stream is: there is no random access (on
		 * the shared file, another worker's stream may be there).
		 */
		n = pread(p->fd, w->iobuf, 64, 1 + st_below(&w->rng, 5000));
		outcome(w, OP_read_bad, sys_err(n),
			can_read(p) ? ALLOW(0, ESPIPE, ENODEV, ESTALE) :
			ALLOW(EBADF), "pread");
		return;
	}
	/* Whole-range bad only: a short image could fit a straddle. */
	lseek(p->fd, 0, SEEK_SET);
	n = read(p->fd, bad_ptr_kind(w, 4096, true, false), 4096);
	outcome(w, OP_read_bad, sys_err(n),
		!can_read(p) ? ALLOW(EBADF) :
		/* EFAULT also from the VFS, for a kernel address. */
		p->shared ? ALLOW(0, EFAULT, ENODEV, ESTALE, ESPIPE) :
			    ALLOW(EFAULT, ENODEV),
		"read into a bad buffer");
}

void do_write(struct worker *w, enum op op)
{
	struct pool_fd *p = pick_fd(w);
	errset allowed;
	bool whole = true;
	size_t len, i;
	int e;

	if (!p)
		return do_open(w);
	if (!w->nimg)
		return do_read(w);
	i = st_below(&w->rng, w->nimg);
	len = w->img_len[i];
	memcpy(w->iobuf, w->img[i], len);
	if (!can_write(p)) {
		outcome(w, op, sys_err(write(p->fd, w->iobuf, len)),
			ALLOW(EBADF), "write on O_RDONLY");
		return;
	}
	/* E2BIG: the staged image would take the module past max_total_bytes. */
	allowed = ALLOW(0, EXDEV, ENODEV, E2BIG);
	if (op == OP_write_mutated || p->shared) {
		allowed = ALLOW(0, ENOEXEC, EPROTO, EINVAL, EXDEV, EMSGSIZE,
				EBADMSG, ENODEV, E2BIG);
		if (p->shared)
			allowed |= ALLOW(ESPIPE);
	}
	if (op == OP_write_mutated) {
		switch (st_below(&w->rng, 6)) {
		case 0: {
			/* Random damage, CRC recomputed half the time. */
			uint32_t flips = 1 + st_below(&w->rng, 8), crc;

			while (flips--)
				w->iobuf[st_below(&w->rng, len)] ^=
					1 << st_below(&w->rng, 8);
			if (st_one_in(&w->rng, 2)) {
				crc = crc32c_ref(w->iobuf, len - 4);
				memcpy(w->iobuf + len - 4, &crc, 4);
			}
			break;
		}
		case 1:
			/* A truncated image: partial, then abandoned. */
			len = st_below(&w->rng, len);
			whole = false;
			break;
		case 2: {
			/* Longer than its header says. */
			size_t extra = 1 + st_below(&w->rng, 100);

			st_fill(&w->rng, w->iobuf + len, extra);
			len += extra;
			break;
		}
		case 3:
			/* Noise from the start. */
			st_fill(&w->rng, w->iobuf, len);
			break;
		case 4: {
			/* A header field changed, CRC fixed. */
			uint32_t crc;

			w->iobuf[st_below(&w->rng, ST_IMAGE_HDR)] =
				st_next(&w->rng);
			crc = crc32c_ref(w->iobuf, len - 4);
			memcpy(w->iobuf + len - 4, &crc, 4);
			break;
		}
		default:
			/* Whole-range bad: a readable head would be parsed. */
			lseek(p->fd, 0, SEEK_SET);
			e = sys_err(write(p->fd, bad_ptr_kind(w, len, false, false),
					  len));
			outcome(w, op, e, p->shared ?
				ALLOW(EFAULT, ENODEV, ESPIPE, EMSGSIZE) :
				ALLOW(EFAULT, ENODEV),
				"write from a bad buffer");
			return;
		}
	}
	/* A scalable filter grows to the image's sub-filters first. */
	if (p->scalable)
		allowed |= ALLOW(ENOMEM);
	e = write_image(w, op, p->fd, w->iobuf, len, allowed);
	if (!e && whole)
		w->st->images_loaded++;
}

void do_seek(struct worker *w)
{
	struct pool_fd *p = pick_fd(w);
	int whence = st_below(&w->rng, 7);
	off_t off = st_one_in(&w->rng, 2) ? 0 : (off_t)st_below(&w->rng, 1 << 20);
	off_t r;
	int e;

	if (!p)
		return do_open(w);
	r = lseek(p->fd, off, whence);
	e = sys_err(r);
	/* The VFS judges whence; the module then refuses a dead filter. */
	if (whence > SEEK_HOLE)
		outcome(w, OP_seek, e, ALLOW(EINVAL), "lseek bad whence");
	else if (whence == SEEK_SET && !off)
		outcome(w, OP_seek, e, ALLOW(0, ENODEV), "lseek 0");
	else if (whence == SEEK_CUR && !off)
		outcome(w, OP_seek, e, ALLOW(0, ENODEV), "lseek cur");
	else
		outcome(w, OP_seek, e, ALLOW(ESPIPE, ENODEV), "lseek elsewhere");
}
