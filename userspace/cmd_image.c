// SPDX-License-Identifier: GPL-2.0
/*
 * Filters to and from files: save and load stream the image the module
 * reads and writes (format in include/uapi/linux/kbloom.h).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kbloomctl.h"
#include "libkbloom_image.h"

/*
 * save writes FILE.tmp.PID and renames it: when that fails, the message
 * names FILE, the user's path, and why in terms of FILE's directory.
 */
static int fail_save_path(const char *file, int err)
{
	char *dir = strdup(file), *slash;
	const char *d = ".";
	struct stat st;
	int rc;

	if (!dir)
		return fail("cannot write %s: %s", file, strerror(err));
	slash = strrchr(dir, '/');
	if (slash == dir)
		d = "/";
	else if (slash) {
		*slash = '\0';
		d = dir;
	}
	/* ENOENT: the directory is missing (or a dangling link). */
	if (err == ENOENT && stat(d, &st))
		rc = fail("cannot write %s: no such directory %s (create it first)",
			  file, d);
	else if (err == ENOTDIR)
		rc = fail("cannot write %s: %s is not a directory", file, d);
	else if (err == EACCES || err == EPERM)
		rc = fail("cannot write %s: permission denied in directory %s (save needs to create a file there)",
			  file, d);
	else
		rc = fail("cannot write %s: %s", file, strerror(err));
	free(dir);
	return rc;
}

/*
 * A save that meets a rewrite of the filter (ESTALE: most often a window's
 * rotation, which may come every 10 ms) starts again from the beginning
 * of an empty output, this many times at most.
 */
#define SAVE_TRIES	5

/*
 * kbl_save() into out, again after ESTALE while out can be cut back to
 * where the image began and rewound there: a regular file (not a pipe),
 * and only what this save wrote (stdout may be a file appended to, whose
 * earlier bytes stay).  *tries receives the attempts made.
 */
static int64_t save_retrying(const struct kbl *f, int out, int *tries)
{
	off_t start = lseek(out, 0, SEEK_CUR);
	int flags = fcntl(out, F_GETFL);
	int64_t n = -ESTALE;
	bool rewindable;
	struct stat st;

	rewindable = start >= 0 && flags >= 0 && !fstat(out, &st) &&
		     S_ISREG(st.st_mode);
	if (rewindable && (flags & O_APPEND))
		start = st.st_size;
	for (*tries = 0; *tries < SAVE_TRIES && n == -ESTALE;) {
		if (*tries && (!rewindable || ftruncate(out, start) ||
			       lseek(out, start, SEEK_SET) != start))
			break;
		++*tries;
		n = kbl_save(f, out);
	}
	return n;
}

