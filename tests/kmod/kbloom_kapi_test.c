// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom_kapi_test: a module that uses kbloom's in-kernel API
 * (include/linux/kbloom_api.h) as a network hook or a filesystem would,
 * driven from a shell by tests/vm/test-kapi.sh.  It is built with
 * kbloom.ko and loaded only by that test.
 *
 * One command per write to /sys/module/kbloom_kapi_test/parameters/cmd;
 * the answer to the last one is read from .../result as key=value pairs.
 * A command that cannot be parsed fails the write with EINVAL and leaves
 * "error=..." in result, naming the problem; an API call that fails is a
 * command that worked: its errno is in result.
 *
 *   hold NAME, hold-id ID    kbloom_filter_get() / _get_id(); a reference
 *                            goes on a stack of KAPI_REFS: "ret=0 id=ID
 *                            refs=N", or "ret=-ERRNO refs=N"
 *   put                      put the newest reference, here
 *   put-softirq, put-hardirq the same from a tasklet, from an irq_work
 *   put-in CTX               the same in any CTX (below)
 *   release                  put every reference
 *   id                       kbloom_filter_id() of the newest reference
 *   check CTX START COUNT    kbloom_filter_check() of COUNT keys from
 *                            START on, key i being the decimal digits of i
 *                            (what seq(1) prints), or TAG-i after prefix
 *   add CTX START COUNT      kbloom_filter_add() of them, each followed by
 *                            a check of its key
 *   check-keys CTX START COUNT [BATCH]
 *   add-keys CTX START COUNT [BATCH]
 *                            the same through kbloom_filter_check_keys() /
 *                            _add_keys(), BATCH keys a call (4096)
 *   badkey LEN               each call with one key of LEN bytes, and the
 *                            batch calls with a good key and that one
 *   null                     each call with a NULL filter
 *   prefix [TAG]             key i of the later key ranges is TAG-i, the
 *                            keys tests/vm/stress.h's st_keys_fill()
 *                            makes, so that the fuzzer and the torture
 *                            check their own keys; without TAG, back to
 *                            the decimal digits.  TAG is at most
 *                            KAPI_PREFIX_MAX bytes: "ret=0 prefix=TAG"
 *   churn-start NAME         every timer tick, until churn-stop: get NAME,
 *                            check and add a key, put (softirq); and an
 *                            irq_work the same in hard interrupt context,
 *                            where the add must fail
 *   churn-stop               stop, and report what the calls returned;
 *                            bad: anything unexpected, of which lost: adds
 *                            whose key the check right after did not find
 *                            (only a CLEAR or an image load in between may
 *                            do that); full: adds a scalable filter had
 *                            no room for (EAGAIN until its worker grew it,
 *                            or the errno of a cap)
 *   adder-start NAME TAG [LIMIT]
 *                            a kernel thread adds keys TAG-0, TAG-1, ... to
 *                            NAME, as fast as it can until adder-stop (or,
 *                            with LIMIT, until it would pass LIMIT keys), in
 *                            batches of KAPI_ADDER_BATCH with bottom halves
 *                            off (where softirq adders run): one batch by
 *                            kbloom_filter_add() key by key, the next by
 *                            kbloom_filter_add_keys().  It publishes
 *                            started (the keys whose add may have begun)
 *                            before a batch and done (the keys whose add
 *                            returned) after it, so that a test racing
 *                            whole-filter writers has ground truth.  On a
 *                            scalable filter the batches go key by key
 *                            (add_keys refuses them), and a key that
 *                            finds it full waits for its growth
 *                            (EAGAIN), bottom halves on, counted in
 *                            waits.  The limit paces it: a test whose
 *                            filter must not grow without bound (the
 *                            torture's scalable one) raises it as its
 *                            run goes, with adder-limit
 *   adder-count              "ret=0 started=S done=D"
 *   adder-limit LIMIT        the adder goes on up to LIMIT keys (whole
 *                            batches: it stops at a multiple of
 *                            KAPI_ADDER_BATCH), then waits for a higher
 *                            one: "ret=0 started=S done=D" as adder-count
 *   nmi                      whether the nmi CTX works here: "ret=0
 *                            nmi=yes" or "nmi=no" (no NMI this module
 *                            sent itself at load arrived; then every
 *                            command in nmi fails with EOPNOTSUPP)
 *   adder-stop               stop and wait for the thread: "ret=0
 *                            started=S done=D bad=N bad_err=E waits=W",
 *                            bad counting adds that returned an error
 *
 * CTX is where the calls run: process, rcu (under rcu_read_lock()),
 * spinlock (with a spinlock_t held), bh (bottom halves disabled), softirq
 * (a tasklet), preempt (preempt_disable()), rawlock (a raw_spinlock_t
 * held), irqoff (interrupts disabled), hardirq (an irq_work) or nmi (an
 * NMI this CPU sends itself through its local APIC).  Keys go
 * in chunks of KAPI_CHUNK (or one batch), each entering CTX anew, so that
 * no atomic section grows with COUNT.  A key range reports:
 *   keys     keys done
 *   yes, no  answers 1 ("may be present", "set a new bit") and 0
 *   sum      sum of the numbers of the keys that answered 1
 *   errors   keys whose call returned an errno; err: the first errno
 *   missing  keys that the check right after their add did not find
 *   badret   batches whose return was not the number of result bits set
 *   ctx      ok, or wrong when a chunk ran elsewhere than in CTX
 *   ns       time the whole range took, seen from the writer
 *   expect   what the header promises each call of the range in CTX on
 *            this kernel: ok, or edeadlk for adds where they are refused
 *            (include/linux/kbloom_api.h: without PREEMPT_RT, interrupts
 *            off and hard interrupts; with it, preempt and rawlock too)
 *   rt       1 on a PREEMPT_RT kernel, 0 elsewhere
 *   as       yes when every call answered as expect says, no otherwise
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kbloom_api.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <asm/apic.h>
#include <asm/nmi.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/timer.h>

#define KAPI_REFS		8
#define KAPI_CHUNK		1024
#define KAPI_BATCH_DEFAULT	4096
#define KAPI_BATCH_MAX		65536
#define KAPI_PREFIX_MAX		16
/* A prefix, "-4294967295" and the NUL. */
#define KAPI_KEY_BYTES		(KAPI_PREFIX_MAX + 12)
#define KAPI_CMD_BYTES		128
#define KAPI_ARGS		6
#define KAPI_RESULT_BYTES	512
/*
 * A command that finds no memory says so (ENOMEM, "error=no memory ..."):
 * no warning with a stack trace too, which a fault-injection run
 * (tests/vm/fuzz-full.sh) would count against itself.  The first one it
 * met was kvmalloc()'s vmalloc fallback for a batch's keys.
 */
#define KAPI_GFP		(GFP_KERNEL | __GFP_NOWARN)

enum kapi_ctx {
	KAPI_PROCESS,
	KAPI_RCU,
	KAPI_SPINLOCK,
	KAPI_SOFTIRQ,
	KAPI_IRQOFF,
	KAPI_HARDIRQ,
	KAPI_BH,
	KAPI_PREEMPT,
	KAPI_RAWLOCK,
	KAPI_NMI,
	KAPI_NR_CTX,
};

