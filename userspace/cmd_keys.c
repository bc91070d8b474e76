// SPDX-License-Identifier: GPL-2.0
/*
 * Keys in a filter: add, check, delete and clear.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kbloomctl.h"

/*
 * The options add, check and delete share: where the keys come from, how
 * they are cut, and whether to print the ioctl statistics.
 */
struct key_options {
	char **files;
	size_t nfiles;
	int delim;
	uint32_t batch;
	bool stats;
	bool map;		/* check: answer from the mapping if possible */
};

static int key_options_add_file(struct key_options *o, char *file)
{
	char **grown = realloc(o->files, (o->nfiles + 1) * sizeof(*grown));

	if (!grown)
		return fail("out of memory");
	o->files = grown;
	o->files[o->nfiles++] = file;
	return 0;
}

/* The short options of key_option(), and its long ones in each table. */
#define KEY_SHORTOPTS	"f:0B:s"

/* Handles the options common to the key commands; 1 if c was not one. */
static int key_option(const struct command *cmd, struct key_options *o,
		      int c)
{
	switch (c) {
	case 'f':
		return key_options_add_file(o, optarg) ? EXIT_ERR : 0;
	case '0':
		o->delim = '\0';
		return 0;
	case 'B':
		if (!parse_u32(optarg, 1, KBLOOM_BATCH_MAX, &o->batch))
			return usage_error(cmd, "invalid --batch '%s': give 1 to %d keys per ioctl",
					   optarg, KBLOOM_BATCH_MAX);
		return 0;
	case 's':
		o->stats = true;
		return 0;
	default:
		return 1;
	}
}

#define KEY_SOURCES_HELP \
"Keys come from the arguments after NAME, from -f FILE (repeatable; - is\n" \
"stdin), or from stdin when neither is given: one key per line, or NUL-\n" \
"terminated with -0.  Keys are taken byte for byte (nothing is trimmed)\n" \
"and must be 1 to 4096 bytes.  Input of any size streams to the device in\n" \
"ioctls of up to --batch keys.\n"

#define KEY_OPTIONS_HELP \
"  -f, --file FILE    read keys from FILE (- for stdin)\n" \
"  -0, --null         keys are NUL-terminated instead of one per line\n" \
"  -B, --batch N      keys per ioctl, 1-65536 (default 4096)\n"

static const char add_usage[] =
"Usage: kbloomctl add NAME [KEY...] [-f FILE] [-0] [--batch N] [--stats]\n"
"                     [-v | -q]\n"
"\n"
"Adds keys to the filter NAME (needs write access to /dev/kbloom/NAME).\n"
"\n"
KEY_SOURCES_HELP
"\n"
"Options:\n"
KEY_OPTIONS_HELP
"  -s, --stats        also print ioctls made, keys per ioctl and speed\n"
"  -v, --verbose      print each key's answer: new<TAB>KEY or known<TAB>KEY\n"
"  -q, --quiet        print nothing on success\n"
"\n"
"Prints how many keys were added and how many of them set a new bit (a\n"
"key that sets none was, as far as the filter can tell, already there).\n"
"With -v, one line per key instead, in input order: \"new\" when it set a\n"
"new bit (took a counter from 0), \"known\" when it set none (added before,\n"
"or a false positive).  With -0 the lines end in NUL.\n"
"A progress line goes to stderr during long loads when it is a terminal.\n"
"\n"
"Examples:\n"
"  kbloomctl add users alice bob\n"
"  seq 1000000 | kbloomctl add numbers\n"
"  find / -print0 | kbloomctl add paths -0\n";

