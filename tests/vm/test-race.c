// SPDX-License-Identifier: GPL-2.0
/*
 * Several processes on the device at once, with ground truth:
 *   writers  add known keys to race-a and publish how far they got;
 *   checkers check keys below the published marks: every one must be found;
 *   an imager reads race-a's image while adds go on, restores it into a
 *            twin and checks the keys published before the read began;
 *   a merger merges race-m into race-a (only ever adds bits);
 *   a churner creates, fills, clears, merges and destroys race-x and
 *            race-y over and over while a user process works on them and
 *            may only ever see ENOENT (not created yet), ENXIO (an open
 *            that found the node as destroy removed its device) or ENODEV
 *            (destroyed under it), as the uapi header promises.
 * Zero false negatives for completed adds, and no kernel warning (the VM
 * harness checks the log).  The whole run once per filter type.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "vmtest.h"

#define WRITERS		2
#define CHECKERS	2
#define BATCH		500
#define SEED		0xabcdef0123456789ULL
#define FP_1PC		10000000U
#define RUN_SECONDS	6	/* per type: 12 s in all, as when one type ran */

struct shared {
	uint64_t progress[WRITERS];	/* keys [0, n) of writer i added */
	int stop;
	uint64_t checked, check_fn;
	uint64_t images, image_checked, image_fn;
	uint64_t merges;
	uint64_t churn_cycles, churn_user_ops, churn_enodev;
	uint64_t adds[WRITERS];
	char error[256];		/* first unexpected failure */
};

static struct shared *sh;
static const struct vt_type *type;	/* of every filter of this run */

/* A filter of this run's type: EEXIST if that name is still there. */
static int create(const char *name, uint64_t capacity)
{
	struct kbloom_create req;

	vt_create_req(&req, name, capacity, FP_1PC);
	vt_req_type(&req, type);
	req.flags = KBLOOM_CREATE_SEED;
	req.seed = SEED;
	return vt_create_raw(&req);
}

static void record_error(const char *who, const char *what, int err)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "%s: %s: %s", who, what,
		 vt_errno_name(err));
	/* First one wins; later ones are consequences. */
	if (!__atomic_load_n(&sh->error[0], __ATOMIC_ACQUIRE))
		memcpy(sh->error, msg, sizeof(msg));
}

static bool stopping(void)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE);
}

static uint64_t published(int w)
{
	return __atomic_load_n(&sh->progress[w], __ATOMIC_ACQUIRE);
}