#define KAPI_CTX_USAGE \
	"CTX is one of process rcu spinlock bh softirq preempt rawlock irqoff hardirq nmi"

static const char * const kapi_ctx_names[KAPI_NR_CTX] = {
	[KAPI_PROCESS] = "process",
	[KAPI_RCU] = "rcu",
	[KAPI_SPINLOCK] = "spinlock",
	[KAPI_SOFTIRQ] = "softirq",
	[KAPI_IRQOFF] = "irqoff",
	[KAPI_HARDIRQ] = "hardirq",
	[KAPI_BH] = "bh",
	[KAPI_PREEMPT] = "preempt",
	[KAPI_RAWLOCK] = "rawlock",
	[KAPI_NMI] = "nmi",
};

enum kapi_op {
	KAPI_CHECK,
	KAPI_ADD,
	KAPI_CHECK_KEYS,
	KAPI_ADD_KEYS,
};

/* What a key range found, as the top comment says. */
#define KAPI_RANGE_FMT \
	"keys=%llu yes=%llu no=%llu sum=%llu errors=%llu err=%d missing=%llu badret=%llu ctx=%s ns=%lld expect=%s rt=%d as=%s%s"

/* One key range of a check or add command, and what it found. */
struct kapi_range {
	struct kbloom_filter *f;
	enum kapi_op op;
	enum kapi_ctx ctx;
	u32 first;		/* number of the chunk's first key */
	u32 n;			/* keys in the chunk */
	struct kbloom_key *keys;	/* the chunk's keys, batch ops only */
	char *bufs;		/* their bytes, KAPI_KEY_BYTES each */
	unsigned long *results;
	u64 yes;
	u64 no;
	u64 sum;
	u64 errors;
	u64 missing;
	u64 badret;
	int err;
	bool wrong_ctx;
};

/* Serialises commands; guards the references and the result. */
static DEFINE_MUTEX(kapi_lock);
/* Held around the chunks of CTX spinlock, and nothing else. */
static DEFINE_SPINLOCK(kapi_spinlock);
/* And this one around those of CTX rawlock. */
static DEFINE_RAW_SPINLOCK(kapi_rawlock);
/* Who holds either, for kapi_in_ctx() (no lockdep in Debian's kernels). */
static struct task_struct *kapi_spin_owner, *kapi_raw_owner;
static struct kbloom_filter *kapi_refs[KAPI_REFS];
static unsigned int kapi_nr_refs;
static char kapi_result[KAPI_RESULT_BYTES] = "none";
/*
 * The key ranges' prefix, "" for bare numbers; under kapi_lock, which a
 * range's command holds until its last chunk, softirq or hardirq, is done.
 * The churn keeps to bare numbers.
 */
static char kapi_prefix[KAPI_PREFIX_MAX + 1];
/* Commands given with insmod would run before the module is set up. */
static bool kapi_ready;

/* A call into softirq or hardirq context, one at a time (kapi_lock). */
static void kapi_defer_irq(struct irq_work *work);

static void kapi_defer_tasklet(struct tasklet_struct *t);

static DECLARE_TASKLET(kapi_tasklet, kapi_defer_tasklet);
static struct irq_work kapi_irq_work = IRQ_WORK_INIT_HARD(kapi_defer_irq);
static void (*kapi_defer_fn)(void *arg);
static void *kapi_defer_arg;
static DECLARE_COMPLETION(kapi_defer_done);

/* What churn-start runs until churn-stop, and its counts. */
static void kapi_churn_irq(struct irq_work *work);

static struct timer_list kapi_churn_timer;
static struct irq_work kapi_churn_work = IRQ_WORK_INIT_HARD(kapi_churn_irq);
static bool kapi_churning;
static char kapi_churn_name[KBLOOM_NAME_MAX];
static u32 kapi_churn_key;
static atomic_long_t kapi_churn_rounds;	/* timer callbacks that ran */
static atomic_long_t kapi_churn_got;	/* gets that returned a filter */
static atomic_long_t kapi_churn_enoent;	/* gets that found no filter */
static atomic_long_t kapi_churn_done;	/* checks and adds that worked */
static atomic_long_t kapi_churn_enodev;	/* ... that found it destroyed */
static atomic_long_t kapi_churn_lost;	/* adds the next check missed (bad) */
/* Adds a scalable filter had no room for yet (EAGAIN) or at a cap. */
static atomic_long_t kapi_churn_full;
static atomic_long_t kapi_churn_hrounds;	/* irq_work callbacks that ran */
static atomic_long_t kapi_churn_hgot;
static atomic_long_t kapi_churn_hid;	/* get_id of a held id: the same */
static atomic_long_t kapi_churn_edeadlk;	/* hardirq adds refused */
static atomic_long_t kapi_churn_bad;	/* anything else */
static atomic_t kapi_churn_bad_err;	/* the first anything else */
static bool kapi_churn_wrong_ctx;

static __printf(1, 2) void kapi_emit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(kapi_result, sizeof(kapi_result), fmt, ap);
	va_end(ap);
}

static void kapi_defer_call(void)
{
	kapi_defer_fn(kapi_defer_arg);
	complete(&kapi_defer_done);
}

static void kapi_defer_tasklet(struct tasklet_struct *t)
{
	kapi_defer_call();
}

static void kapi_defer_irq(struct irq_work *work)
{
	kapi_defer_call();
}

/*
 * NMI: this CPU sends itself one (the local APIC's NMI delivery mode, which
 * qemu emulates), and the handler runs the call.  complete() is not
 * NMI-safe, so the caller polls a state instead; a handler that finds no
 * call pending leaves the NMI to the others.  At load a first NMI with
 * nothing to do tells whether any arrives at all (kapi_nmi_works): on a
 * machine where none does, nmi commands say so rather than wait.
 */
enum { KAPI_NMI_IDLE, KAPI_NMI_PENDING, KAPI_NMI_RUNNING, KAPI_NMI_DONE };
static atomic_t kapi_nmi_state = ATOMIC_INIT(KAPI_NMI_IDLE);
static bool kapi_nmi_registered, kapi_nmi_works;

static int kapi_nmi(unsigned int type, struct pt_regs *regs)
{
	if (atomic_cmpxchg(&kapi_nmi_state, KAPI_NMI_PENDING,
			   KAPI_NMI_RUNNING) != KAPI_NMI_PENDING)
		return NMI_DONE;
	if (kapi_defer_fn)
		kapi_defer_fn(kapi_defer_arg);
	atomic_set_release(&kapi_nmi_state, KAPI_NMI_DONE);
	return NMI_HANDLED;
}

