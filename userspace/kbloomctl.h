/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of kbloomctl share: the command table, exit codes, the
 * error explanations, value parsing, output formatting, the key reader and
 * the progress line.
 */
#ifndef KBLOOMCTL_H
#define KBLOOMCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "kbloom.h"

#define PROG		"kbloomctl"

/* Exit codes, the same for every command; check also uses 1, like grep. */
#define EXIT_OK		0
#define EXIT_ABSENT	1
#define EXIT_ERR	2

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const char *usage;	/* the whole --help text */
};

/* Every command, in the order `kbloomctl help` lists them. */
extern const struct command *const commands[];

#define DECLARE_COMMAND(n) extern const struct command cmd_##n
DECLARE_COMMAND(create);
DECLARE_COMMAND(destroy);
DECLARE_COMMAND(list);
DECLARE_COMMAND(add);
DECLARE_COMMAND(check);
DECLARE_COMMAND(delete);
DECLARE_COMMAND(clear);
DECLARE_COMMAND(rotate);
DECLARE_COMMAND(info);
DECLARE_COMMAND(save);
DECLARE_COMMAND(load);
DECLARE_COMMAND(merge);
DECLARE_COMMAND(intersect);
DECLARE_COMMAND(report);
DECLARE_COMMAND(size);
DECLARE_COMMAND(demo);
DECLARE_COMMAND(bench);
DECLARE_COMMAND(help);

/*
 * Option parsing shared by the commands: getopt_long with our own
 * messages.  parse_options() returns the option character, -1 at the end,
 * or '?' after printing why the command line is wrong.
 */
struct option;
int parse_options(const struct command *cmd, int argc, char **argv,
		  const char *shortopts, const struct option *longopts);
/*
 * All the option parsing of a command whose one option is a flag (such as
 * -q, --quiet): 0, or EXIT_ERR after printing why the command line is wrong.
 */
int parse_flag_option(const struct command *cmd, int argc, char **argv,
		      int short_name, const char *long_name, bool *set);
