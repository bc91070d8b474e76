// SPDX-License-Identifier: GPL-2.0
/*
 * Number formatting for people (rates as percentages, sizes in binary
 * units) and the small pieces of JSON output.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

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