/* Whether the NMI came (and ran the call) within a second. */
static bool kapi_call_nmi(void)
{
	unsigned long give_up = jiffies + HZ;

	atomic_set(&kapi_nmi_state, KAPI_NMI_PENDING);
	preempt_disable();
	apic->send_IPI_mask(cpumask_of(smp_processor_id()), NMI_VECTOR);
	preempt_enable();
	while (atomic_read_acquire(&kapi_nmi_state) != KAPI_NMI_DONE) {
		if (time_after(jiffies, give_up) &&
		    atomic_cmpxchg(&kapi_nmi_state, KAPI_NMI_PENDING,
				   KAPI_NMI_IDLE) == KAPI_NMI_PENDING)
			return false;
		usleep_range(50, 100);
	}
	atomic_set(&kapi_nmi_state, KAPI_NMI_IDLE);
	return true;
}

static void kapi_nmi_setup(void)
{
	if (register_nmi_handler(NMI_LOCAL, kapi_nmi, 0, KBUILD_MODNAME))
		return;
	kapi_nmi_registered = true;
	kapi_defer_fn = NULL;
	kapi_nmi_works = kapi_call_nmi();
	if (!kapi_nmi_works)
		pr_info("no NMI sent to this CPU arrived: nmi commands are refused\n");
}

static void kapi_nmi_teardown(void)
{
	if (kapi_nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, KBUILD_MODNAME);
}

/*
 * Runs fn(arg) in a tasklet (softirq), an irq_work (hardirq) or an NMI and waits
 * for it.  A tasklet, not a timer: a timer at the current jiffy fires at
 * the next tick, 4 ms at Debian's HZ=250, which made a softirq check of 10
 * keys cost 5 ms (0.1 ms through a tasklet, measured in the VM) and the
 * fuzzer's turns at this module wait for each other.  The callback may
 * still be returning when the completion wakes us, so wait for that too
 * before the next call reuses them.
 */
static void kapi_call_in(enum kapi_ctx ctx, void (*fn)(void *), void *arg)
{
	kapi_defer_fn = fn;
	kapi_defer_arg = arg;
	reinit_completion(&kapi_defer_done);
	/* An NMI that stopped arriving: the call still runs (ctx=wrong). */
	if (ctx == KAPI_NMI && kapi_call_nmi())
		return;
	if (ctx == KAPI_SOFTIRQ) {
		tasklet_schedule(&kapi_tasklet);
		wait_for_completion(&kapi_defer_done);
		tasklet_unlock_wait(&kapi_tasklet);
	} else {
		irq_work_queue(&kapi_irq_work);
		wait_for_completion(&kapi_defer_done);
		irq_work_sync(&kapi_irq_work);
	}
}

/*
 * Whether we run where CTX says.  Softirq and hardirq are the ones that
 * could go wrong (a tasklet or an irq_work run elsewhere); the others are
 * checked as far as the kernel's configuration can tell.  A spinlock_t
 * disables preemption only without PREEMPT_RT; with it, it is an
 * rt_mutex, and rt_spin_lock() enters an RCU read-side section instead
 * (kernel/locking/spinlock_rt.c), which a preemptible RCU counts.
 */
static bool kapi_in_ctx(enum kapi_ctx ctx)
{
	bool counted = IS_ENABLED(CONFIG_PREEMPT_COUNT);
	bool atomic = !counted || !preemptible();

	switch (ctx) {
	case KAPI_PROCESS:
		return in_task() && !irqs_disabled() &&
		       (!counted || preemptible());
	case KAPI_RCU:
		return in_task() && rcu_read_lock_held();
	case KAPI_SPINLOCK:
		if (!in_task() || READ_ONCE(kapi_spin_owner) != current)
			return false;
		if (IS_ENABLED(CONFIG_PREEMPT_RT))
			return rcu_preempt_depth() > 0 && !irqs_disabled();
		return atomic;
	case KAPI_BH:
		return in_task() && in_softirq() && !irqs_disabled();
	case KAPI_SOFTIRQ:
		return in_serving_softirq() && !in_hardirq();
	case KAPI_PREEMPT:
		return in_task() && atomic && !irqs_disabled();
	case KAPI_RAWLOCK:
		return in_task() && READ_ONCE(kapi_raw_owner) == current &&
		       atomic && !irqs_disabled();
	case KAPI_IRQOFF:
		return in_task() && irqs_disabled();
	case KAPI_HARDIRQ:
		return in_hardirq() && !in_nmi();
	case KAPI_NMI:
		return in_nmi();
	default:
		return false;
	}
}

/*
 * Whether the header lets an add run in CTX on this kernel, or has it
 * return -EDEADLK (include/linux/kbloom_api.h, "Context"): on PREEMPT_RT
 * the stripe's spinlock_t and local_bh_disable() sleep, so a raw spinlock
 * or preempt_disable() refuse too.
 */
static bool kapi_add_allowed(enum kapi_ctx ctx)
{
	switch (ctx) {
	case KAPI_PROCESS:
	case KAPI_RCU:
	case KAPI_SPINLOCK:
	case KAPI_BH:
	case KAPI_SOFTIRQ:
		return true;
	case KAPI_PREEMPT:
	case KAPI_RAWLOCK:
		return !IS_ENABLED(CONFIG_PREEMPT_RT);
	default:
		return false;
	}
}

static u32 kapi_key(char *buf, const char *prefix, u32 i)
{
	if (*prefix)
		return snprintf(buf, KAPI_KEY_BYTES, "%s-%u", prefix, i);
	return snprintf(buf, KAPI_KEY_BYTES, "%u", i);
}

static void kapi_error(struct kapi_range *r, u64 keys, int err)
{
	if (!r->errors)
		r->err = err;
	r->errors += keys;
}

static void kapi_tally(struct kapi_range *r, u32 i, int ret)
{
	if (ret < 0) {
		kapi_error(r, 1, ret);
	} else if (ret) {
		r->yes++;
		r->sum += i;
	} else {
		r->no++;
	}
}

static void kapi_single(struct kapi_range *r)
{
	char key[KAPI_KEY_BYTES];
	u32 i, len;
	int ret;

	for (i = 0; i < r->n; i++) {
		len = kapi_key(key, kapi_prefix, r->first + i);
		if (r->op == KAPI_CHECK) {
			ret = kbloom_filter_check(r->f, key, len);
		} else {
			ret = kbloom_filter_add(r->f, key, len);
			if (ret >= 0 && kbloom_filter_check(r->f, key, len) != 1)
				r->missing++;
		}
		kapi_tally(r, r->first + i, ret);
	}
}

static void kapi_batch(struct kapi_range *r)
{
	u32 i;
	int ret;

	/* Every bit set: the call must clear those of the keys answering 0. */
	bitmap_fill(r->results, r->n);
	if (r->op == KAPI_CHECK_KEYS)
		ret = kbloom_filter_check_keys(r->f, r->keys, r->n, r->results);
	else
		ret = kbloom_filter_add_keys(r->f, r->keys, r->n, r->results);
	if (ret < 0) {
		kapi_error(r, r->n, ret);
		return;
	}
	if (bitmap_weight(r->results, r->n) != ret)
		r->badret++;
	for (i = 0; i < r->n; i++) {
		kapi_tally(r, r->first + i, test_bit(i, r->results));
		if (r->op == KAPI_ADD_KEYS &&
		    kbloom_filter_check(r->f, r->keys[i].data,
					r->keys[i].len) != 1)
			r->missing++;
	}
}

