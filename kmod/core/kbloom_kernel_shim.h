/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * Userspace stand-ins for the kernel facilities the filter core uses, so the
 * same core sources build into the host tests and the benchmark.  Each one
 * keeps the kernel's semantics that the core relies on: xxh64 is libxxhash's
 * XXH64 (the same function), kbloom_crc32c is the raw Castagnoli update with
 * no pre- or post-inversion, atomics are sequentially consistent.
 */
#ifndef KBLOOM_KERNEL_SHIM_H
#define KBLOOM_KERNEL_SHIM_H

#ifdef __KERNEL__
#error "this header is for userspace builds of the core only"
#endif

#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <xxhash.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;

#define U32_MAX		UINT32_MAX
#define U64_MAX		UINT64_MAX
#define BITS_PER_LONG	((int)(sizeof(long) * CHAR_BIT))
#define BITS_TO_LONGS(n) (((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#ifndef __always_inline		/* glibc's <sys/cdefs.h> has one */
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#define __always_unused		__attribute__((__unused__))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define BIT_ULL(n)	(1ULL << (n))
#define GENMASK_ULL(h, l) (((~0ULL) << (l)) & (~0ULL >> (63 - (h))))
#define PTR_ALIGN(p, a)	((__typeof__(p))align_up_uintptr((uintptr_t)(p), a))
/* Every use in the core compares unsigned values of at most 64 bits. */
#define min_t(t, a, b)	((t)min_u64((u64)(a), (u64)(b)))

static inline u64 min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static inline uintptr_t align_up_uintptr(uintptr_t x, uintptr_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Makes the compiler forget what it knows of a pointer's value. */
static __always_inline void compat_hide_ptr(void **p)
{
	__asm__ ("" : "+r" (*p));
}

#define OPTIMIZER_HIDE_VAR(ptr)	compat_hide_ptr((void **)&(ptr))

#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)

#define cpu_to_le16(x)	((__le16)htole16(x))
#define cpu_to_le32(x)	((__le32)htole32(x))
#define cpu_to_le64(x)	((__le64)htole64(x))
#define le16_to_cpu(x)	le16toh(x)
#define le32_to_cpu(x)	le32toh(x)
#define le64_to_cpu(x)	le64toh(x)

static inline u64 get_unaligned_le64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline u16 get_unaligned_le16(const void *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

/* The first byte of p[0 .. n) that is not c, or NULL. */
static inline void *memchr_inv(const void *p, int c, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != (unsigned char)c)
			return (void *)(b + i);
	return NULL;
}

static inline u32 get_unaligned_le32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline void put_unaligned_le64(u64 v, void *p)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put_unaligned_le32(u32 v, void *p)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

struct compat_atomic64 {
	s64 counter;
};

/* A macro rather than a typedef: the kernel's name, userspace's type. */
#define atomic64_t	struct compat_atomic64
#define ATOMIC64_INIT(i) { (i) }

static inline s64 atomic64_read(const atomic64_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic64_set(atomic64_t *v, s64 i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic64_add(s64 i, atomic64_t *v)
{
	__atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic64_inc(atomic64_t *v)
{
	atomic64_add(1, v);
}

static inline void atomic64_dec(atomic64_t *v)
{
	atomic64_add(-1, v);
}

static inline s64 atomic64_add_return(s64 i, atomic64_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);
}

/* On failure *old takes the value found, as the kernel's does. */
static inline bool atomic64_try_cmpxchg(atomic64_t *v, s64 *old, s64 new)
{
	return __atomic_compare_exchange_n(&v->counter, old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/* The kernel's ordered publication of one value, as C11 spells it. */
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
/* RCU's publication of a pointer: consume pairs with release. */
#define __rcu
#define rcu_dereference_raw(p)	__atomic_load_n(&(p), __ATOMIC_CONSUME)
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)

/*
 * Per-CPU data, emulated per thread: an allocation holds one slot of
 * COMPAT_PERCPU_STRIDE bytes for each of COMPAT_NR_CPUS "CPUs", and a
 * thread takes the next slot the first time it counts.  Each slot has one
 * writer, so this_cpu_add() is a plain load and store (relaxed atomics, no
 * lock prefix), and counts are exact for up to COMPAT_NR_CPUS threads that
 * ever counted in the process; beyond that, threads share slots and
 * increments racing in one slot can be lost.  The slot counter and each
 * thread's slot are weak definitions so that every translation unit of a
 * program sees the same ones.
 */
#define ____cacheline_aligned_in_smp	__attribute__((__aligned__(64)))
#define __percpu
#define COMPAT_NR_CPUS		64
#define COMPAT_PERCPU_STRIDE	64	/* one cache line: no false sharing */

#pragma weak compat_cpu_slots_taken
int compat_cpu_slots_taken;
/* (slot + 1) * COMPAT_PERCPU_STRIDE, so that 0 means "no slot yet". */
#pragma weak compat_cpu_end
__thread size_t compat_cpu_end;

static inline size_t compat_take_cpu(void)
{
	int slot = __atomic_fetch_add(&compat_cpu_slots_taken, 1,
				      __ATOMIC_RELAXED) % COMPAT_NR_CPUS;

	compat_cpu_end = (size_t)(slot + 1) * COMPAT_PERCPU_STRIDE;
	return compat_cpu_end;
}

/* Byte offset of this thread's slot. */
static inline size_t compat_this_cpu_offset(void)
{
	size_t end = compat_cpu_end;

	return (likely(end) ? end : compat_take_cpu()) - COMPAT_PERCPU_STRIDE;
}

static inline void *compat_alloc_percpu(void)
{
	void *p = aligned_alloc(COMPAT_PERCPU_STRIDE,
				COMPAT_NR_CPUS * COMPAT_PERCPU_STRIDE);

	if (p)
		memset(p, 0, COMPAT_NR_CPUS * COMPAT_PERCPU_STRIDE);
	return p;
}

#define alloc_percpu_gfp(type, gfp) ({					\
	static_assert(sizeof(type) <= COMPAT_PERCPU_STRIDE,		\
		       "per-CPU type larger than its slot");		\
	(void)(gfp);							\
	(type *)compat_alloc_percpu();					\
})
#define free_percpu(p)	free(p)
#define num_possible_cpus()	COMPAT_NR_CPUS
#define per_cpu_ptr(p, cpu)						\
	((__typeof__(p))((char *)(p) + (size_t)(cpu) * COMPAT_PERCPU_STRIDE))
static inline int *compat_cpu_before_first(int *cpu)
{
	*cpu = -1;
	return cpu;
}

static inline bool compat_cpu_next(int *cpu)
{
	return ++*cpu < COMPAT_NR_CPUS;
}

#define for_each_possible_cpu(cpu)					\
	for (int *cpu_p__ = compat_cpu_before_first(&(cpu));		\
	     compat_cpu_next(cpu_p__);)
#define this_cpu_add(pcp, val) do {					\
	__typeof__(pcp) *p__ = &(pcp);					\
									\
	p__ = (void *)((char *)p__ + compat_this_cpu_offset());		\
									\
	__atomic_store_n(p__, __atomic_load_n(p__, __ATOMIC_RELAXED) +	\
			 (val), __ATOMIC_RELAXED);			\
} while (0)
#define this_cpu_inc(pcp)	this_cpu_add(pcp, 1)

static inline void compat_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/*
 * A test-and-test-and-set spinlock: acquire on lock, release on unlock,
 * which is all the core asks of the kernel's spinlock_t.  A kernel lock
 * holder cannot be preempted; a thread here can, and then its waiters
 * would spin out their time slices (two adding threads on two CPUs with
 * any third process running measured under half of one thread's rate),
 * so a waiter yields every COMPAT_SPINS_BEFORE_YIELD tries.
 */
#define COMPAT_SPINS_BEFORE_YIELD	128
typedef struct {
	int locked;
} spinlock_t;

static inline void spin_lock_init(spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELAXED);
}

