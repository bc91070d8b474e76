// SPDX-License-Identifier: GPL-2.0
/*
 * libkbloom on the real device: every call, its errnos, and above all the
 * chunking of large inputs - batches beyond KBLOOM_BATCH_MAX keys or
 * KBL_CHUNK_BYTES bytes are cut into several ioctls whose answers must land
 * on the right keys, which is checked bit for bit against one-key calls.
 */
#include "vmtest.h"

#include <sys/mman.h>

#include "../../include/kbloom.h"

#define SUITE	"libkbloom"

/* n keys "key-<i>" padded with 'x' to len bytes (len >= 16), packed. */
struct packed {
	char *data;
	uint32_t *lens;
	size_t n;
};

static int pack(struct packed *p, size_t n, uint32_t len, const char *tag)
{
	size_t i;

	p->n = n;
	p->data = malloc(n * len);
	p->lens = malloc(n * sizeof(*p->lens));
	if (!p->data || !p->lens)
		return -1;
	memset(p->data, 'x', n * len);
	for (i = 0; i < n; i++) {
		char head[32];
		int h = snprintf(head, sizeof(head), "%s-%zu-", tag, i);

		memcpy(p->data + i * len, head, h);
		p->lens[i] = len;
	}
	return 0;
}

static void unpack(struct packed *p)
{
	free(p->data);
	free(p->lens);
}

/* Closes f and destroys its filter name: the end of a passed case. */
static const char *done(struct kbl *f, const char *name)
{
	kbl_close(f);
	kbl_destroy(name);
	return NULL;
}

static bool bit(const uint64_t *words, size_t i)
{
	return words[i / 64] >> (i % 64) & 1;
}

static size_t popcount(const uint64_t *words, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += bit(words, i);
	return c;
}

#define FP_1PC	10000000U

/*
 * A fresh filter of type t for capacity keys at fp_ppb, opened O_RDWR
 * (a window for capacity keys in each generation: see vt_create_typed()).
 */
static struct kbl *open_typed(const char *name, const struct vt_type *t,
			      uint64_t capacity, uint32_t fp_ppb)
{
	struct kbl_spec spec = { .capacity = capacity * vt_window_gens(t),
				 .fp_ppb = fp_ppb, .use_seed = 1, .seed = 77,
				 .type = t->type,
				 .generations = t->generations };
	struct kbl *f;

	kbl_destroy(name);
	if (kbl_create(name, &spec) || kbl_open(name, O_RDWR, &f))
		return NULL;
	return f;
}

