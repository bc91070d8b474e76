/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the multi-process VM stress programs (fuzz-ioctl.c, torture.c):
 * a seeded generator, clocks, memory shared across fork(), raw control-node
 * calls, the image CRC and the in-kernel API's companion module.
 * Everything a run does follows from its seed, so a failure can be
 * replayed with the same -s.
 */
#ifndef KBLOOM_STRESS_H
#define KBLOOM_STRESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "batch-of.h"
#include "crc32c.h"
#include "../../include/uapi/linux/kbloom.h"

#define ST_CONTROL	"/dev/kbloom-control"

/* splitmix64: tiny, fast, and good enough to drive a fuzzer. */
struct st_rng {
	uint64_t s;
};

static inline uint64_t st_next(struct st_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0. */
static inline uint64_t st_below(struct st_rng *r, uint64_t n)
{
	return st_next(r) % n;
}

/* true with probability 1/n. */
static inline bool st_one_in(struct st_rng *r, uint64_t n)
{
	return st_below(r, n) == 0;
}

static inline void st_fill(struct st_rng *r, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		uint64_t v = st_next(r);
		size_t take = len < 8 ? len : 8;

		memcpy(p, &v, take);
		p += take;
		len -= take;
	}
}

static inline uint64_t st_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Zeroed memory that parent and forked children all see. */
static inline void *st_shared(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap shared");
		exit(2);
	}
	return p;
}

static inline const char *st_errname(int e)
{
	const char *name = e ? strerrorname_np(e) : "ok";

	return name ? name : "E?";
}

/* The header and window part before an image's cells. */
#define ST_IMAGE_HDR	(sizeof(struct kbloom_image_header) +		\
			 sizeof(struct kbloom_image_window))

static inline uint64_t st_image_bytes(uint64_t nblocks)
{
	return ST_IMAGE_HDR + nblocks * 64 + 4;
}

/* This process's read-write file of the control node, opened once. */
static inline int st_open_ctl(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = open(ST_CONTROL, O_RDWR | O_CLOEXEC);
	return fd;
}

/* ioctl on the control node; returns 0 or an errno. */
static inline int st_ctl(int ctl, unsigned long cmd, void *arg)
{
	return ioctl(ctl, cmd, arg) ? errno : 0;
}

/*
 * A filter of a type (a window of generations, else 0), bits of memory
 * and k probes, with a fixed seed.
 */
static inline int st_create_gen(int ctl, const char *name, uint32_t type,
				uint32_t generations, uint64_t bits, uint32_t k,
				uint64_t seed)
{
	struct kbloom_create req;

	memset(&req, 0, sizeof(req));
	memcpy(req.name, name, strnlen(name, sizeof(req.name) - 1));
	req.type = type;
	req.generations = generations;
	req.bits = bits;
	req.k = k;
	req.seed = seed;
	req.flags = KBLOOM_CREATE_SEED;
	return st_ctl(ctl, KBLOOM_CTL_CREATE, &req);
}

/*
 * The same with a window's generations chosen for the caller: the
 * stress programs that pick a type number and no table row.
 */
#define ST_WINDOW_GENERATIONS	4

static inline int st_create_type(int ctl, const char *name, uint32_t type,
				 uint64_t bits, uint32_t k, uint64_t seed)
{
	return st_create_gen(ctl, name, type,
			     type == KBLOOM_TYPE_WINDOW ?
			     ST_WINDOW_GENERATIONS : 0, bits, k, seed);
}

static inline int st_create_bits(int ctl, const char *name, uint64_t bits,
				 uint32_t k, uint64_t seed)
{
	return st_create_type(ctl, name, KBLOOM_TYPE_BITS, bits, k, seed);
}

static inline int st_destroy(int ctl, const char *name)
{
	struct kbloom_name req;

	memset(&req, 0, sizeof(req));
	memcpy(req.name, name, strnlen(name, sizeof(req.name) - 1));
	return st_ctl(ctl, KBLOOM_CTL_DESTROY, &req);
}

static inline int st_open(const char *name, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/kbloom/%s", name);
	return open(path, flags | O_CLOEXEC);
}

/*
 * A batch of keys "<tag>-<i>" for i in [first, first + n): the lengths
 * array and the bytes back to back, in caller-provided space.
 */
struct st_keys {
	char *bytes;
	uint32_t *lens;
	uint64_t keys_len;
	uint32_t count;
};

static inline void st_keys_fill(struct st_keys *k, const char *tag,
				uint64_t first, uint32_t n)
{
	uint32_t i;

	k->keys_len = 0;
	k->count = n;
	for (i = 0; i < n; i++) {
		int len = sprintf(k->bytes + k->keys_len, "%s-%llu", tag,
				  (unsigned long long)(first + i));

		k->lens[i] = len;
		k->keys_len += len;
	}
}

/*
 * The batch request of k (answers into results, when given); then ADD,
 * CHECK or DELETE of it, which returns 0 or an errno.  *hits gets the count and, when
 * results is given, every answer bit.
 */
static inline void st_batch_of(struct kbloom_batch *b, const struct st_keys *k,
			       uint64_t *results)
{
	KB_BATCH_OF(b, k, results);
}

