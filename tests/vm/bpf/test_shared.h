/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF objects of tests/vm/bpf/ and the programs that load them
 * (tests/vm/test-bpf.c, tests/vm/bench-bpf.c) agree on: the test packet's
 * layout, the verdicts, the contexts of the SYSCALL programs and each
 * object's globals.  Each object keeps all of its globals in one struct,
 * its only .bss variable, so that the loader finds every field at the
 * struct's offset in the mapped .bss (it checks the sizes match).
 */
#ifndef KBLOOM_TEST_BPF_SHARED_H
#define KBLOOM_TEST_BPF_SHARED_H

#include <linux/types.h>

/*
 * The packet: Ethernet (14 bytes), then an IPv6 header (40) whose source
 * address (16 bytes at 8 into it) is the key, as a blocklist of addresses
 * would use it.
 */
#define KBT_KEY_BYTES		16
#define KBT_PKT_KEY_OFF		(14 + 8)
#define KBT_PKT_BYTES		(14 + 40)
#define KBT_NAME_BYTES		32

/*
 * Verdicts.  XDP: DROP for a key that may be present, PASS for an absent
 * one (and for a packet too short to hold a key), ABORTED when acquire
 * found no filter or check returned an error.  tc the same with SHOT, OK
 * and UNSPEC.
 */

/* test.bpf.c */
#define KBT_ADD_MAX		1024
#define KBT_HOLD_CHECKS		8192	/* tc_hold's checks per acquire */

struct kbt_globals {
	__u32 filter_id;	/* what the *_by_id programs acquire */
	__u32 key_len;		/* *_var_len's key size, 1..KBT_KEY_BYTES */
	char filter_name[KBT_NAME_BYTES];	/* the *_by_name programs' */
	/* Counted by the programs (atomically: test_run may run on any CPU) */
	__u64 nulls;		/* acquire gave NULL */
	__u64 errors;		/* check or add returned < 0 */
	__u64 enodev;		/* ... of which -ENODEV */
	__s64 last_error;
	__u64 checks;		/* check calls made */
	__u64 added_new;	/* tc_learn: adds that set a new bit */
	__u32 holding;		/* tc_hold is between acquire and release */
	__u32 pad;
	/* The SYSCALL program's keys and its answer for each */
	__u8 add_keys[KBT_ADD_MAX][KBT_KEY_BYTES];
	__s32 add_ret[KBT_ADD_MAX];
};

/* syscall_add's context: add keys [0, n) of add_keys to filter id. */
struct kbt_add_ctx {
	__u32 id;
	__u32 n;
	__u32 new_bits;		/* out: adds that returned 1 */
	__s32 error;		/* out: first negative return, or 0 */
};

/* reject.bpf.c */
struct kbt_reject_globals {
	__u32 filter_id;
	__u32 len;		/* a size the verifier knows nothing of */
};

/* types.bpf.c: what each program saw in its one run */
struct kbt_types_globals {
	__u32 filter_id;
	__s32 check;		/* out: bpf_kbloom_check of key */
	__s32 add;		/* out: bpf_kbloom_add of add_key */
	__u32 pad;
	__u64 runs;		/* out: probes that acquired the filter */
	__u64 nulls;		/* out: acquires that gave NULL */
	__u8 key[KBT_KEY_BYTES];
	__u8 add_key[KBT_KEY_BYTES];
};

/*
 * bench.bpf.c: KBB_RUN keys per test_run, from keys[first].  XDP programs,
 * not SYSCALL ones: those are sleepable, and sleepable programs may not
 * use a bloom filter map (6.1's verifier: "Sleepable programs can only
 * use array, hash, and ringbuf maps").
 *
 * Each CPU has its own window and answers (cpu[], a cache line each), so
 * that programs running on both CPUs at once share no written line; a
 * program on CPU c uses cpu[c % KBB_CPUS], so bench-bpf and test-bpf pin
 * the threads that run them.
 */
#define KBB_KEYS		65536	/* a power of two */
#define KBB_RUN			4096	/* keys per test_run */
#define KBB_CPUS		8	/* cpu[] slots, a power of two */
#define KBB_NO_FILTER		(-2)	/* error: acquire found no filter */

struct kbb_cpu {
	__u32 first;		/* of the window, a multiple of KBB_RUN */
	__u32 hits;		/* out: keys found (may be present) */
	__s32 error;		/* out: a negative return, or 0 */
	__u32 pad;
	__u64 acquires;		/* out, counted up: hot_kptr's acquires */
	__u64 drops;		/* out, counted up: references it dropped */
	__u64 pad2[4];
} __attribute__((aligned(64)));

struct kbb_globals {
	__u32 filter_id;
	__u32 pad[15];
	struct kbb_cpu cpu[KBB_CPUS];
	__u8 keys[KBB_KEYS][KBT_KEY_BYTES];
};

#endif /* KBLOOM_TEST_BPF_SHARED_H */