static const char check_usage[] =
"Usage: kbloomctl check NAME [KEY...] [-f FILE] [-0] [-v | -q | -a | -m]\n"
"                       [--no-map] [--stats]\n"
"\n"
"Checks keys against the filter NAME (needs read access).  \"maybe\" means\n"
"the key may have been added; \"absent\" means it certainly was not.\n"
"\n"
KEY_SOURCES_HELP
"\n"
"Where it can, check maps the filter read-only and answers from the\n"
"mapping without a system call (the module's own code on its own cells:\n"
"the same answers); otherwise, and with --no-map, it asks through ioctls.\n"
"Mapped checks are not counted in the filter's checks statistics.\n"
"\n"
"Options:\n"
KEY_OPTIONS_HELP
"  -v, --verbose      print each key's answer: maybe<TAB>KEY or absent<TAB>KEY\n"
"  -a, --absent       print only the keys that are definitely absent\n"
"  -m, --maybe        print only the keys that may be present\n"
"  -q, --quiet        print nothing; only the exit status tells\n"
"      --no-map       always check through ioctls, not the mapping\n"
"  -s, --stats        also print ioctls made (0 for mapped checks), keys per\n"
"                     ioctl and speed\n"
"\n"
"Without -v, -a, -m or -q, prints one summary line.  Printed keys end with\n"
"a newline, or with a NUL byte under -0.\n"
"\n"
"Exit status, like grep: 0 if every key may be present, 1 if any key is\n"
"definitely absent, 2 on error.\n"
"\n"
"Examples:\n"
"  kbloomctl check users alice && echo 'alice may exist: ask the database'\n"
"  kbloomctl check users -m -f requests.txt > worth-looking-up.txt\n";

enum key_op { KEY_ADD, KEY_CHECK, KEY_DELETE };

/* One add, check or delete: the filter, the keys on their way, the counts. */
struct key_run {
	enum key_op op;
	const char *name;
	struct kbl *f;
	struct key_input in;
	struct key_batch b;
	struct progress prog;
	uint64_t ioctls0;	/* the handle's ioctl count when the run began */
	uint64_t keys;		/* keys sent */
	uint64_t hits;		/* of them: set a new bit, maybe, removed */
};

/* Says why a bits filter refuses delete; returns EXIT_ERR. */
static int fail_not_counting(const char *name)
{
	return fail("filter '%s' is not a counting filter: delete needs one (create it with --counting)",
		    name);
}

/*
 * A scalable filter whose newest sub-filter is full and that cannot have
 * another; returns EXIT_ERR.
 */
static int fail_cannot_grow(const char *name)
{
	char msg[512];

	return fail("%s (keys already in it are still taken; raise max_filter_bytes or max_total_bytes in /sys/module/kbloom/parameters, destroy other filters, or create it with a larger --capacity or --expansion)",
		    kbl_error_message(-E2BIG, "kbl_add", name, msg,
				      sizeof(msg)));
}

/* The filter's type, asked before any key is sent: 0, or EXIT_ERR. */
static int require_counting(const struct kbl *f, const char *name)
{
	struct kbloom_info info;

	if (filter_info(f, &info))
		return EXIT_ERR;
	if (info.type != KBLOOM_TYPE_COUNTING)
		return fail_not_counting(name);
	return 0;
}

static const char *const key_op_verbs[] = {
	[KEY_ADD] = "added", [KEY_CHECK] = "checked", [KEY_DELETE] = "deleted",
};

/*
 * After the options: opens the filter NAME (the next argument) and the
 * keys (the arguments after it, or the files).  0, or EXIT_ERR after
 * printing why.
 */
static int key_run_start(struct key_run *r, const struct command *cmd,
			 const struct key_options *o, int argc, char **argv,
			 enum key_op op, bool quiet)
{
	r->op = op;
	if (optind == argc)
		return usage_error(cmd, "missing the filter NAME");
	r->name = argv[optind++];
	r->f = open_filter(r->name, op == KEY_CHECK ? O_RDONLY : O_RDWR);
	if (!r->f)
		return EXIT_ERR;
	if (op == KEY_DELETE && require_counting(r->f, r->name))
		return EXIT_ERR;
	/*
	 * Checks answer from the mapping when there is one.  Without it
	 * (an older module, a header this build does not know, no address
	 * space) the ioctls give the same answers, so a failure here is
	 * not worth a word.
	 */
	if (op == KEY_CHECK && o->map)
		kbl_map(r->f);
	if (key_input_init(&r->in, argv + optind, argc - optind, o->files,
			   o->nfiles, o->delim) ||
	    key_batch_init(&r->b, o->batch))
		return EXIT_ERR;
	r->ioctls0 = kbl_ioctl_count(r->f);
	progress_start(&r->prog, key_op_verbs[op], quiet);
	return 0;
}