static int run_save(int argc, char **argv)
{
	const struct command *cmd = &cmd_save;
	char *tmp = NULL;
	const char *name, *file;
	struct kbl *f = NULL;
	bool quiet = false, to_stdout;
	int out = -1, rc = EXIT_ERR, tries;
	int64_t n;

	if (parse_flag_option(cmd, argc, argv, 'q', "quiet", &quiet))
		return EXIT_ERR;
	if (optind + 2 != argc)
		return usage_error(cmd, "give a filter NAME and a FILE (- for stdout)");
	name = argv[optind];
	file = argv[optind + 1];
	to_stdout = !strcmp(file, "-");
	if (to_stdout && isatty(STDOUT_FILENO))
		return fail("not writing a binary image to a terminal (redirect stdout, or give a FILE)");
	f = open_filter(name, O_RDONLY);
	if (!f)
		return EXIT_ERR;
	if (to_stdout) {
		out = STDOUT_FILENO;
	} else {
		/* A new file renamed into place: FILE is never half written. */
		size_t len = strlen(file) + 32;

		tmp = malloc(len);
		if (!tmp) {
			fail("out of memory");
			goto out;
		}
		snprintf(tmp, len, "%s.tmp.%ld", file, (long)getpid());
		out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (out < 0) {
			fail_save_path(file, errno);
			goto out;
		}
	}
	n = save_retrying(f, out, &tries);
	if (n < 0) {
		if (n == -ENODEV || n == -EACCES || n == -EPERM)
			fail_filter((int)n, name, "save");
		else if (n == -EOPNOTSUPP)
			fail_call((int)n, "kbl_save", name);
		else if (n == -ESTALE && tries < SAVE_TRIES)
			fail("cannot save filter '%s' to %s: it was rotated, cleared, intersected or loaded while being saved, and %s cannot be rewound to start again (save to a FILE, which retries)",
			     name, to_stdout ? "stdout" : file,
			     to_stdout ? "stdout" : file);
		else if (n == -ESTALE)
			fail("cannot save filter '%s': it was rotated, cleared, intersected or loaded during each of %d attempts (a window that rotates faster than a save takes? try again, or save when it rotates less often)",
			     name, SAVE_TRIES);
		else
			fail("cannot save filter '%s' to %s: %s", name, file,
			     kbl_strerror((int)n));
		goto out;
	}
	if (!to_stdout) {
		if (fsync(out) || close(out)) {
			out = -1;
			fail("cannot write %s: %s", file, strerror(errno));
			goto out;
		}
		out = -1;
		if (rename(tmp, file)) {
			fail("cannot write %s: %s (renaming the finished image into place)",
			     file, strerror(errno));
			goto out;
		}
		free(tmp);
		tmp = NULL;
	}
	if (!quiet)
		fprintf(to_stdout ? stderr : stdout,
			"saved filter '%s' to %s (%" PRId64 " bytes)\n", name,
			to_stdout ? "stdout" : file, n);
	rc = EXIT_OK;
out:
	if (out > STDOUT_FILENO)
		close(out);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	kbl_close(f);
	return rc;
}

const struct command cmd_save = {
	.name = "save",
	.run = run_save,
	.summary = "write a filter's image to a file",
	.usage =
"Usage: kbloomctl save [-q] NAME FILE\n"
"\n"
"Writes the image of filter NAME (its type, geometry, seed, counters and\n"
"cells, with a CRC32C) to FILE, or to stdout when FILE is -.  FILE is written\n"
"under a temporary name and renamed, so it is never left half written.\n"
"Keys added during the save may or may not be in the image; keys added\n"
"before it are.  A window filter's image holds its live generations,\n"
"which one is current, its rotations and the time since the last one; a\n"
"rotation (or a clear, intersect or load) during the save starts it again\n"
"from the beginning, up to 5 times (into a FILE or a regular file on\n"
"stdout; a pipe cannot be rewound).  A scalable filter's image (version 4)\n"
"holds its expansion and each sub-filter's cells and keys, as many\n"
"sub-filters as it had when the save began.  Needs read access.\n"
"\n"
"Example:\n"
"  kbloomctl save users /var/lib/kbloom/users.kbloom\n",
};

/* The image header of a regular file, to explain a rejected image. */
static bool read_header(int fd, struct kbloom_image_header *hdr)
{
	return pread(fd, hdr, sizeof(*hdr), 0) == (ssize_t)sizeof(*hdr) &&
	       le32toh(hdr->magic) == KBLOOM_IMAGE_MAGIC;
}

/*
 * The generations of the image whose header is hdr: those of its window
 * part, 0 for an image without one (version 1) or when unreadable.
 */
static uint32_t image_generations(int fd,
				  const struct kbloom_image_header *hdr)
{
	struct kbloom_image_window win;

	if (le16toh(hdr->version) < KBLOOM_IMAGE_VERSION ||
	    le16toh(hdr->header_bytes) < sizeof(*hdr) + sizeof(win) ||
	    pread(fd, &win, sizeof(win), sizeof(*hdr)) != (ssize_t)sizeof(win))
		return 0;
	return le32toh(win.generations);
}

/*
 * The expansion of a version 4 image (a scalable filter's), from its
 * struct kbloom_image_chain; 0 for any other image or when unreadable.
 */
