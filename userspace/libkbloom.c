// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libkbloom: the ioctls of the kbloom device behind plain C calls, and
 * checks answered from a mapped filter when the handle is mapped
 * (libkbloom_map.c), falling back to the ioctl for a check that raced a
 * rewrite of the whole filter.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <endian.h>

#include "kbloom.h"
#include "libkbloom_image.h"
#include "libkbloom_map.h"

/* An image: header, 64 bytes per block, then a CRC32C. */
#define KBLOOM_IMAGE_BLOCK	64U
#define KBLOOM_IMAGE_TRAILER	4U
#define KBLOOM_IO_CHUNK		(1U << 20)

struct kbl {
	int fd;
	char name[KBLOOM_NAME_MAX];
	uint64_t ioctls;
	char *scratch;		/* packed keys for the *_keys() calls */
	size_t scratch_cap;
	uint32_t *scratch_lens;
	size_t scratch_lens_cap;
	struct kbl_map *map;	/* kbl_map(): checks answer from it */
};

static int neg_errno(void)
{
	return errno ? -errno : -EIO;
}

/* ioctl(), restarted when a signal interrupts it. */
static int restarting_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? neg_errno() : ret;
}

static int do_ioctl(const struct kbl *f, unsigned long cmd, void *arg)
{
	struct kbl *mf = (struct kbl *)f;
	int ret = restarting_ioctl(f->fd, cmd, arg);

	__atomic_fetch_add(&mf->ioctls, 1, __ATOMIC_RELAXED);
	return ret;
}

int kbl_check_name(const char *name)
{
	size_t i, len;

	if (!name)
		return -EINVAL;
	len = strlen(name);
	if (len == 0 || len >= KBLOOM_NAME_MAX)
		return -EINVAL;
	/* "." and ".." would make /dev/kbloom/<name> a directory. */
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return -EINVAL;
	}
	return 0;
}

