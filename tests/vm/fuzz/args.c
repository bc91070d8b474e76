// SPDX-License-Identifier: GPL-2.0
/*
 * What the fuzzer's operations pass (see fuzz-ioctl.c): bad pointers,
 * names, valid and mutated create requests, the pool's open files, random
 * key batches and the check of their answers.
 */
#include "../fuzz-ioctl.h"

/* ---- pointers ---- */

/*
 * A pointer through which no copy of size bytes can succeed: NULL, a
 * PROT_NONE page, kernel memory, past the end of user space, read-only
 * memory for an output, or (straddle) a range that starts readable and
 * runs into a guard page within the first copy the kernel makes.
 */
void *bad_ptr_kind(struct worker *w, size_t size, bool output,
		   bool straddle)
{
	size_t readable = size / 2 < PAGE / 2 ? size / 2 : PAGE / 2;

	switch (st_below(&w->rng, 6)) {
	case 0:
		return NULL;
	case 1:
		return w->noaccess;
	case 2:
		return (void *)0xffff888000000000ULL;
	case 3:
		return (void *)0x0000800000000000ULL;
	case 4:
		if (straddle)
			return w->guard - readable;
		return w->noaccess;
	default:
		return output ? w->rdonly : w->noaccess;
	}
}

void *bad_ptr(struct worker *w, size_t size, bool output)
{
	return bad_ptr_kind(w, size, output, true);
}

/* ---- names and requests ---- */

void pool_name(char *name, int slot)
{
	memset(name, 0, KBLOOM_NAME_MAX);
	if (slot == SHARED_SLOT)
		strcpy(name, "fz-shared");
	else
		snprintf(name, KBLOOM_NAME_MAX, "fz-%d", slot);
}

void bad_name(struct worker *w, char *name)
{
	static const char *const bad[] = {
		"", ".", "..", "a/b", "a b", "fz\n", "\xc3\xa9t\xc3\xa9",
		"semi;colon", "*", "tab\t",
	};

	memset(name, 0, KBLOOM_NAME_MAX);
	switch (st_below(&w->rng, 4)) {
	case 0:
		strcpy(name, bad[st_below(&w->rng, sizeof(bad) / sizeof(*bad))]);
		break;
	case 1:
		/* No terminating NUL. */
		memset(name, 'a' + st_below(&w->rng, 26), KBLOOM_NAME_MAX);
		break;
	case 2:
		/* Garbage after the terminator. */
		strcpy(name, "fz-1");
		name[5 + st_below(&w->rng, KBLOOM_NAME_MAX - 5)] = 'x';
		break;
	default:
		/* Random bytes with at least one outside the alphabet. */
		st_fill(&w->rng, name, KBLOOM_NAME_MAX - 1);
		name[st_below(&w->rng, 8)] = '/';
		if (!name[0])
			name[0] = '?';
		break;
	}
}

/* Mostly few generations, now and then up to the most there may be. */
static uint32_t random_generations(struct worker *w)
{
	if (st_one_in(&w->rng, 8))
		return KBLOOM_GENERATIONS_MIN +
		       st_below(&w->rng, KBLOOM_GENERATIONS_MAX -
					 KBLOOM_GENERATIONS_MIN + 1);
	return KBLOOM_GENERATIONS_MIN + st_below(&w->rng, 7);
}

/*
 * A window's schedule: often a timer at the shortest periods, so that
 * rotations run throughout the fuzz (and filters are destroyed with one
 * pending), or by count, both, or neither; now and then the extremes.
 */
static void window_schedule(struct worker *w, struct kbloom_create *req)
{
	switch (st_below(&w->rng, 4)) {
	case 0:
		break;
	case 1:
		req->rotate_ms = KBLOOM_ROTATE_MS_MIN + st_below(&w->rng, 40);
		break;
	case 2:
		req->rotate_every = 1 + st_below(&w->rng, 2000);
		break;
	default:
		req->rotate_ms = KBLOOM_ROTATE_MS_MIN + st_below(&w->rng, 200);
		req->rotate_every = 1 + st_below(&w->rng, 200);
		break;
	}
	if (st_one_in(&w->rng, 16))
		req->rotate_ms = KBLOOM_ROTATE_MS_MAX -
				 st_below(&w->rng, 1000);
	if (st_one_in(&w->rng, 16))
		req->rotate_every = KBLOOM_ROTATE_EVERY_MAX;
}