static uint32_t image_expansion(int fd, const struct kbloom_image_header *hdr)
{
	struct kbloom_image_chain chain;

	if (!kbl_image_subfilters(hdr) ||
	    pread(fd, &chain, sizeof(chain),
		  sizeof(*hdr) + sizeof(struct kbloom_image_window)) !=
	    (ssize_t)sizeof(chain))
		return 0;
	return le32toh(chain.expansion);
}

/* " --counting", " --generations G" or "": create's option for a type. */
static const char *type_option(uint32_t type, uint32_t generations,
			       char *buf, size_t size)
{
	if (type == KBLOOM_TYPE_COUNTING)
		snprintf(buf, size, " --counting");
	else if (type == KBLOOM_TYPE_WINDOW)
		snprintf(buf, size, " --generations %u", generations);
	else
		buf[0] = '\0';
	return buf;
}

/*
 * What a scalable filter's image needs equal in the filter, and the create
 * line that makes such a filter (%.9g of the rate reads back as the same
 * ppb, as in cmd_combine.c).
 */
static void describe_chain(uint32_t type, uint64_t capacity, uint32_t fp_ppb,
			   uint32_t expansion, uint64_t seed, char *buf,
			   size_t size)
{
	char rate[32];

	snprintf(buf, size, "%s, capacity %llu, fp %s, expansion %u, seed 0x%llx",
		 kbl_type_name(type), (unsigned long long)capacity,
		 fmt_ppb(fp_ppb, rate, sizeof(rate)), expansion,
		 (unsigned long long)seed);
}

static void chain_create_line(const struct kbloom_image_header *hdr,
			      uint32_t expansion, char *buf, size_t size)
{
	snprintf(buf, size, "kbloomctl create NAME --capacity %llu --fp %.9g --expansion %u --seed 0x%llx%s",
		 (unsigned long long)le64toh(hdr->capacity),
		 (double)le32toh(hdr->fp_target_ppb) / KBLOOM_PPB, expansion,
		 (unsigned long long)le64toh(hdr->seed),
		 le32toh(hdr->type) == KBLOOM_TYPE_COUNTING ? " --counting" : "");
}

/*
 * EXDEV with a scalable filter on either side: a version 4 image loads
 * only into a scalable filter of its schedule and seed, a version 3 one
 * only into a filter of fixed size.
 */
static int fail_chain_geometry(const char *file, const char *name, int fd,
			       const struct kbloom_image_header *hdr,
			       const struct kbloom_info *info)
{
	uint32_t expansion = image_expansion(fd, hdr);
	char img[160], flt[160], line[192], opt[32];

	if (!kbl_image_subfilters(hdr)) {
		type_option(le32toh(hdr->type), image_generations(fd, hdr),
			    opt, sizeof(opt));
		return fail("%s holds the image of a filter of fixed size (version %u), and filter '%s' is scalable: such an image loads only into a fixed-size filter of its type, size, k and seed (create it with: kbloomctl create NAME%s --bits %llu --k %u --seed 0x%llx, or use load --create); filter '%s' is unchanged",
			    file, le16toh(hdr->version), name, opt,
			    (unsigned long long)le64toh(hdr->nblocks) * 512,
			    le32toh(hdr->k),
			    (unsigned long long)le64toh(hdr->seed), name);
	}
	describe_chain(le32toh(hdr->type), le64toh(hdr->capacity),
		       le32toh(hdr->fp_target_ppb), expansion,
		       le64toh(hdr->seed), img, sizeof(img));
	chain_create_line(hdr, expansion, line, sizeof(line));
	if (!info->expansion)
		return fail("%s holds a scalable filter's image (version %u: %s), and filter '%s' is of fixed size: such an image loads only into a scalable filter of the same --capacity, --fp, --expansion, type and --seed (create it with: %s, or use load --create); filter '%s' is unchanged",
			    file, KBLOOM_IMAGE_VERSION_CHAIN, img, name, line,
			    name);
	describe_chain(info->type, info->capacity, info->fp_target_ppb,
		       info->expansion, info->seed, flt, sizeof(flt));
	return fail("image differs from scalable filter '%s': %s holds %s, the filter is %s; a scalable filter's image loads only into one of the same --capacity, --fp, --expansion, type and --seed (create it with: %s, or use load --create); filter '%s' is unchanged",
		    name, file, img, flt, line, name);
}