static void kapi_chunk(void *arg)
{
	struct kapi_range *r = arg;

	if (!kapi_in_ctx(r->ctx))
		r->wrong_ctx = true;
	if (r->op == KAPI_CHECK || r->op == KAPI_ADD)
		kapi_single(r);
	else
		kapi_batch(r);
}

/* Runs fn(arg) in CTX, from process context. */
static void kapi_run_in(enum kapi_ctx ctx, void (*fn)(void *), void *arg)
{
	unsigned long flags;

	switch (ctx) {
	case KAPI_RCU:
		rcu_read_lock();
		fn(arg);
		rcu_read_unlock();
		break;
	case KAPI_SPINLOCK:
		spin_lock(&kapi_spinlock);
		WRITE_ONCE(kapi_spin_owner, current);
		fn(arg);
		WRITE_ONCE(kapi_spin_owner, NULL);
		spin_unlock(&kapi_spinlock);
		break;
	case KAPI_BH:
		local_bh_disable();
		fn(arg);
		local_bh_enable();
		break;
	case KAPI_PREEMPT:
		preempt_disable();
		fn(arg);
		preempt_enable();
		break;
	case KAPI_RAWLOCK:
		raw_spin_lock(&kapi_rawlock);
		WRITE_ONCE(kapi_raw_owner, current);
		fn(arg);
		WRITE_ONCE(kapi_raw_owner, NULL);
		raw_spin_unlock(&kapi_rawlock);
		break;
	case KAPI_IRQOFF:
		local_irq_save(flags);
		fn(arg);
		local_irq_restore(flags);
		break;
	case KAPI_SOFTIRQ:
	case KAPI_HARDIRQ:
	case KAPI_NMI:
		kapi_call_in(ctx, fn, arg);
		break;
	default:
		fn(arg);
		break;
	}
}

static void kapi_range_free(struct kapi_range *r)
{
	kvfree(r->keys);
	kvfree(r->bufs);
	bitmap_free(r->results);
}

static int kapi_do_range(enum kapi_op op, enum kapi_ctx ctx, u32 start,
			 u32 count, u32 batch)
{
	struct kapi_range r = {
		.f = kapi_refs[kapi_nr_refs - 1],
		.op = op,
		.ctx = ctx,
	};
	bool batched = op == KAPI_CHECK_KEYS || op == KAPI_ADD_KEYS;
	bool refused = (op == KAPI_ADD || op == KAPI_ADD_KEYS) &&
		       !kapi_add_allowed(ctx);
	bool as;
	/*
	 * No larger a batch than the range: for 10 keys, the default of 4096
	 * took 0.3 ms a command, most of it in vmalloc(), and 0.05 ms sized
	 * to them.
	 */
	u32 chunk = batched ? clamp(count, 1U, batch) : KAPI_CHUNK, i;
	bool stopped = false;
	u64 done;
	ktime_t t0;

	if (batched) {
		r.keys = kvcalloc(chunk, sizeof(*r.keys), KAPI_GFP);
		r.bufs = kvmalloc_array(chunk, KAPI_KEY_BYTES, KAPI_GFP);
		r.results = bitmap_alloc(chunk, KAPI_GFP);
		if (!r.keys || !r.bufs || !r.results) {
			kapi_range_free(&r);
			kapi_emit("error=no memory for %u keys a batch", chunk);
			return -ENOMEM;
		}
	}
	t0 = ktime_get();
	for (done = 0; done < count; done += r.n) {
		r.first = start + done;
		r.n = min_t(u64, count - done, chunk);
		for (i = 0; batched && i < r.n; i++) {
			char *buf = r.bufs + (size_t)i * KAPI_KEY_BYTES;

			r.keys[i].data = buf;
			r.keys[i].len = kapi_key(buf, kapi_prefix, r.first + i);
		}
		kapi_run_in(ctx, kapi_chunk, &r);
		if (fatal_signal_pending(current)) {
			stopped = true;
			done += r.n;
			break;
		}
		cond_resched();
	}
	/* Refused: every key's call returned -EDEADLK and nothing else. */
	if (refused)
		as = r.errors == done && r.err == -EDEADLK && !r.yes && !r.no;
	else
		as = !r.errors;
	kapi_emit(KAPI_RANGE_FMT, done, r.yes, r.no, r.sum, r.errors, r.err, r.missing,
		  r.badret, r.wrong_ctx ? "wrong" : "ok",
		  ktime_to_ns(ktime_sub(ktime_get(), t0)),
		  refused ? "edeadlk" : "ok", IS_ENABLED(CONFIG_PREEMPT_RT),
		  as ? "yes" : "no", stopped ? " stopped=signal" : "");
	kapi_range_free(&r);
	return 0;
}

static int kapi_push(struct kbloom_filter *f)
{
	if (!f) {
		/* The contract is ERR_PTR() or a reference, never NULL. */
		kapi_emit("ret=null refs=%u", kapi_nr_refs);
		return 0;
	}
	if (IS_ERR(f)) {
		kapi_emit("ret=%ld refs=%u", PTR_ERR(f), kapi_nr_refs);
		return 0;
	}
	kapi_refs[kapi_nr_refs++] = f;
	kapi_emit("ret=0 id=%u refs=%u", kbloom_filter_id(f), kapi_nr_refs);
	return 0;
}

/* A put from softirq or hardirq, and where it ran. */
struct kapi_put {
	struct kbloom_filter *f;
	enum kapi_ctx ctx;
	bool wrong_ctx;
};

static void kapi_put_cb(void *arg)
{
	struct kapi_put *p = arg;

	p->wrong_ctx = !kapi_in_ctx(p->ctx);
	kbloom_filter_put(p->f);
}

static void kapi_put_in(enum kapi_ctx ctx)
{
	struct kapi_put p = {
		.f = kapi_refs[--kapi_nr_refs],
		.ctx = ctx,
	};

	kapi_refs[kapi_nr_refs] = NULL;
	kapi_run_in(ctx, kapi_put_cb, &p);
	kapi_emit("ret=0 refs=%u ctx=%s", kapi_nr_refs,
		  p.wrong_ctx ? "wrong" : "ok");
}

static void kapi_release(void)
{
	while (kapi_nr_refs) {
		kbloom_filter_put(kapi_refs[--kapi_nr_refs]);
		kapi_refs[kapi_nr_refs] = NULL;
	}
}

/* The bad key calls on the newest reference, or on NULL. */
static int kapi_bad_calls(struct kbloom_filter *f, const u8 *bad, u32 len)
{
	static const char good[] = "kapi-good-key";
	struct kbloom_key one = { .data = bad, .len = len };
	struct kbloom_key mixed[2] = {
		{ .data = good, .len = sizeof(good) - 1 },
		{ .data = bad, .len = len },
	};
	unsigned long results[1];
	int ret[6];

	/* In this order: a valid key is checked before it is added. */
	ret[0] = kbloom_filter_check(f, bad, len);
	ret[1] = kbloom_filter_add(f, bad, len);
	ret[2] = kbloom_filter_check_keys(f, &one, 1, results);
	ret[3] = kbloom_filter_add_keys(f, &one, 1, results);
	ret[4] = kbloom_filter_check_keys(f, mixed, 2, results);
	ret[5] = kbloom_filter_add_keys(f, mixed, 2, NULL);
	kapi_emit("check=%d add=%d check_keys=%d add_keys=%d mixed_check=%d mixed_add=%d",
		  ret[0], ret[1], ret[2], ret[3], ret[4], ret[5]);
	return 0;
}

