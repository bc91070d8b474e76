/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace side of the BPF tests (tests/vm/test-bpf.c, the fuzzer's
 * fuzz/kernel.c, torture.c) and bench (tests/vm/bench-bpf.c): the
 * embedded objects (bpf/objects.S), loading bpf/test.bpf.o, libbpf's
 * messages kept for failure reports, what the machine lacks for kfuncs,
 * the globals of a loaded object, the test keys and packets.
 */
#ifndef KBLOOM_TEST_BPF_LOADER_H
#define KBLOOM_TEST_BPF_LOADER_H

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "test_shared.h"

#define KB_BTF_VMLINUX	"/sys/kernel/btf/vmlinux"
#define KB_BTF_KBLOOM	"/sys/kernel/btf/kbloom"

#define KB_OBJECT(name)							\
	extern const char kbloom_bpf_##name[], kbloom_bpf_##name##_end[]
KB_OBJECT(test);
KB_OBJECT(reject);
KB_OBJECT(types);
KB_OBJECT(bench);

/* The end of what libbpf said last, for the reason of a failure. */
static char kb_libbpf_said[2048];

static int kb_libbpf_print(enum libbpf_print_level level, const char *fmt,
			   va_list ap)
{
	/* A verifier log comes as one message, its reason at the end. */
	static char line[65536];
	size_t have = strlen(kb_libbpf_said), room;
	const char *tail = line;
	int n;

	if (level == LIBBPF_DEBUG)
		return 0;
	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n <= 0)
		return n;
	n = strlen(line);
	room = sizeof(kb_libbpf_said) - 1;
	if ((size_t)n > room) {
		tail = line + n - room;
		n = room;
	}
	if (have + n > room) {
		/* Keep the newest: drop from the front. */
		size_t drop = have + n - room;

		memmove(kb_libbpf_said, kb_libbpf_said + drop, have - drop + 1);
		have -= drop;
	}
	memcpy(kb_libbpf_said + have, tail, n);
	kb_libbpf_said[have + n] = 0;
	return n;
}

/* libbpf's last words on one line, for a FAIL message. */
static inline const char *kb_libbpf_last(void)
{
	static char flat[256];
	size_t len = strlen(kb_libbpf_said), i, from;

	while (len && kb_libbpf_said[len - 1] == '\n')
		len--;
	from = len > sizeof(flat) - 1 ? len - (sizeof(flat) - 1) : 0;
	for (i = from; i < len; i++)
		flat[i - from] = kb_libbpf_said[i] == '\n' ? '|'
							  : kb_libbpf_said[i];
	flat[len - from] = 0;
	return len ? flat : "(libbpf said nothing)";
}

static inline void kb_libbpf_init(void)
{
	libbpf_set_print(kb_libbpf_print);
}

/*
 * NULL when kfuncs of kbloom can work here, else why not: the kernel has
 * no BTF at all, or the module was built without it (then it registered
 * no kfunc; its load log says so).
 */
static inline const char *kb_btf_missing(void)
{
	if (access(KB_BTF_VMLINUX, R_OK))
		return "the kernel has no BTF (no " KB_BTF_VMLINUX
		       "): no kfuncs at all";
	if (access(KB_BTF_KBLOOM, R_OK))
		return "kbloom.ko was built without BTF (no " KB_BTF_KBLOOM
		       "), so it registered no kfuncs; build it against a "
		       "kernel tree with vmlinux and resolve_btfids "
		       "(scripts/kdir)";
	return NULL;
}

/* Opens an embedded object (not yet loaded); NULL with errno set. */
static inline struct bpf_object *kb_open(const char *name, const char *start,
					 const char *end)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = name);
	struct bpf_object *obj;

	obj = bpf_object__open_mem(start, end - start, &opts);
	if (!obj && !errno)
		errno = EINVAL;
	return obj;
}

#define KB_OPEN(name) kb_open(#name, kbloom_bpf_##name, kbloom_bpf_##name##_end)