static int fail_geometry(const char *file, const char *name, int fd,
			 const struct kbloom_image_header *hdr,
			 const struct kbl *f, const struct kbloom_info *info)
{
	unsigned long long bits = le64toh(hdr->nblocks) * 512;
	unsigned long long seed = le64toh(hdr->seed);
	unsigned int k = le32toh(hdr->k);
	uint32_t type = le32toh(hdr->type);
	uint32_t gens = image_generations(fd, hdr);
	struct kbloom_window_info win;
	char opt[32];

	/* Version 4 in a header that cannot be a scalable filter's. */
	if (le16toh(hdr->version) == KBLOOM_IMAGE_VERSION_CHAIN &&
	    !kbl_image_subfilters(hdr))
		return fail("%s says it is a scalable filter's image (version %d), but its header describes no sub-filters (damaged file?); filter '%s' is unchanged",
			    file, KBLOOM_IMAGE_VERSION_CHAIN, name);
	if (info->expansion || kbl_image_subfilters(hdr))
		return fail_chain_geometry(file, name, fd, hdr, info);
	type_option(type, gens, opt, sizeof(opt));
	if (type != info->type)
		return fail("image type differs from filter '%s': %s holds a %s filter, the filter is a %s one (create it with: kbloomctl create NAME%s --bits %llu --k %u --seed 0x%llx, or use load --create)",
			    name, file, kbl_type_name(type),
			    kbl_type_name(info->type), opt, bits, k, seed);
	if (type == KBLOOM_TYPE_WINDOW && !kbl_window_info(f, &win) &&
	    win.generations != gens)
		return fail("image generations differ from filter '%s': %s has %u generations, the filter %u (create it with: kbloomctl create NAME%s --bits %llu --k %u --seed 0x%llx, or use load --create)",
			    name, file, gens, win.generations, opt, bits, k,
			    seed);
	return fail("image geometry differs from filter '%s': %s has %llu bits, k %u, seed 0x%llx; the filter has %llu bits, k %u, seed 0x%llx (create it with the same --bits/--k/--seed: kbloomctl create NAME%s --bits %llu --k %u --seed 0x%llx)",
		    name, file, bits, k, seed, info->bits, info->k, info->seed,
		    opt, bits, k, seed);
}