static int kapi_badkey(u32 len)
{
	u8 *bad = kzalloc(KBLOOM_KEY_MAX + 1, KAPI_GFP);
	int ret;

	if (!bad) {
		kapi_emit("error=no memory for the key");
		return -ENOMEM;
	}
	memset(bad, 'x', KBLOOM_KEY_MAX + 1);
	ret = kapi_bad_calls(kapi_refs[kapi_nr_refs - 1], bad, len);
	kfree(bad);
	return ret;
}

static void kapi_churn_fail(int err)
{
	atomic_long_inc(&kapi_churn_bad);
	atomic_cmpxchg(&kapi_churn_bad_err, 0, err ? err : 1);
}

static void kapi_churn_lose(void)
{
	atomic_long_inc(&kapi_churn_lost);
	kapi_churn_fail(-EIO);
}

/*
 * One softirq round: get by name, check and add a key, put; the put may
 * be the last one when userspace destroyed the filter meanwhile.
 */
static void kapi_churn_tick(struct timer_list *t)
{
	char key[KAPI_KEY_BYTES];
	struct kbloom_filter *f;
	u32 len;
	int ret;

	if (!READ_ONCE(kapi_churning))
		return;
	atomic_long_inc(&kapi_churn_rounds);
	if (!kapi_in_ctx(KAPI_SOFTIRQ))
		WRITE_ONCE(kapi_churn_wrong_ctx, true);
	f = kbloom_filter_get(kapi_churn_name);
	if (IS_ERR_OR_NULL(f)) {
		if (PTR_ERR(f) == -ENOENT)
			atomic_long_inc(&kapi_churn_enoent);
		else
			kapi_churn_fail(PTR_ERR(f));
	} else {
		atomic_long_inc(&kapi_churn_got);
		len = kapi_key(key, "", kapi_churn_key++);
		ret = kbloom_filter_add(f, key, len);
		if (ret >= 0)
			ret = kbloom_filter_check(f, key, len);
		if (ret == 1)
			atomic_long_inc(&kapi_churn_done);
		else if (ret == -ENODEV)
			atomic_long_inc(&kapi_churn_enodev);
		else if (ret == -EAGAIN || ret == -E2BIG || ret == -ENOMEM)
			atomic_long_inc(&kapi_churn_full);
		else if (!ret)
			kapi_churn_lose();
		else
			kapi_churn_fail(ret);
		kbloom_filter_put(f);
	}
	irq_work_queue(&kapi_churn_work);
	mod_timer(&kapi_churn_timer, jiffies + 1);
}

/* The hardirq round: get, get_id of its id, check, a refused add, puts. */
static void kapi_churn_irq(struct irq_work *work)
{
	static const char key[] = "churn-hardirq";
	struct kbloom_filter *f, *g;
	int ret;

	atomic_long_inc(&kapi_churn_hrounds);
	if (!kapi_in_ctx(KAPI_HARDIRQ))
		WRITE_ONCE(kapi_churn_wrong_ctx, true);
	f = kbloom_filter_get(kapi_churn_name);
	if (IS_ERR_OR_NULL(f)) {
		if (PTR_ERR(f) != -ENOENT)
			kapi_churn_fail(PTR_ERR(f));
		return;
	}
	atomic_long_inc(&kapi_churn_hgot);
	g = kbloom_filter_get_id(kbloom_filter_id(f));
	if (g == f)
		atomic_long_inc(&kapi_churn_hid);
	else if (IS_ERR(g) && PTR_ERR(g) == -ENOENT)
		g = NULL;	/* destroyed since the get: its id is free */
	else
		kapi_churn_fail(IS_ERR(g) ? PTR_ERR(g) : -EXDEV);
	if (!IS_ERR_OR_NULL(g))
		kbloom_filter_put(g);
	ret = kbloom_filter_check(f, key, sizeof(key) - 1);
	if (ret < 0 && ret != -ENODEV)
		kapi_churn_fail(ret);
	ret = kbloom_filter_add(f, key, sizeof(key) - 1);
	if (ret == -EDEADLK)
		atomic_long_inc(&kapi_churn_edeadlk);
	else if (ret != -ENODEV)
		kapi_churn_fail(ret);
	kbloom_filter_put(f);
}

#define KAPI_CHURN_FMT \
	"rounds=%ld got=%ld enoent=%ld worked=%ld enodev=%ld full=%ld lost=%ld hrounds=%ld hgot=%ld hid=%ld edeadlk=%ld bad=%ld bad_err=%d ctx=%s"

static void kapi_churn_halt(void)
{
	WRITE_ONCE(kapi_churning, false);
	/* The tick re-arms itself only while kapi_churning. */
	timer_delete_sync(&kapi_churn_timer);
	irq_work_sync(&kapi_churn_work);
}

static int kapi_churn_start(const char *name)
{
	atomic_long_t *counts[] = {
		&kapi_churn_rounds, &kapi_churn_got, &kapi_churn_enoent,
		&kapi_churn_done, &kapi_churn_enodev, &kapi_churn_full,
		&kapi_churn_lost, &kapi_churn_hrounds,
		&kapi_churn_hgot, &kapi_churn_hid, &kapi_churn_edeadlk,
		&kapi_churn_bad,
	};
	unsigned int i;

	if (READ_ONCE(kapi_churning)) {
		kapi_emit("error=churn already running; churn-stop first");
		return -EBUSY;
	}
	if (strlen(name) >= sizeof(kapi_churn_name)) {
		kapi_emit("error=NAME is at most %d bytes",
			  KBLOOM_NAME_MAX - 1);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(counts); i++)
		atomic_long_set(counts[i], 0);
	atomic_set(&kapi_churn_bad_err, 0);
	kapi_churn_wrong_ctx = false;
	strscpy(kapi_churn_name, name, sizeof(kapi_churn_name));
	WRITE_ONCE(kapi_churning, true);
	mod_timer(&kapi_churn_timer, jiffies);
	kapi_emit("ret=0");
	return 0;
}