int kbl_node_path(const char *name, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%s", KBL_DEV_DIR, name);

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

static int control_ioctl(unsigned long cmd, void *arg)
{
	int fd, ret;

	fd = open(KBL_CONTROL_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return neg_errno();
	ret = restarting_ioctl(fd, cmd, arg);
	close(fd);
	return ret < 0 ? ret : 0;
}

/* Copies a valid name into a zeroed request, which NUL-pads it. */
static int request_name(char *field, const char *name)
{
	int ret = kbl_check_name(name);

	if (!ret)
		memcpy(field, name, strlen(name));
	return ret;
}

/*
 * What the module would refuse of a scalable filter, refused here: the
 * errno then does not depend on whether the module is loaded, or is one
 * old enough to know nothing of expansion.
 */
static bool expansion_valid(const struct kbl_spec *spec)
{
	if (!spec->expansion)
		return true;
	return spec->expansion <= KBLOOM_EXPANSION_MAX &&
	       spec->type != KBLOOM_TYPE_WINDOW && !spec->bits &&
	       !spec->bits_per_key && !spec->k;
}

int kbl_create_sized(const char *name, const struct kbl_spec *spec_arg,
		     size_t size)
{
	struct kbloom_create req;
	struct kbl_spec spec;
	size_t i;
	int ret;

	memset(&req, 0, sizeof(req));
	ret = request_name(req.name, name);
	if (ret)
		return ret;
	if (!spec_arg || size < KBL_SPEC_SIZE_0_1)
		return -EINVAL;
	/*
	 * A caller's struct may be older (shorter: the missing fields are 0)
	 * or newer (longer: what this library cannot pass on must be 0, or
	 * the caller would get a filter other than the one asked for).
	 */
	for (i = sizeof(spec); i < size; i++)
		if (((const unsigned char *)spec_arg)[i])
			return -E2BIG;
	memset(&spec, 0, sizeof(spec));
	memcpy(&spec, spec_arg, size < sizeof(spec) ? size : sizeof(spec));
	if (spec.pad || spec.pad2 || !expansion_valid(&spec))
		return -EINVAL;
	req.capacity = spec.capacity;
	req.bits = spec.bits;
	req.seed = spec.seed;
	req.fp_ppb = spec.fp_ppb;
	req.k = spec.k;
	req.bits_per_key = spec.bits_per_key;
	req.node_mode = spec.mode;
	req.type = spec.type;
	req.generations = spec.generations;
	req.rotate_ms = spec.rotate_ms;
	req.rotate_every = spec.rotate_every;
	req.expansion = spec.expansion;
	if (spec.use_seed)
		req.flags |= KBLOOM_CREATE_SEED;
	return control_ioctl(KBLOOM_CTL_CREATE, &req);
}

/* The 0.1.0 entry point, for programs built before kbl_spec grew. */
int (kbl_create)(const char *name, const struct kbl_spec *spec)
{
	return kbl_create_sized(name, spec, KBL_SPEC_SIZE_0_1);
}

int kbl_destroy(const char *name)
{
	struct kbloom_name req;
	int ret;

	memset(&req, 0, sizeof(req));
	ret = request_name(req.name, name);
	if (ret)
		return ret;
	return control_ioctl(KBLOOM_CTL_DESTROY, &req);
}

int kbl_open(const char *name, int access, struct kbl **out)
{
	char path[KBL_NODE_PATH_MAX];
	struct kbl *f;
	int ret;

	*out = NULL;
	ret = kbl_check_name(name);
	if (ret)
		return ret;
	if (access != O_RDONLY && access != O_RDWR)
		return -EINVAL;
	ret = kbl_node_path(name, path, sizeof(path));
	if (ret)
		return ret;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->fd = open(path, access | O_CLOEXEC);
	if (f->fd < 0) {
		ret = neg_errno();
		free(f);
		return ret;
	}
	memcpy(f->name, name, strlen(name) + 1);
	*out = f;
	return 0;
}

void kbl_close(struct kbl *f)
{
	if (!f)
		return;
	kbl_unmap(f);
	close(f->fd);
	free(f->scratch);
	free(f->scratch_lens);
	free(f);
}

int kbl_fd(const struct kbl *f)
{
	return f->fd;
}

const char *kbl_name(const struct kbl *f)
{
	return f->name;
}

uint64_t kbl_ioctl_count(const struct kbl *f)
{
	return __atomic_load_n(&f->ioctls, __ATOMIC_RELAXED);
}

int kbl_map(struct kbl *f)
{
	if (f->map) {
		if (!kbl_map_stale(f->map))
			return 0;
		/* A scalable filter's, behind it: map what it is now. */
		kbl_unmap(f);
	}
	return kbl_map_open(f->fd, &f->map);
}

void kbl_unmap(struct kbl *f)
{
	kbl_map_close(f->map);
	f->map = NULL;
}

int kbl_mapped(const struct kbl *f)
{
	return f->map != NULL;
}

int kbl_map_behind(const struct kbl *f)
{
	return f->map && kbl_map_stale(f->map);
}

const struct kbloom_map_header *kbl_map_header(const struct kbl *f)
{
	return f->map ? kbl_map_hdr(f->map) : NULL;
}

static bool key_len_valid(size_t len)
{
	return len >= 1 && len <= KBLOOM_KEY_MAX;
}

static int check_lens(const uint32_t *lens, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!key_len_valid(lens[i]))
			return -EINVAL;
	return 0;
}

/*
 * Whether one more key of len bytes joins an ioctl that holds count keys
 * of bytes bytes.  The first key always does, so every ioctl moves on.
 */
static bool chunk_has_room(size_t count, uint64_t bytes, size_t len)
{
	return count < KBLOOM_BATCH_MAX &&
	       (count == 0 || bytes + len <= KBL_CHUNK_BYTES);
}

/* Copies n result bits of a chunk into the caller's bitmap at bit base. */
static void merge_bits(uint64_t *dst, size_t base, const uint64_t *src,
		       size_t n)
{
	size_t i;

	if (base % 64 == 0) {
		memcpy(dst + base / 64, src, (n + 63) / 64 * sizeof(*src));
		return;
	}
	for (i = 0; i < n; i++)
		if (src[i / 64] >> (i % 64) & 1)
			dst[(base + i) / 64] |= 1ULL << ((base + i) % 64);
}

/*
 * One ioctl of count keys that chunk_has_room() let in.  Their result bits
 * go to results (when not NULL) from bit base on; their hits add to *hits.
 */
static int chunk_ioctl(struct kbl *f, unsigned long cmd, const char *data,
		       const uint32_t *lens, size_t count, uint64_t bytes,
		       uint64_t *results, size_t base, uint64_t *hits)
{
	uint64_t chunk_bits[KBLOOM_BATCH_MAX / 64];
	struct kbloom_batch b;
	int ret;

	memset(&b, 0, sizeof(b));
	b.keys = (uintptr_t)data;
	b.lens = (uintptr_t)lens;
	b.keys_len = bytes;
	b.count = count;
	if (results)
		b.results = (uintptr_t)chunk_bits;
	ret = do_ioctl(f, cmd, &b);
	if (ret < 0)
		return ret;
	if (results)
		merge_bits(results, base, chunk_bits, count);
	*hits += b.hits;
	return 0;
}

/*
 * What every batch does before its first key: zero the outputs, and
 * refuse keys that valid() rejects (only asked when there are keys).
 * 0 to go on, 1 when there are no keys, or -errno.
 */
static int batch_begin(size_t n, int (*valid)(const void *, const void *,
					      size_t),
		       const void *keys, const void *lens, uint64_t *results,
		       uint64_t *hits)
{
	int ret;

	if (hits)
		*hits = 0;
	if (n == 0)
		return 1;
	ret = valid(keys, lens, n);
	if (ret)
		return ret;
	if (results)
		memset(results, 0, (n + 63) / 64 * sizeof(*results));
	return 0;
}

/* Packed keys: both arrays given, every length in range. */
static int packed_valid(const void *data, const void *lens, size_t n)
{
	if (!data || !lens)
		return -EINVAL;
	return check_lens(lens, n);
}

static int batch_ioctl(struct kbl *f, unsigned long cmd, const char *data,
		       const uint32_t *lens, size_t n, uint64_t *results,
		       uint64_t *hits)
{
	uint64_t total = 0;
	size_t done = 0;
	int ret;

	ret = batch_begin(n, packed_valid, data, lens, results, hits);
	if (ret)
		return ret < 0 ? ret : 0;

	while (done < n) {
		uint64_t bytes = 0;
		size_t count = 0;

		while (done + count < n &&
		       chunk_has_room(count, bytes, lens[done + count]))
			bytes += lens[done + count++];
		ret = chunk_ioctl(f, cmd, data, lens + done, count, bytes,
				  results, done, &total);
		if (ret)
			return ret;
		data += bytes;
		done += count;
	}
	if (hits)
		*hits = total;
	return 0;
}

int kbl_add(struct kbl *f, const void *data, const uint32_t *lens,
	    size_t n, uint64_t *results, uint64_t *hits)
{
	return batch_ioctl(f, KBLOOM_IOC_ADD, data, lens, n, results, hits);
}

/*
 * A mapped check, KBL_MAP_CHUNK keys at a time; a chunk that raced a
 * rewrite of the filter goes to the module in one ioctl instead.
 */
static int map_check(struct kbl *f, const char *data, const uint32_t *lens,
		     size_t n, uint64_t *results, uint64_t *hits)
{
	uint64_t bits[KBL_MAP_CHUNK / 64], total = 0;
	size_t done = 0;
	int ret;

	ret = batch_begin(n, packed_valid, data, lens, results, hits);
	if (ret)
		return ret < 0 ? ret : 0;

	while (done < n) {
		size_t count = n - done < KBL_MAP_CHUNK ? n - done :
							  KBL_MAP_CHUNK;
		uint64_t bytes = 0, found;
		size_t i;

		for (i = 0; i < count; i++)
			bytes += lens[done + i];
		ret = kbl_map_check_packed(f->map, data, lens + done, count,
					   bits, &found);
		if (ret == -EAGAIN)
			ret = chunk_ioctl(f, KBLOOM_IOC_CHECK, data,
					  lens + done, count, bytes, results,
					  done, &total);
		else if (!ret) {
			if (results)
				merge_bits(results, done, bits, count);
			total += found;
		}
		if (ret)
			return ret;
		data += bytes;
		done += count;
	}
	if (hits)
		*hits = total;
	return 0;
}

int kbl_check(struct kbl *f, const void *data, const uint32_t *lens,
	      size_t n, uint64_t *results, uint64_t *hits)
{
	if (f->map)
		return map_check(f, data, lens, n, results, hits);
	return batch_ioctl(f, KBLOOM_IOC_CHECK, data, lens, n, results, hits);
}

int kbl_delete(struct kbl *f, const void *data, const uint32_t *lens,
	       size_t n, uint64_t *results, uint64_t *hits)
{
	return batch_ioctl(f, KBLOOM_IOC_DELETE, data, lens, n, results,
			   hits);
}

static int grow(void **buf, size_t *cap, size_t need)
{
	void *p;

	if (need <= *cap)
		return 0;
	p = realloc(*buf, need);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = need;
	return 0;
}

/*
 * One ioctl of count keys given by pointer (count and their bytes within
 * what chunk_has_room() allows), packed into the scratch buffer first.
 */
static int keys_chunk_ioctl(struct kbl *f, unsigned long cmd,
			    const void *const *keys, const size_t *lens,
			    size_t count, size_t bytes, uint64_t *results,
			    size_t base, uint64_t *total)
{
	size_t i;
	int ret;

	ret = grow((void **)&f->scratch, &f->scratch_cap, bytes);
	if (!ret)
		ret = grow((void **)&f->scratch_lens, &f->scratch_lens_cap,
			   count * sizeof(*f->scratch_lens));
	if (ret)
		return ret;
	bytes = 0;
	for (i = 0; i < count; i++) {
		memcpy(f->scratch + bytes, keys[i], lens[i]);
		bytes += lens[i];
		f->scratch_lens[i] = lens[i];
	}
	return chunk_ioctl(f, cmd, f->scratch, f->scratch_lens, count, bytes,
			   results, base, total);
}

/* Keys by pointer: both arrays given, no NULL key, every length in range. */
static int pointers_valid(const void *keys_arg, const void *lens_arg,
			  size_t n)
{
	const void *const *keys = keys_arg;
	const size_t *lens = lens_arg;
	size_t i;

	if (!keys || !lens)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!keys[i] || !key_len_valid(lens[i]))
			return -EINVAL;
	return 0;
}

