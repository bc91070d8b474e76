/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small stand-in for the kernel's <kunit/test.h>, so that the unit suite
 * in kunit/ compiles and runs on the host against the same core sources
 * (tests/host/Makefile).  Only what kunit/ uses, with KUnit's semantics:
 * an expectation records a failure and the case goes on, an assertion
 * ends the case; resources and kunit_*alloc() memory are freed when the
 * case ends, however it ends.  Each case (each parameter of a
 * parameterised one) prints one line:
 *   PASS: kunit-host/<suite>.<case>[/<param>]
 *   FAIL: kunit-host/<suite>.<case>[/<param>]: <first failure> [(+N more)]
 * where a failure reads as KUnit's: "EXPECTATION FAILED at file:line:
 * Expected a == b, but a == 1, b == 2".
 */
#ifndef KBLOOM_HOST_KUNIT_TEST_H
#define KBLOOM_HOST_KUNIT_TEST_H

#include <setjmp.h>
#include <stdio.h>
#include "../../../kmod/core/kbloom_kernel_shim.h"

#define KUNIT_PARAM_DESC_SIZE	128

struct kunit_resource;
typedef int (*kunit_resource_init_t)(struct kunit_resource *, void *);
typedef void (*kunit_resource_free_t)(struct kunit_resource *);

struct kunit_resource {
	void *data;
	kunit_resource_free_t free;
	struct kunit_resource *next;
};

struct kunit {
	const void *param_value;
	const char *name;
	unsigned int failures;
	char first[512];
	struct kunit_resource *resources;
	jmp_buf abort;
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const void *(*generate_params)(const void *prev, char *desc);
};

struct kunit_suite {
	const char *name;
	struct kunit_case *test_cases;
};