static int kapi_churn_stop(void)
{
	if (!READ_ONCE(kapi_churning)) {
		kapi_emit("error=no churn running; churn-start NAME first");
		return -EINVAL;
	}
	kapi_churn_halt();
	kapi_emit(KAPI_CHURN_FMT, atomic_long_read(&kapi_churn_rounds),
		  atomic_long_read(&kapi_churn_got),
		  atomic_long_read(&kapi_churn_enoent),
		  atomic_long_read(&kapi_churn_done),
		  atomic_long_read(&kapi_churn_enodev),
		  atomic_long_read(&kapi_churn_full),
		  atomic_long_read(&kapi_churn_lost),
		  atomic_long_read(&kapi_churn_hrounds),
		  atomic_long_read(&kapi_churn_hgot),
		  atomic_long_read(&kapi_churn_hid),
		  atomic_long_read(&kapi_churn_edeadlk),
		  atomic_long_read(&kapi_churn_bad),
		  atomic_read(&kapi_churn_bad_err),
		  READ_ONCE(kapi_churn_wrong_ctx) ? "wrong" : "ok");
	return 0;
}

/*
 * The adder: one kernel thread, adding until told to stop.  started and
 * done are read by adder-count while it runs (smp_load_acquire(): a test
 * that reads done then checks the keys below it must find them).
 */
#define KAPI_ADDER_BATCH	64

static struct task_struct *kapi_adder;
static struct kbloom_filter *kapi_adder_filter;
static void *kapi_adder_arg;		/* its keys, freed after it stops */
static char kapi_adder_tag[KAPI_PREFIX_MAX + 1];
static u64 kapi_adder_started;
static u64 kapi_adder_done;
/* Keys it may add: it waits before a batch that would pass them. */
static u64 kapi_adder_limit;
static atomic_long_t kapi_adder_bad;
static atomic_t kapi_adder_bad_err;
/* Adds that waited for a scalable filter's growth (EAGAIN), each time. */
static atomic_long_t kapi_adder_waits;

static void kapi_adder_fail(int err)
{
	atomic_long_inc(&kapi_adder_bad);
	atomic_cmpxchg(&kapi_adder_bad_err, 0, err);
}

/*
 * One key by kbloom_filter_add(), with bottom halves off; a scalable
 * filter's EAGAIN is waited out (its worker grows it) with them on.
 * False when the thread was told to stop before the key went in.
 */
static bool kapi_adder_one(const struct kbloom_key *key)
{
	int ret;

	while ((ret = kbloom_filter_add(kapi_adder_filter, key->data,
					key->len)) == -EAGAIN) {
		atomic_long_inc(&kapi_adder_waits);
		local_bh_enable();
		usleep_range(100, 200);
		local_bh_disable();
		if (kthread_should_stop())
			return false;
	}
	if (ret < 0)
		kapi_adder_fail(ret);
	return true;
}

static bool kapi_adder_batch(char *bufs, struct kbloom_key *keys, u64 first,
			     bool batched)
{
	u32 i;
	int ret = -EOPNOTSUPP;

	for (i = 0; i < KAPI_ADDER_BATCH; i++) {
		keys[i].data = bufs + i * KAPI_KEY_BYTES;
		keys[i].len = kapi_key(bufs + i * KAPI_KEY_BYTES,
				       kapi_adder_tag, (u32)(first + i));
	}
	local_bh_disable();
	if (batched) {
		ret = kbloom_filter_add_keys(kapi_adder_filter, keys,
					     KAPI_ADDER_BATCH, NULL);
		/* A scalable filter's: the keys one by one instead. */
		if (ret < 0 && ret != -EOPNOTSUPP)
			kapi_adder_fail(ret);
	}
	for (i = 0; ret == -EOPNOTSUPP && i < KAPI_ADDER_BATCH; i++) {
		if (!kapi_adder_one(&keys[i])) {
			local_bh_enable();
			return false;
		}
	}
	local_bh_enable();
	return true;
}

static int kapi_adder_fn(void *arg)
{
	struct kbloom_key *keys = arg;
	char *bufs = (char *)(keys + KAPI_ADDER_BATCH);
	u64 next = 0;

	while (!kthread_should_stop()) {
		/* Keys go as 32-bit numbers: stop before they wrap. */
		if (next + KAPI_ADDER_BATCH > U32_MAX) {
			schedule_timeout_interruptible(HZ);
			continue;
		}
		/* Paced: adder-limit raises it, kthread_stop() wakes us. */
		if (next + KAPI_ADDER_BATCH > READ_ONCE(kapi_adder_limit)) {
			schedule_timeout_interruptible(1);
			continue;
		}
		/*
		 * Seen before the batch's first add loads a word: a full
		 * barrier, as a later load may pass an earlier store...
		 */
		smp_store_mb(kapi_adder_started, next + KAPI_ADDER_BATCH);
		if (!kapi_adder_batch(bufs, keys, next,
				      (next / KAPI_ADDER_BATCH) & 1))
			break;
		next += KAPI_ADDER_BATCH;
		/* ...and after its last add's stores. */
		smp_store_release(&kapi_adder_done, next);
		cond_resched();
	}
	return 0;
}

static void kapi_adder_emit(bool stopped)
{
	/* Pairs with the thread's barriers: the adds below done are seen. */
	u64 started = smp_load_acquire(&kapi_adder_started);
	/* As above. */
	u64 done = smp_load_acquire(&kapi_adder_done);

	if (stopped)
		kapi_emit("ret=0 started=%llu done=%llu bad=%ld bad_err=%d waits=%ld",
			  started, done, atomic_long_read(&kapi_adder_bad),
			  atomic_read(&kapi_adder_bad_err),
			  atomic_long_read(&kapi_adder_waits));
	else
		kapi_emit("ret=0 started=%llu done=%llu", started, done);
}

static void kapi_adder_halt(void)
{
	if (!kapi_adder)
		return;
	kthread_stop(kapi_adder);
	kapi_adder = NULL;
	kbloom_filter_put(kapi_adder_filter);
	kapi_adder_filter = NULL;
	kfree(kapi_adder_arg);
	kapi_adder_arg = NULL;
}

static int kapi_adder_start(const char *name, const char *tag,
			    u64 limit)
{
	struct kbloom_filter *f;
	struct task_struct *t;
	void *arg;

	if (kapi_adder) {
		kapi_emit("error=an adder is running; adder-stop first");
		return -EBUSY;
	}
	if (strlen(tag) > KAPI_PREFIX_MAX) {
		kapi_emit("error=TAG is at most %d bytes", KAPI_PREFIX_MAX);
		return -EINVAL;
	}
	arg = kmalloc_array(KAPI_ADDER_BATCH,
			    sizeof(struct kbloom_key) + KAPI_KEY_BYTES,
			    KAPI_GFP);
	if (!arg) {
		kapi_emit("error=no memory for the adder's keys");
		return -ENOMEM;
	}
	f = kbloom_filter_get(name);
	if (IS_ERR(f)) {
		kfree(arg);
		kapi_emit("ret=%ld", PTR_ERR(f));
		return 0;
	}
	strscpy(kapi_adder_tag, tag, sizeof(kapi_adder_tag));
	kapi_adder_filter = f;
	kapi_adder_arg = arg;
	kapi_adder_started = 0;
	kapi_adder_done = 0;
	kapi_adder_limit = limit;
	atomic_long_set(&kapi_adder_bad, 0);
	atomic_set(&kapi_adder_bad_err, 0);
	atomic_long_set(&kapi_adder_waits, 0);
	t = kthread_run(kapi_adder_fn, arg, "kbloom-adder");
	if (IS_ERR(t)) {
		kapi_adder_filter = NULL;
		kapi_adder_arg = NULL;
		kbloom_filter_put(f);
		kfree(arg);
		kapi_emit("error=kthread_run: %ld", PTR_ERR(t));
		return PTR_ERR(t);
	}
	kapi_adder = t;
	kapi_emit("ret=0");
	return 0;
}