/*
 * Packs up to one ioctl's worth of keys at a time into the scratch buffer,
 * so memory stays bounded however many keys the caller passes.
 */
static int keys_ioctl(struct kbl *f, unsigned long cmd,
		      const void *const *keys, const size_t *lens, size_t n,
		      uint64_t *results, uint64_t *hits)
{
	uint64_t total = 0;
	size_t done = 0;
	int ret;

	ret = batch_begin(n, pointers_valid, keys, lens, results, hits);
	if (ret)
		return ret < 0 ? ret : 0;

	while (done < n) {
		size_t count = 0, bytes = 0;

		while (done + count < n &&
		       chunk_has_room(count, bytes, lens[done + count]))
			bytes += lens[done + count++];
		ret = keys_chunk_ioctl(f, cmd, keys + done, lens + done, count,
				       bytes, results, done, &total);
		if (ret)
			return ret;
		done += count;
	}
	if (hits)
		*hits = total;
	return 0;
}

/* map_check() for keys given by pointer: no copy, unless it falls back. */
static int map_check_keys(struct kbl *f, const void *const *keys,
			  const size_t *lens, size_t n, uint64_t *results,
			  uint64_t *hits)
{
	uint64_t bits[KBL_MAP_CHUNK / 64], total = 0;
	size_t done = 0;
	int ret;

	ret = batch_begin(n, pointers_valid, keys, lens, results, hits);
	if (ret)
		return ret < 0 ? ret : 0;

	while (done < n) {
		size_t count = n - done < KBL_MAP_CHUNK ? n - done :
							  KBL_MAP_CHUNK;
		size_t bytes = 0, i;
		uint64_t found;

		ret = kbl_map_check_ptrs(f->map, keys + done, lens + done,
					 count, bits, &found);
		if (ret == -EAGAIN) {
			for (i = 0; i < count; i++)
				bytes += lens[done + i];
			ret = keys_chunk_ioctl(f, KBLOOM_IOC_CHECK, keys + done,
					       lens + done, count, bytes,
					       results, done, &total);
		} else if (!ret) {
			if (results)
				merge_bits(results, done, bits, count);
			total += found;
		}
		if (ret)
			return ret;
		done += count;
	}
	if (hits)
		*hits = total;
	return 0;
}