void valid_create(struct worker *w, struct kbloom_create *req)
{
	static const uint32_t rates[] = {
		1000, 100000, 1000000, 10000000, 50000000, 300000000,
	};
	static const uint32_t modes[] = { 0, 0600, 0644, 0666, 0400 };

	memset(req, 0, sizeof(*req));
	pool_name(req->name, st_below(&w->rng, POOL));
	req->node_mode = modes[st_below(&w->rng, 5)];
	switch (st_below(&w->rng, 10)) {
	case 0: case 1: case 2: case 3:
		req->bits = TEMPLATE_BITS;
		req->k = TEMPLATE_K;
		req->seed = TEMPLATE_SEED;
		req->flags = KBLOOM_CREATE_SEED;
		if (st_one_in(&w->rng, 5)) {
			req->type = KBLOOM_TYPE_COUNTING;
		} else if (st_one_in(&w->rng, 4)) {
			/* Merges and loads between template windows work. */
			req->type = KBLOOM_TYPE_WINDOW;
			req->generations = TEMPLATE_GENERATIONS;
			window_schedule(w, req);
		}
		return;
	case 4: case 5:
		req->capacity = 1 + st_below(&w->rng, 20000);
		req->fp_ppb = rates[st_below(&w->rng, 6)];
		break;
	case 6: case 7:
		req->bits = 1 + st_below(&w->rng, 1 << 20);
		req->k = st_below(&w->rng, KBLOOM_K_MAX + 1);
		if (st_one_in(&w->rng, 2))
			req->capacity = st_below(&w->rng, 20000);
		break;
	default:
		req->capacity = 1 + st_below(&w->rng, 20000);
		req->bits_per_key = 1 + st_below(&w->rng, 64);
		req->k = st_below(&w->rng, KBLOOM_K_MAX + 1);
		break;
	}
	if (st_one_in(&w->rng, 2)) {
		req->flags = KBLOOM_CREATE_SEED;
		req->seed = st_below(&w->rng, 3);
	}
	if (st_one_in(&w->rng, 4)) {
		req->type = KBLOOM_TYPE_COUNTING;
	} else if (st_one_in(&w->rng, 3)) {
		req->type = KBLOOM_TYPE_WINDOW;
		req->generations = random_generations(w);
		window_schedule(w, req);
		/* rotate_every alone sizes for (g - 1) of its generations. */
		if (req->fp_ppb && req->rotate_every &&
		    req->rotate_every <= 2000 && st_one_in(&w->rng, 3))
			req->capacity = 0;
	}
	/* Scalable: small first capacities, so that adds grow them. */
	if (req->type != KBLOOM_TYPE_WINDOW && req->fp_ppb &&
	    st_one_in(&w->rng, 2))
		req->expansion = 1 + st_below(&w->rng, KBLOOM_EXPANSION_MAX);
}

/* Breaks one thing in a valid request; returns the errno it must get. */
int mutate_create(struct worker *w, struct kbloom_create *req)
{
	switch (st_below(&w->rng, 20)) {
	case 0:
		bad_name(w, req->name);
		return EINVAL;
	case 1:
		req->flags |= 2U << st_below(&w->rng, 31);
		return EINVAL;
	case 2:
		req->reserved[st_below(&w->rng, ARRAY_SIZE(req->reserved))] =
			1 + st_next(&w->rng) % 1000;
		return EINVAL;
	case 3:
		req->type = KBLOOM_TYPE_WINDOW + 1 + st_below(&w->rng, 1000);
		return EINVAL;
	case 14:
		/* A window of too few or too many generations. */
		req->type = KBLOOM_TYPE_WINDOW;
		req->generations = st_one_in(&w->rng, 2) ?
				   st_below(&w->rng, KBLOOM_GENERATIONS_MIN) :
				   KBLOOM_GENERATIONS_MAX + 1 +
				   st_below(&w->rng, 1U << 31);
		return EINVAL;
	case 15:
		/* Generations on a type that has none. */
		req->type = st_below(&w->rng, KBLOOM_TYPE_WINDOW);
		req->generations = 1 + st_below(&w->rng, 100);
		req->rotate_ms = 0;
		req->rotate_every = 0;
		return EINVAL;
	case 16:
		switch (st_below(&w->rng, 3)) {
		case 0:
			/* Past the largest expansion. */
			req->expansion = KBLOOM_EXPANSION_MAX + 1 +
					 st_below(&w->rng, 1U << 31);
			break;
		case 1:
			/* A window cannot grow. */
			req->expansion = 1 + st_below(&w->rng, 16);
			req->type = KBLOOM_TYPE_WINDOW;
			req->generations = KBLOOM_GENERATIONS_MIN;
			break;
		default:
			/* Scalable filters are sized by rate alone. */
			req->expansion = 1 + st_below(&w->rng, 16);
			req->fp_ppb = 0;
			req->bits = 4096;
			break;
		}
		return EINVAL;
	case 17:
		/* A period shorter or longer than a window may have. */
		req->type = KBLOOM_TYPE_WINDOW;
		if (!req->generations)
			req->generations = KBLOOM_GENERATIONS_MIN;
		req->rotate_ms = st_one_in(&w->rng, 2) ?
				 1 + st_below(&w->rng, KBLOOM_ROTATE_MS_MIN - 1) :
				 KBLOOM_ROTATE_MS_MAX + 1 + st_below(&w->rng, 1000);
		return EINVAL;
	case 18:
		req->type = KBLOOM_TYPE_WINDOW;
		if (!req->generations)
			req->generations = KBLOOM_GENERATIONS_MIN;
		req->rotate_every = KBLOOM_ROTATE_EVERY_MAX + 1 +
				    st_below(&w->rng, 1ULL << 40);
		return EINVAL;
	case 19:
		/* A schedule on a type that does not rotate. */
		req->type = st_below(&w->rng, KBLOOM_TYPE_WINDOW);
		req->generations = 0;
		if (st_one_in(&w->rng, 2))
			req->rotate_ms = KBLOOM_ROTATE_MS_MIN;
		else
			req->rotate_every = 1 + st_below(&w->rng, 100);
		return EINVAL;
	case 4:
		req->node_mode |= 01000U << st_below(&w->rng, 20);
		return EINVAL;
	case 5:
		req->fp_ppb = 0;
		req->bits = 0;
		req->bits_per_key = 0;
		return EINVAL;
	case 6:
		req->fp_ppb = 10000000;
		req->bits = 4096;
		req->capacity = 100;
		return EINVAL;
	case 7:
		req->k = KBLOOM_K_MAX + 1 + st_below(&w->rng, 1000);
		return EINVAL;
	case 8:
		req->bits = 0;
		req->bits_per_key = 0;
		req->k = 0;
		req->capacity = 1000;
		req->fp_ppb = KBLOOM_PPB + st_below(&w->rng, 1000);
		return EINVAL;
	case 9:
		req->bits = 0;
		req->bits_per_key = 0;
		req->k = 0;
		req->capacity = 0;
		/* rotate_every would be the capacity's stand-in. */
		req->rotate_every = 0;
		req->fp_ppb = 10000000;
		return EINVAL;
	case 10:
		req->fp_ppb = 0;
		req->bits = 0;
		req->capacity = 100;
		req->bits_per_key = MAX_BITS_PER_KEY + 1 +
				    st_below(&w->rng, 1000);
		return EINVAL;
	case 11:
		req->flags = 0;
		req->seed = 1 + st_below(&w->rng, 1000);
		return EINVAL;
	case 12:
		/* 2^33 blocks: over the core's limit. */
		req->expansion = 0;
		req->fp_ppb = 0;
		req->bits_per_key = 0;
		req->k = 0;
		req->bits = 1ULL << (42 + st_below(&w->rng, 20));
		return E2BIG;
	default:
		/* 2 GiB: over the default per-filter cap of 1 GiB. */
		req->expansion = 0;
		req->fp_ppb = 0;
		req->bits_per_key = 0;
		req->k = 7;
		req->bits = 1ULL << 34;
		return E2BIG;
	}
}