/* "-1", "-0.5", "-5%": what getopt would take for an option. */
bool is_negative_number(const char *s);
/* "kbloomctl CMD: <msg> (see: kbloomctl help CMD)"; returns EXIT_ERR. */
int usage_error(const struct command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints the command's help to stdout; returns EXIT_OK. */
int show_help(const struct command *cmd);

/* Opens a filter, printing the explanation on failure (returns NULL). */
struct kbl *open_filter(const char *name, int access);
/* kbl_info(), printing the explanation on failure (returns EXIT_ERR). */
int filter_info(const struct kbl *f, struct kbloom_info *info);

/* errors.c: every message names the problem and the way out. */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Opening /dev/kbloom/<name> failed with err. */
int fail_open(int err, const char *name, int access);
/* An operation (what: "add keys to", "clear", ...) on a filter failed. */
int fail_filter(int err, const char *name, const char *what);
/* A control node request (create or destroy) failed. */
int fail_control(int err, const char *name, const char *what);
struct stat;
int fail_foreign(const char *name, const struct stat *st, const char *why);
/*
 * libkbloom's own message for err from the call named call (its function
 * name, "kbl_save") on the filter name: where the call gives the errno a
 * meaning of its own (kbl_error_message()).
 */
int fail_call(int err, const char *call, const char *name);
int fail_name(const char *name);
bool module_loaded(void);
/* The module is not loaded: how to load it. */
int fail_module_missing(void);

/* parse.c: values given on the command line; false means invalid. */
bool parse_count(const char *s, uint64_t *out);
bool parse_rate_ppb(const char *s, uint32_t *ppb);
bool parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
bool parse_u64(const char *s, uint64_t *out);
bool parse_mode(const char *s, uint32_t *out);
/* "500ms", "90s", "10m", "1.5h", "2d": milliseconds, rounded up, > 0. */
bool parse_duration_ms(const char *s, uint64_t *ms);

/* output.c */
const char *fmt_ppb(uint32_t ppb, char *buf, size_t size);
const char *fmt_rate(double rate, char *buf, size_t size);
const char *fmt_bytes(uint64_t bytes, char *buf, size_t size);
/* Milliseconds as "250ms", "45s", "12m", "1h30m", "2m3.5s", "3d4h". */
const char *fmt_ms(uint64_t ms, char *buf, size_t size);
void json_string(FILE *out, const char *s);
/* ,"key":value — an object's fields after its first, on stdout. */
void json_u64(const char *key, unsigned long long value);
/*
 * ,"key":"value": a 64-bit value a script passes back (the seed) as a
 * string, since JSON readers that use doubles (jq, JavaScript) round
 * numbers above 2^53.
 */
void json_u64_string(const char *key, unsigned long long value);
void json_bool(const char *key, bool value);
void json_text(const char *key, const char *value);
/*
 * How a window rotates, for a sentence "rotates ...": "every 12m (window
 * 1h) and every 20000 adds", "every 12m (window 1h)", "every 20000 adds"
 * or "only by kbloomctl rotate".  The window is what the
 * guarantee covers, (generations - 1) periods.
 */
const char *fmt_rotation(uint32_t generations, uint64_t rotate_ms,
			 uint64_t rotate_every, char *buf, size_t size);
/*
 * How a scalable filter of this expansion grows, for "scalable: ...":
 * "each next sub-filter holds 2 times the last", or for 1 "every
 * sub-filter holds as many keys as the first".
 */
const char *fmt_expansion(uint32_t expansion, char *buf, size_t size);
/*
 * A window's fields of an info or list object: generations, rotate_ms,
 * window_ms, rotate_every, rotations, next_rotation_ms and "gen", newest
 * first, each {age, add_calls, [bits_set,] est_keys, fill_ppb}.
 */
void json_window(const struct kbloom_window_info *w, bool bits_set);
/* Prints "  label  value" lines with the labels aligned. */
void table_row(const char *label, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* progress.c: the progress line of long loads (stderr, terminals only). */
struct progress {
	bool on;
	const char *verb;
	double start;
	double last;
};

double now_seconds(void);
void progress_start(struct progress *p, const char *verb, bool quiet);
void progress_update(struct progress *p, uint64_t done);
void progress_end(struct progress *p);

/* keys_input.c: keys from arguments, files or stdin. */
#define KEYS_DEFAULT_BATCH	4096
#define KEYS_DEFAULT_BYTES	(256U << 10)

/*
 * Keys as kbl_add() and kbl_check() take them.  bench and demo make theirs
 * whole; the key reader fills one batch at a time, up to the max_ bounds.
 */
struct key_batch {
	char *data;		/* keys back to back */
	uint32_t *lens;
	size_t count;
	size_t bytes;
	size_t max_keys;
	size_t max_bytes;
};

struct key_input {
	char **args;		/* keys given as arguments */
	size_t nargs;
	char **files;		/* -f FILE, "-" for stdin */
	size_t nfiles;
	int delim;		/* '\n', or '\0' with -0 */

	size_t next_arg;
	size_t next_file;
	int fd;			/* the stream being read, -1 if none */
	const char *label;	/* its name for messages */
	bool in_args;		/* the bad key was an argument */
	uint64_t record;	/* records read from it */
	char *buf;
	size_t start;
	size_t end;
	bool eof;
};

/* Keys come from args, then files; stdin when there are neither. */
int key_input_init(struct key_input *in, char **args, size_t nargs,
		   char **files, size_t nfiles, int delim);
void key_input_free(struct key_input *in);
/*
 * Refills b.  Returns 1 with at least one key, 0 when the input is
 * exhausted, or EXIT_ERR (2) after printing what is wrong with the input.
 */
int key_input_next(struct key_input *in, struct key_batch *b);
int key_batch_init(struct key_batch *b, size_t max_keys);
void key_batch_free(struct key_batch *b);

/* sysfs.c: the module's files. */
struct dirent;
/*
 * The first line of a small file such as a sysfs attribute, without its
 * newline: the bytes read, or -1 with errno set.
 */
ssize_t read_value_file(const char *path, char *buf, size_t size);
/*
 * The names of the entries of the directory path that keep() accepts,
 * sorted (free them with free_names()).  0, or -1 with errno set when the
 * directory cannot be opened.  A name that finds no memory is left out.
 */
int sorted_names(const char *path,
		 bool (*keep)(int dir_fd, const struct dirent *de),
		 char ***names, size_t *count);
void free_names(char **names, size_t count);

/* geometry.c: geometry through the module's own code (kmod/core/). */
struct sizing {
	uint64_t capacity;	/* a window's: keys of g - 1 generations */
	uint64_t nblocks;	/* 64-byte blocks */
	uint64_t bytes;
	uint32_t k;
	uint32_t type;		/* KBLOOM_TYPE_* */
	uint32_t generations;	/* window: g; else 0 */
	uint32_t plane_order;	/* window: log2 of the planes of a cell */
	uint32_t fp_ppb;	/* formula rate at capacity (whole window) */
	uint32_t fp_generation_ppb;	/* window: one generation's */
};

/*
 * 0, or -EINVAL / -E2BIG from the core's geometry functions; generations
 * 0 but for KBLOOM_TYPE_WINDOW.
 */
int sizing_from_rate(struct sizing *s, uint32_t type, uint32_t generations,
		     uint64_t capacity, uint32_t fp_ppb);
/*
 * spec sizes one way, as kbl_create() takes it: a rate, bits or bits/key,
 * for spec->type (and spec->generations); with spec->expansion, the
 * scalable filter's first sub-filter, the one create allocates.
 */
int sizing_from_spec(struct sizing *s, const struct kbl_spec *spec);
/*
 * A scalable filter (kmod/core/kbloom_chain.h) grown to hold times * capacity
 * keys, its sub-filters filled in order: how many, their memory, and the
 * chain's rate then by the exact model (rounded up).  0, -EINVAL for
 * parameters out of range, -E2BIG where the chain cannot grow that far.
 */
struct chain_growth {
	uint64_t times;
	uint64_t keys;
	uint64_t bytes;
	uint32_t subs;
	uint32_t fp_ppb;
};

int chain_growth(struct chain_growth *g, uint32_t type, uint64_t capacity,
		 uint32_t fp_ppb, uint32_t expansion, uint64_t times);
/*
 * The most sub-filters the schedule of a scalable filter allows
 * (KBLOOM_SUBFILTERS_MAX, fewer where a capacity would pass 2^64 - 1;
 * the memory caps may end it sooner), 0 for parameters out of range.
 */
uint32_t chain_max_subs(uint32_t type, uint64_t capacity, uint32_t fp_ppb,
			uint32_t expansion);
/*
 * Cells of a filter: 512 bits or 128 counters per 64-byte block, or a
 * window's 512 masks per key block of 2^plane_order blocks.
 */
uint64_t filter_cells(uint64_t nblocks, uint32_t type, uint32_t generations);
/* A window's log2 planes per cell (0 for generations 0). */
uint32_t plane_order_of(uint32_t generations);

/*
 * size_options.c: the sizing options, read alike by every command that
 * takes them.  Both return 0 or EXIT_ERR (after saying why); size_option()
 * returns 1 when c is none of -n (--capacity), -p (--fp),
 * -c (--bits-per-key), -k (--k), -C (--counting) and -e (--expansion).
 */
#define DEFAULT_FP_PPB	10000000U	/* 1 %: create without --fp, demo, bench */
/* What a rate and a capacity must be, in every message that rejects one. */
#define RATE_LIMITS	"give a rate of at least 1 ppb (1e-9) and below 1 (100%%), such as 1%%, 0.01 or 1e-3"
#define CAPACITY_RULE	"the capacity must be a positive count of keys (1000, 10k, 1M, 1e6)"
int fp_option(const struct command *cmd, const char *arg, uint32_t *fp_ppb);
int size_option(const struct command *cmd, struct kbl_spec *spec, int c);
/*
 * The window options: -w (--window DURATION), -g (--generations G) and
 * -r (--rotate-every N), as size_option(): 0, EXIT_ERR, or 1 for another
 * option.  window_finish() then judges them together (after every
 * option): a window needs --generations, is never --counting, and its
 * --window becomes spec->rotate_ms = window / (g - 1), rounded up.  It
 * sets spec->type to KBLOOM_TYPE_WINDOW when there are generations.
 */
#define GENERATIONS_RULE "a window needs 2 to 63 generations"
/* Cells per 64-byte block of bits; a window's are masks, 512 >> order. */
#define KBLOOM_BLOCK_CELLS	512U
int window_option(const struct command *cmd, struct kbl_spec *spec,
		  uint64_t *window_ms, int c);
int window_finish(const struct command *cmd, struct kbl_spec *spec,
		  uint64_t window_ms);
/*
 * A scalable filter's options judged together, after every option and
 * before window_finish(): --expansion makes no window (--generations,
 * --window or --rotate-every, window_ms the last) and is sized by a rate,
 * never --bits, --bits-per-key or --k.  0, or EXIT_ERR after saying why.
 */
int expansion_finish(const struct command *cmd, const struct kbl_spec *spec,
		     uint64_t window_ms);

#endif /* KBLOOMCTL_H */