int kbl_add_keys(struct kbl *f, const void *const *keys,
		 const size_t *lens, size_t n, uint64_t *results,
		    uint64_t *hits)
{
	return keys_ioctl(f, KBLOOM_IOC_ADD, keys, lens, n, results, hits);
}

int kbl_check_keys(struct kbl *f, const void *const *keys,
		   const size_t *lens, size_t n, uint64_t *results,
		      uint64_t *hits)
{
	if (f->map)
		return map_check_keys(f, keys, lens, n, results, hits);
	return keys_ioctl(f, KBLOOM_IOC_CHECK, keys, lens, n, results, hits);
}

int kbl_delete_keys(struct kbl *f, const void *const *keys,
		    const size_t *lens, size_t n, uint64_t *results,
		    uint64_t *hits)
{
	return keys_ioctl(f, KBLOOM_IOC_DELETE, keys, lens, n, results, hits);
}

static int one_ioctl(struct kbl *f, unsigned long cmd, const void *key,
		     size_t len)
{
	uint32_t len32 = (uint32_t)len;
	uint64_t hits;
	int ret;

	if (!key_len_valid(len))
		return -EINVAL;
	ret = batch_ioctl(f, cmd, key, &len32, 1, NULL, &hits);
	return ret ? ret : hits != 0;
}

int kbl_add_one(struct kbl *f, const void *key, size_t len)
{
	return one_ioctl(f, KBLOOM_IOC_ADD, key, len);
}