static inline void spin_lock(spinlock_t *l)
{
	unsigned int spins = 0;

	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED)) {
			if (++spins % COMPAT_SPINS_BEFORE_YIELD)
				compat_cpu_relax();
			else
				sched_yield();
		}
}

static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/* No softirqs in a process: bottom halves are the kernel's alone. */
static inline void local_bh_disable(void)
{
}

static inline void local_bh_enable(void)
{
}

#define spin_lock_bh(l)		spin_lock(l)
#define spin_unlock_bh(l)	spin_unlock(l)

/* Like the kernel's: fully ordered, updates *old on failure. */
#define try_cmpxchg(ptr, oldp, new)					\
	__atomic_compare_exchange_n(ptr, oldp, new, false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)

#ifdef __SIZEOF_INT128__
static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return (u64)(((__uint128_t)a * b) >> shift);
}
#else
/* 32-bit builds: the 128-bit product from 32-bit halves, as lib/math does. */
static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	u64 lo = (a & 0xffffffffu) * (b & 0xffffffffu);
	u64 m1 = (a >> 32) * (b & 0xffffffffu);
	u64 m2 = (a & 0xffffffffu) * (b >> 32);
	u64 hi = (a >> 32) * (b >> 32);
	u64 mid = (lo >> 32) + (m1 & 0xffffffffu) + (m2 & 0xffffffffu);

	lo = (lo & 0xffffffffu) | (mid << 32);
	hi += (m1 >> 32) + (m2 >> 32) + (mid >> 32);
	if (!shift)
		return lo;
	if (shift >= 64)
		return hi >> (shift - 64);
	return (lo >> shift) | (hi << (64 - shift));
}
#endif

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

/* The lowest set bit of w, which must not be 0. */
static inline unsigned long __ffs64(u64 w)
{
	return __builtin_ctzll(w);
}

static inline unsigned int hweight64(u64 w)
{
	return (unsigned int)__builtin_popcountll(w);
}

