// SPDX-License-Identifier: GPL-2.0
/*
 * Filters as named objects: create, destroy and list.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kbloomctl.h"

#define MODULE_PARAMS	"/sys/module/kbloom/parameters"

static bool read_u64_file(const char *path, uint64_t *out)
{
	char buf[64];

	return read_value_file(path, buf, sizeof(buf)) > 0 &&
	       parse_u64(buf, out);
}

/*
 * Says which of the module's memory caps a filter of bytes of cells
 * passed.  The caps count what a filter holds, its cells and a few KiB
 * more, which is not known here: the cap per filter when the cells alone
 * pass it or when it is the tighter of the two (then passing the total's
 * room means passing it too), else the total's.
 */
static int fail_too_big(const char *name, uint64_t bytes)
{
	char need[32], cap[32], held[32];
	uint64_t max_filter, max_total, total;
	bool have_total;

	fmt_bytes(bytes, need, sizeof(need));
	have_total =
		read_u64_file(MODULE_PARAMS "/max_total_bytes", &max_total) &&
		read_u64_file(KBL_SYSFS_DIR "/total_bytes", &total);
	if (read_u64_file(MODULE_PARAMS "/max_filter_bytes", &max_filter) &&
	    (bytes > max_filter || !have_total ||
	     (total <= max_total && max_filter <= max_total - total)))
		return fail("filter '%s' needs %s of cells and the rest it holds, over the module's limit of %s per filter (ask for less, or raise it: echo BYTES > %s/max_filter_bytes)",
			    name, need,
			    fmt_bytes(max_filter, cap, sizeof(cap)),
			    MODULE_PARAMS);
	if (have_total)
		return fail("filter '%s' needs %s of cells and the rest it holds, but only %s of the module's %s for all filters is free (destroy some, or raise %s/max_total_bytes)",
			    name, need,
			    fmt_bytes(total < max_total ? max_total - total : 0,
				      held, sizeof(held)),
			    fmt_bytes(max_total, cap, sizeof(cap)),
			    MODULE_PARAMS);
	return fail_control(E2BIG, name, "create");
}