/*
 * Adds, checks or deletes the batch read last; the answers go to res (may
 * be NULL).  0, or EXIT_ERR after ending the progress line and printing
 * why.
 */
static int key_run_send(struct key_run *r, uint64_t *res)
{
	static const char *const what[] = {
		[KEY_ADD] = "add keys to", [KEY_CHECK] = "check keys in",
		[KEY_DELETE] = "delete keys from",
	};
	const struct key_batch *b = &r->b;
	uint64_t hits;
	int ret;

	if (r->op == KEY_ADD)
		ret = kbl_add(r->f, b->data, b->lens, b->count, res, &hits);
	else if (r->op == KEY_CHECK)
		ret = kbl_check(r->f, b->data, b->lens, b->count, res, &hits);
	else
		ret = kbl_delete(r->f, b->data, b->lens, b->count, res,
				 &hits);
	if (ret) {
		progress_end(&r->prog);
		if (ret == -EOPNOTSUPP && r->op == KEY_DELETE)
			return fail_not_counting(r->name);
		/* Only a scalable filter's growth makes an add E2BIG. */
		if (ret == -E2BIG && r->op == KEY_ADD)
			return fail_cannot_grow(r->name);
		return fail_filter(ret, r->name, what[r->op]);
	}
	r->keys += b->count;
	r->hits += hits;
	return 0;
}

static void key_run_end(struct key_run *r)
{
	key_batch_free(&r->b);
	key_input_free(&r->in);
	kbl_close(r->f);
}

static void print_stats(const struct key_run *r)
{
	uint64_t ioctls = kbl_ioctl_count(r->f) - r->ioctls0;
	double seconds = now_seconds() - r->prog.start;

	fprintf(stdout, "%s %" PRIu64 " keys in %" PRIu64 " ioctls (%.1f keys per ioctl), %.3f s, %.2f M keys/s\n",
		r->prog.verb, r->keys, ioctls,
		ioctls ? (double)r->keys / ioctls : 0.0, seconds,
		seconds > 0 ? r->keys / seconds / 1e6 : 0.0);
}

enum check_print { PRINT_SUMMARY, PRINT_ALL, PRINT_ABSENT, PRINT_MAYBE,
		   PRINT_NOTHING };

static void print_answers(const struct key_batch *b, const uint64_t *res,
			  enum check_print mode, int delim, const char *yes,
			  const char *no);

static int run_add(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "null", no_argument, NULL, '0' },
		{ "batch", required_argument, NULL, 'B' },
		{ "stats", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd = &cmd_add;
	struct key_options o = { .delim = '\n', .batch = KEYS_DEFAULT_BATCH };
	struct key_run r = { .in.fd = -1 };
	bool quiet = false, verbose = false;
	uint64_t *res = NULL;
	int c, ret, rc = EXIT_ERR;

	while ((c = parse_options(cmd, argc, argv, ":" KEY_SHORTOPTS "qv",
				  opts)) != -1) {
		ret = key_option(cmd, &o, c);
		if (ret == 0)
			continue;
		if (ret != 1)
			goto out;
		/* The last of -q and -v wins, as in check. */
		if (c == 'q') {
			quiet = true;
			verbose = false;
		} else if (c == 'v') {
			verbose = true;
			quiet = false;
		} else {
			goto out;
		}
	}
	/* -v: the ADD results bitmap, one bit per key of the batch. */
	if (verbose) {
		res = malloc((o.batch + 63) / 64 * sizeof(*res));
		if (!res) {
			fail("out of memory");
			goto out;
		}
	}
	if (key_run_start(&r, cmd, &o, argc, argv, KEY_ADD, quiet || verbose))
		goto out;
	while ((ret = key_input_next(&r.in, &r.b)) == 1) {
		if (key_run_send(&r, res)) {
			if (r.keys)
				fprintf(stderr, "%s: %" PRIu64 " keys before the failure were added\n",
					PROG, r.keys);
			goto out;
		}
		if (verbose)
			print_answers(&r.b, res, PRINT_ALL, o.delim, "new",
				      "known");
		progress_update(&r.prog, r.keys);
	}
	progress_end(&r.prog);
	if (ret) {
		if (r.keys)
			fprintf(stderr, "%s: %" PRIu64 " keys before the bad input were added\n",
				PROG, r.keys);
		goto out;
	}
	if (!quiet && !verbose)
		printf("added %" PRIu64 " %s to '%s' (%" PRIu64 " set new bits)\n",
		       r.keys, r.keys == 1 ? "key" : "keys", r.name, r.hits);
	if (o.stats)
		print_stats(&r);
	if (fflush(stdout)) {
		fail("cannot write the answers: %s", strerror(errno));
		goto out;
	}
	rc = EXIT_OK;
out:
	key_run_end(&r);
	free(res);
	free(o.files);
	return rc;
}