static inline unsigned int hweight_long(unsigned long w)
{
	return (unsigned int)__builtin_popcountl(w);
}

static inline void __set_bit(unsigned long nr, unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return (addr[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}

static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

#define prefetch(p)	__builtin_prefetch(p)
#define prefetchw(p)	__builtin_prefetch(p, 1)
#define cond_resched()	do { } while (0)

static inline u64 rol64(u64 word, unsigned int shift)
{
	return (word << (shift & 63)) | (word >> ((-shift) & 63));
}

static inline u64 xxh64(const void *input, size_t len, u64 seed)
{
	return XXH64(input, len, seed);
}

/*
 * The kernel's crc32c() (kbloom_core_compat.h): reflected Castagnoli
 * 0x82F63B78, the caller supplies the running value and does any
 * inversion itself.
 */
static inline u32 kbloom_crc32c(u32 crc, const void *data, size_t len)
{
	const unsigned char *p = data;
	static u32 table[256];
	static int ready;
	unsigned int i, j;

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < 256; i++) {
			u32 c = i;

			for (j = 0; j < 8; j++)
				c = (c >> 1) ^ (0x82F63B78U & -(c & 1));
			table[i] = c;
		}
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	while (len--)
		crc = (crc >> 8) ^ table[(crc ^ *p++) & 0xff];
	return crc;
}

/* Memory: the kernel's flags mean nothing here. */
#define GFP_KERNEL_ACCOUNT	0
#define __GFP_NOWARN		0
#define __GFP_ZERO		0

static inline void *kvzalloc(size_t size, int flags)
{
	(void)flags;
	return calloc(1, size);
}

#define PAGE_SIZE	4096UL
#define PAGE_ALIGN(x)	(((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))

/* vmalloc memory is page-aligned; the core relies on it. */
static inline void *__vmalloc(unsigned long size, int flags)
{
	void *p = aligned_alloc(PAGE_SIZE, PAGE_ALIGN(size));

	(void)flags;
	if (p)
		memset(p, 0, PAGE_ALIGN(size));
	return p;
}

static inline void vfree(const void *p)
{
	free((void *)p);
}

static inline void *kcalloc(size_t n, size_t size, int flags)
{
	size_t bytes = n * size;
	void *p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);

	(void)flags;
	if (p)
		memset(p, 0, bytes);
	return p;
}

/* What kcalloc() above takes for size bytes. */
static inline size_t kmalloc_size_roundup(size_t size)
{
	return (size + 63) & ~(size_t)63;
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

/*
 * What the unit suite (kunit/, run on the host through tests/host/kunit/)
 * uses beyond the core: more of the kernel's helpers, same semantics.
 */
#define GFP_KERNEL	0
#define IS_ERR_VALUE(x)	((unsigned long)(x) >= (unsigned long)-4095)
#define IS_ERR_OR_NULL(p) (!(p) || IS_ERR_VALUE(p))
#define offset_in_page(p) ((unsigned long)(p) & (PAGE_SIZE - 1))
#define round_up(x, y)	((((x) - 1) | ((__typeof__(x))((y) - 1))) + 1)
#ifndef min
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#endif

static inline void *kmalloc(size_t size, int flags)
{
	(void)flags;
	return malloc(size);
}

static inline void *kzalloc(size_t size, int flags)
{
	(void)flags;
	return calloc(1, size);
}

static inline unsigned int bitmap_weight(const unsigned long *src,
					 unsigned int nbits)
{
	unsigned int i, w = 0;

	for (i = 0; i < nbits; i++)
		w += test_bit(i, src);
	return w;
}

static inline bool bitmap_equal(const unsigned long *a,
				const unsigned long *b, unsigned int nbits)
{
	unsigned int i;

	for (i = 0; i < nbits; i++)
		if (test_bit(i, a) != test_bit(i, b))
			return false;
	return true;
}

static inline bool bitmap_empty(const unsigned long *src, unsigned int nbits)
{
	return !bitmap_weight(src, nbits);
}

/* floor(sqrt(x)), exactly, as the kernel's. */
static inline u64 int_sqrt64(u64 x)
{
	u64 r = 0, bit;

	for (bit = 1ULL << 62; bit; bit >>= 2) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

/* The kernel's return value: the characters written, at most size - 1. */
#define scnprintf(buf, size, ...) ({					\
	int __n = snprintf(buf, size, __VA_ARGS__);			\
	!(size) ? 0 : __n >= (int)(size) ? (int)(size) - 1 : __n;	\
})

static inline long strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(src, size);

	if (!size)
		return -E2BIG;
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = 0;
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return len;
}

static inline size_t strlcat(char *dst, const char *src, size_t size)
{
	size_t d = strnlen(dst, size), s = strlen(src);

	if (d < size) {
		size_t n = s < size - d - 1 ? s : size - d - 1;

		memcpy(dst + d, src, n);
		dst[d + n] = 0;
	}
	return d + s;
}

#endif /* KBLOOM_KERNEL_SHIM_H */