static const char create_usage[] =
"Usage: kbloomctl create NAME SIZE [--counting] [--seed S] [--mode MODE] [-q]\n"
"       kbloomctl create NAME [SIZE] --generations G [--window DURATION]\n"
"                        [--rotate-every N] [--seed S] [--mode MODE] [-q]\n"
"       kbloomctl create NAME --capacity N [--fp RATE] --expansion E\n"
"                        [--counting] [--seed S] [--mode MODE] [-q]\n"
"\n"
"Creates the filter NAME, reachable as /dev/kbloom/NAME.  SIZE is one of:\n"
"  --capacity N --fp RATE            N keys at a target false-positive rate\n"
"  --capacity N                      the same at --fp 1%\n"
"  --bits B [--k K] [--capacity N]   B bits (rounded up to a 512-bit block)\n"
"  --capacity N --bits-per-key C [--k K]\n"
"\n"
"Options:\n"
"  -C, --counting        a counting filter: 4-bit counters instead of bits,\n"
"                        so that keys can be deleted (kbloomctl delete); for\n"
"                        the same rate it takes 4.4 to 5 times the memory\n"
"  -n, --capacity N      keys the filter is designed for (1000, 10k, 1M, 1e6);\n"
"                        for a window, the keys added in one window\n"
"  -p, --fp RATE         target false-positive rate: 1%, 0.01 or 1e-3; for a\n"
"                        window, the rate of the whole window when it is full\n"
"  -b, --bits B          total memory bits (k, M, G; Ki, Mi, Gi suffixes)\n"
"  -c, --bits-per-key C  memory bits per key of capacity (1-64)\n"
"  -k, --k K             probes per key, 1-16 (default: the best for the size)\n"
"  -s, --seed S          hash seed, decimal or 0x-hex (default: random);\n"
"                        merge, intersect and load need equal seeds\n"
"  -m, --mode MODE       permission bits of /dev/kbloom/NAME, octal\n"
"                        (default 0600); read access allows check, info and\n"
"                        save, write access allows add, clear, rotate and load\n"
"  -q, --quiet           print nothing on success\n"
"\n"
"Window filters (keys that expire):\n"
"  -g, --generations G   a sliding window of G generations (2-63): adds go to\n"
"                        the newest, checks look at all of them, and each\n"
"                        rotation empties the oldest and makes it the newest\n"
"  -w, --window DURATION rotate by time (500ms, 90s, 10m, 1h, 2d): DURATION is\n"
"                        the guaranteed window, so the filter rotates every\n"
"                        DURATION / (G - 1), rounded up to a millisecond\n"
"                        (10ms to 2^31 ms)\n"
"  -r, --rotate-every N  rotate after N keys added to the newest generation\n"
"                        (100k, 1M; 1 to 2^48); without a SIZE, the window\n"
"                        holds (G - 1) * N keys at --fp 1%\n"
"  With neither, only kbloomctl rotate rotates it; with both, whichever comes\n"
"  first.  A key is found (no false negative) for at least the window:\n"
"  (G - 1) periods of --window after it was added, and while fewer than\n"
"  (G - 1) * N further keys were added; after G rotations it is gone, but\n"
"  for false positives.  Its memory counts all G generations and one more\n"
"  being emptied: a cell holds P bits, P the power of two above G, so\n"
"  G = 3, 7, 15, 31 or 63 wastes none (see: kbloomctl size -g G).\n"
"\n"
"Scalable filters (for a number of keys that cannot be known):\n"
"  -e, --expansion E     a filter that grows as keys come (1-16): a chain of\n"
"                        sub-filters, the first for --capacity keys, each\n"
"                        next for E times the keys of the last, all of them\n"
"                        together under --fp however far it grows (each one\n"
"                        at a share of it).  Sized by --capacity and --fp\n"
"                        only (no --bits, --bits-per-key or --k), bits or\n"
"                        --counting, never a window.  It grows until a new\n"
"                        sub-filter would pass the module's memory caps; it\n"
"                        cannot be saved, loaded, mapped or intersected,\n"
"                        and merges only with a scalable filter of the same\n"
"                        --capacity, --fp, --expansion, type and --seed\n"
"                        (see: kbloomctl size N RATE --expansion E).\n"
"\n"
"The sizing is the module's own (see: kbloomctl size).  Creating filters\n"
"needs write access to /dev/kbloom-control (root by default).\n"
"\n"
"Examples:\n"
"  kbloomctl create users --capacity 1M --fp 0.1% --mode 0644\n"
"  kbloomctl create sessions --counting --capacity 100k --fp 1%\n"
"  kbloomctl create recent --window 1h --generations 6 --capacity 1M --fp 0.1%\n"
"  kbloomctl create seen --generations 4 --rotate-every 100k\n"
"  kbloomctl create visitors --capacity 100k --fp 0.1% --expansion 2\n";

/* "counting ", "window " or "": the word a message puts before "filter". */
static const char *type_word(uint32_t type)
{
	return type == KBLOOM_TYPE_COUNTING ? "counting " :
	       type == KBLOOM_TYPE_WINDOW ? "window " : "";
}

/*
 * A scalable filter's part of the create line: its first sub-filter is
 * what was made, and the rate it promises is the whole chain's.
 */
static void print_created_chain(uint32_t expansion, uint64_t capacity,
				uint32_t target_ppb)
{
	char rate[32], grows[64];

	printf(", capacity %" PRIu64 " in its first sub-filter (%s), false-positive rate under %s however far it grows",
	       capacity, fmt_expansion(expansion, grows, sizeof(grows)),
	       fmt_ppb(target_ppb, rate, sizeof(rate)));
}

