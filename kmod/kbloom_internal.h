/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the device side of kbloom shares between its files: the filter
 * object behind each /dev/kbloom/<name>, the per-open-file state and the
 * module-wide limits.
 *
 * The driver stands on the filter core (core/, which knows nothing of
 * it) in five layers.  A file calls only into the layers below its own
 * and into the files of its layer listed before it; a lower file reaches
 * a higher one only through a callback named for it (the growth worker a
 * scalable filter's init sets up, the file operations and sysfs groups
 * the filter object's device is given).  scripts/kmod-layers checks it.
 *   registry:    kbloom_registry.c (names, lookups by id, the caps)
 *   parts:       kbloom_mmap.c kbloom_window.c kbloom_scalable.c
 *                kbloom_stats_cache.c (what a filter object is made of:
 *                its mapping, rotations, chain and statistics walks)
 *   object:      kbloom_dev.c (a filter's device, parts and lifetime)
 *   operations:  kbloom_scalable_ops.c kbloom_batch.c kbloom_image_io.c
 *                (what runs on a filter: batches, images, growth)
 *   entry:       kbloom_sysfs.c kbloom_control.c kbloom_fops.c
 *                kbloom_kapi.c kbloom_bpf.c kbloom_main.c (sysfs, the
 *                control node, a filter's node, the in-kernel API, the
 *                kfuncs, module init)
 */
#ifndef KBLOOM_INTERNAL_H
#define KBLOOM_INTERNAL_H

#include <linux/atomic.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

#include "core/kbloom_chain.h"
#include "kbloom_compat.h"
#include "core/kbloom_core.h"

enum kbloom_batch_op {
	KBLOOM_BATCH_ADD,
	KBLOOM_BATCH_CHECK,
	KBLOOM_BATCH_DELETE,
};

#define KBLOOM_BATCH_OPS	(KBLOOM_BATCH_DELETE + 1)

/* REPORT sums of one uid (kbloom_fops.c); 8 uids fit a sysfs line each. */
#define KBLOOM_REPORTERS	8

struct kbloom_reporter {
	kuid_t uid;
	u64 fp;
	u64 tp;
	u64 tn;
};

/* What may change the cells, as kbloom_stats_cache.c explains. */
struct kbloom_stats_key {
	u64 add_new;
	u64 delete_hits;
	u64 sequence;
	u64 merges;
	u64 rotations;
	u64 subfilters;		/* a scalable filter's, after a growth */
};

/*
 * A window filter's rotations (kbloom_window.c).  Everything here but the
 * works is set at create and changes only under rotate_lock.
 */
struct kbloom_window_state {
	/*
	 * Serialises rotations of the filter and what must see one whole
	 * (GET_WINDOW, an image read's steps, a load, a merge or intersect
	 * reading this filter).  Taken before kd->lock, never after it.
	 */
	struct mutex rotate_lock;
	struct delayed_work timer;	/* rotation by time */
	struct work_struct count_work;	/* rotation by count (win.due) */
	u64 rotate_ms;			/* 0: no timer */
	u64 rotate_every;		/* 0: no count */
	u64 last;			/* jiffies of the last rotation */
	/*
	 * Rotations completed, stored after kbloom_window_rotate() returns
	 * (so after its store to live): the statistics cache's key.
	 */
	u64 done;
	bool stopping;			/* destroyed: never rotate or arm */
};

/*
 * A scalable filter (created with an expansion: "Scalable filters" in the
 * uapi header), the core's chain of sub-filters (kbloom_chain.h) and its
 * growth (kbloom_scalable.c).  One name at each layer: "scalable" for the
 * filter, as the uapi says it; "chain" only for the core's sequence of
 * sub-filters inside it.  The chain's readers and adders run as the
 * core's do: the ioctls under kd->lock shared, the in-kernel API and BPF
 * under rcu_read_lock(), so that CLEAR (kd->lock exclusive) frees the
 * sub-filters it drops only after synchronize_rcu() and after any
 * statistics walk of them.
 */
struct kbloom_scalable {
	struct kbloom_chain chain;
	/*
	 * One growth at a time, taken under kd->lock shared (a MERGE, which
	 * grows under kd->lock exclusive, takes it too); guards grow_err's
	 * writes and kd->bytes.
	 */
	struct mutex grow_lock;
	/* Growth asked for by an add that may not sleep. */
	struct work_struct grow_work;
	/* The last growth's error, 0 once one succeeded. */
	int grow_err;
	/*
	 * After a failed growth, adds that may not sleep ask for none
	 * before grow_next (jiffies), grow_backoff after the failure, which
	 * doubles with each failure in a row; none at all once grow_ended
	 * (the schedule's end: no growth can succeed until a CLEAR or a
	 * load takes sub-filters away).  Written under grow_lock, or with
	 * kd->lock held exclusive, which keeps growers out.
	 */
	unsigned long grow_next;
	unsigned long grow_backoff;
	bool grow_ended;
	/* Growths tried that failed, from ADD or the worker (sysfs). */
	atomic64_t grow_failures;
	/* The creator's memory cgroup: the worker's growths are its. */
	struct mem_cgroup *memcg;
	struct kbloom_dev *kd;
	/*
	 * The last walk's cells of each sub-filter, under stats_cache.lock;
	 * allocated at the first walk (KBLOOM_SUBFILTERS_MAX of them).
	 */
	struct kbloom_cell_stats *cells;
	u32 walked;		/* sub-filters in that walk */
};

/* The last walk of a filter's cells and the key it was taken at. */
struct kbloom_stats_cache {
	struct mutex lock;	/* one walk at a time; guards the rest */
	u64 merges;		/* merges into the filter; under kd->lock */
	bool valid;
	struct kbloom_stats_key key;
	struct kbloom_cell_stats cells;
	/* A window's generations (allocated at first use), and their key. */
	bool gens_valid;
	struct kbloom_stats_key gens_key;
	struct kbloom_generation *gens;
};

/*
 * One named filter.  Its lifetime is the embedded device's reference count:
 * the registry holds one reference until destroy, every open file holds one
 * until its release, so does every in-kernel or BPF user (kbloom_kapi.c),
 * and the device release frees the bits.
 */
struct kbloom_dev {
	struct kbloom_filter filter;	/* first: the API's handle points here */
	/*
	 * Shared: add, check, delete, image read, stats.  Exclusive: clear,
	 * merge, intersect, image load, destroy.  The core's checks take no
	 * lock and its writers only a stripe's spinlock, per key; the
	 * shared side only keeps them out of the operations that rewrite
	 * every word.  Never held across a user copy, so a faulting user
	 * buffer cannot stall destroy.
	 */
	struct rw_semaphore lock;
	bool dead;		/* destroyed; set with lock held exclusive */
	/*
	 * The first page of every mapping (kbloom_mmap.c).  Its sequence is
	 * also the filter's generation: it moves on with every op that may
	 * clear cells of keys still present (clear, intersect, load), which
	 * ends an image read in progress; a delete only takes out its own
	 * key.
	 */
	struct kbloom_map_header *map;
	/* a scalable filter's table of sub-filters, after the header page */
	struct kbloom_map_subfilter *map_subs;
	atomic_t mappings;	/* mapped areas (vmas) of this filter */
	struct kbloom_stats_cache stats_cache;
	struct kbloom_window_state win;	/* KBLOOM_TYPE_WINDOW only */
	/*
	 * Scalable filters only, else NULL.  Their filter above holds no
	 * cells: its geometry describes the whole filter (sub-filter 0's
	 * blocks, k and seed, the capacity and rate asked for) and its
	 * counts are the whole filter's.
	 */
	struct kbloom_scalable *scalable;

	spinlock_t report_lock;	/* the sums below and reporters[] */
	u64 reported_fp;
	u64 reported_tp;
	u64 reported_tn;
	/*
	 * The same sums per reporting fsuid, so that an operator can see who
	 * moved observed_fp_ppb (sysfs "reporters"): the first
	 * KBLOOM_REPORTERS uids, in order of their first report, then one
	 * entry for every later uid together.
	 */
	struct kbloom_reporter reporters[KBLOOM_REPORTERS + 1];
	unsigned int nr_reporters;

	/*
	 * Batch ioctls completed, per enum kbloom_batch_op: the evidence that
	 * callers send many keys per system call, independent of any tool's
	 * own count.
	 */
	atomic64_t batch_ioctls[KBLOOM_BATCH_OPS];

	u64 bytes;		/* its cells' (info "bytes"); grows */
	/*
	 * All the memory it holds, its cells and the rest (kbloom_dev_held()):
	 * what the caps count, charged to kbloom_total_bytes.  Grows with
	 * the sub-filters; written under a scalable filter's grow_lock or
	 * kd->lock exclusive.
	 */
	u64 held;
	u32 id;			/* in kbloom_ids while published; sysfs "id" */
	char name[KBLOOM_NAME_MAX];
	kuid_t uid;
	kgid_t gid;
	umode_t mode;

	struct list_head registry_node;	/* under the registry's lock */
	/* Being destroyed: its name stays taken; under the registry's lock. */
	bool dying;
	struct cdev cdev;
	struct device dev;
	/*
	 * A put that would be the last where freeing may not sleep goes to
	 * put_irq (which NMI may queue), and from it to put_work.
	 */
	struct irq_work put_irq;
	struct work_struct put_work;
	/* Lookups by id or name run under RCU: the struct outlives them. */
	struct rcu_head rcu;
};

static inline struct kbloom_dev *to_kbloom_dev(struct device *dev)
{
	return container_of(dev, struct kbloom_dev, dev);
}

/* Bytes of keys copied from userspace per step of a batch. */
#define KBLOOM_CHUNK_BYTES	(64 * 1024)
/* Keys (lengths, answers) handled per step of a batch; a multiple of 64. */
#define KBLOOM_CHUNK_KEYS	1024

struct kbloom_batch_buf;

/* One open file of a filter node. */
struct kbloom_file {
	struct kbloom_dev *kd;

	/* A batch buffer kept between calls; borrowed with trylock. */
	struct mutex batch_lock;
	struct kbloom_batch_buf *batch_buf;

	/* Serialises read() and write() on this open file. */
	struct mutex io_lock;
	void *io_buf;		/* bounce buffer of read() */
	bool reading;		/* the cursor holds a stream */
	u64 read_generation;
	u64 read_rotations;	/* a window's, at the stream's start */
	struct kbloom_image_cursor cursor;

	/* The header, its window part and (version 4) its chain part. */
	union {
		struct kbloom_image_header hdr;
		u8 bytes[sizeof(struct kbloom_image_header) +
			 sizeof(struct kbloom_image_window) +
			 sizeof(struct kbloom_image_chain)];
	} write_header;
	size_t write_bytes;	/* its whole length, once its header passed */
	void *staging;		/* the image, once its header passed */
	size_t staged;		/* bytes of image received */
};

/* Module parameters (kbloom_main.c), writable at run time. */
extern unsigned long long kbloom_max_filter_bytes;
extern unsigned long long kbloom_max_total_bytes;
extern unsigned int kbloom_max_filters;

/* kbloom_registry.c: the names, the lookups and the caps. */
extern atomic64_t kbloom_total_bytes;
extern atomic_t kbloom_nr_filters;
bool kbloom_name_valid(const char *name);
/*
 * A counted reference to a live, published filter, or NULL; from any
 * context but NMI (RCU and a reference count, no lock).  Dropped with
 * put_device(&kd->dev).
 */
struct kbloom_dev *kbloom_dev_get_id(u32 id);
struct kbloom_dev *kbloom_dev_get_name(const char *name);
/* The lock every create and destroy takes, and what is done under it. */
void kbloom_registry_lock(void);
void kbloom_registry_unlock(void);
struct kbloom_dev *kbloom_registry_find(const char *name);
int kbloom_registry_add_id(struct kbloom_dev *kd);
void kbloom_registry_del_id(struct kbloom_dev *kd);
void kbloom_registry_add(struct kbloom_dev *kd);
void kbloom_registry_hide(struct kbloom_dev *kd);
struct kbloom_dev *kbloom_registry_first(void);
/* Takes the lock itself. */
void kbloom_registry_del(struct kbloom_dev *kd);
/* Room for bytes more under max_total_bytes, which may have been lowered. */
bool kbloom_total_allows(u64 bytes);
/* An image buffer's bytes against max_total_bytes: 0 or -E2BIG. */
int kbloom_buffer_charge(u64 bytes);
void kbloom_buffer_uncharge(u64 bytes);
/* A growing filter's bytes more against max_total_bytes: 0 or -E2BIG. */
int kbloom_total_charge(u64 bytes);

/* kbloom_control.c: the control node, creating and destroying filters. */
int kbloom_create(const struct kbloom_create *req, kuid_t uid, kgid_t gid);
int kbloom_destroy(const char *name);
void kbloom_destroy_all(void);
int kbloom_control_register(void);
void kbloom_control_deregister(void);

/* kbloom_dev.c: the filter object behind each node. */
int kbloom_dev_setup(void);
/* Also waits for the frees that a last put left to a work item. */
void kbloom_dev_teardown(void);
/*
 * The memory a filter of geometry geo created by req holds from the
 * create, counted as kbloom_filter_held() counts it; a scalable filter's
 * growths add kbloom_chain_sub_held() each.
 */
u64 kbloom_dev_held(const struct kbloom_geometry *geo,
		    const struct kbloom_create *req);
struct kbloom_dev *kbloom_dev_alloc(const char *name,
				    const struct kbloom_geometry *geo,
				    const struct kbloom_create *req,
				    umode_t mode, kuid_t uid, kgid_t gid);
int kbloom_dev_add(struct kbloom_dev *kd);
void kbloom_dev_remove(struct kbloom_dev *kd);
/*
 * Drops a reference that kbloom_dev_get_id() or _name() took, from any
 * context, NMI included; where the last put may not free, a work item
 * does.
 */
void kbloom_dev_put(struct kbloom_dev *kd);
/*
 * GET_INFO's fields, or -ENODEV for a destroyed filter (-EINTR: killed
 * while waiting for another reader's walk).  Without cells, the ones that
 * need a walk of the cells (bits_set, est_keys, fill_ppb, fp_now_ppb,
 * saturated) are left 0 and nothing is walked.  Takes kd->lock shared
 * only after any walk.
 */
int kbloom_dev_fill_info(struct kbloom_dev *kd, struct kbloom_info *info,
			 bool cells);
void kbloom_dev_reset_reports(struct kbloom_dev *kd);
/* Takes kd->lock shared and fails with -ENODEV once the filter is dead. */
int kbloom_dev_lock_live(struct kbloom_dev *kd);

/* kbloom_fops.c: open, release and the ioctls of a filter's node. */
extern const struct file_operations kbloom_dev_fops;

/* kbloom_batch.c: ADD, CHECK and DELETE. */

long kbloom_batch_ioctl(struct kbloom_file *kf,
			struct kbloom_batch __user *ubatch,
			enum kbloom_batch_op op);
void kbloom_batch_buf_free(struct kbloom_batch_buf *buf);

/* kbloom_image_io.c: read() and write() of images. */
ssize_t kbloom_image_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos);
ssize_t kbloom_image_write(struct file *file, const char __user *buf,
			   size_t count, loff_t *ppos);
int kbloom_image_flush(struct file *file, fl_owner_t id);
loff_t kbloom_image_llseek(struct file *file, loff_t offset, int whence);
void kbloom_image_release(struct kbloom_file *kf);

/* kbloom_mmap.c: the read-only mapping and its header page. */
int kbloom_map_init(struct kbloom_dev *kd);
/* What init allocates for a filter of subs sub-filters at most (0: fixed). */
u64 kbloom_map_held(u32 subs);
void kbloom_map_free(struct kbloom_dev *kd);
void kbloom_map_rewrite_begin(struct kbloom_dev *kd);
void kbloom_map_rewrite_end(struct kbloom_dev *kd);
u64 kbloom_map_sequence(const struct kbloom_dev *kd);
void kbloom_map_mark_dead(struct kbloom_dev *kd);
void kbloom_map_sub_added(struct kbloom_dev *kd, u32 index);
void kbloom_map_truncate(struct kbloom_dev *kd, u32 n);
int kbloom_dev_mmap(struct file *file, struct vm_area_struct *vma);

/*
 * kbloom_window.c: rotations of window filters.  setup and teardown make
 * and drain the module's workqueue of rotations.  init takes the settings
 * of a create the control node accepted; start arms the timer once the
 * filter is published; stop, at destroy and again at the last put, waits
 * for any rotation running and leaves none pending and none to come.
 * rotate is KBLOOM_IOC_ROTATE's and the works': -ENODEV once destroyed.
 * loaded, after an image load under rotate_lock and kd->lock, re-arms
 * the timer from the image's time since its last rotation.  The lock
 * helpers take rotate_lock of a window (nothing for other types).
 */
int kbloom_window_setup(void);
void kbloom_window_teardown(void);
void kbloom_window_init(struct kbloom_dev *kd, const struct kbloom_create *req);
void kbloom_window_start(struct kbloom_dev *kd);
void kbloom_window_stop(struct kbloom_dev *kd);
int kbloom_window_rotate_now(struct kbloom_dev *kd);
/*
 * Rotation by count from an ADD ioctl: room is how many keys the current
 * generation takes before it is full (U64_MAX: no count rotation; any
 * type); rotate_full rotates it if it still is, from process context
 * without the filter's locks.
 */
u64 kbloom_window_room(struct kbloom_dev *kd);
int kbloom_window_rotate_full(struct kbloom_dev *kd);
void kbloom_window_loaded(struct kbloom_dev *kd, u64 elapsed_ms);
u64 kbloom_window_elapsed_ms(struct kbloom_dev *kd);
u64 kbloom_window_next_ms(struct kbloom_dev *kd);
bool kbloom_is_window(const struct kbloom_dev *kd);
int kbloom_window_lock(struct kbloom_dev *kd);
void kbloom_window_unlock(struct kbloom_dev *kd);
/*
 * GET_WINDOW's fields but gen[], which the caller filled with
 * kbloom_stats_cache_generations_lock() and whose locks it holds.
 */
void kbloom_window_fill_info(struct kbloom_dev *kd,
			     struct kbloom_window_info *info);

/* kbloom_stats_cache.c: one walk of the cells shared by their readers. */
void kbloom_stats_cache_init(struct kbloom_stats_cache *c);
/* What the cache allocates at its first walk of a filter of geometry geo. */
u64 kbloom_stats_cache_held(const struct kbloom_geometry *geo);
void kbloom_stats_cache_free(struct kbloom_stats_cache *c);
void kbloom_stats_cache_merged(struct kbloom_dev *kd);
/* Holding no lock of kd's; 0, -ENODEV (destroyed) or -EINTR. */
int kbloom_stats_cache_get(struct kbloom_dev *kd, struct kbloom_counts *counts,
			   struct kbloom_cell_stats *cells);
/*
 * As kbloom_stats_cache_get(), returning 0 holding kd->lock shared, the
 * filter live and no clear, intersect or load since the walk began, so
 * that its cells are of the sub-filters the filter has; or -ENODEV,
 * -EINTR, holding no lock.
 */
int kbloom_stats_cache_get_lock(struct kbloom_dev *kd,
				struct kbloom_counts *counts,
				struct kbloom_cell_stats *cells);
/*
 * A window's generations, newest first, into gen[0 .. g - 1]: with cells,
 * what a walk of them gives (the last walk's while they have not
 * changed), walked holding no lock of kd's; always their add_calls.
 * Returns 0 holding rotate_lock (kbloom_window_lock()) and kd->lock
 * shared, with the filter live and the generations those of its current
 * rotation, so that the caller reads the rest of the window's state from
 * the same one; or -ENODEV, -EINTR, holding neither.
 */
int kbloom_stats_cache_generations_lock(struct kbloom_dev *kd,
					struct kbloom_generation *gen,
					bool cells);
/* Only their add_calls, under rotate_lock: no walk. */
void kbloom_stats_cache_add_calls(struct kbloom_dev *kd,
				  struct kbloom_generation *gen);

/*
 * Whether a PREEMPT_RT kernel lets this context take a spinlock_t, and so
 * call the allocator: there spinlock_t is an rt_mutex that may sleep, and
 * rtlock_might_resched() (kernel/locking/spinlock_rt.c) wants no preempt
 * count, interrupts on and not the idle task.  An RCU read-side section,
 * another spinlock_t held or bottom halves off (softirq context is a task
 * there) leave those alone, so they are allowed.  Hard interrupts and
 * NMIs count in preempt_count() on PREEMPT_RT too, so they are not.
 * Meaningless elsewhere: a non-RT spinlock_t only spins.
 */
static inline bool kbloom_rt_may_block(void)
{
	return preemptible() && !is_idle_task(current);
}

/*
 * kbloom_kapi.c: what the exported API and the kfuncs share.  get_name
 * takes a name of up to size bytes, ended by a NUL or by size; it returns
 * a device reference (no module reference) or ERR_PTR(-EINVAL / -ENOENT).
 * check and add answer as kbloom_filter_check() and _add().
 */
struct kbloom_dev *kbloom_kapi_get_name(const char *name, size_t size);
int kbloom_kapi_check(struct kbloom_filter *f, const void *key, u32 len);
int kbloom_kapi_add(struct kbloom_filter *f, const void *key, u32 len);

/* kbloom_bpf.c: registers the kfuncs, or says why there are none. */
void kbloom_bpf_register(void);

/*
 * kbloom_scalable.c: a scalable filter's state.  init builds the chain of
 * a create the control node accepted (req->expansion set) and describes
 * it in kd->filter; free, at the last put, frees it.  stop_walks, at
 * destroy under kd->lock exclusive, ends walks of every sub-filter.
 * truncate (kd->lock exclusive) cuts the chain to its first subs
 * sub-filters and returns the rest, for retire once the lock is dropped.
 * scan walks the sub-filters' cells for the statistics cache (under its
 * lock) into one total, and key gives that walk's key.
 */
int kbloom_scalable_init(struct kbloom_dev *kd, const struct kbloom_create *req,
			 const struct kbloom_geometry *geo);
void kbloom_scalable_free(struct kbloom_dev *kd);
/*
 * What init allocates, with sub-filter 0 and the mapping
 * (kbloom_dev_held()).
 */
u64 kbloom_scalable_held(const struct kbloom_create *req,
			 const struct kbloom_geometry *geo);
void kbloom_scalable_stop_walks(struct kbloom_dev *kd);
struct kbloom_chain_sub *kbloom_scalable_truncate(struct kbloom_dev *kd,
						  u32 subs);
void kbloom_scalable_retire(struct kbloom_dev *kd,
			    struct kbloom_chain_sub *list);
u64 kbloom_scalable_subfilters(const struct kbloom_dev *kd);
u64 kbloom_scalable_grow_failures(const struct kbloom_dev *kd);
/* All the filter's blocks, a scalable one's sub-filters' too; no lock. */
u64 kbloom_scalable_nblocks(const struct kbloom_dev *kd);
void kbloom_scalable_key(struct kbloom_dev *kd, struct kbloom_stats_key *key);
void kbloom_scalable_scan(struct kbloom_dev *kd, struct kbloom_cell_stats *cs);
void kbloom_scalable_fill_info(struct kbloom_dev *kd, struct kbloom_info *info,
			       bool cells);

/*
 * kbloom_scalable_ops.c: what runs on a scalable filter.  The batch ops
 * run keys [0, n) under kd->lock shared: add grows the filter when it
 * must (process context) and returns the keys done before an error, with
 * *err set; check and delete do them all.  kapi_check and kapi_add are
 * the in-kernel API's and the kfuncs' (any context the core allows;
 * never allocates: -EAGAIN and a queued growth, which grow_work, set up by
 * init, carries out).  clear is KBLOOM_IOC_CLEAR's, under nothing; merge
 * runs under both filters' locks (this one exclusive).  get_subfilter is
 * KBLOOM_IOC_GET_SUBFILTER.
 */
int kbloom_scalable_setup(void);
void kbloom_scalable_teardown(void);
void kbloom_scalable_grow_work(struct work_struct *work);
u32 kbloom_scalable_add(struct kbloom_dev *kd, const struct kbloom_key *keys,
			u32 n, unsigned long *answers, u32 *hits, int *err);
u32 kbloom_scalable_check(struct kbloom_dev *kd, const struct kbloom_key *keys,
			  u32 n, unsigned long *answers);
u32 kbloom_scalable_delete(struct kbloom_dev *kd, const struct kbloom_key *keys,
			   u32 n, unsigned long *answers);
int kbloom_scalable_kapi_check(struct kbloom_dev *kd, const void *key, u32 len);
int kbloom_scalable_kapi_check_keys(struct kbloom_dev *kd,
				    const struct kbloom_key *keys, u32 n,
				    unsigned long *answers);
int kbloom_scalable_kapi_add(struct kbloom_dev *kd, const void *key, u32 len);
int kbloom_scalable_clear(struct kbloom_dev *kd);
int kbloom_scalable_load(struct kbloom_dev *kd, const void *img, u32 subs,
			 struct kbloom_chain_sub **retired);
int kbloom_scalable_merge(struct kbloom_dev *kd, struct kbloom_dev *other);
long kbloom_scalable_get_subfilter(struct kbloom_dev *kd, void __user *uarg);

/* kbloom_sysfs.c: attributes of each filter and of the class. */
extern const struct attribute_group *kbloom_dev_groups[];
extern const struct attribute_group *kbloom_report_groups[];
extern const struct attribute_group *kbloom_class_groups[];
bool kbloom_name_reserved(const char *name);

#endif /* KBLOOM_INTERNAL_H */