static inline int st_batch(int fd, unsigned long cmd, const struct st_keys *k,
			   uint64_t *results, uint32_t *hits)
{
	struct kbloom_batch b;

	st_batch_of(&b, k, results);
	if (ioctl(fd, cmd, &b))
		return errno;
	if (hits)
		*hits = b.hits;
	return 0;
}

/*
 * The companion module of the in-kernel API (tests/kmod/kbloom_kapi_test.c,
 * whose top comment lists its commands), which scripts/vm-initramfs puts
 * at ST_KAPI_KO.
 */
#define ST_KAPI_MODULE	"kbloom_kapi_test"
#define ST_KAPI_PARAMS	"/sys/module/" ST_KAPI_MODULE "/parameters"
#define ST_KAPI_KO	"/kmod/" ST_KAPI_MODULE ".ko"

/*
 * Loads the companion from ko unless it is loaded: 0, with *loaded true
 * when this call loaded it, or the errno (ENOENT: no such file).
 */
static inline int st_kapi_load(const char *ko, bool *loaded)
{
	int fd, e = 0;

	*loaded = false;
	if (!access(ST_KAPI_PARAMS "/cmd", W_OK))
		return 0;
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (syscall(SYS_finit_module, fd, "", 0))
		e = errno;
	close(fd);
	*loaded = !e;
	return e == EEXIST ? 0 : e;
}

static inline int st_kapi_unload(void)
{
	return syscall(SYS_delete_module, ST_KAPI_MODULE, O_NONBLOCK) ? errno : 0;
}

/* Where the companion runs a key range; adds fail from ST_KAPI_IRQOFF on. */
enum {
	ST_KAPI_PROCESS, ST_KAPI_RCU, ST_KAPI_SPINLOCK, ST_KAPI_SOFTIRQ,
	ST_KAPI_IRQOFF, ST_KAPI_HARDIRQ, ST_KAPI_NR_CTX
};

/* The companion's word for a context of the enum above. */
static inline const char *st_kapi_ctx(int ctx)
{
	static const char *const names[ST_KAPI_NR_CTX] = {
		"process", "rcu", "spinlock", "softirq", "irqoff", "hardirq",
	};

	return names[ctx];
}

/* The put of the newest reference from process, softirq or hardirq (how). */
static inline const char *st_kapi_put(int how)
{
	static const char *const puts[] = {
		"put", "put-softirq", "put-hardirq",
	};

	return puts[how];
}

/* The companion's cmd and result files, opened; 0 or the errno. */
static inline int st_kapi_open(int *cmd_fd, int *res_fd)
{
	*cmd_fd = open(ST_KAPI_PARAMS "/cmd", O_WRONLY | O_CLOEXEC);
	*res_fd = open(ST_KAPI_PARAMS "/result", O_RDONLY | O_CLOEXEC);
	return *cmd_fd < 0 || *res_fd < 0 ? errno : 0;
}

/* The answer to the last command in res, newline gone; 0 or the errno. */
static inline int st_kapi_read(int res_fd, char *res, size_t size)
{
	ssize_t n = pread(res_fd, res, size - 1, 0);

	if (n < 0) {
		res[0] = 0;
		return errno;
	}
	while (n && res[n - 1] == '\n')
		n--;
	res[n] = 0;
	return 0;
}

/*
 * One command to the companion through its open cmd and result files;
 * the answer in res.  Returns the write's errno (the answer then says
 * why), or the read's.
 */
static inline int st_kapi_cmd(int cmd_fd, int res_fd, char *res, size_t size,
			      const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static inline int st_kapi_cmd(int cmd_fd, int res_fd, char *res, size_t size,
			      const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	int len, e;

	va_start(ap, fmt);
	len = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	e = pwrite(cmd_fd, cmd, len, 0) < 0 ? errno : 0;
	len = st_kapi_read(res_fd, res, size);
	return e ?: len;
}

/* The number after " NAME=" (or at the start) in a companion's answer. */
static inline bool st_kapi_num(const char *res, const char *name,
			       long long *v)
{
	size_t n = strlen(name);
	const char *p;

	for (p = res; (p = strstr(p, name)); p++)
		if ((p == res || p[-1] == ' ') && p[n] == '=')
			return sscanf(p + n + 1, "%lld", v) == 1;
	return false;
}

/* The companion's answer res has each of want's NAME=VALUE words. */
static inline bool st_kapi_has(const char *res, const char *want)
{
	const char *p;
	size_t n;

	for (;; want += n) {
		want += strspn(want, " ");
		n = strcspn(want, " ");
		if (!n)
			return true;
		for (p = res; p; p = strchr(p, ' '), p = p ? p + 1 : NULL)
			if (!strncmp(p, want, n) && (!p[n] || p[n] == ' '))
				break;
		if (!p)
			return false;
	}
}

/*
 * The id sysfs shows for a filter, or 0 with *err (when given) the errno
 * of its open or read.
 */
static inline uint32_t st_filter_id(const char *name, int *err)
{
	char path[96], buf[32];
	ssize_t n = -1;
	int fd, e;

	snprintf(path, sizeof(path), "/sys/class/kbloom/%s/id", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		e = errno;
		close(fd);
		errno = e;
	}
	if (err)
		*err = n < 0 ? errno : 0;
	if (n < 0)
		return 0;
	buf[n] = 0;
	return strtoul(buf, NULL, 10);
}

#endif /* KBLOOM_STRESS_H */