static void print_created(const char *name, const struct sizing *planned,
			  const struct kbl_spec *spec)
{
	struct kbloom_window_info win;
	struct kbloom_info info;
	struct kbl *f;
	char bytes[32], rate[32], rot[96];
	uint64_t bits = planned->nblocks * 512, capacity = planned->capacity;
	uint32_t k = planned->k, design = planned->fp_ppb, mode = 0;
	uint32_t type = planned->type, expansion = spec->expansion;
	uint32_t target = spec->fp_ppb;
	uint64_t nblocks = planned->nblocks;

	memset(&win, 0, sizeof(win));
	win.generations = spec->generations;
	win.rotate_ms = spec->rotate_ms;
	win.rotate_every = spec->rotate_every;
	/* The module's own numbers when the node is readable. */
	if (!kbl_open(name, O_RDONLY, &f)) {
		if (!kbl_info(f, &info)) {
			bits = info.bits;
			nblocks = info.nblocks;
			type = info.type;
			k = info.k;
			capacity = info.capacity;
			design = info.fp_design_ppb;
			mode = info.node_mode;
			expansion = info.expansion;
			target = info.fp_target_ppb;
		}
		if (type == KBLOOM_TYPE_WINDOW && kbl_window_info(f, &win)) {
			win.generations = spec->generations;
			win.rotate_ms = spec->rotate_ms;
			win.rotate_every = spec->rotate_every;
		}
		kbl_close(f);
	}
	printf("created %s%sfilter '%s': %" PRIu64 " bits (%s",
	       expansion ? "scalable " : "", type_word(type), name, bits,
	       fmt_bytes(bits / 8, bytes, sizeof(bytes)));
	if (type == KBLOOM_TYPE_COUNTING)
		printf(", %" PRIu64 " counters",
		       filter_cells(nblocks, type, 0));
	printf("), k %u", k);
	if (expansion)
		print_created_chain(expansion, capacity, target);
	else if (capacity)
		printf(", capacity %" PRIu64 ", design false-positive rate %s",
		       capacity, fmt_ppb(design, rate, sizeof(rate)));
	if (type == KBLOOM_TYPE_WINDOW)
		printf(", %u generations, rotates %s", win.generations,
		       fmt_rotation(win.generations, win.rotate_ms,
				    win.rotate_every, rot, sizeof(rot)));
	printf(", %s/%s", KBL_DEV_DIR, name);
	if (mode)
		printf(" mode %04o", mode);
	putchar('\n');
}