static void add_count(uint64_t *counter, uint64_t n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

static uint64_t rnd(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static const char *writer_prefix(int w)
{
	return w ? "w1" : "w0";
}

static void writer(int w)
{
	int fd = vt_open("race-a", O_WRONLY);
	uint64_t next = 0;

	if (fd < 0) {
		record_error("writer", "open", errno);
		return;
	}
	while (!stopping()) {
		if (vt_add_prefix(fd, writer_prefix(w), next, BATCH) < 0) {
			record_error("writer", "ADD", errno);
			return;
		}
		next += BATCH;
		/* The add returned: from now on its keys must be found. */
		__atomic_store_n(&sh->progress[w], next, __ATOMIC_RELEASE);
		add_count(&sh->adds[w], BATCH);
	}
}

/* Checks n keys of writer w from first on; returns the missing count. */
static long missing(int fd, int w, uint64_t first, uint32_t n)
{
	long hits = vt_check_prefix(fd, writer_prefix(w), first, n);

	return hits < 0 ? -1 : (long)n - hits;
}

static void checker(int id)
{
	int fd = vt_open("race-a", O_RDONLY);
	uint64_t state = 0x1234567 + id, limit, first;
	uint32_t n;
	long miss;
	int w;

	if (fd < 0) {
		record_error("checker", "open", errno);
		return;
	}
	while (!stopping()) {
		for (w = 0; w < WRITERS; w++) {
			limit = published(w);
			if (!limit)
				continue;
			first = rnd(&state) % limit;
			n = limit - first < BATCH ? limit - first : BATCH;
			miss = missing(fd, w, first, n);
			if (miss < 0) {
				record_error("checker", "CHECK", errno);
				return;
			}
			add_count(&sh->checked, n);
			add_count(&sh->check_fn, miss);
		}
	}
}

static void imager(void)
{
	int fd = vt_open("race-a", O_RDONLY), twin = vt_open("race-t", O_RDWR);
	uint64_t state = 99, limit[WRITERS], first;
	uint8_t *img;
	size_t len;
	long miss;
	int w;

	if (fd < 0 || twin < 0) {
		record_error("imager", "open", errno);
		return;
	}
	while (!stopping()) {
		for (w = 0; w < WRITERS; w++)
			limit[w] = published(w);
		img = vt_read_image(fd, 64 * 1024, &len);
		if (!img) {
			record_error("imager", "read", errno);
			return;
		}
		if (vt_write_image(twin, img, len, len)) {
			record_error("imager", "write", errno);
			free(img);
			return;
		}
		free(img);
		add_count(&sh->images, 1);
		for (w = 0; w < WRITERS; w++) {
			if (!limit[w])
				continue;
			/* The newest keys, and a random stretch. */
			first = limit[w] > BATCH ? limit[w] - BATCH : 0;
			miss = missing(twin, w, first, limit[w] - first);
			first = rnd(&state) % limit[w];
			if (miss >= 0)
				miss += missing(twin, w, first,
						limit[w] - first < BATCH ?
						limit[w] - first : BATCH);
			if (miss < 0) {
				record_error("imager", "CHECK", errno);
				return;
			}
			add_count(&sh->image_checked, 2 * BATCH);
			add_count(&sh->image_fn, miss);
		}
	}
}

static void merger(void)
{
	int a = vt_open("race-a", O_RDWR), m = vt_open("race-m", O_RDWR);
	struct kbloom_other o = { .fd = m };
	uint64_t round = 0;

	if (a < 0 || m < 0) {
		record_error("merger", "open", errno);
		return;
	}
	while (!stopping()) {
		if (ioctl(m, KBLOOM_IOC_CLEAR, 0) ||
		    vt_add_prefix(m, "merged", round * 100, 100) < 0 ||
		    ioctl(a, KBLOOM_IOC_MERGE, &o)) {
			record_error("merger", "CLEAR/ADD/MERGE", errno);
			return;
		}
		round++;
		add_count(&sh->merges, 1);
		usleep(100000);
	}
}

/*
 * Creates race-x and race-y in turn, each time merging from the one made
 * before, clearing, then destroying that older one: one is always alive.
 */
static void churner(void)
{
	static const char *const names[] = { "race-x", "race-y" };
	struct kbloom_other o;
	uint64_t cycle = 0;
	int fd, older;

	while (!stopping()) {
		const char *name = names[cycle % 2];
		const char *prev = names[(cycle + 1) % 2];

		if (create(name, 20000)) {
			record_error("churner", "create", errno);
			return;
		}
		fd = vt_open(name, O_RDWR);
		if (fd < 0) {
			record_error("churner", "open", errno);
			return;
		}
		if (vt_add_prefix(fd, "c", 0, 2000) < 0 ||
		    vt_check_prefix(fd, "c", 0, 2000) != 2000) {
			record_error("churner", "ADD/CHECK", errno);
			return;
		}
		older = cycle ? vt_open(prev, O_RDONLY) : -1;
		if (cycle && older < 0) {
			record_error("churner", "open older", errno);
			return;
		}
		if (older >= 0) {
			o = (struct kbloom_other){ .fd = older };
			if (ioctl(fd, KBLOOM_IOC_MERGE, &o) ||
			    ioctl(fd, KBLOOM_IOC_INTERSECT, &o)) {
				record_error("churner", "MERGE/INTERSECT",
					     errno);
				return;
			}
			close(older);
			if (vt_destroy(prev)) {
				record_error("churner", "destroy", errno);
				return;
			}
		}
		if (ioctl(fd, KBLOOM_IOC_CLEAR, 0)) {
			record_error("churner", "CLEAR", errno);
			return;
		}
		close(fd);
		add_count(&sh->churn_cycles, 1);
		cycle++;
	}
}

/* Works on whatever churned filter exists; only ENOENT/ENXIO/ENODEV allowed. */
static void churn_user(void)
{
	static const char *const names[] = { "race-x", "race-y" };
	struct kbloom_info info;
	uint64_t i = 0;
	int fd, op;

	while (!stopping()) {
		fd = vt_open(names[i++ % 2], O_RDWR);
		if (fd < 0) {
			if (errno != ENOENT && errno != ENXIO &&
			    errno != ENODEV) {
				record_error("churn-user", "open", errno);
				return;
			}
			continue;
		}
		for (op = 0; op < 50; op++) {
			long r;

			switch (op % 4) {
			case 0:
				r = vt_add_prefix(fd, "u", op, 100);
				break;
			case 1:
				r = vt_check_prefix(fd, "u", 0, 100);
				break;
			case 2:
				r = vt_info(fd, &info);
				break;
			default: {
				uint8_t buf[512];

				r = pread(fd, buf, sizeof(buf), 0);
				break;
			}
			}
			if (r < 0 && errno == ENODEV) {
				add_count(&sh->churn_enodev, 1);
				break;
			}
			if (r < 0) {
				record_error("churn-user", "op", errno);
				close(fd);
				return;
			}
			add_count(&sh->churn_user_ops, 1);
		}
		close(fd);
	}
}

static pid_t spawn(void (*fn)(int), int arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	return pid;
}

static void run_imager(int arg)
{
	(void)arg;
	imager();
}

static void run_merger(int arg)
{
	(void)arg;
	merger();
}

static void run_churner(int arg)
{
	(void)arg;
	churner();
}

static void run_churn_user(int arg)
{
	(void)arg;
	churn_user();
}

static void report(const char *name, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report(const char *name, bool ok, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	vt_report_typed("race", name, type, ok ? NULL : msg);
	fprintf(stderr, "race/%s/%s: %s\n", name, type->name, msg);
}

/* One whole run on filters of type t; reports race/<check>/<type>. */
static void run(const struct vt_type *t)
{
	static const char *const names[] = { "race-a", "race-t", "race-m",
					     "race-x", "race-y" };
	pid_t pids[WRITERS + CHECKERS + 4];
	int n = 0, i, status, fd;
	uint64_t final_fn = 0, total_added = 0;
	bool children_ok = true;

	type = t;
	memset(sh, 0, sizeof(*sh));
	for (i = 0; i < 5; i++)
		vt_destroy(names[i]);
	if (create("race-a", 300000) || create("race-t", 300000) ||
	    create("race-m", 300000)) {
		report("setup", false, "create: %s", vt_errno_name(errno));
		return;
	}

	for (i = 0; i < WRITERS; i++)
		pids[n++] = spawn(writer, i);
	for (i = 0; i < CHECKERS; i++)
		pids[n++] = spawn(checker, i);
	pids[n++] = spawn(run_imager, 0);
	pids[n++] = spawn(run_merger, 0);
	pids[n++] = spawn(run_churner, 0);
	pids[n++] = spawn(run_churn_user, 0);

	for (i = 0; i < RUN_SECONDS * 10 && !sh->error[0]; i++)
		usleep(100000);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < n; i++) {
		if (pids[i] < 0 || waitpid(pids[i], &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			children_ok = false;
	}

	/* After everything settled: every published key is there. */
	fd = vt_open("race-a", O_RDONLY);
	for (i = 0; i < WRITERS && fd >= 0; i++) {
		uint64_t first, limit = published(i);
		long miss;

		total_added += limit;
		for (first = 0; first < limit; first += 50000) {
			uint32_t len = limit - first < 50000 ? limit - first :
							       50000;

			miss = missing(fd, i, first, len);
			final_fn += miss < 0 ? len : (uint64_t)miss;
		}
	}

	report("no_unexpected_errors", children_ok && !sh->error[0],
	       "%s", sh->error[0] ? sh->error : children_ok ? "none" :
	       "a process died");
	report("checkers_no_false_negatives",
	       sh->check_fn == 0 && sh->checked > 0,
	       "%llu false negatives in %llu checks of completed adds",
	       (unsigned long long)sh->check_fn,
	       (unsigned long long)sh->checked);
	report("image_no_false_negatives",
	       sh->image_fn == 0 && sh->images > 0,
	       "%llu false negatives in %llu keys of %llu images read during adds and merges",
	       (unsigned long long)sh->image_fn,
	       (unsigned long long)sh->image_checked,
	       (unsigned long long)sh->images);
	report("churn_only_enoent_enodev",
	       sh->churn_cycles > 0 && sh->churn_user_ops > 0 && !sh->error[0],
	       "%llu create/destroy cycles, %llu ops on them, %llu ENODEV",
	       (unsigned long long)sh->churn_cycles,
	       (unsigned long long)sh->churn_user_ops,
	       (unsigned long long)sh->churn_enodev);
	report("merges_ran", sh->merges > 0, "%llu merges into race-a",
	       (unsigned long long)sh->merges);
	report("final_no_false_negatives", fd >= 0 && final_fn == 0 &&
	       total_added > 0, "%llu of %llu added keys missing at the end",
	       (unsigned long long)final_fn,
	       (unsigned long long)total_added);
	if (fd >= 0)
		close(fd);
	for (i = 0; i < 5; i++)
		vt_destroy(names[i]);
}

int main(void)
{
	const struct vt_type *t;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	vt_for_each_type(t, 0)
		run(t);
	return vt_failed ? 1 : 0;
}