static int kapi_adder_report(bool stop)
{
	if (!kapi_adder) {
		kapi_emit("error=no adder running; adder-start NAME TAG first");
		return -EINVAL;
	}
	/* kthread_stop() waits for the thread: its last counts are seen. */
	if (stop)
		kapi_adder_halt();
	kapi_adder_emit(stop);
	return 0;
}

/* Command parsing. */

enum kapi_cmd_id {
	KAPI_CMD_HOLD,
	KAPI_CMD_HOLD_ID,
	KAPI_CMD_PUT,
	KAPI_CMD_PUT_SOFTIRQ,
	KAPI_CMD_PUT_HARDIRQ,
	KAPI_CMD_PUT_IN,
	KAPI_CMD_RELEASE,
	KAPI_CMD_ID,
	KAPI_CMD_CHECK,
	KAPI_CMD_ADD,
	KAPI_CMD_CHECK_KEYS,
	KAPI_CMD_ADD_KEYS,
	KAPI_CMD_BADKEY,
	KAPI_CMD_NULL,
	KAPI_CMD_PREFIX,
	KAPI_CMD_CHURN_START,
	KAPI_CMD_CHURN_STOP,
	KAPI_CMD_ADDER_START,
	KAPI_CMD_ADDER_COUNT,
	KAPI_CMD_ADDER_LIMIT,
	KAPI_CMD_ADDER_STOP,
	KAPI_CMD_NMI,
};

struct kapi_cmd {
	const char *name;
	const char *usage;
	enum kapi_cmd_id id;
	u8 min_args;		/* arguments after the name */
	u8 max_args;
	bool needs_ref;
};

static const struct kapi_cmd kapi_cmds[] = {
	{ "hold", "hold NAME", KAPI_CMD_HOLD, 1, 1, false },
	{ "hold-id", "hold-id ID", KAPI_CMD_HOLD_ID, 1, 1, false },
	{ "put", "put", KAPI_CMD_PUT, 0, 0, true },
	{ "put-softirq", "put-softirq", KAPI_CMD_PUT_SOFTIRQ, 0, 0, true },
	{ "put-hardirq", "put-hardirq", KAPI_CMD_PUT_HARDIRQ, 0, 0, true },
	{ "put-in", "put-in CTX", KAPI_CMD_PUT_IN, 1, 1, true },
	{ "release", "release", KAPI_CMD_RELEASE, 0, 0, false },
	{ "id", "id", KAPI_CMD_ID, 0, 0, true },
	{ "check", "check CTX START COUNT", KAPI_CMD_CHECK, 3, 3, true },
	{ "add", "add CTX START COUNT", KAPI_CMD_ADD, 3, 3, true },
	{ "check-keys", "check-keys CTX START COUNT [BATCH]",
	  KAPI_CMD_CHECK_KEYS, 3, 4, true },
	{ "add-keys", "add-keys CTX START COUNT [BATCH]",
	  KAPI_CMD_ADD_KEYS, 3, 4, true },
	{ "badkey", "badkey LEN", KAPI_CMD_BADKEY, 1, 1, true },
	{ "null", "null", KAPI_CMD_NULL, 0, 0, false },
	{ "prefix", "prefix [TAG]", KAPI_CMD_PREFIX, 0, 1, false },
	{ "churn-start", "churn-start NAME", KAPI_CMD_CHURN_START, 1, 1,
	  false },
	{ "churn-stop", "churn-stop", KAPI_CMD_CHURN_STOP, 0, 0, false },
	{ "adder-start", "adder-start NAME TAG [LIMIT]", KAPI_CMD_ADDER_START,
	  2, 3, false },
	{ "adder-count", "adder-count", KAPI_CMD_ADDER_COUNT, 0, 0, false },
	{ "adder-limit", "adder-limit LIMIT", KAPI_CMD_ADDER_LIMIT, 1, 1,
	  false },
	{ "adder-stop", "adder-stop", KAPI_CMD_ADDER_STOP, 0, 0, false },
	{ "nmi", "nmi", KAPI_CMD_NMI, 0, 0, false },
};

static int kapi_usage(const struct kapi_cmd *cmd, const char *why)
{
	kapi_emit("error=%s; usage: %s", why, cmd->usage);
	return -EINVAL;
}

static void kapi_unknown(const char *word)
{
	size_t len, i;

	len = scnprintf(kapi_result, sizeof(kapi_result),
			"error=unknown command '%s'; commands:", word);
	for (i = 0; i < ARRAY_SIZE(kapi_cmds); i++)
		len += scnprintf(kapi_result + len, sizeof(kapi_result) - len,
				 " %s", kapi_cmds[i].name);
}

/* A CTX argument, or a negative errno with the reason in result. */
static int kapi_parse_ctx(const struct kapi_cmd *cmd, const char *word)
{
	int ctx = match_string(kapi_ctx_names, KAPI_NR_CTX, word);

	if (ctx < 0)
		return kapi_usage(cmd, KAPI_CTX_USAGE);
	if (ctx == KAPI_NMI && !kapi_nmi_works) {
		kapi_emit("error=no NMI sent to this CPU arrives here (the nmi command says so)");
		return -EOPNOTSUPP;
	}
	return ctx;
}

/* check, add, check-keys, add-keys: CTX START COUNT [BATCH]. */
static int kapi_range_cmd(const struct kapi_cmd *cmd, int argc, char **argv)
{
	static const enum kapi_op ops[] = {
		[KAPI_CMD_CHECK] = KAPI_CHECK,
		[KAPI_CMD_ADD] = KAPI_ADD,
		[KAPI_CMD_CHECK_KEYS] = KAPI_CHECK_KEYS,
		[KAPI_CMD_ADD_KEYS] = KAPI_ADD_KEYS,
	};
	u32 start, count, batch = KAPI_BATCH_DEFAULT;
	int ctx;

	ctx = kapi_parse_ctx(cmd, argv[1]);
	if (ctx < 0)
		return ctx;
	if (kstrtou32(argv[2], 0, &start) || kstrtou32(argv[3], 0, &count))
		return kapi_usage(cmd, "START and COUNT are numbers below 2^32");
	if ((u64)start + count > (u64)U32_MAX + 1)
		return kapi_usage(cmd, "START + COUNT goes past key 4294967295");
	if (argc > 4 && (kstrtou32(argv[4], 0, &batch) || !batch ||
			 batch > KAPI_BATCH_MAX))
		return kapi_usage(cmd, "BATCH is 1 to 65536 keys");
	return kapi_do_range(ops[cmd->id], ctx, start, count, batch);
}