static int run_create(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "capacity", required_argument, NULL, 'n' },
		{ "fp", required_argument, NULL, 'p' },
		{ "bits", required_argument, NULL, 'b' },
		{ "bits-per-key", required_argument, NULL, 'c' },
		{ "k", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "counting", no_argument, NULL, 'C' },
		{ "window", required_argument, NULL, 'w' },
		{ "generations", required_argument, NULL, 'g' },
		{ "rotate-every", required_argument, NULL, 'r' },
		{ "expansion", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd = &cmd_create;
	struct kbl_spec spec = { 0 };
	uint64_t window_ms = 0;
	struct sizing planned;
	bool quiet = false;
	const char *name;
	int c, ret;

	while ((c = parse_options(cmd, argc, argv,
				  ":n:p:b:c:k:s:m:qCw:g:r:e:", opts)) != -1) {
		ret = size_option(cmd, &spec, c);
		if (ret == 1)
			ret = window_option(cmd, &spec, &window_ms, c);
		if (ret == 0)
			continue;
		if (ret != 1)
			return EXIT_ERR;
		switch (c) {
		case 'b':
			if (!parse_count(optarg, &spec.bits) || !spec.bits)
				return usage_error(cmd, "invalid --bits '%s': give a positive number of bits (8192, 1Mi, 8M)",
						   optarg);
			break;
		case 's':
			if (!parse_u64(optarg, &spec.seed))
				return usage_error(cmd, "invalid --seed '%s': give a 64-bit number, decimal or 0x-hex",
						   optarg);
			spec.use_seed = 1;
			break;
		case 'm':
			if (!parse_mode(optarg, &spec.mode) || !spec.mode)
				return usage_error(cmd, "invalid --mode '%s': give octal permission bits such as 0600 or 0644",
						   optarg);
			break;
		case 'q':
			quiet = true;
			break;
		default:
			return EXIT_ERR;
		}
	}
	if (optind + 1 != argc)
		return usage_error(cmd, optind == argc ?
				   "missing the filter NAME" :
				   "give exactly one filter NAME");
	name = argv[optind];
	if (kbl_check_name(name))
		return fail_name(name);
	if (expansion_finish(cmd, &spec, window_ms) ||
	    window_finish(cmd, &spec, window_ms))
		return EXIT_ERR;

	if (spec.bits && (spec.fp_ppb || spec.bits_per_key))
		return usage_error(cmd, "--bits cannot be combined with --fp or --bits-per-key");
	if (spec.fp_ppb && spec.bits_per_key)
		return usage_error(cmd, "--fp and --bits-per-key are two ways of sizing: give one");
	/*
	 * A window rotating by count holds (g - 1) * N keys in its window:
	 * that is its capacity unless one is given (the module's rule too).
	 * g - 1 <= 62 and N <= 2^48: no overflow.
	 */
	if (spec.rotate_every && !spec.capacity && !spec.bits)
		spec.capacity = spec.rotate_every * (spec.generations - 1);
	if (!spec.bits && !spec.bits_per_key && !spec.fp_ppb) {
		if (!spec.capacity)
			return usage_error(cmd, spec.generations ?
					   "give a size: --capacity N [--fp RATE] (the keys of one window), --bits B, --capacity N --bits-per-key C, or --rotate-every N (a window of (G - 1) * N keys)" :
					   spec.expansion ?
					   "give a size: --capacity N [--fp RATE] (the keys of the first sub-filter)" :
					   "give a size: --capacity N [--fp RATE], --bits B, or --capacity N --bits-per-key C");
		if (spec.k)
			return usage_error(cmd, "--k needs --bits or --bits-per-key (with --fp, k is chosen for the rate)");
		spec.fp_ppb = DEFAULT_FP_PPB;
	}
	if (spec.fp_ppb && spec.k)
		return usage_error(cmd, "--k cannot be combined with --fp (k is chosen for the rate; use --bits-per-key C --k K)");
	if ((spec.fp_ppb || spec.bits_per_key) && !spec.capacity)
		return usage_error(cmd, "%s needs --capacity N",
				   spec.fp_ppb ? "--fp" : "--bits-per-key");

	/* The module's sizing code, run here first for a precise message. */
	ret = sizing_from_spec(&planned, &spec);
	if (ret == -E2BIG)
		return fail("filter '%s' would exceed the largest filter kbloom can hold (2^31 blocks, 128 GiB); ask for fewer keys or a higher rate%s",
			    name, spec.generations ?
			    " (a window's memory counts all its generations)" :
			    "");
	if (ret)
		return usage_error(cmd, "this size is out of range (see: kbloomctl size)");

	ret = kbl_create(name, &spec);
	if (ret == -E2BIG)
		return fail_too_big(name, planned.bytes);
	if (ret == -EEXIST && access(KBL_SYSFS_DIR, F_OK) == 0) {
		char path[KBL_NODE_PATH_MAX];

		kbl_node_path(name, path, sizeof(path));
		if (access(path, F_OK))
			return fail("the name '%s' is reserved by the module (%s/%s is a module-wide file); choose another name",
				    name, KBL_SYSFS_DIR, name);
	}
	if (ret == -EINVAL && spec.generations)
		return fail("cannot create window filter '%s': the module rejected its window parameters (is it older than kbloomctl %s, without window filters? see: kbloomctl help create)",
			    name, kbl_version());
	if (ret == -EINVAL && spec.expansion)
		return fail("cannot create scalable filter '%s': the module rejected its --expansion (is it older than kbloomctl %s, without scalable filters? see: kbloomctl help create)",
			    name, kbl_version());
	if (ret)
		return fail_control(ret, name, "create");
	if (!quiet)
		print_created(name, &planned, &spec);
	return EXIT_OK;
}

const struct command cmd_create = {
	.name = "create",
	.run = run_create,
	.summary = "create a filter: by capacity and rate, or by size",
	.usage = create_usage,
};

static int run_destroy(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd = &cmd_destroy;
	bool force = false, quiet = false;
	int c, i, rc = EXIT_OK;

	while ((c = parse_options(cmd, argc, argv, ":fq", opts)) != -1) {
		switch (c) {
		case 'f':
			force = true;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			return EXIT_ERR;
		}
	}
	if (optind == argc)
		return usage_error(cmd, "missing the filter NAME");
	for (i = optind; i < argc; i++) {
		int ret;

		if (kbl_check_name(argv[i])) {
			rc = fail_name(argv[i]);
			continue;
		}
		ret = kbl_destroy(argv[i]);
		if (ret == -ENOENT && force && module_loaded())
			continue;
		if (ret) {
			rc = fail_control(ret, argv[i], "destroy");
			continue;
		}
		if (!quiet)
			printf("destroyed filter '%s'\n", argv[i]);
	}
	return rc;
}