/*
 * The object's .bss after load, mapped from the map itself (libbpf remaps
 * its own copy only for skeletons): the one struct of size bytes each
 * object keeps its globals in (test_shared.h).  NULL with errno set if it
 * cannot be mapped or the layout differs from what this program was
 * compiled with (EPROTO).
 */
static inline void *kb_globals(struct bpf_object *obj, size_t size)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, ".bss");
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	if (!map || bpf_map__fd(map) < 0) {
		errno = ENOENT;
		return NULL;
	}
	if (bpf_map__value_size(map) != size) {
		errno = EPROTO;
		return NULL;
	}
	p = mmap(NULL, (size + page - 1) / page * page,
		 PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);
	return p == MAP_FAILED ? NULL : p;
}

/*
 * The embedded bpf/test.bpf.o opened and loaded into *objp: only the
 * programs that progs names (NULL-terminated; progs NULL: the default
 * ones), its globals mapped into *g when g is given.  0, or the errno
 * (EPROTO: .bss is not struct kbt_globals), with kb_libbpf_last() saying
 * more; nothing stays open then.
 */
static inline int kb_load_test(struct bpf_object **objp,
			       struct kbt_globals **g,
			       const char *const *progs)
{
	struct bpf_program *prog;
	struct bpf_object *obj;
	int err, i;

	kb_libbpf_said[0] = 0;
	obj = KB_OPEN(test);
	if (!obj)
		return errno;
	bpf_object__for_each_program(prog, obj) {
		for (i = 0; progs && progs[i]; i++)
			if (!strcmp(bpf_program__name(prog), progs[i]))
				break;
		if (progs)
			bpf_program__set_autoload(prog, !!progs[i]);
	}
	err = -bpf_object__load(obj);
	if (!err && g) {
		*g = kb_globals(obj, sizeof(**g));
		if (!*g)
			err = errno ? errno : EINVAL;
	}
	if (err) {
		bpf_object__close(obj);
		return err;
	}
	*objp = obj;
	return 0;
}

/*
 * bench.bpf.c's map "slots" made here, its value a struct kbb_slot whose
 * pointer to struct kbloom_filter carries the kptr tag tag; a map fd, or
 * -errno.  Made here because clang 14 (Debian 12's) keeps a btf_type_tag
 * in its debug info but leaves it out of the object's BTF, where the
 * kernel looks for it.
 */
static inline int kb_slot_map(const char *tag)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	struct btf *btf = btf__new_empty();
	int u32, filter, tagged, ptr, slot, fd = -EINVAL, err;

	if (!btf)
		return -errno;
	u32 = btf__add_int(btf, "unsigned int", 4, 0);
	filter = btf__add_struct(btf, "kbloom_filter", 0);
	tagged = btf__add_type_tag(btf, tag, filter);
	ptr = btf__add_ptr(btf, tagged);
	slot = btf__add_struct(btf, "kbb_slot", 8);
	err = slot < 0 ? slot : btf__add_field(btf, "f", ptr, 0, 0);
	if (!err && (u32 < 0 || filter < 0 || tagged < 0 || ptr < 0))
		err = -EINVAL;
	if (!err)
		err = btf__load_into_kernel(btf);
	if (!err) {
		opts.btf_fd = btf__fd(btf);
		opts.btf_key_type_id = u32;
		opts.btf_value_type_id = slot;
		fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "slots", 4, 8, 1,
				    &opts);
		err = fd < 0 ? -errno : 0;
	}
	btf__free(btf);
	return err ? err : fd;
}

/*
 * The embedded bench object (bpf/bench.bpf.c) loaded into *objp, its
 * "slots" made by kb_slot_map() with the kptr tag this kernel takes (in
 * *tag).  The tag is found by trying, not from the kernel's version:
 * "kptr", a referenced kptr since 6.3, then "kptr_ref", what 6.1 (to
 * 6.2) calls one.  A kernel that reads the tag otherwise still makes the
 * map (6.1 takes "kptr" for an unreferenced kptr, 6.12 drops an unknown
 * tag's field), and its verifier refuses hot_kptr's bpf_kptr_xchg(), so
 * the try is the whole load.  setup (may be NULL) runs on each opened
 * object before its load (to size the bloom map).  only (may be NULL)
 * names the one program to load: on the debug kernel (KASAN, under TCG)
 * the verifier took 10 to 15 s for all of them, on each of the five loads
 * of test-bpf's kptr cases (2026-12-03, 2-vCPU VM on an AMD EPYC host).
 * 0, or the errno of the last try, with kb_libbpf_last() saying more;
 * nothing stays open then.
 */