/*
 * Mapped, this is the hot path the mapping exists for: no system call and
 * no allocation (the seccomp strict-mode test in tests/vm/test-mmap.c
 * holds it to that), only the key's hash and its block's loads.
 */
int kbl_check_one(struct kbl *f, const void *key, size_t len)
{
	if (f->map) {
		int ret;

		if (!key_len_valid(len))
			return -EINVAL;
		/* What the ioctl says of a NULL key, rather than a crash. */
		if (!key)
			return -EFAULT;
		ret = kbl_map_check_one(f->map, key, len);
		if (ret != -EAGAIN)
			return ret;
	}
	return one_ioctl(f, KBLOOM_IOC_CHECK, key, len);
}

int kbl_delete_one(struct kbl *f, const void *key, size_t len)
{
	return one_ioctl(f, KBLOOM_IOC_DELETE, key, len);
}

int kbl_clear(struct kbl *f)
{
	return do_ioctl(f, KBLOOM_IOC_CLEAR, NULL);
}

static int other_ioctl(struct kbl *dst, unsigned long cmd,
		       const struct kbl *src)
{
	struct kbloom_other o;

	memset(&o, 0, sizeof(o));
	o.fd = (uint32_t)src->fd;
	return do_ioctl(dst, cmd, &o);
}

int kbl_merge(struct kbl *dst, const struct kbl *src)
{
	return other_ioctl(dst, KBLOOM_IOC_MERGE, src);
}

int kbl_intersect(struct kbl *dst, const struct kbl *src)
{
	return other_ioctl(dst, KBLOOM_IOC_INTERSECT, src);
}

int kbl_info(const struct kbl *f, struct kbloom_info *info)
{
	memset(info, 0, sizeof(*info));
	return do_ioctl(f, KBLOOM_IOC_GET_INFO, info);
}

int kbl_subfilter(const struct kbl *f, uint32_t index,
		  struct kbloom_subfilter *out)
{
	memset(out, 0, sizeof(*out));
	out->index = index;
	return do_ioctl(f, KBLOOM_IOC_GET_SUBFILTER, out);
}

int kbl_rotate(struct kbl *f)
{
	return do_ioctl(f, KBLOOM_IOC_ROTATE, NULL);
}

int kbl_window_info(const struct kbl *f, struct kbloom_window_info *info)
{
	memset(info, 0, sizeof(*info));
	return do_ioctl(f, KBLOOM_IOC_GET_WINDOW, info);
}

int kbl_report(struct kbl *f, uint64_t false_positives,
	       uint64_t true_positives, uint64_t true_negatives)
{
	struct kbloom_report r;

	memset(&r, 0, sizeof(r));
	r.false_positives = false_positives;
	r.true_positives = true_positives;
	r.true_negatives = true_negatives;
	return do_ioctl(f, KBLOOM_IOC_REPORT, &r);
}

/* Where a version 4 image's parts begin (see the uapi header). */
#define KBL_IMAGE_CHAIN_AT	(sizeof(struct kbloom_image_header) + \
				 sizeof(struct kbloom_image_window))
#define KBL_IMAGE_SUBS_AT	(KBL_IMAGE_CHAIN_AT + \
				 sizeof(struct kbloom_image_chain))
#define KBL_IMAGE_SUB_BYTES	sizeof(struct kbloom_image_subfilter)

/*
 * A scalable filter's image counts its sub-filters in header_bytes, one
 * descriptor each; info->subfilters is how many it had at GET_INFO, and
 * a growth since makes the image of a later read longer (kbl_save()
 * therefore reads to the end, trusting no size computed before).  A
 * scalable filter always has sub-filter 0: an info that says 0 of them
 * (filled by hand) still gets its one descriptor.
 */
uint64_t kbl_image_size(const struct kbloom_info *info)
{
	uint64_t header = KBL_IMAGE_CHAIN_AT;

	if (info->expansion || info->subfilters)
		header = KBL_IMAGE_SUBS_AT + (uint64_t)(info->subfilters ?
			 info->subfilters : 1) * KBL_IMAGE_SUB_BYTES;
	return header + info->nblocks * KBLOOM_IMAGE_BLOCK +
	       KBLOOM_IMAGE_TRAILER;
}

uint32_t kbl_image_subfilters(const struct kbloom_image_header *hdr)
{
	uint64_t hbytes = le16toh(hdr->header_bytes), n;

	if (le16toh(hdr->version) != KBLOOM_IMAGE_VERSION_CHAIN ||
	    hbytes < KBL_IMAGE_SUBS_AT + KBL_IMAGE_SUB_BYTES ||
	    (hbytes - KBL_IMAGE_SUBS_AT) % KBL_IMAGE_SUB_BYTES)
		return 0;
	n = (hbytes - KBL_IMAGE_SUBS_AT) / KBL_IMAGE_SUB_BYTES;
	return n <= KBLOOM_SUBFILTERS_MAX ? (uint32_t)n : 0;
}