const struct command cmd_destroy = {
	.name = "destroy",
	.run = run_destroy,
	.summary = "destroy filters and free their memory",
	.usage =
"Usage: kbloomctl destroy [-f] [-q] NAME...\n"
"\n"
"Destroys each named filter and frees its kernel memory.  Programs that\n"
"still hold it open get ENODEV from then on.\n"
"\n"
"Options:\n"
"  -f, --force   no error for a filter that does not exist\n"
"  -q, --quiet   print nothing on success\n"
"\n"
"Example:\n"
"  kbloomctl destroy users\n",
};

/*
 * The filters are the entries of /sys/class/kbloom that are devices (links
 * or directories); its regular files are module-wide totals.
 */
static bool is_filter_entry(int dir_fd, const struct dirent *de)
{
	struct stat st;

	return de->d_name[0] != '.' &&
	       !fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
	       (S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode));
}

static int filter_names(char ***names, size_t *count)
{
	if (!sorted_names(KBL_SYSFS_DIR, is_filter_entry, names, count))
		return 0;
	if (errno == ENOENT && !module_loaded())
		return fail_module_missing();
	return fail("cannot list %s: %s", KBL_SYSFS_DIR, strerror(errno));
}

static bool sysfs_value(const char *name, const char *attr, uint64_t *v)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s/%s", KBL_SYSFS_DIR, name, attr);
	return read_u64_file(path, v);
}

/*
 * The summary comes from sysfs.  Every user may read a filter's geometry
 * there; its statistics only when the filter's node lets everyone read
 * it (else they are root's, and the list shows "-"): *stats says which.
 */
static bool list_info(const char *name, struct kbloom_info *info,
		      bool *stats)
{
	uint64_t v[12], grows;
	bool ok;

	memset(info, 0, sizeof(*info));
	ok = sysfs_value(name, "bits", &v[0]) &&
	     sysfs_value(name, "bytes", &v[1]) &&
	     sysfs_value(name, "k", &v[2]) &&
	     sysfs_value(name, "capacity", &v[3]) &&
	     sysfs_value(name, "type", &v[9]);
	if (!ok)
		return false;
	*stats = sysfs_value(name, "est_keys", &v[4]) &&
		 sysfs_value(name, "fill_ppb", &v[5]) &&
		 sysfs_value(name, "fp_now_ppb", &v[6]) &&
		 sysfs_value(name, "add_calls", &v[7]) &&
		 sysfs_value(name, "saturated", &v[8]) &&
		 sysfs_value(name, "delete_calls", &v[10]) &&
		 sysfs_value(name, "delete_hits", &v[11]);
	if (!*stats && errno != EACCES)
		return false;
	/*
	 * 0 for a filter of fixed size, and missing from a module without
	 * scalable filters, whose filters are all of fixed size.
	 */
	if (sysfs_value(name, "expansion", &grows) && grows) {
		info->expansion = (uint32_t)grows;
		if (sysfs_value(name, "subfilters", &grows))
			info->subfilters = (uint32_t)grows;
	}
	snprintf(info->name, sizeof(info->name), "%s", name);
	info->bits = v[0];
	info->nblocks = v[0] / 512;
	info->bytes = v[1];
	info->k = (uint32_t)v[2];
	info->capacity = v[3];
	info->type = (uint32_t)v[9];
	if (!*stats)
		return true;
	info->est_keys = v[4];
	info->fill_ppb = (uint32_t)v[5];
	info->fp_now_ppb = (uint32_t)v[6];
	info->add_calls = v[7];
	info->saturated = (uint32_t)v[8];
	info->delete_calls = v[10];
	info->delete_hits = v[11];
	return true;
}

/*
 * A sysfs array, newest generation first, into n of the generations' u64
 * (field 0 add_calls, 1 est_keys) or u32 (fill_ppb) fields.
 */
static bool sysfs_gen_array(const char *name, const char *attr,
			    struct kbloom_window_info *w, int field)
{
	char path[256], buf[4096], *p, *end;
	uint32_t i;