static int fail_image(int err, const char *file, int fd, const char *name,
		      const struct kbl *f)
{
	struct kbloom_image_header hdr;
	struct kbloom_info info;
	struct stat st;
	bool have_hdr = read_header(fd, &hdr);
	uint32_t subs = have_hdr ? kbl_image_subfilters(&hdr) : 0;
	uint64_t want = have_hdr ? kbl_image_length(&hdr) : 0;

	switch (-err) {
	case ENOEXEC:
		return fail("%s is not a kbloom image (make one with: kbloomctl save NAME FILE); filter '%s' is unchanged",
			    file, name);
	case EPROTO:
		if (have_hdr && le16toh(hdr.version) < KBLOOM_IMAGE_VERSION)
			return fail("%s is a kbloom image of version %u, from kbloom 0.1, which placed a key's cells differently: its cells would answer for other keys, so it cannot be loaded; rebuild the filter by adding its keys again (kbloomctl add %s -f KEYS); filter '%s' is unchanged",
				    file, le16toh(hdr.version), name, name);
		/* Only a module older than scalable filter images says it. */
		if (have_hdr && le16toh(hdr.version) ==
		    KBLOOM_IMAGE_VERSION_CHAIN)
			return fail("%s is a scalable filter's image (version %d), which this kbloom module is too old to read: update the module (kbloomctl %s reads it); filter '%s' is unchanged",
				    file, KBLOOM_IMAGE_VERSION_CHAIN,
				    kbl_version(), name);
		if (have_hdr)
			return fail("%s is a kbloom image of version %u, which this module does not read (kbloomctl %s writes and reads versions %d and %d, %d for a scalable filter); filter '%s' is unchanged",
				    file, le16toh(hdr.version), kbl_version(),
				    KBLOOM_IMAGE_VERSION,
				    KBLOOM_IMAGE_VERSION_CHAIN,
				    KBLOOM_IMAGE_VERSION_CHAIN, name);
		return fail("%s is a kbloom image of a version this module does not read; filter '%s' is unchanged",
			    file, name);
	case EXDEV:
		if (have_hdr && !kbl_info(f, &info))
			return fail_geometry(file, name, fd, &hdr, f, &info);
		return fail("image geometry or type differs from filter '%s' (a version 3 image loads into a fixed-size filter of the same type, --generations, --bits, --k and --seed; a version 4 one, a scalable filter's, into a scalable filter of the same --capacity, --fp, --expansion, type and --seed)",
			    name);
	case EINVAL:
		if (subs)
			return fail("%s has an invalid kbloom image header or sub-filter descriptor (damaged file, or sub-filters this module would not make: one of another kbloom version?); filter '%s' is unchanged",
				    file, name);
		return fail("%s has an invalid kbloom image header (damaged file?); filter '%s' is unchanged",
			    file, name);
	case ENODATA:
		/* The image's own length: the filter's may differ (growth). */
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) && want)
			return fail("%s is a truncated kbloom image (%" PRIu64 " of %" PRIu64 " bytes); filter '%s' is unchanged",
				    file, (uint64_t)st.st_size, want, name);
		return fail("%s is a truncated kbloom image; filter '%s' is unchanged",
			    file, name);
	case EMSGSIZE:
		return fail("%s is longer than the kbloom image its header describes (extra bytes at the end?); filter '%s' is unchanged",
			    file, name);
	case EBADMSG:
		return fail("%s is a corrupt kbloom image (checksum mismatch); filter '%s' is unchanged",
			    file, name);
	case ENODEV:
	case EACCES:
	case EPERM:
	case EBADF:
		return fail_filter(err, name, "load");
	case E2BIG:
		if (subs)
			return fail("cannot load %s into filter '%s': its %u sub-filters, with the image staged whole, would pass the module's max_filter_bytes or max_total_bytes (raise them in /sys/module/kbloom/parameters, or destroy other filters); the filter's keys are unchanged",
				    file, name, subs);
		return fail("cannot load %s into filter '%s': the image, staged whole, would pass the module's max_total_bytes (raise it in /sys/module/kbloom/parameters, or destroy other filters); the filter is unchanged",
			    file, name);
	case ENOMEM:
		return fail("cannot load %s into filter '%s': out of memory (staging the image%s); the filter's keys are unchanged",
			    file, name, subs ?
			    ", or growing the scalable filter to its sub-filters" :
			    "");
	case EOPNOTSUPP:
		return fail_call(err, "kbl_load", name);
	default:
		return fail("cannot load %s into filter '%s': %s", file, name,
			    kbl_strerror(err));
	}
}

/*
 * Creates NAME with the geometry written in the image header; a window
 * takes its generations from the image and its schedule from spec (the
 * image carries none).
 */
static int create_from_image(const char *name, const char *file, int fd,
			     struct kbl_spec *spec, uint64_t window_ms)
{
	struct kbloom_image_header hdr;
	int ret;