/*
 * header_bytes is judged before it is trusted: a length taken from a
 * damaged header would have kbl_load() call a whole image truncated (or
 * a truncated one whole).  Only versions 3 and 4 have a length this
 * library knows; the module refuses the others (EPROTO) before any
 * length matters.
 */
uint64_t kbl_image_length(const struct kbloom_image_header *hdr)
{
	uint64_t cells, len, hbytes = le16toh(hdr->header_bytes);

	switch (le16toh(hdr->version)) {
	case KBLOOM_IMAGE_VERSION:
		if (hbytes != KBL_IMAGE_CHAIN_AT)
			return 0;
		break;
	case KBLOOM_IMAGE_VERSION_CHAIN:
		if (!kbl_image_subfilters(hdr))
			return 0;
		break;
	default:
		return 0;
	}
	if (__builtin_mul_overflow(le64toh(hdr->nblocks),
				   (uint64_t)KBLOOM_IMAGE_BLOCK, &cells) ||
	    __builtin_add_overflow(cells, hbytes + KBLOOM_IMAGE_TRAILER, &len))
		return 0;
	return len;
}

int kbl_image_input_end(const void *head, size_t head_len, uint64_t total)
{
	struct kbloom_image_header hdr;
	uint64_t want;

	memset(&hdr, 0, sizeof(hdr));
	memcpy(&hdr, head, head_len < sizeof(hdr) ? head_len : sizeof(hdr));
	if (head_len < sizeof(hdr.magic) ||
	    le32toh(hdr.magic) != KBLOOM_IMAGE_MAGIC)
		return head_len < sizeof(hdr) ? -ENOEXEC : 0;
	/* Every image is longer than its header. */
	if (head_len < sizeof(hdr))
		return -ENODATA;
	want = kbl_image_length(&hdr);
	return want && total < want ? -ENODATA : 0;
}

/* Reads until len bytes or the end of input; bytes read or -errno. */
static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return neg_errno();
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return neg_errno();
		}
		if (n == 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The image always streams from offset 0 (see the uapi header). */
static int rewind_node(const struct kbl *f)
{
	if (lseek(f->fd, 0, SEEK_SET) < 0 && errno != ESPIPE)
		return neg_errno();
	return 0;
}

/*
 * Copies in_fd to out_fd through buf (KBLOOM_IO_CHUNK bytes) until the end
 * of the input; *total receives the number of bytes copied.
 */
static int copy_stream(int in_fd, int out_fd, char *buf, uint64_t *total)
{
	int ret;

	*total = 0;
	for (;;) {
		ssize_t n = read(in_fd, buf, KBLOOM_IO_CHUNK);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return neg_errno();
		}
		if (n == 0)
			return 0;
		ret = write_all(out_fd, buf, (size_t)n);
		if (ret)
			return ret;
		*total += (uint64_t)n;
	}
}

int64_t kbl_save(const struct kbl *f, int out_fd)
{
	uint64_t total;
	char *buf;
	int ret;

	ret = rewind_node(f);
	if (ret)
		return ret;
	buf = malloc(KBLOOM_IO_CHUNK);
	if (!buf)
		return -ENOMEM;
	ret = copy_stream(f->fd, out_fd, buf, &total);
	free(buf);
	return ret ? ret : (int64_t)total;
}

/*
 * The kernel validates the image as it arrives (the header first, the
 * rest at the final byte), so the bytes go through unchanged.  Only a
 * truncated image needs help: the kernel cannot tell the end of our input
 * from a pause, so a short stream is reported here.
 */
int kbl_load(struct kbl *f, int in_fd)
{
	struct kbloom_image_header hdr;
	uint64_t total;
	ssize_t head;
	char *buf;
	int ret;

	/*
	 * The length to expect comes from the image's own header, never
	 * from the filter: a scalable filter's image counts the sub-filters
	 * it was saved with, which the filter need not have now.
	 */
	ret = rewind_node(f);
	if (ret)
		return ret;
	/*
	 * Keep the first bytes whole, however the input is split into
	 * reads: an input too short for the kernel to judge its header is
	 * judged here from them.
	 */
	memset(&hdr, 0, sizeof(hdr));
	head = read_full(in_fd, &hdr, sizeof(hdr));
	if (head < 0)
		return (int)head;
	ret = write_all(f->fd, (const char *)&hdr, (size_t)head);
	if (ret)
		return ret;
	buf = malloc(KBLOOM_IO_CHUNK);
	if (!buf)
		return -ENOMEM;
	ret = copy_stream(in_fd, f->fd, buf, &total);
	free(buf);
	if (ret)
		return ret;
	return kbl_image_input_end(&hdr, (size_t)head,
				   total + (uint64_t)head);
}