	snprintf(path, sizeof(path), "%s/%s/%s", KBL_SYSFS_DIR, name, attr);
	if (read_value_file(path, buf, sizeof(buf)) < 0)
		return false;
	p = buf;
	for (i = 0; i < w->generations; i++) {
		unsigned long long v;

		errno = 0;
		v = strtoull(p, &end, 10);
		if (end == p || errno) {
			errno = EPROTO;
			return false;
		}
		p = end;
		if (field == 0)
			w->gen[i].add_calls = v;
		else if (field == 1)
			w->gen[i].est_keys = v;
		else
			w->gen[i].fill_ppb = (uint32_t)v;
	}
	return true;
}

/*
 * A window's settings from its sysfs files, and with stats its state
 * (root's alone when others may not read the node: see list_info()).
 */
static bool list_window(const char *name, struct kbloom_window_info *w,
			bool stats)
{
	uint64_t g, v[4];

	memset(w, 0, sizeof(*w));
	if (!sysfs_value(name, "generations", &g) ||
	    !sysfs_value(name, "rotate_ms", &v[0]) ||
	    !sysfs_value(name, "rotate_every", &v[1]))
		return false;
	w->rotate_ms = v[0];
	w->rotate_every = v[1];
	w->generations = g > KBLOOM_GENERATIONS_MAX ? KBLOOM_GENERATIONS_MAX :
						      (uint32_t)g;
	w->plane_order = plane_order_of(w->generations);
	if (!stats)
		return true;
	if (!sysfs_value(name, "rotations", &v[2]) ||
	    !sysfs_value(name, "next_rotation_ms", &v[3]))
		return false;
	w->rotations = v[2];
	w->next_rotation_ms = v[3];
	return sysfs_gen_array(name, "gen_add_calls", w, 0) &&
	       sysfs_gen_array(name, "gen_est_keys", w, 1) &&
	       sysfs_gen_array(name, "gen_fill_ppb", w, 2);
}

/* Without stats: the geometry, and "statistics":false. */
static void list_json_entry(const struct kbloom_info *info,
			    const struct kbloom_window_info *win,
			    const char *node, bool stats)
{
	printf("{\"name\":");
	json_string(stdout, info->name);
	json_text("node", node);
	json_text("type", kbl_type_name(info->type));
	json_u64("bits", info->bits);
	json_u64("cells", filter_cells(info->nblocks, info->type,
				       win->generations));
	json_u64("bytes", info->bytes);
	json_u64("k", info->k);
	json_u64("capacity", info->capacity);
	json_u64("expansion", info->expansion);
	json_u64("subfilters", info->subfilters);
	json_bool("statistics", stats);
	if (!stats) {
		json_u64("generations", win->generations);
		json_u64("rotate_ms", win->rotate_ms);
		json_u64("rotate_every", win->rotate_every);
		putchar('}');
		return;
	}
	json_u64("est_keys", info->est_keys);
	json_u64("add_calls", info->add_calls);
	json_u64("delete_calls", info->delete_calls);
	json_u64("delete_hits", info->delete_hits);
	json_u64("fill_ppb", info->fill_ppb);
	json_u64("fp_now_ppb", info->fp_now_ppb);
	json_bool("saturated", info->saturated);
	json_window(win, false);
	putchar('}');
}

/*
 * The TYPE column: the type, for a scalable filter its expansion and
 * sub-filters, and for a window how it rotates (with stats, its rotations
 * too).
 */
static void list_type(const struct kbloom_info *info,
		      const struct kbloom_window_info *w, bool stats)
{
	char rot[96], next[32];

	fputs(kbl_type_name(info->type), stdout);
	if (info->expansion) {
		printf(" (scalable, expansion %u", info->expansion);
		/* Unknown when the module's sysfs has no count to read. */
		if (info->subfilters)
			printf(", %u sub-filter%s", info->subfilters,
			       info->subfilters == 1 ? "" : "s");
		putchar(')');
	}
	if (info->type != KBLOOM_TYPE_WINDOW)
		return;
	printf(" (%u generations, rotates %s", w->generations,
	       fmt_rotation(w->generations, w->rotate_ms, w->rotate_every,
			    rot, sizeof(rot)));
	if (!stats) {
		putchar(')');
		return;
	}
	printf(", %" PRIu64 " rotation%s", (uint64_t)w->rotations,
	       w->rotations == 1 ? "" : "s");
	if (w->rotate_ms)
		printf(", next in %s",
		       fmt_ms(w->next_rotation_ms, next, sizeof(next)));
	putchar(')');
}