static int kapi_run(const struct kapi_cmd *cmd, int argc, char **argv)
{
	u64 limit;
	int ctx;
	u32 n;

	if (cmd->needs_ref && !kapi_nr_refs) {
		kapi_emit("error=%s needs a reference: hold NAME first",
			  cmd->name);
		return -EINVAL;
	}
	switch (cmd->id) {
	case KAPI_CMD_HOLD:
	case KAPI_CMD_HOLD_ID:
		if (kapi_nr_refs == KAPI_REFS) {
			kapi_emit("error=%u references held already; put one first",
				  kapi_nr_refs);
			return -ENOSPC;
		}
		if (cmd->id == KAPI_CMD_HOLD)
			return kapi_push(kbloom_filter_get(argv[1]));
		if (kstrtou32(argv[1], 0, &n))
			return kapi_usage(cmd, "ID is a number below 2^32");
		return kapi_push(kbloom_filter_get_id(n));
	case KAPI_CMD_PUT:
		kapi_put_in(KAPI_PROCESS);
		return 0;
	case KAPI_CMD_PUT_SOFTIRQ:
		kapi_put_in(KAPI_SOFTIRQ);
		return 0;
	case KAPI_CMD_PUT_HARDIRQ:
		kapi_put_in(KAPI_HARDIRQ);
		return 0;
	case KAPI_CMD_PUT_IN:
		ctx = kapi_parse_ctx(cmd, argv[1]);
		if (ctx < 0)
			return ctx;
		kapi_put_in(ctx);
		return 0;
	case KAPI_CMD_NMI:
		kapi_emit("ret=0 nmi=%s", kapi_nmi_works ? "yes" : "no");
		return 0;
	case KAPI_CMD_RELEASE:
		kapi_release();
		kapi_emit("ret=0 refs=0");
		return 0;
	case KAPI_CMD_ID:
		kapi_emit("ret=0 id=%u",
			  kbloom_filter_id(kapi_refs[kapi_nr_refs - 1]));
		return 0;
	case KAPI_CMD_BADKEY:
		if (kstrtou32(argv[1], 0, &n) || n > KBLOOM_KEY_MAX + 1)
			return kapi_usage(cmd, "LEN is 0 to 4097");
		return kapi_badkey(n);
	case KAPI_CMD_NULL:
		return kapi_bad_calls(NULL, (const u8 *)"null-key", 8);
	case KAPI_CMD_PREFIX:
		if (argc > 1 && strlen(argv[1]) > KAPI_PREFIX_MAX)
			return kapi_usage(cmd, "TAG is at most "
					  __stringify(KAPI_PREFIX_MAX) " bytes");
		strscpy(kapi_prefix, argc > 1 ? argv[1] : "",
			sizeof(kapi_prefix));
		kapi_emit("ret=0 prefix=%s", kapi_prefix);
		return 0;
	case KAPI_CMD_CHURN_START:
		return kapi_churn_start(argv[1]);
	case KAPI_CMD_CHURN_STOP:
		return kapi_churn_stop();
	case KAPI_CMD_ADDER_START:
		if (argc > 3 && kstrtou64(argv[3], 0, &limit))
			return kapi_usage(cmd, "LIMIT is a number of keys");
		return kapi_adder_start(argv[1], argv[2],
					argc > 3 ? limit : U64_MAX);
	case KAPI_CMD_ADDER_COUNT:
		return kapi_adder_report(false);
	case KAPI_CMD_ADDER_LIMIT:
		if (kstrtou64(argv[1], 0, &limit))
			return kapi_usage(cmd, "LIMIT is a number of keys");
		if (kapi_adder)
			WRITE_ONCE(kapi_adder_limit, limit);
		return kapi_adder_report(false);
	case KAPI_CMD_ADDER_STOP:
		return kapi_adder_report(true);
	default:
		return kapi_range_cmd(cmd, argc, argv);
	}
}

static int kapi_cmd_set(const char *val, const struct kernel_param *kp)
{
	char buf[KAPI_CMD_BYTES], *s, *tok, *argv[KAPI_ARGS];
	const struct kapi_cmd *cmd = NULL;
	int argc = 0, ret;
	unsigned int i;

	mutex_lock(&kapi_lock);
	if (!kapi_ready) {
		pr_err("cmd: commands are taken once the module is loaded, not as insmod parameters\n");
		ret = -EINVAL;
		goto unlock;
	}
	if (strscpy(buf, val, sizeof(buf)) < 0) {
		kapi_emit("error=a command is at most %d bytes",
			  KAPI_CMD_BYTES - 1);
		ret = -EINVAL;
		goto unlock;
	}
	s = strim(buf);
	while ((tok = strsep(&s, " \t"))) {
		if (!*tok)
			continue;
		if (argc == KAPI_ARGS) {
			kapi_emit("error=more than %d words", KAPI_ARGS);
			ret = -EINVAL;
			goto unlock;
		}
		argv[argc++] = tok;
	}
	for (i = 0; argc && i < ARRAY_SIZE(kapi_cmds); i++)
		if (!strcmp(argv[0], kapi_cmds[i].name))
			cmd = &kapi_cmds[i];
	if (!cmd) {
		kapi_unknown(argc ? argv[0] : "");
		ret = -EINVAL;
	} else if (argc - 1 < cmd->min_args || argc - 1 > cmd->max_args) {
		ret = kapi_usage(cmd, "wrong number of arguments");
	} else {
		ret = kapi_run(cmd, argc, argv);
	}
unlock:
	mutex_unlock(&kapi_lock);
	return ret;
}

static int kapi_result_get(char *buffer, const struct kernel_param *kp)
{
	int n;

	mutex_lock(&kapi_lock);
	n = scnprintf(buffer, PAGE_SIZE, "%s\n", kapi_result);
	mutex_unlock(&kapi_lock);
	return n;
}

static const struct kernel_param_ops kapi_cmd_ops = {
	.set = kapi_cmd_set,
};

static const struct kernel_param_ops kapi_result_ops = {
	.get = kapi_result_get,
};

module_param_cb(cmd, &kapi_cmd_ops, NULL, 0200);
MODULE_PARM_DESC(cmd, "a command (see the source's top comment); write only");
module_param_cb(result, &kapi_result_ops, NULL, 0400);
MODULE_PARM_DESC(result, "the answer to the last command; read only");

static int __init kapi_init(void)
{
	timer_setup(&kapi_churn_timer, kapi_churn_tick, 0);
	kapi_nmi_setup();
	mutex_lock(&kapi_lock);
	kapi_ready = true;
	mutex_unlock(&kapi_lock);
	return 0;
}

static void __exit kapi_exit(void)
{
	mutex_lock(&kapi_lock);
	kapi_ready = false;
	kapi_churn_halt();
	kapi_adder_halt();
	kapi_release();
	mutex_unlock(&kapi_lock);
	tasklet_kill(&kapi_tasklet);
	kapi_nmi_teardown();
}

module_init(kapi_init);
module_exit(kapi_exit);

MODULE_DESCRIPTION("kbloom's in-kernel API under test, driven from sysfs");
MODULE_LICENSE("GPL");
KBLOOM_IMPORT_NS();