const char *kbl_type_name(uint32_t type)
{
	switch (type) {
	case KBLOOM_TYPE_BITS:
		return "bits";
	case KBLOOM_TYPE_COUNTING:
		return "counting";
	case KBLOOM_TYPE_WINDOW:
		return "window";
	default:
		return "unknown";
	}
}

/* What a libkbloom call was doing, in the words of a message. */
static const struct {
	const char *call;
	const char *doing;
} kbl_calls[] = {
	{ "kbl_open", "open filter" },
	{ "kbl_create", "create filter" },
	{ "kbl_destroy", "destroy filter" },
	{ "kbl_add", "add keys to filter" },
	{ "kbl_add_keys", "add keys to filter" },
	{ "kbl_add_one", "add a key to filter" },
	{ "kbl_check", "check keys in filter" },
	{ "kbl_check_keys", "check keys in filter" },
	{ "kbl_check_one", "check a key in filter" },
	{ "kbl_delete", "delete keys from filter" },
	{ "kbl_delete_keys", "delete keys from filter" },
	{ "kbl_delete_one", "delete a key from filter" },
	{ "kbl_clear", "clear filter" },
	{ "kbl_merge", "merge into filter" },
	{ "kbl_intersect", "intersect filter" },
	{ "kbl_info", "get information on filter" },
	{ "kbl_report", "report to filter" },
	{ "kbl_save", "save filter" },
	{ "kbl_load", "load an image into filter" },
	{ "kbl_map", "map filter" },
	{ "kbl_rotate", "rotate filter" },
	{ "kbl_window_info", "get window information on filter" },
	{ "kbl_subfilter", "get sub-filter information on filter" },
};

/*
 * ENOENT from opening a node means either: the module is not loaded (no
 * control node, no sysfs class) or it is and the filter does not exist.
 */
static bool kbl_module_loaded(void)
{
	struct stat st;

	return stat(KBL_CONTROL_PATH, &st) == 0 ||
	       stat(KBL_SYSFS_DIR, &st) == 0;
}

static bool kbl_names_filter(const char *call)
{
	return !strcmp(call, "kbl_open") || !strcmp(call, "kbl_create") ||
	       !strcmp(call, "kbl_destroy");
}