static const char *test_names(void)
{
	static const char *const good[] = { "a", "users", "A-b_c.9",
		"abcdefghijabcdefghijabcdefghija" };
	static const char *const bad[] = { "", ".", "..", "a/b", "a b",
		"abcdefghijabcdefghijabcdefghijab", "ü" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		EXPECT(kbl_check_name(good[i]) == 0, "'%s' refused", good[i]);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT(kbl_check_name(bad[i]) == -EINVAL, "'%s' accepted",
		       bad[i]);
	return NULL;
}

static const char *test_lifecycle_errnos(void)
{
	struct kbl_spec spec = { .capacity = 100, .fp_ppb = 10000000 };
	struct kbloom_info info;
	struct kbl *f;
	int ret;

	kbl_destroy("lib-life");
	EXPECT(kbl_open("lib-life", O_RDONLY, &f) == -ENOENT && !f,
	       "open of a missing filter");
	EXPECT(kbl_destroy("lib-life") == -ENOENT, "destroy of a missing one");
	EXPECT_OK(kbl_create("lib-life", &spec));
	EXPECT(kbl_create("lib-life", &spec) == -EEXIST, "second create");
	EXPECT(kbl_open("lib-life", O_WRONLY, &f) == -EINVAL,
	       "write-only open accepted");
	EXPECT_OK(kbl_open("lib-life", O_RDONLY, &f));
	EXPECT(!strcmp(kbl_name(f), "lib-life") && kbl_fd(f) >= 0, "handle");
	EXPECT_OK(kbl_info(f, &info));
	EXPECT(info.capacity == 100 && info.fp_target_ppb == 10000000,
	       "info: capacity %llu target %u", info.capacity,
	       info.fp_target_ppb);
	/* Read-only handles cannot add (the kernel's EBADF, passed on). */
	ret = kbl_add_one(f, "k", 1);
	EXPECT(ret == -EBADF || ret == -EPERM, "add on O_RDONLY: %d", ret);
	EXPECT_OK(kbl_destroy("lib-life"));
	EXPECT(kbl_info(f, &info) == -ENODEV, "info after destroy");
	EXPECT(kbl_check_one(f, "k", 1) == -ENODEV, "check after destroy");
	kbl_close(f);
	return NULL;
}

/*
 * One key at a time.  Where the type deletes, a key added twice goes
 * after two deletes; elsewhere delete is refused before the keys are
 * looked at, and nothing changes.
 */
static const char *test_one_key(const struct vt_type *t)
{
	struct kbl *f = open_typed("lib-one", t, 1000, 1000000);
	const uint32_t lens[2] = { 5, 3 };
	uint64_t res[1] = { ~0ULL }, hits = 99;
	struct kbloom_info info, added;

	EXPECT(f, "create");
	EXPECT_OK(kbl_info(f, &info));
	EXPECT(info.type == t->type && !strcmp(kbl_type_name(t->type), t->name),
	       "type %u, named %s", info.type, kbl_type_name(info.type));
	EXPECT(kbl_add_one(f, "alice", 5) == 1, "first add sets cells");
	EXPECT(kbl_add_one(f, "alice", 5) == 0, "second add sets none");
	EXPECT(kbl_check_one(f, "alice", 5) == 1, "alice not found");
	EXPECT(kbl_check_one(f, "mallory", 7) == 0, "mallory found");
	EXPECT(kbl_add_one(f, "", 0) == -EINVAL, "empty key");
	EXPECT(kbl_add_one(f, "k", KBLOOM_KEY_MAX + 1) == -EINVAL, "long key");
	EXPECT_OK(kbl_info(f, &added));
	if (!(t->caps & VT_DELETES)) {
		EXPECT(kbl_delete(f, "alicebob", lens, 2, res, &hits) ==
		       -EOPNOTSUPP, "delete");
		EXPECT(kbl_delete_one(f, "alice", 5) == -EOPNOTSUPP,
		       "delete_one");
		EXPECT(kbl_check_one(f, "alice", 5) == 1, "alice lost");
		char buf[160];

		EXPECT(!strcmp(kbl_error_message(-EOPNOTSUPP, "kbl_delete",
						 "x", buf, sizeof(buf)),
			       "cannot delete keys from filter 'x': not a "
			       "counting filter: delete needs one"),
		       "message: %s", buf);
	} else {
		EXPECT(kbl_delete_one(f, "alice", 5) == 1, "first delete");
		EXPECT(kbl_check_one(f, "alice", 5) == 1, "one add is left");
		EXPECT(kbl_delete_one(f, "alice", 5) == 1, "second delete");
		EXPECT(kbl_check_one(f, "alice", 5) == 0, "alice present");
		EXPECT(kbl_delete_one(f, "alice", 5) == 0,
		       "third delete removed");
		EXPECT(kbl_delete_one(f, "", 0) == -EINVAL, "empty key");
	}
	EXPECT_OK(kbl_info(f, &info));
	if (t->caps & VT_DELETES)
		EXPECT(info.delete_calls == 3 && info.delete_hits == 2 &&
		       info.bits_set == 0, "deletes %llu/%llu, cells set %llu",
		       info.delete_calls, info.delete_hits, info.bits_set);
	else
		EXPECT(!info.delete_calls && info.add_calls == 2 &&
		       info.bits_set == added.bits_set,
		       "changed: cells %llu -> %llu, deletes %llu",
		       added.bits_set, info.bits_set, info.delete_calls);
	return done(f, "lib-one");
}

/* Lengths are checked before the first ioctl: nothing is half added. */
static const char *test_validation_first(const struct vt_type *t)
{
	struct kbl *f = open_typed("lib-valid", t, 100000, FP_1PC);
	struct kbloom_info info;
	struct packed p;
	uint64_t before;

	EXPECT(f, "create");
	EXPECT(!pack(&p, 100000, 16, "v"), "memory");
	p.lens[99999] = 0;
	before = kbl_ioctl_count(f);
	EXPECT(kbl_add(f, p.data, p.lens, p.n, NULL, NULL) == -EINVAL,
	       "a zero length in the last chunk was accepted");
	EXPECT(kbl_ioctl_count(f) == before, "ioctls were made");
	EXPECT_OK(kbl_info(f, &info));
	EXPECT(info.add_calls == 0, "%llu keys added", info.add_calls);
	unpack(&p);
	return done(f, "lib-valid");
}

/* More keys than KBLOOM_BATCH_MAX: several ioctls, one answer per key. */
static const char *test_chunk_by_count(const struct vt_type *t)
{
	const size_t n = 3 * KBLOOM_BATCH_MAX + 1000;
	struct kbl *f = open_typed("lib-count", t, n, FP_1PC);
	uint64_t *res, hits, before;
	struct kbloom_info info;
	struct packed p;

	EXPECT(f, "create");
	EXPECT(!pack(&p, n, 16, "c"), "memory");
	res = calloc((n + 63) / 64, sizeof(*res));
	EXPECT(res, "memory");
	before = kbl_ioctl_count(f);
	EXPECT_OK(kbl_add(f, p.data, p.lens, n, res, &hits));
	EXPECT(kbl_ioctl_count(f) - before == 4, "%llu ioctls for %zu keys",
	       (unsigned long long)(kbl_ioctl_count(f) - before), n);
	EXPECT(popcount(res, n) == hits, "add: %zu bits set, hits %llu",
	       popcount(res, n), (unsigned long long)hits);
	EXPECT_OK(kbl_info(f, &info));
	EXPECT(info.add_calls == n, "kernel counted %llu adds", info.add_calls);
	EXPECT(info.add_new == hits, "kernel add_new %llu, hits %llu",
	       info.add_new, (unsigned long long)hits);
	EXPECT_OK(kbl_check(f, p.data, p.lens, n, res, &hits));
	EXPECT(hits == n && popcount(res, n) == n,
	       "false negatives: %llu of %zu found", (unsigned long long)hits,
	       n);
	free(res);
	unpack(&p);
	return done(f, "lib-count");
}

/*
 * Keys of 3000 bytes: KBL_CHUNK_BYTES cuts chunks of 1398 keys, not a
 * multiple of 64, so the answers of later chunks start mid-word.  Every
 * answer must equal the one-key answer for the same key.
 */
static const char *test_chunk_by_bytes(const struct vt_type *t)
{
	const size_t n = 5000;
	struct kbl *f = open_typed("lib-bytes", t, 2 * n, FP_1PC);
	uint64_t *res, hits, before;
	struct packed p;
	size_t i, even = 0;

	EXPECT(f, "create");
	EXPECT(!pack(&p, n, 3000, "b"), "memory");
	for (i = 0; i < n; i += 2, even++)
		EXPECT(kbl_add_one(f, p.data + i * 3000, 3000) == 1,
		       "add of key %zu", i);
	res = calloc((n + 63) / 64, sizeof(*res));
	EXPECT(res, "memory");
	before = kbl_ioctl_count(f);
	EXPECT_OK(kbl_check(f, p.data, p.lens, n, res, &hits));
	EXPECT(kbl_ioctl_count(f) - before == (n * 3000 + KBL_CHUNK_BYTES - 1) /
	       KBL_CHUNK_BYTES, "%llu ioctls",
	       (unsigned long long)(kbl_ioctl_count(f) - before));
	EXPECT(popcount(res, n) == hits, "bits %zu, hits %llu",
	       popcount(res, n), (unsigned long long)hits);
	for (i = 0; i < n; i++) {
		int one = kbl_check_one(f, p.data + i * 3000, 3000);

		EXPECT(one == (int)bit(res, i),
		       "key %zu: batch says %d, one-key check says %d", i,
		       bit(res, i), one);
		EXPECT(i % 2 || one == 1, "false negative at key %zu", i);
	}
	EXPECT(hits >= even, "hits %llu < %zu added",
	       (unsigned long long)hits, even);
	free(res);
	unpack(&p);
	return done(f, "lib-bytes");
}

/* The pointer-per-key calls give the same answers as the packed ones. */
static const char *test_pointer_keys(const struct vt_type *t)
{
	const size_t n = KBLOOM_BATCH_MAX + 777;
	struct kbl *f = open_typed("lib-ptr", t, n, FP_1PC);
	uint64_t *packed_res, *ptr_res, hits, before;
	const void **keys;
	size_t *lens, i;
	struct packed p;

	EXPECT(f, "create");
	EXPECT(!pack(&p, n, 20, "p"), "memory");
	keys = malloc(n * sizeof(*keys));
	lens = malloc(n * sizeof(*lens));
	packed_res = calloc((n + 63) / 64, sizeof(uint64_t));
	ptr_res = calloc((n + 63) / 64, sizeof(uint64_t));
	EXPECT(keys && lens && packed_res && ptr_res, "memory");
	for (i = 0; i < n; i++) {
		keys[i] = p.data + i * 20;
		lens[i] = 20;
	}
	/* Add the first half; check all through both interfaces. */
	before = kbl_ioctl_count(f);
	EXPECT_OK(kbl_add_keys(f, keys, lens, n / 2, NULL, &hits));
	EXPECT(kbl_ioctl_count(f) - before == 1, "one ioctl for %zu keys",
	       n / 2);
	EXPECT_OK(kbl_check(f, p.data, p.lens, n, packed_res, NULL));
	EXPECT_OK(kbl_check_keys(f, keys, lens, n, ptr_res, &hits));
	EXPECT(!memcmp(packed_res, ptr_res, (n + 63) / 64 * sizeof(uint64_t)),
	       "packed and pointer answers differ");
	for (i = 0; i < n / 2; i++)
		EXPECT(bit(ptr_res, i), "false negative at key %zu", i);
	lens[5] = 0;
	EXPECT(kbl_check_keys(f, keys, lens, n, ptr_res, NULL) == -EINVAL,
	       "zero length accepted");
	free(keys);
	free(lens);
	free(packed_res);
	free(ptr_res);
	unpack(&p);
	return done(f, "lib-ptr");
}

static const char *test_clear_report(const struct vt_type *t)
{
	struct kbl *f = open_typed("lib-clear", t, 1000, FP_1PC);
	struct kbloom_info info;

	EXPECT(f, "create");
	EXPECT(kbl_add_one(f, "k1", 2) == 1, "add");
	EXPECT_OK(kbl_report(f, 2, 5, 98));
	EXPECT_OK(kbl_info(f, &info));
	EXPECT(info.reported_fp == 2 && info.reported_tp == 5 &&
	       info.reported_tn == 98 && info.observed_fp_ppb == 20000000,
	       "report: fp %llu tn %llu observed %u", info.reported_fp,
	       info.reported_tn, info.observed_fp_ppb);
	EXPECT_OK(kbl_clear(f));
	EXPECT_OK(kbl_info(f, &info));
	EXPECT(info.add_calls == 0 && info.bits_set == 0, "not cleared");
	EXPECT(kbl_check_one(f, "k1", 2) == 0, "k1 survived clear");
	return done(f, "lib-clear");
}

static const char *test_save_load(const struct vt_type *t)
{
	struct kbl *f = open_typed("lib-img", t, 10000, FP_1PC);
	struct kbloom_info info;
	int64_t saved;
	int fd, junk;

	EXPECT(f, "create");
	EXPECT(kbl_add_one(f, "kept", 4) == 1, "add");
	fd = memfd_create("img", 0);
	EXPECT(fd >= 0, "memfd");
	saved = kbl_save(f, fd);
	EXPECT_OK(kbl_info(f, &info));
	EXPECT(saved > 0 && (uint64_t)saved == kbl_image_size(&info),
	       "saved %lld bytes, image is %llu", (long long)saved,
	       (unsigned long long)kbl_image_size(&info));
	/* A second save from the same handle starts again at offset 0. */
	EXPECT(kbl_save(f, fd) == saved, "second save differs");
	EXPECT(ftruncate(fd, saved) == 0, "truncate");
	EXPECT_OK(kbl_clear(f));
	lseek(fd, 0, SEEK_SET);
	EXPECT_OK(kbl_load(f, fd));
	EXPECT(kbl_check_one(f, "kept", 4) == 1, "key lost in the round trip");

	EXPECT(ftruncate(fd, saved - 10) == 0, "truncate");
	lseek(fd, 0, SEEK_SET);
	EXPECT(kbl_load(f, fd) == -ENODATA, "truncated image accepted");
	junk = memfd_create("junk", 0);
	EXPECT(junk >= 0 && write(junk, "not an image", 12) == 12, "junk");
	lseek(junk, 0, SEEK_SET);
	EXPECT(kbl_load(f, junk) == -ENOEXEC, "junk accepted");
	EXPECT(kbl_check_one(f, "kept", 4) == 1, "rejected loads changed it");
	EXPECT(!strcmp(kbl_strerror(-ENOEXEC), "not a kbloom image"),
	       "strerror: %s", kbl_strerror(-ENOEXEC));
	close(junk);
	close(fd);
	return done(f, "lib-img");
}

static const char *test_merge_intersect(const struct vt_type *t)
{
	struct kbl_spec spec = { .bits = 65536, .k = 4, .seed = 5,
				 .use_seed = 1, .type = t->type,
				 .generations = t->generations };
	struct kbl *a, *b, *c;

	kbl_destroy("lib-a");
	kbl_destroy("lib-b");
	kbl_destroy("lib-c");
	EXPECT_OK(kbl_create("lib-a", &spec));
	EXPECT_OK(kbl_create("lib-b", &spec));
	spec.seed = 6;
	EXPECT_OK(kbl_create("lib-c", &spec));
	EXPECT_OK(kbl_open("lib-a", O_RDWR, &a));
	EXPECT_OK(kbl_open("lib-b", O_RDONLY, &b));
	EXPECT_OK(kbl_open("lib-c", O_RDONLY, &c));
	EXPECT(kbl_add_one(a, "only-a", 6) == 1, "add");
	EXPECT(kbl_merge(a, c) == -EXDEV, "merge of another seed");
	EXPECT(kbl_intersect(a, c) == -EXDEV, "intersect of another seed");
	EXPECT_OK(kbl_intersect(a, b));
	EXPECT(kbl_check_one(a, "only-a", 6) == 0, "intersect kept a key");
	EXPECT_OK(kbl_merge(a, b));
	kbl_close(a);
	kbl_close(b);
	kbl_close(c);
	kbl_destroy("lib-a");
	kbl_destroy("lib-b");
	kbl_destroy("lib-c");
	return NULL;
}

/* The image of f in a fresh memfd, for byte comparisons. */
static char *image_of(struct kbl *f, int64_t *len)
{
	int fd = memfd_create("img", 0);
	char *img = NULL;

	*len = fd < 0 ? -1 : kbl_save(f, fd);
	if (*len > 0) {
		img = malloc(*len);
		if (img && pread(fd, img, *len, 0) != *len) {
			free(img);
			img = NULL;
		}
	}
	if (fd >= 0)
		close(fd);
	return img;
}

/*
 * More keys than one ioctl takes, half of them never added: kbl_delete's
 * chunks must answer bit for bit as one-key ioctls on a twin filter do,
 * and leave the twin's very counters.
 */
static const char *test_delete_chunking(const struct vt_type *t)
{
	const size_t n = KBLOOM_BATCH_MAX + 4000;
	struct kbl *f = open_typed("lib-cnt-a", t, n, 1000);
	struct kbl *twin = open_typed("lib-cnt-b", t, n, 1000);
	uint64_t *res, hits, before, twin_hits = 0;
	struct kbloom_info info;
	size_t i, wrong = 0, even_removed = 0;
	int64_t len_a, len_b;
	char *img_a, *img_b;
	struct packed p;

	EXPECT(f && twin, "create");
	EXPECT(!pack(&p, n, 16, "d"), "memory");
	for (i = 0; i < n; i += 2) {
		EXPECT(kbl_add(f, p.data + i * 16, p.lens + i, 1, NULL,
			       NULL) == 0, "add %zu", i);
		EXPECT(kbl_add_one(twin, p.data + i * 16, 16) >= 0,
		       "twin add %zu", i);
	}
	res = calloc((n + 63) / 64, sizeof(*res));
	EXPECT(res, "memory");
	memset(res, 0xa5, (n + 63) / 64 * sizeof(*res));
	before = kbl_ioctl_count(f);
	EXPECT_OK(kbl_delete(f, p.data, p.lens, n, res, &hits));
	EXPECT(kbl_ioctl_count(f) - before == 2, "%llu ioctls for %zu keys",
	       (unsigned long long)(kbl_ioctl_count(f) - before), n);
	EXPECT(popcount(res, n) == hits, "bits %zu, hits %llu",
	       popcount(res, n), (unsigned long long)hits);
	for (i = 0; i < n; i++) {
		int one = kbl_delete_one(twin, p.data + i * 16, 16);

		EXPECT(one >= 0, "twin delete %zu: %d", i, one);
		twin_hits += one;
		wrong += one != (int)bit(res, i);
		even_removed += i % 2 == 0 && bit(res, i);
	}
	EXPECT(!wrong, "%zu answers differ from one-key deletes", wrong);
	EXPECT(twin_hits == hits, "twin removed %llu, batch %llu",
	       (unsigned long long)twin_hits, (unsigned long long)hits);
	EXPECT(even_removed == (n + 1) / 2, "%zu of %zu added keys removed",
	       even_removed, (n + 1) / 2);
	EXPECT_OK(kbl_info(f, &info));
	EXPECT(info.delete_calls == n && info.delete_hits == hits,
	       "kernel counted %llu deletes, %llu removed", info.delete_calls,
	       info.delete_hits);
	img_a = image_of(f, &len_a);
	img_b = image_of(twin, &len_b);
	EXPECT(img_a && img_b && len_a == len_b, "images");
	EXPECT(!memcmp(img_a, img_b, len_a), "counters differ from the twin's");
	free(img_a);
	free(img_b);
	free(res);
	unpack(&p);
	kbl_close(f);
	kbl_close(twin);
	kbl_destroy("lib-cnt-a");
	kbl_destroy("lib-cnt-b");
	return NULL;
}

/* ---- the mapping: kbl_map() and checks without a system call ---- */

#define MAP_KEYS	3000

static const char *test_map_rdonly(const struct vt_type *t)
{
	const struct kbloom_map_header *h;
	struct kbloom_info info;
	struct kbl *w = open_typed("lib-map-ro", t, 1000, FP_1PC), *r;

	EXPECT(w, "create");
	EXPECT_OK(kbl_open("lib-map-ro", O_RDONLY, &r));
	EXPECT(!kbl_mapped(r) && !kbl_map_header(r), "mapped before kbl_map");
	EXPECT_OK(kbl_map(r));
	h = kbl_map_header(r);
	EXPECT(kbl_mapped(r) == 1 && h, "not mapped after kbl_map");
	EXPECT(h->magic == KBLOOM_MAP_MAGIC && h->version ==
	       KBLOOM_MAP_VERSION && h->k >= 1, "header");
	EXPECT_OK(kbl_map(r));
	EXPECT(kbl_map_header(r) == h, "a second kbl_map mapped again");
	EXPECT_OK(kbl_info(w, &info));
	EXPECT(info.mappings == 1, "module counts %llu mappings",
	       (unsigned long long)info.mappings);
	kbl_unmap(r);
	EXPECT(!kbl_mapped(r) && !kbl_map_header(r), "mapped after unmap");
	kbl_unmap(r);	/* harmless when not mapped */
	EXPECT_OK(kbl_info(w, &info));
	EXPECT(info.mappings == 0, "module counts %llu mappings after unmap",
	       (unsigned long long)info.mappings);
	kbl_close(r);
	kbl_close(w);
	kbl_destroy("lib-map-ro");
	return NULL;
}

static const char *test_map_destroyed(const struct vt_type *t)
{
	struct kbl *f = open_typed("lib-map-gone", t, 1000, FP_1PC);

	EXPECT(f, "create");
	EXPECT_OK(kbl_destroy("lib-map-gone"));
	EXPECT(kbl_map(f) == -ENODEV, "kbl_map of a destroyed filter");
	EXPECT(!kbl_mapped(f), "mapped anyway");
	kbl_close(f);
	return NULL;
}

/*
 * Keys "m-<i>" for i < 2 * MAP_KEYS, the even ones added.
 * The mapped one-key, packed and pointer checks must give the ioctls'
 * answers bit for bit, with no ioctl and nothing counted by the module;
 * after destroy they are -ENODEV; after kbl_unmap ioctls answer again.
 */
static const char *test_mapped_answers(const struct vt_type *t)
{
	const char *name = "lib-map";
	const size_t n = 2 * MAP_KEYS, words = (n + 63) / 64;
	uint64_t *want, *got, hits_want, hits, before;
	const void **ptrs = calloc(n, sizeof(*ptrs));
	size_t *plens = calloc(n, sizeof(*plens));
	struct kbloom_info info0, info1;
	uint64_t ioctls0, ioctls1, maps;
	struct kbl *f = open_typed(name, t, MAP_KEYS, FP_1PC), *r;
	size_t i, wrong = 0;
	struct packed p;

	EXPECT(f && ptrs && plens, "create");
	EXPECT(!pack(&p, n, 16, "m"), "memory");
	for (i = 0; i < n; i += 2)
		EXPECT(kbl_add(f, p.data + i * 16, p.lens + i, 1, NULL,
			       NULL) == 0, "add %zu", i);
	for (i = 0; i < n; i++) {
		ptrs[i] = p.data + i * 16;
		plens[i] = 16;
	}
	want = calloc(words, sizeof(*want));
	got = calloc(words, sizeof(*got));
	EXPECT(want && got, "memory");
	EXPECT_OK(kbl_open(name, O_RDONLY, &r));
	EXPECT_OK(kbl_check(r, p.data, p.lens, n, want, &hits_want));
	EXPECT(hits_want >= n / 2 && hits_want < n / 2 + n / 20,
	       "ioctl: %llu of %zu maybe", (unsigned long long)hits_want, n);

	EXPECT_OK(kbl_map(r));
	EXPECT_OK(kbl_info(r, &info0));
	EXPECT_OK(vt_sysfs_u64(name, "check_ioctls", &ioctls0));
	EXPECT_OK(vt_sysfs_u64(name, "mappings", &maps));
	EXPECT(maps == 1, "sysfs mappings %llu", (unsigned long long)maps);
	before = kbl_ioctl_count(r);
	memset(got, 0xa5, words * sizeof(*got));
	EXPECT_OK(kbl_check(r, p.data, p.lens, n, got, &hits));
	EXPECT(hits == hits_want && !memcmp(got, want, words * sizeof(*got)),
	       "packed: %llu hits, ioctl %llu, or bits differ",
	       (unsigned long long)hits, (unsigned long long)hits_want);
	memset(got, 0x5a, words * sizeof(*got));
	EXPECT_OK(kbl_check_keys(r, ptrs, plens, n, got, &hits));
	EXPECT(hits == hits_want && !memcmp(got, want, words * sizeof(*got)),
	       "pointers: %llu hits, ioctl %llu, or bits differ",
	       (unsigned long long)hits, (unsigned long long)hits_want);
	for (i = 0; i < n; i++)
		wrong += kbl_check_one(r, ptrs[i], 16) != (int)bit(want, i);
	EXPECT(!wrong, "%zu one-key answers differ from the ioctl's", wrong);
	EXPECT(kbl_check_one(r, p.data, 0) == -EINVAL &&
	       kbl_check_one(r, p.data, KBLOOM_KEY_MAX + 1) == -EINVAL,
	       "bad lengths mapped");
	EXPECT(kbl_ioctl_count(r) == before, "mapped checks made %llu ioctls",
	       (unsigned long long)(kbl_ioctl_count(r) - before));
	EXPECT_OK(kbl_info(r, &info1));
	EXPECT_OK(vt_sysfs_u64(name, "check_ioctls", &ioctls1));
	EXPECT(info1.check_calls == info0.check_calls &&
	       info1.check_hits == info0.check_hits && ioctls1 == ioctls0,
	       "the module counted mapped checks: calls %llu -> %llu, ioctls %llu -> %llu",
	       info0.check_calls, info1.check_calls,
	       (unsigned long long)ioctls0, (unsigned long long)ioctls1);

	/* Destroyed: the mapping stays, its answers are the ioctl's ENODEV. */
	EXPECT_OK(kbl_destroy(name));
	before = kbl_ioctl_count(r);
	EXPECT(kbl_check_one(r, ptrs[0], 16) == -ENODEV, "one-key after destroy");
	EXPECT(kbl_check(r, p.data, p.lens, n, got, &hits) == -ENODEV,
	       "packed after destroy");
	EXPECT(kbl_check_keys(r, ptrs, plens, n, got, &hits) == -ENODEV,
	       "pointers after destroy");
	EXPECT(kbl_ioctl_count(r) == before, "ioctls after destroy");
	EXPECT(kbl_mapped(r) && (kbl_map_header(r)->flags & KBLOOM_MAP_DEAD),
	       "header not marked dead");

	/* Unmapped, checks are ioctls again (which say ENODEV themselves). */
	kbl_unmap(r);
	EXPECT(kbl_check_one(r, ptrs[0], 16) == -ENODEV &&
	       kbl_ioctl_count(r) == before + 1, "unmapped check made %llu ioctls",
	       (unsigned long long)(kbl_ioctl_count(r) - before));
	free(want);
	free(got);
	free(ptrs);
	free(plens);
	unpack(&p);
	kbl_close(r);
	kbl_close(f);
	return NULL;
}

/* A live filter unmapped: checks go back to ioctls and still agree. */
static const char *test_unmap_ioctls(const struct vt_type *t)
{
	struct kbl *f = open_typed("lib-unmap", t, 1000, FP_1PC);
	uint64_t before;

	EXPECT(f, "create");
	EXPECT(kbl_add_one(f, "alice", 5) == 1, "add");
	EXPECT_OK(kbl_map(f));
	before = kbl_ioctl_count(f);
	EXPECT(kbl_check_one(f, "alice", 5) == 1 &&
	       kbl_check_one(f, "mallory", 7) == 0, "mapped answers");
	EXPECT(kbl_ioctl_count(f) == before, "mapped checks made ioctls");
	/* An add through the same handle is seen by the mapping at once. */
	EXPECT(kbl_add_one(f, "bob", 3) == 1, "add while mapped");
	EXPECT(kbl_check_one(f, "bob", 3) == 1, "mapped check missed bob");
	kbl_unmap(f);
	before = kbl_ioctl_count(f);
	EXPECT(kbl_check_one(f, "alice", 5) == 1 &&
	       kbl_check_one(f, "bob", 3) == 1, "unmapped answers");
	EXPECT(kbl_ioctl_count(f) - before == 2, "%llu ioctls for 2 checks",
	       (unsigned long long)(kbl_ioctl_count(f) - before));
	return done(f, "lib-unmap");
}

static const struct vt_case cases[] = {
	VT_NAMED("names", test_names),
	VT_NAMED("lifecycle-errnos", test_lifecycle_errnos),
	VT_TYPED_AS("one-key", test_one_key, 0),
	VT_TYPED_AS("validation-before-ioctl", test_validation_first, 0),
	VT_TYPED_AS("chunk-by-count", test_chunk_by_count, 0),
	VT_TYPED_AS("chunk-by-bytes", test_chunk_by_bytes, 0),
	VT_TYPED_AS("pointer-keys", test_pointer_keys, 0),
	VT_TYPED_AS("clear-report", test_clear_report, 0),
	VT_TYPED_AS("save-load", test_save_load, 0),
	VT_TYPED_AS("merge-intersect", test_merge_intersect, 0),
	VT_TYPED_AS("delete-chunking", test_delete_chunking, VT_DELETES),
	VT_TYPED_AS("map-rdonly", test_map_rdonly, 0),
	VT_TYPED_AS("map-destroyed", test_map_destroyed, 0),
	VT_TYPED_AS("mapped-answers", test_mapped_answers, 0),
	VT_TYPED_AS("unmap-ioctls", test_unmap_ioctls, 0),
};

int main(void)
{
	return vt_run(SUITE, cases, ARRAY_SIZE(cases));
}