#define KUNIT_CASE(fn)	{ .run_case = fn, .name = #fn }
#define KUNIT_CASE_PARAM(fn, gen) \
	{ .run_case = fn, .name = #fn, .generate_params = gen }

/* The kernel's definition, word for word. */
#define KUNIT_ARRAY_PARAM(name, array, get_desc)			\
	static const void *name##_gen_params(const void *prev, char *desc) \
	{								\
		typeof((array)[0]) *__next = prev ?			\
			((typeof(__next))prev) + 1 : (array);		\
		if (__next - (array) < ARRAY_SIZE((array))) {		\
			void (*__get_desc)(typeof(__next), char *) = get_desc; \
			if (__get_desc)					\
				__get_desc(__next, desc);		\
			return __next;					\
		}							\
		return NULL;						\
	}

void kunit_host_register(struct kunit_suite **suites);
#define kunit_test_suites(...)						\
	static struct kunit_suite *kunit_host_suites[] = {		\
		__VA_ARGS__, NULL };					\
	static void __attribute__((constructor)) kunit_host_init(void) \
	{								\
		kunit_host_register(kunit_host_suites);			\
	}
#define kunit_test_suite(suite)	kunit_test_suites(&suite)
#define MODULE_DESCRIPTION(s)
#define MODULE_LICENSE(s)

/* Memory and resources, released in reverse order when the case ends. */
void *kunit_alloc_resource(struct kunit *test, kunit_resource_init_t init,
			   kunit_resource_free_t free, int gfp, void *context);
void *kunit_kmalloc(struct kunit *test, size_t size, int gfp);

static inline void *kunit_kzalloc(struct kunit *test, size_t size, int gfp)
{
	void *p = kunit_kmalloc(test, size, gfp);

	if (p)
		memset(p, 0, size);
	return p;
}

static inline void *kunit_kcalloc(struct kunit *test, size_t n, size_t size,
				  int gfp)
{
	return kunit_kzalloc(test, n * size, gfp);
}

#define kunit_info(test, fmt, ...) \
	printf("    # %s: " fmt, (test)->name, ##__VA_ARGS__)

/* A failure's text; an assertion then leaves the case (longjmp). */
void kunit_host_fail(struct kunit *test, bool assertion, const char *file,
		     int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void kunit_host_msg(struct kunit *test, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kunit_host_end(struct kunit *test, bool assertion)
	__attribute__((noreturn));
/* Returns normally only when !assertion. */
static inline void kunit_host_done(struct kunit *test, bool assertion)
{
	if (assertion)
		kunit_host_end(test, assertion);
}

#define KUNIT_HOST_SIGNED(x)	((__typeof__(x))-1 < (__typeof__(x))1)

void kunit_host_value(struct kunit *test, const char *expr, bool is_signed,
		      unsigned long long v);

#define KUNIT_HOST_BINARY(test, assertion, left, op, right, ...) do {	\
	const __typeof__(left) __left = (left);				\
	const __typeof__(right) __right = (right);			\
									\
	if (!(__left op __right)) {					\
		kunit_host_fail(test, assertion, __FILE__, __LINE__,	\
				"Expected %s %s %s, but", #left, #op,	\
				#right);				\
		kunit_host_value(test, #left, KUNIT_HOST_SIGNED(__left), \
				 (unsigned long long)__left);		\
		kunit_host_value(test, #right,				\
				 KUNIT_HOST_SIGNED(__right),		\
				 (unsigned long long)__right);		\
		kunit_host_msg(test, " " __VA_ARGS__);			\
		kunit_host_done(test, assertion);			\
	}								\
} while (0)

#define KUNIT_HOST_BOOL(test, assertion, cond, want, ...) do {		\
	if (!(cond) != !(want)) {					\
		kunit_host_fail(test, assertion, __FILE__, __LINE__,	\
				"Expected %s to be %s, but is %s", #cond, \
				(want) ? "true" : "false",		\
				(want) ? "false" : "true");		\
		kunit_host_msg(test, " " __VA_ARGS__);			\
		kunit_host_done(test, assertion);			\
	}								\
} while (0)

#define KUNIT_HOST_PTR(test, assertion, ptr, ...) do {			\
	const void *__ptr = (ptr);					\
									\
	if (IS_ERR_OR_NULL(__ptr)) {					\
		kunit_host_fail(test, assertion, __FILE__, __LINE__,	\
				"Expected %s is not error or NULL, but is %p", \
				#ptr, __ptr);				\
		kunit_host_msg(test, " " __VA_ARGS__);			\
		kunit_host_done(test, assertion);			\
	}								\
} while (0)

#define KUNIT_EXPECT_EQ(t, l, r)	KUNIT_HOST_BINARY(t, false, l, ==, r)
#define KUNIT_EXPECT_NE(t, l, r)	KUNIT_HOST_BINARY(t, false, l, !=, r)
#define KUNIT_EXPECT_LT(t, l, r)	KUNIT_HOST_BINARY(t, false, l, <, r)
#define KUNIT_EXPECT_LE(t, l, r)	KUNIT_HOST_BINARY(t, false, l, <=, r)
#define KUNIT_EXPECT_GT(t, l, r)	KUNIT_HOST_BINARY(t, false, l, >, r)
#define KUNIT_EXPECT_GE(t, l, r)	KUNIT_HOST_BINARY(t, false, l, >=, r)
#define KUNIT_ASSERT_EQ(t, l, r)	KUNIT_HOST_BINARY(t, true, l, ==, r)
#define KUNIT_ASSERT_NE(t, l, r)	KUNIT_HOST_BINARY(t, true, l, !=, r)
#define KUNIT_ASSERT_LT(t, l, r)	KUNIT_HOST_BINARY(t, true, l, <, r)
#define KUNIT_ASSERT_LE(t, l, r)	KUNIT_HOST_BINARY(t, true, l, <=, r)
#define KUNIT_ASSERT_GT(t, l, r)	KUNIT_HOST_BINARY(t, true, l, >, r)
#define KUNIT_ASSERT_GE(t, l, r)	KUNIT_HOST_BINARY(t, true, l, >=, r)
#define KUNIT_EXPECT_EQ_MSG(t, l, r, ...) \
	KUNIT_HOST_BINARY(t, false, l, ==, r, __VA_ARGS__)
#define KUNIT_EXPECT_LE_MSG(t, l, r, ...) \
	KUNIT_HOST_BINARY(t, false, l, <=, r, __VA_ARGS__)
#define KUNIT_EXPECT_GE_MSG(t, l, r, ...) \
	KUNIT_HOST_BINARY(t, false, l, >=, r, __VA_ARGS__)
#define KUNIT_EXPECT_TRUE(t, c)		KUNIT_HOST_BOOL(t, false, c, true)
#define KUNIT_EXPECT_FALSE(t, c)	KUNIT_HOST_BOOL(t, false, c, false)
#define KUNIT_ASSERT_TRUE(t, c)		KUNIT_HOST_BOOL(t, true, c, true)
#define KUNIT_ASSERT_FALSE(t, c)	KUNIT_HOST_BOOL(t, true, c, false)
#define KUNIT_EXPECT_TRUE_MSG(t, c, ...) \
	KUNIT_HOST_BOOL(t, false, c, true, __VA_ARGS__)
#define KUNIT_ASSERT_NOT_ERR_OR_NULL(t, p)	KUNIT_HOST_PTR(t, true, p)
#define KUNIT_EXPECT_NOT_ERR_OR_NULL(t, p)	KUNIT_HOST_PTR(t, false, p)

#endif /* KBLOOM_HOST_KUNIT_TEST_H */