static inline int kb_load_bench(struct bpf_object **objp,
				int (*setup)(struct bpf_object *obj),
				const char **tag, const char *only)
{
	static const char *const tags[] = { "kptr", "kptr_ref" };
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_map *slots;
	int err = EINVAL, fd, i;

	kb_libbpf_said[0] = 0;
	for (i = 0; i < 2; i++) {
		obj = KB_OPEN(bench);
		if (!obj)
			return errno;
		if (only)
			bpf_object__for_each_program(prog, obj)
				bpf_program__set_autoload(prog,
					!strcmp(bpf_program__name(prog), only));
		slots = bpf_object__find_map_by_name(obj, "slots");
		fd = slots ? kb_slot_map(tags[i]) : -ENOENT;
		err = fd < 0 ? -fd : 0;
		if (!err) {
			/* The object takes its own copy of the fd. */
			err = -bpf_map__reuse_fd(slots, fd);
			close(fd);
		}
		if (!err && setup)
			err = -setup(obj);
		if (!err)
			err = -bpf_object__load(obj);
		if (!err) {
			*objp = obj;
			*tag = tags[i];
			return 0;
		}
		bpf_object__close(obj);
	}
	return err;
}

/* The object and its globals' mapping (g may be NULL) gone. */
static inline void kb_close_test(struct bpf_object *obj,
				 struct kbt_globals *g)
{
	long page = sysconf(_SC_PAGESIZE);

	if (g)
		munmap(g, (sizeof(*g) + page - 1) / page * page);
	bpf_object__close(obj);
}

static inline int kb_prog_fd(struct bpf_object *obj, const char *name)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, name);

	return prog ? bpf_program__fd(prog) : -ENOENT;
}

/* One test_run over data (XDP, tc); the program's return value or -errno. */
static inline long kb_run_pkt(int prog_fd, const void *data, uint32_t len,
			      uint32_t repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = data,
		    .data_size_in = len, .repeat = repeat);

	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -errno;
	return opts.retval;
}

/* One test_run of a SYSCALL program with ctx; its return value or -errno. */
static inline long kb_run_ctx(int prog_fd, void *ctx, uint32_t len)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = ctx,
		    .ctx_size_in = len);

	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -errno;
	return (int32_t)opts.retval;
}

/* Runs the calling thread on cpu alone (a program it runs, too). */
static inline int kb_pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static inline uint64_t kb_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Key i of a set: KBT_KEY_BYTES pseudo-random bytes from (set, i). */
static inline void kb_key(uint8_t *key, uint64_t set, uint64_t i)
{
	uint64_t w[2] = {
		kb_mix(set * 0x100000001b3ULL + 2 * i),
		kb_mix(set * 0x100000001b3ULL + 2 * i + 1),
	};

	memcpy(key, w, KBT_KEY_BYTES);
}

/* An IPv6 packet whose source address is key (test_shared.h's layout). */
static inline void kb_packet(uint8_t *pkt, const uint8_t *key)
{
	memset(pkt, 0, KBT_PKT_BYTES);
	memset(pkt, 0xff, 6);			/* destination MAC */
	pkt[6] = 0x02;				/* a local source MAC */
	pkt[12] = 0x86;				/* ETH_P_IPV6 */
	pkt[13] = 0xdd;
	pkt[14] = 0x60;				/* version 6 */
	pkt[14 + 6] = 59;			/* no next header */
	pkt[14 + 7] = 64;			/* hop limit */
	memcpy(pkt + KBT_PKT_KEY_OFF, key, KBT_KEY_BYTES);
	pkt[KBT_PKT_KEY_OFF + 16 + 15] = 1;	/* destination ::1 */
}

#endif /* KBLOOM_TEST_BPF_LOADER_H */
