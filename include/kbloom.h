/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libkbloom: a small C library over the kbloom device.  It wraps the ioctls
 * of /dev/kbloom-control and /dev/kbloom/<name>.  The filter lives in the
 * kernel.  A handle can also map it read-only (kbl_map()) and then answer
 * checks from the mapped cells without a system call: the filter is still
 * not re-implemented here, those checks run the module's own core source
 * (kmod/core/kbloom_core.c, built for userspace) on the mapped cells, so
 * they answer exactly what KBLOOM_IOC_CHECK answers.
 *
 * Linking: that core is inside libkbloom.a and libkbloom.so (its symbols
 * hidden in the .so) and hashes with libxxhash's XXH64, so a static link
 * needs -lxxhash: use pkg-config --libs --static libkbloom.  The core's
 * sources are GPL-2.0 OR LGPL-2.1-or-later, so the library stays LGPL.
 *
 * Its names start with kbl_ (KBL_ for macros): kbloom_ belongs to the
 * module's filter core, which programs such as kbloomctl link beside it.
 * The ABI types (struct kbloom_info, KBLOOM_BATCH_MAX, ...) come from
 * <linux/kbloom.h>.
 *
 * Every function that can fail returns 0 (or a count) on success and a
 * negative errno on failure; kbl_strerror() explains the errnos that have a
 * kbloom meaning (see include/uapi/linux/kbloom.h).
 *
 * A struct kbl handle may be shared between threads for every call except
 * kbl_add_keys(), kbl_check_keys() and kbl_delete_keys(), which use a
 * scratch buffer held in the handle, and kbl_map(), kbl_unmap() and
 * kbl_close(), which must not run beside any other call on the handle.
 * The packed calls (kbl_add(), kbl_check(), kbl_delete()) need nothing but
 * the caller's memory, mapped or not; mapped, kbl_check_one() and
 * kbl_check() need no scratch buffer either, while kbl_check_keys() still
 * does (its ioctl fallback packs the keys there).
 */
#ifndef KBLOOM_H
#define KBLOOM_H

#include <stddef.h>
#include <stdint.h>
#include <linux/kbloom.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KBL_CONTROL_PATH	"/dev/kbloom-control"
#define KBL_DEV_DIR		"/dev/kbloom"
#define KBL_SYSFS_DIR		"/sys/class/kbloom"

/*
 * Large inputs are cut into ioctls of at most KBLOOM_BATCH_MAX keys and at
 * most this many key bytes, so that one call never pins an unbounded
 * amount of kernel memory.
 */
#define KBL_CHUNK_BYTES	(4U << 20)

struct kbl;

/*
 * How to size a new filter: exactly one of
 *   capacity + fp_ppb              (k must be 0: the best k is chosen)
 *   bits [+ k] [+ capacity]
 *   capacity + bits_per_key [+ k]
 * A zero k means the best k for the geometry.  bits and bits_per_key count
 * memory whatever the type: a counting filter of the same bits holds a
 * quarter as many cells (see include/uapi/linux/kbloom.h).
 *
 * A window filter (type KBLOOM_TYPE_WINDOW) has generations 2 to
 * KBLOOM_GENERATIONS_MAX and rotates every rotate_ms milliseconds
 * (KBLOOM_ROTATE_MS_MIN to KBLOOM_ROTATE_MS_MAX), after rotate_every keys
 * added to its current generation (1 to KBLOOM_ROTATE_EVERY_MAX), both, or
 * neither (0: only kbl_rotate() rotates it).  Its capacity counts the keys
 * of generations - 1 generations, the window the guarantee covers, and
 * fp_ppb is the rate of the whole window; with rotate_every and no size,
 * the module takes capacity = (generations - 1) * rotate_every at 1 %.
 * Other types need all three 0.
 *
 * A scalable filter (expansion 1 to KBLOOM_EXPANSION_MAX) grows as keys
 * come: a chain of sub-filters, the first for capacity keys, each next for
 * expansion times the keys of the one before, all of them together under
 * fp_ppb however far it grows (see "Scalable filters" in
 * <linux/kbloom.h>).  It is a bits or counting filter sized by capacity
 * and fp_ppb alone: bits, bits_per_key and k stay 0.  expansion 0 makes a
 * filter of fixed size.
 *
 * The struct grows only at its end.  kbl_create() is a macro that passes
 * sizeof(*spec) to kbl_create_sized(), which reads the fields that fit in
 * that size and takes the rest as 0; a program built against an older
 * libkbloom calls the function kbl_create(), which reads only the fields
 * of version 0.1.0 (up to type), so it keeps working unchanged.
 */