/* The reason err gives for call, where it differs from kbl_strerror(). */
static const char *kbl_reason(int err, const char *call, const char *name)
{
	bool named = kbl_names_filter(call);

	switch (err) {
	case ENOENT:
		if (!named)
			break;
		if (!kbl_module_loaded())
			return "kbloom module not loaded (" KBL_CONTROL_PATH
			       " missing; try: modprobe kbloom)";
		if (strcmp(call, "kbl_create"))
			return "no such filter";
		break;
	case EINVAL:
		if (named && name && kbl_check_name(name))
			return "invalid filter name (1 to 31 of A-Z a-z 0-9 . _ -)";
		break;
	case EACCES:
	case EPERM:
		if (!strcmp(call, "kbl_open"))
			return "permission denied on its node under " KBL_DEV_DIR;
		if (named)
			return "permission denied on " KBL_CONTROL_PATH;
		break;
	case ENODEV:
		if (!strcmp(call, "kbl_open"))
			return "the filter is being destroyed";
		break;
	case EOPNOTSUPP:
		/* The errno is the type's refusal; the call says which. */
		if (!strncmp(call, "kbl_delete", 10))
			return "not a counting filter: delete needs one";
		if (!strcmp(call, "kbl_rotate") ||
		    !strcmp(call, "kbl_window_info"))
			return "not a window filter";
		if (!strcmp(call, "kbl_subfilter"))
			return "not a scalable filter: only those have sub-filters";
		/* The refusals of a scalable filter, the one type that has them. */
		if (!strcmp(call, "kbl_intersect"))
			return "a scalable filter cannot be intersected (a key both hold may be in sub-filters of different indexes)";
		if (!strcmp(call, "kbl_merge"))
			return "a counting scalable filter takes no merge (the other's keys would land in its older sub-filters, and deletes would then take counts of keys still there): add the other's keys to it instead, or merge bits filters";
		/*
		 * Every filter has an image now; only a module older than
		 * scalable filters' images (version 4) refuses theirs.
		 */
		if (!strcmp(call, "kbl_save") || !strcmp(call, "kbl_load"))
			return "the kbloom module is older than scalable filter images (version 4) and refuses them: update the module to save or load a scalable filter";
		if (!strcmp(call, "kbl_map"))
			return "the kbloom module is older than scalable filter mappings and refuses them: update the module to map a scalable filter (checks go through ioctls meanwhile)";
		break;
	case ERANGE:
		if (!strcmp(call, "kbl_subfilter"))
			return "no sub-filter of that index (kbl_info() gives how many there are now)";
		break;
	case E2BIG:
		if (!strcmp(call, "kbl_create"))
			return "filter larger than the module allows, or a struct kbl_spec with fields this libkbloom does not know";
		/* Only a scalable filter's growth makes these calls E2BIG. */
		if (!strncmp(call, "kbl_add", 7) || !strcmp(call, "kbl_merge"))
			return "the scalable filter cannot grow: a new sub-filter would pass the module's max_filter_bytes or max_total_bytes, or it has its last sub-filter";
		/* A load stages the image, and a scalable one may grow. */
		if (!strcmp(call, "kbl_load"))
			return "the image does not fit: staging it (it counts against the module's max_total_bytes) or growing the scalable filter to the image's sub-filters would pass max_filter_bytes or max_total_bytes (raise them in /sys/module/kbloom/parameters, or destroy other filters)";
		break;
	case EXDEV:
		/* Which filters an image loads into depends on its version. */
		if (!strcmp(call, "kbl_load"))
			return "the image does not fit the filter: a version 3 image loads only into a fixed-size filter of its geometry, type, seed and generations, a version 4 (scalable) image only into a scalable filter of equal capacity, rate, expansion, type and seed (create one to match)";
		break;
	}
	if (err == EINVAL && !strcmp(call, "kbl_create"))
		return "invalid parameters (a size: capacity and rate, bits, or capacity and bits per key; k 1 to 16; a window needs 2 to 63 generations, rotate_ms 0 or 10 to 2^31, rotate_every 0 to 2^48, and other types none of them; expansion 0, or 1 to 16 for a scalable filter, which is bits or counting, never a window, and is sized by capacity and rate alone, without bits, bits per key or k)";
	return kbl_strerror(err);
}

const char *kbl_error_message(int err, const char *call, const char *name,
			      char *buf, size_t size)
{
	const char *doing = NULL;
	size_t i;

	if (err < 0)
		err = -err;
	if (!call)
		call = "";
	for (i = 0; i < sizeof(kbl_calls) / sizeof(kbl_calls[0]); i++)
		if (!strcmp(kbl_calls[i].call, call))
			doing = kbl_calls[i].doing;
	if (!size)
		return buf;
	if (doing && name)
		snprintf(buf, size, "cannot %s '%s': %s", doing, name,
			 kbl_reason(err, call, name));
	else if (doing)
		snprintf(buf, size, "cannot %s: %s", doing,
			 kbl_reason(err, call, name));
	else
		snprintf(buf, size, "%s: %s", call, kbl_strerror(err));
	return buf;
}

const char *kbl_version(void)
{
	return KBLOOM_VERSION;
}

const char *kbl_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case ENOEXEC:
		return "not a kbloom image";
	case EPROTO:
		/* Images (kbl_load) and mappings (kbl_map) both say it. */
		return "kbloom image or filter mapping of another version: images of kbloom 0.1 place cells otherwise (rebuild the filter from its keys); for a mapping, module and libkbloom versions differ";
	case EXDEV:
		return "filters or image differ in geometry, type, seed or generations (scalable filters: in capacity, rate, expansion, type or seed, or only one of them is scalable); a version 4 image, a scalable filter's, loads only into a scalable filter of equal capacity, rate, expansion, type and seed, a version 3 image only into a fixed-size filter";
	case ENODATA:
		return "truncated kbloom image";
	case EMSGSIZE:
		return "kbloom image longer than its header says";
	case EBADMSG:
		return "kbloom image checksum mismatch (corrupt image)";
	case ENODEV:
		return "the filter was destroyed";
	case E2BIG:
		return "filter larger than the module allows";
	case ENOSPC:
		return "the module's filter count limit is reached";
	case EEXIST:
		return "a filter with that name exists";
	case ENOTTY:
		return "not a kbloom device";
	case EOPNOTSUPP:
		return "not supported by this filter's type (delete needs a counting filter, rotate a window filter; a scalable filter has no intersect)";
	case ESTALE:
		return "the filter was rewritten (clear, intersect, load or rotation) during the read; read again";
	default:
		return strerror(err);
	}
}