/* ---- pool files ---- */

struct pool_fd *pick_fd(struct worker *w)
{
	return w->nfds ? &w->fds[st_below(&w->rng, w->nfds)] : NULL;
}

void drop_fd(struct worker *w, struct pool_fd *p)
{
	int e = sys_err(close(p->fd));

	/* A partly written image is reported as truncated at close. */
	outcome(w, OP_close, e, ALLOW(0, ENODATA), "close");
	*p = w->fds[--w->nfds];
}

bool can_read(const struct pool_fd *p)
{
	return p->acc != O_WRONLY;
}

bool can_write(const struct pool_fd *p)
{
	return p->acc != O_RDONLY;
}

/* ---- keys ---- */

/* Random keys: mostly small batches of short keys, sometimes huge. */
void random_keys(struct worker *w, struct st_keys *k)
{
	uint32_t n, i, maxlen = 32;
	uint64_t r = st_below(&w->rng, 100);

	k->bytes = w->keybuf;
	k->lens = w->lens;
	if (r < 90) {
		n = 1 + st_below(&w->rng, 64);
	} else if (r < 99) {
		n = 1 + st_below(&w->rng, 2048);
	} else {
		n = 1 + st_below(&w->rng, MAX_KEYS);
		maxlen = 16;
	}
	k->count = n;
	k->keys_len = 0;
	for (i = 0; i < n; i++) {
		uint32_t len = 1 + st_below(&w->rng, maxlen);

		if (n < 8 && st_one_in(&w->rng, 20))
			len = KBLOOM_KEY_MAX;
		k->lens[i] = len;
		k->keys_len += len;
	}
	st_fill(&w->rng, k->bytes, k->keys_len);
}

/* results must hold exactly hits set bits, none past count. */
void check_results(struct worker *w, enum op op, const uint64_t *res,
		   uint32_t count, uint32_t hits)
{
	uint64_t words = (count + 63) / 64, i, set = 0;

	for (i = 0; i < words; i++)
		set += __builtin_popcountll(res[i]);
	if (set != hits)
		record_fail(w, F_RESULT, "worker %d %s: %llu result bits, hits %u",
			    w->id, op_names[op], (unsigned long long)set, hits);
	if (count % 64 && res[words - 1] >> (count % 64))
		record_fail(w, F_RESULT, "worker %d %s: result bits past count %u",
			    w->id, op_names[op], count);
	if (hits > count)
		record_fail(w, F_RESULT, "worker %d %s: hits %u of %u keys",
			    w->id, op_names[op], hits, count);
}