struct kbl_spec {
	uint64_t capacity;	/* keys the filter is designed for */
	uint64_t bits;		/* total bits (rounded up to 512) */
	uint64_t seed;		/* used when use_seed is set, else random */
	uint32_t fp_ppb;	/* target false-positive rate, ppb */
	uint32_t k;		/* probes per key, 0 = best */
	uint32_t bits_per_key;
	uint32_t mode;		/* node permission bits, 0 = 0600 */
	int use_seed;
	uint32_t type;		/* KBLOOM_TYPE_BITS (0), _COUNTING, _WINDOW */
	/* Since 0.2: window filters. */
	uint32_t generations;	/* window: 2..63; else 0 */
	uint32_t pad;		/* 0 */
	uint64_t rotate_ms;	/* window: timer period, 0 = none */
	uint64_t rotate_every;	/* window: adds per generation, 0 = none */
	/* Since 0.2 too: scalable filters. */
	uint32_t expansion;	/* scalable: 1..16; 0 = fixed size */
	uint32_t pad2;		/* 0 */
};

/* The size of struct kbl_spec in libkbloom 0.1.0, which had no windows. */
#define KBL_SPEC_SIZE_0_1	(offsetof(struct kbl_spec, type) + \
				 sizeof(uint32_t))

/* 0 when name is a valid filter name (1-31 of [A-Za-z0-9._-]). */
int kbl_check_name(const char *name);
/* Writes "/dev/kbloom/<name>" into buf; -ENAMETOOLONG if it does not fit. */
int kbl_node_path(const char *name, char *buf, size_t size);
/* A buffer size kbl_node_path() always fits in for a valid name. */
#define KBL_NODE_PATH_MAX	(sizeof(KBL_DEV_DIR) + KBLOOM_NAME_MAX + 1)

/*
 * Creates the filter.  -EEXIST when the name is in use, by any user: names
 * are one namespace for everyone who may write the control node, so a
 * filter found under a name may be another user's.  A program that must
 * use its own filter creates it, or checks that fstat() of kbl_fd() shows
 * its own uid (the node's owner is the creator's fsuid; see
 * KBLOOM_CTL_CREATE in <linux/kbloom.h>).  size is sizeof the caller's
 * struct kbl_spec: at least KBL_SPEC_SIZE_0_1 (else -EINVAL); fields past
 * it read as 0, and bytes past this library's struct must be 0 (else
 * -E2BIG).  The parameters are judged by the module (-EINVAL for any out
 * of range), and a few here first, before the control node is opened, so
 * that the errno is the same with or without the module: -EINVAL for a
 * pad that is not 0, and for an expansion over KBLOOM_EXPANSION_MAX or
 * one given with a window type, bits, bits_per_key or k.
 */
int kbl_create_sized(const char *name, const struct kbl_spec *spec,
		     size_t size);
/* 0.1.0's entry point: kbl_create_sized(name, spec, KBL_SPEC_SIZE_0_1). */
int (kbl_create)(const char *name, const struct kbl_spec *spec);
#define kbl_create(name, spec) \
	kbl_create_sized((name), (spec), sizeof(*(spec)))
int kbl_destroy(const char *name);

/*
 * Opens /dev/kbloom/<name>.  access is O_RDONLY (check, info, save, report)
 * or O_RDWR (also add, delete, clear, merge, intersect, load).
 */
int kbl_open(const char *name, int access, struct kbl **out);
void kbl_close(struct kbl *f);
int kbl_fd(const struct kbl *f);
const char *kbl_name(const struct kbl *f);

