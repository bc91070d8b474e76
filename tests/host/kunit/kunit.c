// SPDX-License-Identifier: GPL-2.0
/*
 * The host's KUnit runner (see test.h): every suite that kunit_test_suite()
 * registered, every case, every parameter, in order; exit status 1 if any
 * case failed.
 */
#include <stdarg.h>
#include "test.h"

#define KUNIT_HOST_MAX_SUITES	32

static struct kunit_suite *suites[KUNIT_HOST_MAX_SUITES];
static unsigned int nsuites;

void kunit_host_register(struct kunit_suite **list)
{
	for (; *list; list++) {
		if (nsuites == KUNIT_HOST_MAX_SUITES) {
			fprintf(stderr, "kunit-host: too many suites\n");
			exit(2);
		}
		suites[nsuites++] = *list;
	}
}

struct kunit_host_alloc {
	struct kunit_resource res;
	max_align_t mem[];
};

static void kunit_host_free_nothing(struct kunit_resource *res)
{
	(void)res;
}

void *kunit_alloc_resource(struct kunit *test, kunit_resource_init_t init,
			   kunit_resource_free_t free, int gfp, void *context)
{
	struct kunit_resource *res = calloc(1, sizeof(*res));

	(void)gfp;
	if (!res)
		return NULL;
	if (init(res, context)) {
		free(res);
		return NULL;
	}
	res->free = free;
	res->next = test->resources;
	test->resources = res;
	return res->data;
}

/* One allocation: the resource and, after it, the caller's memory. */
void *kunit_kmalloc(struct kunit *test, size_t size, int gfp)
{
	struct kunit_host_alloc *a = malloc(sizeof(*a) + size);

	(void)gfp;
	if (!a)
		return NULL;
	a->res.data = a->mem;
	a->res.free = kunit_host_free_nothing;
	a->res.next = test->resources;
	test->resources = &a->res;
	return a->mem;
}

static void kunit_host_release(struct kunit *test)
{
	while (test->resources) {
		struct kunit_resource *res = test->resources;

		test->resources = res->next;
		res->free(res);
		free(res);
	}
}

static void kunit_host_append(struct kunit *test, const char *fmt,
			      va_list ap)
{
	size_t used = strlen(test->first);

	/* Only the first failure is told in full; the rest are counted. */
	if (test->failures == 1 && used < sizeof(test->first))
		vsnprintf(test->first + used, sizeof(test->first) - used, fmt,
			  ap);
}

void kunit_host_fail(struct kunit *test, bool assertion, const char *file,
		     int line, const char *fmt, ...)
{
	const char *base = strrchr(file, '/');
	va_list ap;

	if (++test->failures == 1)
		snprintf(test->first, sizeof(test->first),
			 "%s FAILED at %s:%d: ",
			 assertion ? "ASSERTION" : "EXPECTATION",
			 base ? base + 1 : file, line);
	va_start(ap, fmt);
	kunit_host_append(test, fmt, ap);
	va_end(ap);
}

void kunit_host_msg(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	/* " ": an expectation without a message of its own. */
	if (!strcmp(fmt, " "))
		return;
	va_start(ap, fmt);
	kunit_host_append(test, fmt, ap);
	va_end(ap);
}

void kunit_host_value(struct kunit *test, const char *expr, bool is_signed,
		      unsigned long long v)
{
	if (is_signed)
		kunit_host_msg(test, " %s == %lld,", expr, (long long)v);
	else
		kunit_host_msg(test, " %s == %llu (%#llx),", expr, v, v);
}

void kunit_host_end(struct kunit *test, bool assertion)
{
	(void)assertion;
	longjmp(test->abort, 1);
}

static bool kunit_host_run(const struct kunit_suite *suite,
			   const struct kunit_case *c, const void *param,
			   const char *desc)
{
	struct kunit test = { .param_value = param, .name = c->name };
	char name[512];

	snprintf(name, sizeof(name), "%s.%s%s%s", suite->name, c->name,
		 desc ? "/" : "", desc ? desc : "");
	if (!setjmp(test.abort))
		c->run_case(&test);
	kunit_host_release(&test);
	if (!test.failures) {
		printf("PASS: kunit-host/%s\n", name);
	} else {
		size_t n = strlen(test.first);

		/* The value lists end in a comma. */
		if (n && test.first[n - 1] == ',')
			test.first[n - 1] = 0;
		printf("FAIL: kunit-host/%s: %s", name, test.first);
		if (test.failures > 1)
			printf(" (+%u more)", test.failures - 1);
		printf("\n");
	}
	fflush(stdout);
	return !test.failures;
}

int main(void)
{
	unsigned int s, failed = 0;

	for (s = 0; s < nsuites; s++) {
		const struct kunit_case *c;

		for (c = suites[s]->test_cases; c->run_case; c++) {
			char desc[KUNIT_PARAM_DESC_SIZE];
			const void *p;

			if (!c->generate_params) {
				failed += !kunit_host_run(suites[s], c, NULL,
							  NULL);
				continue;
			}
			desc[0] = 0;
			for (p = c->generate_params(NULL, desc); p;
			     p = c->generate_params(p, desc)) {
				failed += !kunit_host_run(suites[s], c, p,
							  desc);
				desc[0] = 0;
			}
		}
	}
	return failed ? 1 : 0;
}