const struct command cmd_add = {
	.name = "add",
	.run = run_add,
	.summary = "add keys (arguments, files or stdin)",
	.usage = add_usage,
};

/*
 * yes and no are what PRINT_ALL calls a set and a clear result bit:
 * maybe/absent, removed/absent, new/known.
 */
static void print_answers(const struct key_batch *b, const uint64_t *res,
			  enum check_print mode, int delim, const char *yes,
			  const char *no)
{
	size_t i, off = 0;

	for (i = 0; i < b->count; off += b->lens[i], i++) {
		bool maybe = res[i / 64] >> (i % 64) & 1;

		if ((mode == PRINT_ABSENT && maybe) ||
		    (mode == PRINT_MAYBE && !maybe))
			continue;
		if (mode == PRINT_ALL)
			printf("%s\t", maybe ? yes : no);
		fwrite(b->data + off, 1, b->lens[i], stdout);
		putchar(delim);
	}
}

/*
 * Sends every batch of keys and prints the answers mode asks for.  A
 * failure part way through is reported with what the batches before it
 * did when done_verb names that ("deleted"); checks change nothing, so
 * they pass NULL.  Returns 0, or -1 once the error is printed.
 */
static int answer_keys(struct key_run *r, const struct key_options *o,
		       enum check_print mode, const char *yes,
		       const char *done_verb)
{
	uint64_t *res;
	int ret;

	res = malloc((o->batch + 63) / 64 * sizeof(*res));
	if (!res) {
		fail("out of memory");
		return -1;
	}
	while ((ret = key_input_next(&r->in, &r->b)) == 1) {
		if (key_run_send(r, res)) {
			if (done_verb && r->keys)
				fprintf(stderr, "%s: %" PRIu64 " keys before the failure were %s (%" PRIu64 " removed)\n",
					PROG, r->keys, done_verb, r->hits);
			free(res);
			return -1;
		}
		if (mode != PRINT_SUMMARY && mode != PRINT_NOTHING)
			print_answers(&r->b, res, mode, o->delim, yes,
				      "absent");
		progress_update(&r->prog, r->keys);
	}
	free(res);
	progress_end(&r->prog);
	if (ret) {
		if (done_verb && r->keys)
			fprintf(stderr, "%s: %" PRIu64 " keys before the bad input were %s (%" PRIu64 " removed)\n",
				PROG, r->keys, done_verb, r->hits);
		return -1;
	}
	return 0;
}

/*
 * The end of check and delete once every key is answered: the optional
 * stats, the answers flushed, and exit 0 only if every key was a hit.
 */
static int answers_done(struct key_run *r, const struct key_options *o)
{
	if (o->stats)
		print_stats(r);
	if (fflush(stdout)) {
		fail("cannot write the answers: %s", strerror(errno));
		return EXIT_ERR;
	}
	return r->hits == r->keys ? EXIT_OK : EXIT_ABSENT;
}