/*
 * Batches.  The keys are packed back to back in data; lens[i] is the
 * length of key i (1..KBLOOM_KEY_MAX).  results, when not NULL, receives
 * (n + 63) / 64 words: bit i set when key i set a new bit (add), may be
 * present (check) or was removed (delete).  *hits, when not NULL, receives
 * the number of set bits.
 * Inputs of any size are cut into ioctls of at most KBLOOM_BATCH_MAX keys
 * and KBL_CHUNK_BYTES bytes.  Lengths are validated before the first
 * ioctl (-EINVAL).  A failure after that is not all or nothing: the
 * earlier ioctls' keys were applied, and so may be the first keys of the
 * failing one (the module reports how many in kbloom_batch.done: the
 * filter destroyed part way, -ENODEV, a keys buffer that faults, -EFAULT;
 * see "Batches" in <linux/kbloom.h>).  results and hits are then not
 * filled.  Adding again is harmless (an add of a key already in changes
 * nothing); a delete is not repeated blindly.  An add to a scalable
 * filter that needs a new sub-filter and cannot have it fails with
 * -E2BIG (the module's memory caps, or the filter's last sub-filter) or
 * -ENOMEM, at the first new key that did not fit; keys already in the
 * filter are still accepted.
 */
int kbl_add(struct kbl *f, const void *data, const uint32_t *lens,
	    size_t n, uint64_t *results, uint64_t *hits);
int kbl_check(struct kbl *f, const void *data, const uint32_t *lens,
	      size_t n, uint64_t *results, uint64_t *hits);
/*
 * Counting filters only (-EOPNOTSUPP on a bits filter, which is left
 * unchanged).  A key is removed when all its counters are non-zero.  Delete
 * only keys that were added, as often as they were added: deleting a key
 * that merely looks present (a false positive) can make other keys absent.
 */
int kbl_delete(struct kbl *f, const void *data, const uint32_t *lens,
	       size_t n, uint64_t *results, uint64_t *hits);

/* The same with one pointer per key (copied into a scratch buffer). */
int kbl_add_keys(struct kbl *f, const void *const *keys,
		 const size_t *lens, size_t n, uint64_t *results,
		    uint64_t *hits);
int kbl_check_keys(struct kbl *f, const void *const *keys,
		   const size_t *lens, size_t n, uint64_t *results,
		      uint64_t *hits);
int kbl_delete_keys(struct kbl *f, const void *const *keys,
		    const size_t *lens, size_t n, uint64_t *results,
		    uint64_t *hits);

/*
 * One key: 1 (new bit set / may be present / removed), 0, or a negative
 * errno.
 */
int kbl_add_one(struct kbl *f, const void *key, size_t len);
int kbl_check_one(struct kbl *f, const void *key, size_t len);
int kbl_delete_one(struct kbl *f, const void *key, size_t len);

int kbl_clear(struct kbl *f);
/*
 * dst |= src and dst &= src (counters: added, saturating, and the lower of
 * the two; window generations by age, current into current); -EXDEV when
 * the filters differ in blocks, k, seed, type or generations.  Scalable
 * filters merge only with scalable filters of the same capacity, fp_ppb,
 * expansion, type and seed (else -EXDEV), sub-filter by sub-filter, dst
 * first growing to as many as src has (-E2BIG or -ENOMEM when it cannot);
 * they do not intersect (-EOPNOTSUPP, either side).
 */
int kbl_merge(struct kbl *dst, const struct kbl *src);
int kbl_intersect(struct kbl *dst, const struct kbl *src);
/*
 * The whole filter; for a scalable one, its sub-filters together (see
 * KBLOOM_IOC_GET_INFO), with info->expansion as created and
 * info->subfilters the sub-filters it has now (both 0 for a filter of
 * fixed size).
 */
int kbl_info(const struct kbl *f, struct kbloom_info *info);
/*
 * Scalable filters: kbl_subfilter() fills *out with sub-filter index (0,
 * the first and oldest, to kbl_info()'s subfilters - 1): its capacity, the
 * new keys it took, its memory, seed, k, rates and fill.  -EOPNOTSUPP on a
 * filter of fixed size, -ERANGE for an index the filter does not have (it
 * may have grown, or been cleared back to one sub-filter, since
 * kbl_info()).  Read access is enough.
 */
int kbl_subfilter(const struct kbl *f, uint32_t index,
		  struct kbloom_subfilter *out);
