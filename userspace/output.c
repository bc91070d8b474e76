// SPDX-License-Identifier: GPL-2.0
/*
 * Number formatting for people (rates as percentages, sizes in binary
 * units) and the small pieces of JSON output.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kbloomctl.h"

const char *fmt_rate(double rate, char *buf, size_t size)
{
	double pct = rate * 100;

	if (rate <= 0)
		snprintf(buf, size, "0%%");
	else if (pct >= 0.001)
		snprintf(buf, size, "%.3g%%", pct);
	else
		snprintf(buf, size, "%.2e%%", pct);
	return buf;
}

const char *fmt_ppb(uint32_t ppb, char *buf, size_t size)
{
	return fmt_rate((double)ppb / KBLOOM_PPB, buf, size);
}

const char *fmt_bytes(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, size, "%" PRIu64 " B", bytes);
		return buf;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v,
		 units[u]);
	return buf;
}

const char *fmt_ms(uint64_t ms, char *buf, size_t size)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = {
		{ "d", 86400000 }, { "h", 3600000 }, { "m", 60000 },
	};
	uint64_t rest = ms;
	size_t i, len = 0;

	if (ms < 1000) {
		snprintf(buf, size, "%" PRIu64 "ms", ms);
		return buf;
	}
	buf[0] = '\0';
	/* The larger units while they are whole, then seconds. */
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (rest < units[i].ms)
			continue;
		len += snprintf(buf + len, len < size ? size - len : 0,
				"%" PRIu64 "%s", rest / units[i].ms,
				units[i].unit);
		rest %= units[i].ms;
	}
	if (len >= size)
		return buf;
	if (rest % 1000)
		snprintf(buf + len, size - len, "%" PRIu64 ".%03" PRIu64 "s",
			 rest / 1000, rest % 1000);
	else if (rest)
		snprintf(buf + len, size - len, "%" PRIu64 "s", rest / 1000);
	/* Trailing zeros of the milliseconds say nothing: 2.500s is 2.5s. */
	if (rest % 1000) {
		char *end = buf + strlen(buf) - 1;	/* the 's' */

		while (end[-1] == '0') {
			memmove(end - 1, end, 2);
			end--;
		}
	}
	return buf;
}

void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void json_u64(const char *key, unsigned long long value)
{
	printf(",\"%s\":%llu", key, value);
}

void json_u64_string(const char *key, unsigned long long value)
{
	printf(",\"%s\":\"%llu\"", key, value);
}

void json_bool(const char *key, bool value)
{
	printf(",\"%s\":%s", key, value ? "true" : "false");
}

void json_text(const char *key, const char *value)
{
	printf(",\"%s\":", key);
	json_string(stdout, value);
}

void table_row(const char *label, const char *fmt, ...)
{
	va_list ap;

	printf("%-16s", label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

const char *fmt_rotation(uint32_t generations, uint64_t rotate_ms,
			 uint64_t rotate_every, char *buf, size_t size)
{
	char period[32], window[32];

	fmt_ms(rotate_ms, period, sizeof(period));
	/* What the guarantee covers: g - 1 periods. */
	fmt_ms(rotate_ms * (generations - 1), window, sizeof(window));
	if (rotate_ms && rotate_every)
		snprintf(buf, size, "every %s (window %s) and every %" PRIu64 " adds",
			 period, window, rotate_every);
	else if (rotate_ms)
		snprintf(buf, size, "every %s (window %s)", period, window);
	else if (rotate_every)
		snprintf(buf, size, "every %" PRIu64 " adds", rotate_every);
	else
		snprintf(buf, size, "only by kbloomctl rotate");
	return buf;
}

const char *fmt_expansion(uint32_t expansion, char *buf, size_t size)
{
	if (expansion == 1)
		snprintf(buf, size, "every sub-filter holds as many keys as the first");
	else
		snprintf(buf, size, "each next sub-filter holds %u times the last",
			 expansion);
	return buf;
}

void json_window(const struct kbloom_window_info *w, bool bits_set)
{
	uint32_t i;

	json_u64("generations", w->generations);
	json_u64("rotate_ms", w->rotate_ms);
	json_u64("window_ms", w->generations ?
		 w->rotate_ms * (w->generations - 1) : 0);
	json_u64("rotate_every", w->rotate_every);
	json_u64("rotations", w->rotations);
	json_u64("next_rotation_ms", w->next_rotation_ms);
	printf(",\"gen\":[");
	for (i = 0; i < w->generations && i < KBLOOM_GENERATIONS_MAX; i++) {
		const struct kbloom_generation *g = &w->gen[i];

		printf("%s{\"age\":%u", i ? "," : "", i);
		json_u64("add_calls", g->add_calls);
		if (bits_set)
			json_u64("bits_set", g->bits_set);
		json_u64("est_keys", g->est_keys);
		json_u64("fill_ppb", g->fill_ppb);
		putchar('}');
	}
	putchar(']');
}