static int run_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "null", no_argument, NULL, '0' },
		{ "batch", required_argument, NULL, 'B' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "absent", no_argument, NULL, 'a' },
		{ "maybe", no_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stats", no_argument, NULL, 's' },
		{ "no-map", no_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd = &cmd_check;
	struct key_options o = { .delim = '\n', .batch = KEYS_DEFAULT_BATCH,
				 .map = true };
	enum check_print mode = PRINT_SUMMARY;
	struct key_run r = { .in.fd = -1 };
	int c, ret, rc = EXIT_ERR;

	while ((c = parse_options(cmd, argc, argv, ":" KEY_SHORTOPTS "vamq",
				  opts)) != -1) {
		ret = key_option(cmd, &o, c);
		if (ret == 0)
			continue;
		if (ret != 1)
			goto out;
		switch (c) {
		case 'v':
			mode = PRINT_ALL;
			break;
		case 'a':
			mode = PRINT_ABSENT;
			break;
		case 'm':
			mode = PRINT_MAYBE;
			break;
		case 'q':
			mode = PRINT_NOTHING;
			break;
		case 'M':	/* --no-map: long only */
			o.map = false;
			break;
		default:
			goto out;
		}
	}
	if (key_run_start(&r, cmd, &o, argc, argv, KEY_CHECK,
			  mode == PRINT_NOTHING))
		goto out;
	if (answer_keys(&r, &o, mode, "maybe", NULL))
		goto out;
	if (mode == PRINT_SUMMARY)
		printf("%" PRIu64 " %s checked in '%s': %" PRIu64 " may be present, %" PRIu64 " definitely absent\n",
		       r.keys, r.keys == 1 ? "key" : "keys", r.name, r.hits,
		       r.keys - r.hits);
	rc = answers_done(&r, &o);
out:
	key_run_end(&r);
	free(o.files);
	return rc;
}

const struct command cmd_check = {
	.name = "check",
	.run = run_check,
	.summary = "check keys; exit 0 if all may be present, 1 if any is absent",
	.usage = check_usage,
};

static const char delete_usage[] =
"Usage: kbloomctl delete NAME [KEY...] [-f FILE] [-0] [--batch N] [-v | -q]\n"
"                        [--stats]\n"
"\n"
"Deletes keys from the counting filter NAME (created with --counting; needs\n"
"write access).  A key is removed when all its counters are above 0: each\n"
"is then decremented.  A key that is not present changes nothing.\n"
"\n"
"WARNING: delete only keys that were added, and no more often than they\n"
"were added.  Deleting a key that was never added but happens to look\n"
"present (a false positive) decrements counters that other keys need:\n"
"those keys may then be reported absent (false negatives), which no\n"
"counting filter can prevent.  Counters that reached 15 stay there, so\n"
"overflow never causes false negatives.\n"
"\n"
KEY_SOURCES_HELP
"\n"
"Options:\n"
KEY_OPTIONS_HELP
"  -v, --verbose      print each key's answer: removed<TAB>KEY or absent<TAB>KEY\n"
"  -q, --quiet        print nothing; only the exit status tells\n"
"  -s, --stats        also print ioctls made, keys per ioctl and speed\n"
"\n"
"Without -v or -q, prints one summary line: how many keys were removed and\n"
"how many were not present.\n"
"\n"
"Exit status, like check: 0 if every key was removed, 1 if any key was not\n"
"present, 2 on error (such as a filter that is not a counting filter, in\n"
"which case nothing is changed).\n"
"\n"
"Examples:\n"
"  kbloomctl delete sessions s-1234\n"
"  kbloomctl delete sessions -f expired.txt\n";

static int run_delete(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "null", no_argument, NULL, '0' },
		{ "batch", required_argument, NULL, 'B' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stats", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd = &cmd_delete;
	struct key_options o = { .delim = '\n', .batch = KEYS_DEFAULT_BATCH };
	enum check_print mode = PRINT_SUMMARY;
	struct key_run r = { .in.fd = -1 };
	int c, ret, rc = EXIT_ERR;

	while ((c = parse_options(cmd, argc, argv, ":" KEY_SHORTOPTS "vq",
				  opts)) != -1) {
		ret = key_option(cmd, &o, c);
		if (ret == 0)
			continue;
		if (ret != 1)
			goto out;
		switch (c) {
		case 'v':
			mode = PRINT_ALL;
			break;
		case 'q':
			mode = PRINT_NOTHING;
			break;
		default:
			goto out;
		}
	}
	if (key_run_start(&r, cmd, &o, argc, argv, KEY_DELETE,
			  mode == PRINT_NOTHING))
		goto out;
	if (answer_keys(&r, &o, mode, "removed", "deleted"))
		goto out;
	if (mode == PRINT_SUMMARY)
		printf("%" PRIu64 " of %" PRIu64 " %s removed from '%s' (%" PRIu64 " not present)\n",
		       r.hits, r.keys, r.keys == 1 ? "key" : "keys", r.name,
		       r.keys - r.hits);
	rc = answers_done(&r, &o);
out:
	key_run_end(&r);
	free(o.files);
	return rc;
}

const struct command cmd_delete = {
	.name = "delete",
	.run = run_delete,
	.summary = "delete keys from a counting filter; exit 1 if any was absent",
	.usage = delete_usage,
};

static int run_clear(int argc, char **argv)
{
	const struct command *cmd = &cmd_clear;
	bool quiet = false;
	struct kbl *f;
	int ret;

	if (parse_flag_option(cmd, argc, argv, 'q', "quiet", &quiet))
		return EXIT_ERR;
	if (optind + 1 != argc)
		return usage_error(cmd, "give exactly one filter NAME");
	f = open_filter(argv[optind], O_RDWR);
	if (!f)
		return EXIT_ERR;
	ret = kbl_clear(f);
	kbl_close(f);
	if (ret)
		return fail_filter(ret, argv[optind], "clear");
	if (!quiet)
		printf("cleared filter '%s'\n", argv[optind]);
	return EXIT_OK;
}

const struct command cmd_clear = {
	.name = "clear",
	.run = run_clear,
	.summary = "remove every key (reset all bits and counters)",
	.usage =
"Usage: kbloomctl clear [-q] NAME\n"
"\n"
"Resets every bit and counter of the filter NAME, keeping its size, k and\n"
"seed (needs write access).  To remove single keys, use a counting filter\n"
"and kbloomctl delete.  A window filter's generations are all emptied; it\n"
"keeps its rotation schedule and its count of rotations.\n"
"\n"
"Options:\n"
"  -q, --quiet   print nothing on success\n"
"\n"
"Example:\n"
"  kbloomctl clear users\n",
};

/* Says why a filter refuses rotate; returns EXIT_ERR. */
static int fail_not_window(const char *name)
{
	return fail("filter '%s' is not a window filter; only window filters rotate (create one with --generations G [--window DURATION] [--rotate-every N])",
		    name);
}

static int run_rotate(int argc, char **argv)
{
	const struct command *cmd = &cmd_rotate;
	struct kbloom_window_info win;
	bool quiet = false;
	struct kbl *f;
	int ret;

	if (parse_flag_option(cmd, argc, argv, 'q', "quiet", &quiet))
		return EXIT_ERR;
	if (optind + 1 != argc)
		return usage_error(cmd, "give exactly one filter NAME");
	f = open_filter(argv[optind], O_RDWR);
	if (!f)
		return EXIT_ERR;
	ret = kbl_rotate(f);
	if (!ret && !quiet && kbl_window_info(f, &win))
		win.rotations = 0;
	kbl_close(f);
	if (ret == -EOPNOTSUPP)
		return fail_not_window(argv[optind]);
	if (ret)
		return fail_filter(ret, argv[optind], "rotate");
	if (!quiet)
		printf("rotated filter '%s' (%llu rotation%s so far)\n",
		       argv[optind], (unsigned long long)win.rotations,
		       win.rotations == 1 ? "" : "s");
	return EXIT_OK;
}

const struct command cmd_rotate = {
	.name = "rotate",
	.run = run_rotate,
	.summary = "rotate a window filter now: its oldest generation expires",
	.usage =
"Usage: kbloomctl rotate [-q] NAME\n"
"\n"
"Rotates the window filter NAME now, as its timer or count would: the\n"
"oldest generation is emptied (its keys expire, but for those added again\n"
"since) and becomes the newest, where adds go.  Checks and adds go on\n"
"meanwhile.  The timer's next rotation comes one period after this one.\n"
"Needs write access.  Only window filters rotate (kbloomctl create NAME\n"
"--generations G ...).\n"
"\n"
"Options:\n"
"  -q, --quiet   print nothing on success\n"
"\n"
"Example:\n"
"  kbloomctl rotate recent\n",
};
