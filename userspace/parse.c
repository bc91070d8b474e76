// SPDX-License-Identifier: GPL-2.0
/*
 * Values typed on the command line.  Rates and counts are read the way
 * people write them ("1%", "1e-3", "10M"); the module only ever sees
 * integers (rates in parts per billion).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kbloomctl.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

bool parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (!parse_u64(s, &v) || v < min || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* Decimal (k, M, G, T) and binary (Ki, Mi, Gi, Ti) multipliers. */
static bool suffix_multiplier(const char *s, double *mult)
{
	static const struct {
		const char *suffix;
		double mult;
	} table[] = {
		{ "", 1 }, { "k", 1e3 }, { "K", 1e3 }, { "M", 1e6 },
		{ "G", 1e9 }, { "T", 1e12 }, { "Ki", 1024.0 },
		{ "Mi", 1048576.0 }, { "Gi", 1073741824.0 },
		{ "Ti", 1099511627776.0 },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (!strcmp(s, table[i].suffix)) {
			*mult = table[i].mult;
			return true;
		}
	}
	return false;
}

bool parse_count(const char *s, uint64_t *out)
{
	double v, mult;
	char *end;

	if (!s || !*s)
		return false;
	/* Plain integers stay exact beyond 2^53. */
	if (all_digits(s))
		return parse_u64(s, out);
	if (!isdigit((unsigned char)*s) && *s != '.')
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !suffix_multiplier(end, &mult))
		return false;
	v *= mult;
	if (!isfinite(v) || v < 0 || v >= 9007199254740992.0 ||
	    v != floor(v))
		return false;
	*out = (uint64_t)v;
	return true;
}

bool parse_rate_ppb(const char *s, uint32_t *ppb)
{
	double v, scaled;
	char *end;

	if (!s || !*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return false;
	while (*end == ' ')
		end++;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	if (*end || v <= 0 || v >= 1)
		return false;
	scaled = nearbyint(v * KBLOOM_PPB);
	if (scaled < 1 || scaled >= KBLOOM_PPB)
		return false;
	*ppb = (uint32_t)scaled;
	return true;
}

bool parse_mode(const char *s, uint32_t *out)
{
	unsigned long v;
	char *end;

	if (!s || !*s)
		return false;
	for (end = (char *)s; *end; end++)
		if (*end < '0' || *end > '7')
			return false;
	v = strtoul(s, &end, 8);
	if (v > 0777)
		return false;
	*out = (uint32_t)v;
	return true;
}

bool parse_duration_ms(const char *s, uint64_t *ms)
{
	static const struct {
		const char *unit;
		double ms;
	} units[] = {
		{ "ms", 1 }, { "s", 1e3 }, { "m", 60e3 }, { "min", 60e3 },
		{ "h", 3600e3 }, { "d", 86400e3 },
	};
	double v;
	char *end;
	size_t i;

	/* A unit is required: "10" could mean seconds or milliseconds. */
	if (!s || (!isdigit((unsigned char)*s) && *s != '.'))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v <= 0)
		return false;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v = ceil(v * units[i].ms);
		/* Exact in a double, and far above any period allowed. */
		if (v >= 9007199254740992.0)
			return false;
		*ms = (uint64_t)v;
		return true;
	}
	return false;
}