/*
 * Window filters: kbl_rotate() rotates now (the oldest generation is
 * emptied and a clean one becomes current; needs O_RDWR) and returns once
 * the retired generation is empty; kbl_window_info() fills *info with the
 * rotation settings and state and, newest first, each generation's keys
 * added, cells set, estimated keys and fill.  Both are -EOPNOTSUPP on a
 * filter that is not a window.
 */
int kbl_rotate(struct kbl *f);
int kbl_window_info(const struct kbl *f, struct kbloom_window_info *info);
/* Feeds back what the real lookups behind CHECK answers found. */
int kbl_report(struct kbl *f, uint64_t false_positives,
	       uint64_t true_positives, uint64_t true_negatives);

/*
 * Size in bytes of the image the module writes of a filter with this
 * geometry: version 3, a header and its window part, the cells, a CRC;
 * for a scalable filter version 4, which adds a chain part and one
 * descriptor per sub-filter.  A scalable filter may grow before its
 * image is read: kbl_save() reads to the image's end, whatever this says.
 */
uint64_t kbl_image_size(const struct kbloom_info *info);
/*
 * Streams the filter's image to out_fd.  Returns the number of bytes
 * written or a negative errno: -ESTALE when a CLEAR, INTERSECT, image load
 * or (window filters) a rotation rewrote the filter during the read, in
 * which case what reached out_fd is no image: start again (kbloomctl save
 * retries a few times into a fresh file).  A scalable filter's image is
 * of version 4, holding its sub-filters (-EOPNOTSUPP from a module too
 * old to have one, here and from kbl_load()).
 */
int64_t kbl_save(const struct kbl *f, int out_fd);
/*
 * Reads one image from in_fd and restores it into the filter, all or
 * nothing.  Image errnos: ENOEXEC (not a kbloom image), EPROTO (version),
 * EINVAL (bad header field), EXDEV (geometry, type or seed differs; for a
 * scalable filter capacity, rate, expansion, type or seed, or only one of
 * image and filter is scalable), ENODATA (truncated), EMSGSIZE (longer
 * than its header says), EBADMSG (CRC), E2BIG and ENOMEM (staging the
 * image, or growing a scalable filter to the image's sub-filters).
 * Versions 3 (filters of fixed size) and 4 (scalable) load: kbloom 0.1's
 * versions 1 and 2 placed a key's cells otherwise (EPROTO).
 */
int kbl_load(struct kbl *f, int in_fd);

/*
 * ioctls issued through this handle so far.  Mapped checks issue none, so
 * they do not grow it; a mapped check that falls back (see kbl_map()) does.
 */
uint64_t kbl_ioctl_count(const struct kbl *f);

/*
 * The mapping: checks without a system call.
 *
 * kbl_map() maps the filter read-only (mmap() PROT_READ, MAP_SHARED, the
 * whole kbloom_map_header.map_bytes); the handle must be open for reading
 * (O_RDONLY or O_RDWR).  It returns 0 (also when already mapped) or a
 * negative errno: those of mmap() on the node (EACCES, EPERM, EINVAL,
 * ENODEV: the filter was destroyed, see include/uapi/linux/kbloom.h, and
 * ENOMEM), or EPROTO for a header this library does not know: a wrong
 * magic or version, a header shorter than struct kbloom_map_header, a page
 * size not the running system's, a geometry (type, k, nblocks, and for a window
 * generations and plane_order) the module's
 * core refuses, or cells_offset, cells_bytes and map_bytes that do not
 * describe page-aligned cells of nblocks * 64 bytes ending in the last
 * page (a scalable filter's: a table of sub-filters that the module's core
 * refuses, or whose cells are not page-aligned, in order, inside the
 * mapping).  Nothing is mapped after a failure: checks keep using ioctls.
 *
 * A scalable filter's mapping covers the sub-filters it had when mapped.
 * Once it grows past them, or a CLEAR or image load frees sub-filters,
 * mapped checks ask the module with an ioctl instead (correct, not
 * fast); kbl_map() on a handle whose mapping is behind maps the filter
 * again as it is now (kbl_map_behind() says when it is).
 *
 * Once mapped, kbl_check_one(), kbl_check() and kbl_check_keys() answer
 * from the mapped cells through the core's kbloom_lookup() and
 * kbloom_lookup_batch(); kbl_check_one() then makes no system call and
 * allocates nothing.  Each check (a single key, or up to 256 keys of a
 * batch) reads the header's sequence count before and after; when a
 * CLEAR, INTERSECT or image load rewrote the filter meanwhile (the count
 * was odd or moved), that check is asked of the module with an ioctl
 * instead.  A window filter's check also reads the header's live planes
 * once (acquire) inside that sequence check, so it sees the generations
 * live at that moment: a rotation needs no fallback.  When the filter has
 * been destroyed (KBLOOM_MAP_DEAD) they
 * return -ENODEV, as the ioctl would.  Mapped checks read the keys in
 * the caller: a bad key pointer faults there instead of giving -EFAULT
 * (a NULL kbl_check_one() key is still -EFAULT).  Every other call, and
 * adds and deletes above all, still goes through the module.
 *
 * Statistics: mapped checks do not pass through the module, so the
 * filter's check_calls, check_hits and check_ioctls (GET_INFO, sysfs,
 * kbloomctl info) do not count them; the sysfs file mappings (and
 * struct kbloom_info.mappings) shows that mapped readers exist.
 *
 * kbl_unmap() undoes kbl_map() (checks go back to ioctls) and is harmless
 * when not mapped; kbl_close() unmaps.  kbl_mapped() is 1 when checks
 * answer from the mapping, else 0.  kbl_map_header() is the mapping's
 * header page (read-only; sequence and flags change under the reader), or
 * NULL when not mapped.
 */