static int run_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "names", no_argument, NULL, '1' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd = &cmd_list;
	bool json = false, names_only = false;
	char **names = NULL;
	size_t n = 0, i;
	int c, rc = EXIT_OK;

	while ((c = parse_options(cmd, argc, argv, ":j1", opts)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case '1':
			names_only = true;
			break;
		default:
			return EXIT_ERR;
		}
	}
	if (optind != argc)
		return usage_error(cmd, "list takes no arguments");
	if (filter_names(&names, &n))
		return EXIT_ERR;

	if (json)
		putchar('[');
	else if (!names_only && n)
		printf("%-31s %12s %10s %3s %12s %12s %7s %9s %s\n",
		       "NAME", "BITS", "MEMORY", "K", "CAPACITY", "KEYS(EST)",
		       "FILL", "FP NOW", "TYPE");
	for (i = 0; i < n; i++) {
		struct kbloom_window_info win;
		struct kbloom_info info;
		char node[KBL_NODE_PATH_MAX];
		char mem[32], fill[32], fp[32], keys[24];
		bool stats;

		if (names_only) {
			printf("%s\n", names[i]);
			continue;
		}
		memset(&win, 0, sizeof(win));
		if (!list_info(names[i], &info, &stats) ||
		    (info.type == KBLOOM_TYPE_WINDOW &&
		     !list_window(names[i], &win, stats))) {
			/* Destroyed while we listed: not an error. */
			if (errno == ENOENT || errno == ENODEV)
				continue;
			rc = fail("cannot read %s/%s: %s", KBL_SYSFS_DIR,
				  names[i], strerror(errno));
			continue;
		}
		kbl_node_path(names[i], node, sizeof(node));
		if (json) {
			if (i)
				putchar(',');
			list_json_entry(&info, &win, node, stats);
			continue;
		}
		if (stats) {
			snprintf(keys, sizeof(keys), "%llu", info.est_keys);
			fmt_ppb(info.fill_ppb, fill, sizeof(fill));
			fmt_ppb(info.fp_now_ppb, fp, sizeof(fp));
		} else {
			strcpy(keys, "-");
			strcpy(fill, "-");
			strcpy(fp, "-");
		}
		printf("%-31s %12llu %10s %3u %12llu %12s %7s %9s ",
		       names[i], info.bits,
		       fmt_bytes(info.bytes, mem, sizeof(mem)), info.k,
		       info.capacity, keys, fill, fp);
		list_type(&info, &win, stats);
		printf("%s\n", info.saturated ? "  saturated" : "");
	}
	if (json)
		printf("]\n");
	else if (!n && !names_only)
		fprintf(stderr, "%s: no filters (create one: kbloomctl create NAME --capacity N --fp 1%%)\n",
			PROG);
	free_names(names, n);
	return rc;
}

const struct command cmd_list = {
	.name = "list",
	.run = run_list,
	.summary = "list the filters with a one-line summary each",
	.usage =
"Usage: kbloomctl list [--json | --names]\n"
"\n"
"Lists every filter (from /sys/class/kbloom/): name, size in bits of\n"
"memory, probes per key, capacity, estimated\n"
"distinct keys, share of cells set (bits, or counters above 0), the\n"
"false-positive rate of the cells as they are now, and the type: bits,\n"
"counting (keys can be deleted), or window (keys expire: its generations,\n"
"how it rotates, the rotations so far and the time to the next one); a\n"
"scalable filter's adds its expansion and the sub-filters it has now.\n"
"For a scalable filter, bits, memory, keys, fill and rate are those of\n"
"all its sub-filters together, and capacity that of the first; --json\n"
"has expansion and subfilters for every filter (0 for fixed sizes).\n"
"For a window, capacity and keys count the whole window and a cell is set\n"
"when any live generation set it; --json adds each generation's keys\n"
"added, estimated keys and fill, newest first.\n"
"The statistics (keys, fill, rate, rotations) of a filter whose node not\n"
"everyone may read are root's alone: others see \"-\" (--json:\n"
"\"statistics\":false); kbloomctl info NAME shows them to whoever may\n"
"read the node.\n"
"\n"
"Options:\n"
"  -j, --json    one JSON array of objects\n"
"  -1, --names   only the names, one per line\n"
"\n"
"Example:\n"
"  kbloomctl list\n",
};
