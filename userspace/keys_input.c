// SPDX-License-Identifier: GPL-2.0
/*
 * The key reader: keys from arguments, then from files, else from stdin,
 * split on newlines or (-0) on NUL bytes.  Keys are bytes, taken exactly:
 * nothing is trimmed, so "a\r" and "a" are different keys.  Input streams
 * through a fixed buffer into batches, so a file of any size is read in
 * bounded memory and sent in ioctls of thousands of keys.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbloomctl.h"

/* Large enough to hold the longest key and its delimiter many times. */
#define KEYS_READ_BUF	(1U << 20)

int key_batch_init(struct key_batch *b, size_t max_keys)
{
	memset(b, 0, sizeof(*b));
	b->max_keys = max_keys;
	/*
	 * Keep small keys from ending a batch early on bytes, and long keys
	 * from pinning more than the library's chunk.
	 */
	b->max_bytes = max_keys * 64;
	if (b->max_bytes < KEYS_DEFAULT_BYTES)
		b->max_bytes = KEYS_DEFAULT_BYTES;
	if (b->max_bytes > KBL_CHUNK_BYTES)
		b->max_bytes = KBL_CHUNK_BYTES;
	b->data = malloc(b->max_bytes);
	b->lens = malloc(max_keys * sizeof(*b->lens));
	if (!b->data || !b->lens) {
		key_batch_free(b);
		return fail("out of memory for a batch of %zu keys", max_keys);
	}
	return 0;
}

void key_batch_free(struct key_batch *b)
{
	free(b->data);
	free(b->lens);
	b->data = NULL;
	b->lens = NULL;
}

int key_input_init(struct key_input *in, char **args, size_t nargs,
		   char **files, size_t nfiles, int delim)
{
	memset(in, 0, sizeof(*in));
	in->args = args;
	in->nargs = nargs;
	in->files = files;
	in->nfiles = nfiles;
	in->delim = delim;
	in->fd = -1;
	in->buf = malloc(KEYS_READ_BUF);
	if (!in->buf)
		return fail("out of memory for the input buffer");
	return 0;
}

static void close_stream(struct key_input *in)
{
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	in->fd = -1;
}

void key_input_free(struct key_input *in)
{
	close_stream(in);
	free(in->buf);
	in->buf = NULL;
}

static int bad_key(const struct key_input *in, size_t len)
{
	const char *hint;
	char where[300];

	if (in->in_args)
		snprintf(where, sizeof(where), "argument %" PRIu64,
			 in->record);
	else
		snprintf(where, sizeof(where), "%s: %s %" PRIu64, in->label,
			 in->delim == '\n' ? "line" : "record", in->record);
	if (len == 0)
		return fail("%s: empty key (keys are 1 to %d bytes)", where,
			    KBLOOM_KEY_MAX);
	hint = !in->in_args && in->delim == '\n' ?
	       " (binary input? use -0 for NUL-delimited keys)" : "";
	return fail("%s: key of %zu bytes is longer than %d bytes%s", where,
		    len, KBLOOM_KEY_MAX, hint);
}

static bool batch_full(const struct key_batch *b, size_t len)
{
	return b->count == b->max_keys ||
	       (b->count && b->bytes + len > b->max_bytes);
}

static void batch_push(struct key_batch *b, const void *key, size_t len)
{
	memcpy(b->data + b->bytes, key, len);
	b->lens[b->count++] = (uint32_t)len;
	b->bytes += len;
}

/* 1 when a stream is open, 0 when no source is left, EXIT_ERR on error. */
static int open_next_stream(struct key_input *in)
{
	const char *name;

	if (!in->nargs && !in->nfiles && in->next_file == 0) {
		in->next_file++;
		name = "-";
	} else if (in->next_file < in->nfiles) {
		name = in->files[in->next_file++];
	} else {
		return 0;
	}
	if (!strcmp(name, "-")) {
		in->fd = STDIN_FILENO;
		in->label = "stdin";
	} else {
		in->fd = open(name, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0)
			return fail("cannot read keys from %s: %s", name,
				    strerror(errno));
		in->label = name;
	}
	in->record = 0;
	in->start = 0;
	in->end = 0;
	in->eof = false;
	return 1;
}

/* Reads more of the stream; returns 0 or EXIT_ERR. */
static int fill(struct key_input *in)
{
	ssize_t n;

	if (in->start > 0) {
		memmove(in->buf, in->buf + in->start, in->end - in->start);
		in->end -= in->start;
		in->start = 0;
	}
	do {
		n = read(in->fd, in->buf + in->end, KEYS_READ_BUF - in->end);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return fail("cannot read keys from %s: %s", in->label,
			    strerror(errno));
	if (n == 0)
		in->eof = true;
	in->end += (size_t)n;
	return 0;
}

/* Moves stream records into b until it is full or the stream ends. */
static int take_stream(struct key_input *in, struct key_batch *b)
{
	for (;;) {
		char *rec = in->buf + in->start;
		size_t avail = in->end - in->start;
		char *delim = memchr(rec, in->delim, avail);
		size_t len;

		if (!delim && !in->eof) {
			if (avail > KBLOOM_KEY_MAX) {
				in->record++;
				return bad_key(in, avail);
			}
			if (fill(in))
				return EXIT_ERR;
			continue;
		}
		if (!delim && avail == 0) {
			close_stream(in);
			return 0;
		}
		/* The last record may lack its delimiter. */
		len = delim ? (size_t)(delim - rec) : avail;
		if (len == 0 || len > KBLOOM_KEY_MAX) {
			in->record++;
			return bad_key(in, len);
		}
		if (batch_full(b, len))
			return 0;
		in->record++;
		batch_push(b, rec, len);
		in->start += len + (delim ? 1 : 0);
	}
}

int key_input_next(struct key_input *in, struct key_batch *b)
{
	int ret;

	b->count = 0;
	b->bytes = 0;
	while (in->next_arg < in->nargs) {
		const char *key = in->args[in->next_arg];
		size_t len = strlen(key);

		if (len == 0 || len > KBLOOM_KEY_MAX) {
			in->in_args = true;
			in->record = in->next_arg + 1;
			return bad_key(in, len);
		}
		if (batch_full(b, len))
			return 1;
		batch_push(b, key, len);
		in->next_arg++;
	}
	while (!batch_full(b, 1)) {
		if (in->fd < 0) {
			ret = open_next_stream(in);
			if (ret == 0)
				break;
			if (ret != 1)
				return EXIT_ERR;
		}
		ret = take_stream(in, b);
		if (ret)
			return EXIT_ERR;
		if (in->fd >= 0)
			break;	/* the batch is full */
	}
	return b->count ? 1 : 0;
}