int kbl_map(struct kbl *f);
void kbl_unmap(struct kbl *f);
int kbl_mapped(const struct kbl *f);
/* 1 when a scalable filter's mapping no longer covers it, else 0. */
int kbl_map_behind(const struct kbl *f);
const struct kbloom_map_header *kbl_map_header(const struct kbl *f);

/*
 * "bits", "counting" or "window"; "unknown" for a type this library does
 * not know.
 */
const char *kbl_type_name(uint32_t type);

/*
 * The version of this libkbloom ("0.1.0"): kbloom's one version, the
 * top-level VERSION file, which the module (modinfo's version:, and
 * /sys/module/kbloom/version), kbloomctl --version and libkbloom.pc show
 * too.
 */
const char *kbl_version(void);

/*
 * A message for a negative (or positive) errno, with kbloom meanings.  It
 * knows only the errno: for ENOENT from kbl_open() it cannot tell "no such
 * filter" from "the module is not loaded"; kbl_error_message() can.
 */
const char *kbl_strerror(int err);

/*
 * The whole message for err as returned by the libkbloom call named call
 * ("kbl_open", "kbl_create", "kbl_destroy", "kbl_add", "kbl_load", ...,
 * the function's own name) on the filter name (may be NULL), written into
 * buf (cut to size, always terminated when size > 0) and returned, e.g.
 *   cannot open filter 'users': no such filter
 *   cannot open filter 'users': kbloom module not loaded
 *	(/dev/kbloom-control missing; try: modprobe kbloom)
 *   cannot destroy filter 'users': permission denied on /dev/kbloom-control
 *   cannot merge into filter 'a': filters or image differ in geometry, ...
 * Where the call gives an errno a meaning of its own it says that:
 * ENOENT from kbl_open() or kbl_destroy() is "no such filter" when the
 * module is loaded (it looks for KBL_CONTROL_PATH and KBL_SYSFS_DIR when
 * called) and "kbloom module not loaded" when not, ENOENT from
 * kbl_create() is the latter, EINVAL with an invalid name names the rule,
 * EACCES and EPERM name the node that refused, EOPNOTSUPP names the type
 * the call needs (a counting filter to delete, a window to rotate, a
 * scalable filter for kbl_subfilter()) or the one that refuses it (a
 * scalable filter to save, load, map or intersect), ERANGE from
 * kbl_subfilter() is an index past the sub-filters, and E2BIG from an add
 * or merge says the scalable filter could not grow; otherwise the reason
 * is kbl_strerror()'s.  An unknown call gives "call: kbl_strerror(err)".
 */
const char *kbl_error_message(int err, const char *call, const char *name,
			      char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* KBLOOM_H */