	if (!read_header(fd, &hdr))
		return fail("%s is not a kbloom image (make one with: kbloomctl save NAME FILE)",
			    file);
	if (kbl_image_subfilters(&hdr)) {
		/*
		 * A scalable filter is made from its schedule, as create
		 * --expansion makes it; the load then grows it to the
		 * image's sub-filters.
		 */
		if (spec->generations || window_ms || spec->rotate_every)
			return fail("%s holds a scalable filter, which does not rotate: --window, --generations and --rotate-every are for window images",
				    file);
		spec->expansion = image_expansion(fd, &hdr);
		if (!spec->expansion)
			return fail("%s has an invalid kbloom image header (damaged file?)",
				    file);
		spec->capacity = le64toh(hdr.capacity);
		spec->fp_ppb = le32toh(hdr.fp_target_ppb);
		spec->seed = le64toh(hdr.seed);
		spec->use_seed = 1;
		spec->type = le32toh(hdr.type);
		ret = kbl_create(name, spec);
		if (ret)
			return fail_control(ret, name, "create");
		return 0;
	}
	spec->bits = le64toh(hdr.nblocks) * 512;
	spec->k = le32toh(hdr.k);
	spec->seed = le64toh(hdr.seed);
	spec->use_seed = 1;
	spec->capacity = le64toh(hdr.capacity);
	spec->type = le32toh(hdr.type);
	if (spec->type == KBLOOM_TYPE_WINDOW) {
		uint32_t gens = image_generations(fd, &hdr);

		if (spec->generations && spec->generations != gens)
			return fail("%s holds a window filter of %u generations, not %u (leave --generations out: load --create takes the image's)",
				    file, gens, spec->generations);
		spec->generations = gens;
		if (window_finish(&cmd_load, spec, window_ms))
			return EXIT_ERR;
	} else if (spec->generations || window_ms || spec->rotate_every) {
		return fail("%s holds a %s filter, which does not rotate: --window, --generations and --rotate-every are for window images",
			    file, kbl_type_name(spec->type));
	}
	ret = kbl_create(name, spec);
	if (ret)
		return fail_control(ret, name, "create");
	return 0;
}

static int run_load(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "create", no_argument, NULL, 'c' },
		{ "mode", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "window", required_argument, NULL, 'w' },
		{ "generations", required_argument, NULL, 'g' },
		{ "rotate-every", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd = &cmd_load;
	const char *name, *file;
	struct kbl *f = NULL;
	bool quiet = false, create = false, created = false;
	struct kbl_spec spec = { 0 };
	uint64_t window_ms = 0;
	int c, in = -1, ret, rc = EXIT_ERR;

	while ((c = parse_options(cmd, argc, argv, ":cm:qw:g:r:",
				  opts)) != -1) {
		ret = window_option(cmd, &spec, &window_ms, c);
		if (ret == 0)
			continue;
		if (ret != 1)
			return EXIT_ERR;
		switch (c) {
		case 'c':
			create = true;
			break;
		case 'm':
			if (!parse_mode(optarg, &spec.mode) || !spec.mode)
				return usage_error(cmd, "invalid --mode '%s': give octal permission bits such as 0600",
						   optarg);
			break;
		case 'q':
			quiet = true;
			break;
		default:
			return EXIT_ERR;
		}
	}
	if (optind + 2 != argc)
		return usage_error(cmd, "give a filter NAME and a FILE (- for stdin)");
	name = argv[optind];
	file = argv[optind + 1];
	if (kbl_check_name(name))
		return fail_name(name);
	if (!create && (window_ms || spec.generations || spec.rotate_every))
		return usage_error(cmd, "--window, --generations and --rotate-every need --create (a filter that exists keeps its own rotation schedule)");
	if (!strcmp(file, "-")) {
		if (create)
			return usage_error(cmd, "--create needs a FILE, not stdin");
		in = STDIN_FILENO;
		file = "stdin";
	} else {
		in = open(file, O_RDONLY | O_CLOEXEC);
		if (in < 0)
			return fail("cannot read %s: %s", file, strerror(errno));
	}
	if (create) {
		struct stat st;

		ret = kbl_open(name, O_RDWR, &f);
		if (ret == -ENOENT && module_loaded()) {
			if (create_from_image(name, file, in, &spec,
					      window_ms))
				goto out;
			created = true;
		} else if (ret) {
			fail_open(ret, name, O_RDWR);
			goto out;
		} else if (!fstat(kbl_fd(f), &st) && st.st_uid != geteuid()) {
			/*
			 * A service restoring its filter at boot must not
			 * fill one that another user created first under
			 * its name, and then trust it.
			 */
			fail_foreign(name, &st, "load --create loads only into a filter of yours or one it creates (load without --create to load into it anyway)");
			goto out;
		}
	}
	if (!f) {
		f = open_filter(name, O_RDWR);
		if (!f)
			goto out;
	}
	ret = kbl_load(f, in);
	if (ret) {
		fail_image(ret, file, in, name, f);
		goto out;
	}
	if (!quiet && created && spec.type == KBLOOM_TYPE_WINDOW) {
		char rot[96];

		printf("loaded %s into new window filter '%s' (%u generations, rotates %s)\n",
		       file, name, spec.generations,
		       fmt_rotation(spec.generations, spec.rotate_ms,
				    spec.rotate_every, rot, sizeof(rot)));
	} else if (!quiet && created && spec.expansion) {
		struct kbloom_info info;

		if (kbl_info(f, &info))
			info.subfilters = 0;
		printf("loaded %s into new scalable filter '%s' (expansion %u, %u sub-filter%s)\n",
		       file, name, spec.expansion, info.subfilters,
		       info.subfilters == 1 ? "" : "s");
	} else if (!quiet) {
		printf("loaded %s into %sfilter '%s'\n", file,
		       created ? "new " : "", name);
	}
	rc = EXIT_OK;
out:
	kbl_close(f);
	if (rc != EXIT_OK && created)
		kbl_destroy(name);
	if (in > STDIN_FILENO)
		close(in);
	return rc;
}

