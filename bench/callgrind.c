// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark re-runs itself under valgrind --tool=callgrind, once per
 * workload, with collection switched on only inside the function measured
 * (--toggle-collect, callees included), and divides the instructions
 * counted by the keys handled.  Filling the filter beforehand and making
 * the keys are not counted: a workload that times adds into a full filter
 * fills it through the other add function (kbloom_add_batch for
 * kbloom_add, and the reverse), which sets the same cells.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "callgrind.h"
#include "peer_kbloom.h"
#include "peer_libbloom.h"

struct workload {
	const char *name;	/* argument of --callgrind-child */
	const char *impl;
	const char *op;
	const char *function;	/* what --toggle-collect names */
	u32 batch;
	u32 div;		/* keys handled: n / div */
};

static const struct workload workloads[] = {
	{ "kbloom-add", "kbloom", "add", "kbloom_add", 1, 1 },
	{ "kbloom-add_filled", "kbloom", "add_filled", "kbloom_add", 1, 10 },
	{ "kbloom-add_batch", "kbloom", "add_batch", "kbloom_add_batch",
	  BENCH_BATCH, 1 },
	{ "kbloom-add_batch_filled", "kbloom", "add_batch_filled",
	  "kbloom_add_batch", BENCH_BATCH, 10 },
	{ "kbloom-check", "kbloom", "check", "kbloom_check", 1, 1 },
	{ "kbloom-check_batch", "kbloom", "check_batch", "kbloom_check_batch",
	  BENCH_BATCH, 1 },
	{ "libbloom-add", "libbloom", "add", "bloom_add", 1, 1 },
	{ "libbloom-check", "libbloom", "check", "bloom_check", 1, 1 },
};

/* The workload itself, run inside valgrind. */
int callgrind_child(const char *name, u64 n)
{
	struct key_set added, absent, fresh;
	struct kbloom_key *kv;
	struct query_set qs;
	struct kbloom_filter f;
	struct bloom b;
	bool kb = !strncmp(name, "kbloom-", 7);

	keys_generate(&added, n, 8, 1);
	keys_generate(&absent, n / 2, 8, 2);
	queries_build(&qs, &added, n, n / 2, &absent, n / 2, 3);
	if (kb ? kbloom_peer_init(&f, n, 10, 42) :
		 libbloom_peer_init(&b, n, 10))
		return 1;
	if (!strcmp(name, "kbloom-add")) {
		kbloom_peer_add(&f, &added, n);
	} else if (!strcmp(name, "kbloom-add_batch")) {
		kv = keys_kv(&added, n);
		kbloom_peer_add_batch(&f, kv, n);
	} else if (!strncmp(name, "kbloom-add", 10)) {
		/* Full with n keys, then n / 10 fresh ones added. */
		keys_generate(&fresh, n / 10, 8, 4);
		if (!strcmp(name, "kbloom-add_filled")) {
			kv = keys_kv(&added, n);
			kbloom_peer_add_batch(&f, kv, n);
			kbloom_peer_add_keys(&f, &fresh, 0, fresh.n);
		} else {
			kbloom_peer_add(&f, &added, n);
			kv = keys_kv(&fresh, fresh.n);
			kbloom_peer_add_batch(&f, kv, fresh.n);
		}
	} else if (!strcmp(name, "libbloom-add")) {
		libbloom_peer_add(&b, &added, n);
	} else if (kb) {
		kbloom_peer_add(&f, &added, n);
		if (!strcmp(name, "kbloom-check"))
			kbloom_peer_check(&f, &qs);
		else
			kbloom_peer_check_batch(&f, &qs, BENCH_BATCH);
	} else {
		libbloom_peer_add(&b, &added, n);
		libbloom_peer_check(&b, &qs);
	}
	return 0;
}

/* The "summary:" (or "totals:") line of a callgrind output file. */
static double callgrind_total(const char *path)
{
	char line[512];
	double total = NAN;
	FILE *f = fopen(path, "r");

	if (!f)
		return NAN;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "summary:", 8))
			total = strtod(line + 8, NULL);
		else if (!strncmp(line, "totals:", 7) && isnan(total))
			total = strtod(line + 7, NULL);
	}
	fclose(f);
	return total;
}

static int run_valgrind(const char *self, const struct workload *w, u64 n,
			const char *out, const char *log)
{
	char outarg[PATH_MAX + 32], togglearg[128], narg[32];
	int status, fd;
	pid_t pid;

	snprintf(outarg, sizeof(outarg), "--callgrind-out-file=%s", out);
	snprintf(togglearg, sizeof(togglearg), "--toggle-collect=%s",
		 w->function);
	snprintf(narg, sizeof(narg), "%llu", (unsigned long long)n);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execlp("valgrind", "valgrind", "--tool=callgrind",
		       "--collect-atstart=no", togglearg, outarg, self,
		       "--callgrind-child", w->name, narg, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void callgrind_measure(const char *workdir, u64 n)
{
	char self[PATH_MAX], out[PATH_MAX], log[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t i;

	if (len < 0) {
		perror("bench: /proc/self/exe");
		return;
	}
	self[len] = '\0';
	for (i = 0; i < ARRAY_SIZE(workloads); i++) {
		const struct workload *w = &workloads[i];
		struct result r = {
			.impl = w->impl, .op = w->op, .n = n, .key_bytes = 8,
			.bits_per_key_target = 10, .batch = w->batch,
			.fp_measured = NAN, .fp_theory = NAN, .fill_ns = NAN,
			.note = "callgrind instructions per key",
		};
		double total;
		int rc;

		snprintf(out, sizeof(out), "%s/callgrind.%s.out", workdir,
			 w->name);
		snprintf(log, sizeof(log), "%s/callgrind.%s.log", workdir,
			 w->name);
		remove(out);
		rc = run_valgrind(self, w, n, out, log);
		if (rc == 127) {
			printf("callgrind: valgrind not found; skipping "
			       "instruction counts (install: valgrind)\n");
			return;
		}
		total = callgrind_total(out);
		if (rc || isnan(total) || total <= 0) {
			printf("callgrind: %s failed (status %d), see %s\n",
			       w->name, rc, log);
			continue;
		}
		/* Checks ask n queries: half present, half absent. */
		r.instr_per_op = total / (n / w->div);
		r.ops_timed = n / w->div;
		report_add(&r);
	}
}
