// SPDX-License-Identifier: GPL-2.0
/*
 * The progress line of long loads: on stderr, only when stderr is a
 * terminal (a log file or a pipe gets no carriage returns), and only once
 * the load has run long enough for a person to wonder.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "kbloomctl.h"

#define PROGRESS_DELAY		0.5	/* seconds before the first line */
#define PROGRESS_INTERVAL	0.2	/* seconds between updates */

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_start(struct progress *p, const char *verb, bool quiet)
{
	p->on = !quiet && isatty(STDERR_FILENO);
	p->verb = verb;
	p->start = now_seconds();
	p->last = 0;
}

void progress_update(struct progress *p, uint64_t done)
{
	double now, elapsed;

	if (!p->on)
		return;
	now = now_seconds();
	elapsed = now - p->start;
	if (elapsed < PROGRESS_DELAY || now - p->last < PROGRESS_INTERVAL)
		return;
	p->last = now;
	fprintf(stderr, "\r%s: %s %" PRIu64 " keys (%.2f M keys/s)\033[K",
		PROG, p->verb, done, (double)done / elapsed / 1e6);
	fflush(stderr);
}

void progress_end(struct progress *p)
{
	if (p->on && p->last > 0) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}
