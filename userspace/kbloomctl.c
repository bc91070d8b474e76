// SPDX-License-Identifier: GPL-2.0
/*
 * kbloomctl: the command-line tool of kbloom.  This file finds the
 * subcommand and runs it; each group of subcommands has its own file.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbloomctl.h"

const struct command *const commands[] = {
	&cmd_create, &cmd_destroy, &cmd_list, &cmd_add, &cmd_check,
	&cmd_delete, &cmd_clear, &cmd_rotate, &cmd_info, &cmd_save,
	&cmd_load, &cmd_merge, &cmd_intersect, &cmd_report, &cmd_size,
	&cmd_demo, &cmd_bench, &cmd_help, NULL,
};

static const char main_usage_head[] =
"Usage: kbloomctl COMMAND [ARGS...]\n"
"       kbloomctl help COMMAND | kbloomctl COMMAND --help\n"
"\n"
"kbloom keeps named Bloom filters in kernel memory, shared between\n"
"processes: /dev/kbloom/NAME is one filter.\n"
"\n"
"Commands:\n";

static const char main_usage_tail[] =
"\n"
"Exit status: 0 on success; check exits 1 when a key is definitely\n"
"absent, delete when a key was not present; 2 on any error.  See\n"
"kbloomctl(1).\n";

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; commands[i]; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

static void main_usage(FILE *out)
{
	size_t i;

	fputs(main_usage_head, out);
	for (i = 0; commands[i]; i++)
		fprintf(out, "  %-10s %s\n", commands[i]->name,
			commands[i]->summary);
	fputs(main_usage_tail, out);
}

int show_help(const struct command *cmd)
{
	fputs(cmd->usage, stdout);
	return EXIT_OK;
}

int usage_error(const struct command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", PROG, cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see: %s help %s)\n", PROG, cmd->name);
	return EXIT_ERR;
}

bool is_negative_number(const char *s)
{
	return s[0] == '-' && (isdigit((unsigned char)s[1]) ||
			       (s[1] == '.' && isdigit((unsigned char)s[2])));
}

/* The first argument before "--" that reads as a negative number. */
static const char *negative_argument(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (is_negative_number(argv[i]))
			return argv[i];
	return NULL;
}

int parse_options(const struct command *cmd, int argc, char **argv,
		  const char *shortopts, const struct option *longopts)
{
	const char *arg, *negative;
	int c;

	/* shortopts start with ':' so a missing value is told apart. */
	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
	/*
	 * "-5" is taken for an option by getopt; say what it is instead.
	 * (A short option cluster such as "-15" leaves optind on it, so
	 * the argument is looked for, not taken from optind.)
	 */
	negative = c == '?' && (isdigit(optopt) || optopt == '.') ?
		   negative_argument(argc, argv) : NULL;
	if (c == ':')
		usage_error(cmd, "option %s needs a value", arg);
	else if (negative)
		usage_error(cmd, "'%s' is a negative number, not an option: counts and rates must be positive (a key that starts with - goes after --)",
			    negative);
	else if (optopt)
		usage_error(cmd, "unknown option -%c", optopt);
	else
		usage_error(cmd, "unknown option %s", arg);
	return '?';
}

int parse_flag_option(const struct command *cmd, int argc, char **argv,
		      int short_name, const char *long_name, bool *set)
{
	const struct option opts[] = {
		{ long_name, no_argument, NULL, short_name },
		{ NULL, 0, NULL, 0 },
	};
	const char shortopts[] = { ':', (char)short_name, '\0' };
	int c;

	while ((c = parse_options(cmd, argc, argv, shortopts, opts)) != -1) {
		if (c != short_name)
			return EXIT_ERR;
		*set = true;
	}
	return 0;
}

struct kbl *open_filter(const char *name, int access)
{
	struct kbl *f;
	int ret;

	if (kbl_check_name(name)) {
		fail_name(name);
		return NULL;
	}
	ret = kbl_open(name, access, &f);
	if (ret) {
		fail_open(ret, name, access);
		return NULL;
	}
	return f;
}

int filter_info(const struct kbl *f, struct kbloom_info *info)
{
	int ret = kbl_info(f, info);

	if (ret)
		return fail_filter(ret, kbl_name(f), "get information on");
	return 0;
}

static int run_help(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		main_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return show_help(&cmd_help);
	cmd = find_command(argv[1]);
	if (!cmd)
		return fail("unknown command '%s' (see: kbloomctl help)",
			    argv[1]);
	return show_help(cmd);
}

const struct command cmd_help = {
	.name = "help",
	.run = run_help,
	.summary = "show the help of kbloomctl or of one command",
	.usage =
"Usage: kbloomctl help [COMMAND]\n"
"\n"
"Without COMMAND, lists the commands; with it, shows that command's help\n"
"(the same as kbloomctl COMMAND --help).\n",
};

static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	}
	return false;
}

/*
 * kbloomctl's version (its libkbloom's: one VERSION file), then the loaded
 * module's when there is one, so that a mismatch is seen at once.
 */
static int print_version(void)
{
	char mod[64];

	printf("%s %s\n", PROG, kbl_version());
	if (read_value_file("/sys/module/kbloom/version", mod,
			    sizeof(mod)) > 0)
		printf("kbloom module %s\n", mod);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		main_usage(stderr);
		return EXIT_ERR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return print_version();
	cmd = find_command(argv[1]);
	if (!cmd)
		return fail("unknown command '%s' (see: kbloomctl help)",
			    argv[1]);
	if (cmd != &cmd_help && wants_help(argc - 1, argv + 1))
		return show_help(cmd);
	/* Each command sees its own name as argv[0], like a program. */
	optind = 0;
	return cmd->run(argc - 1, argv + 1);
}