const struct command cmd_load = {
	.name = "load",
	.run = run_load,
	.summary = "restore a filter's image from a file",
	.usage =
"Usage: kbloomctl load [--create [--mode MODE] [--window DURATION]\n"
"                      [--rotate-every N]] [-q] NAME FILE\n"
"\n"
"Restores an image written by kbloomctl save (FILE, or stdin when FILE is\n"
"-) into the filter NAME, replacing its bits and counters.  The module\n"
"checks the whole image first: a damaged or foreign file leaves the\n"
"filter unchanged.  The filter must have the image's type, size, k and\n"
"seed (and for a window, generations).  The image does not carry the\n"
"delete counters, which restart at 0.  A window filter gets the image's\n"
"generations, current one, rotations and time since the last rotation,\n"
"and keeps its own rotation schedule.  A scalable filter's image (version\n"
"4) loads only into a scalable filter of the same --capacity, --fp,\n"
"--expansion, type and --seed, which takes the image's sub-filters:\n"
"it grows to as many first (failing as add does, at the module's byte\n"
"caps or out of memory, keys unchanged) or frees those past them; a\n"
"version 3 image loads only into a filter of fixed size.  Images of\n"
"kbloom 0.1 (versions 1 and 2) placed cells differently and are refused.\n"
"Needs write access.\n"
"\n"
"Options:\n"
"  -c, --create      create NAME from the image's type and geometry (for a\n"
"                    scalable filter's, its capacity, rate, expansion and\n"
"                    seed) if it does not exist (needs access to\n"
"                    /dev/kbloom-control);\n"
"                    a NAME that exists must be yours (its node's owner)\n"
"  -m, --mode MODE   node mode for --create (default 0600)\n"
"  -w, --window DURATION, -r, --rotate-every N\n"
"                    the rotation schedule of a window filter made by\n"
"                    --create (the image holds none; without them it\n"
"                    rotates only by kbloomctl rotate); see: kbloomctl help\n"
"                    create.  --generations G, if given, must be the\n"
"                    image's\n"
"  -q, --quiet       print nothing on success\n"
"\n"
"Example (after a reboot):\n"
"  kbloomctl load --create users /var/lib/kbloom/users.kbloom\n",
};
