// SPDX-License-Identifier: GPL-2.0
/*
 * mmap() of a filter node: the filter mapped read-only into its readers,
 * so that a check costs a load of the reader's own memory instead of a
 * system call: a one-key CHECK ioctl measured 2.2 us in the test VM, and
 * on the host a bare system call alone (63 ns) costs more than the core's
 * check of a key (18-30 ns at 1 M to 10 M keys).
 *
 * The mapping is a header page (struct kbloom_map_header) followed by the
 * cells, which kbloom_filter_init() allocates with vmalloc in whole pages,
 * zeroed and charged to the creator's memory cgroup.  Pages are handed to
 * the mapping one fault at a time, as perf does with its vmalloc'ed ring
 * buffers: a reader that checks a few keys of a 1 GiB filter then costs a
 * few page-table entries, not the 2 MiB of them an eager
 * vm_insert_pages() would build at mmap() time.
 *
 * Lifetime needs nothing of its own: the mapping holds its struct file,
 * the file holds the filter (and, through the cdev's owner, the module),
 * so the cells outlive destroy until the last munmap() and rmmod is
 * refused while any mapping exists.
 *
 * A scalable filter's mapping adds a table of its sub-filters after the
 * header page (struct kbloom_map_subfilter, room for every sub-filter
 * its schedule allows: 32 KiB at most) and places sub-filter i's cells
 * at a page-aligned offset that follows from the sizes of those before
 * it, so the layout never moves: growth adds pages past map_bytes.  A
 * sub-filter's entry is written, and the header's count raised, between
 * the chain's building it and publishing it (kbloom_chain_grow_prepare()),
 * so no add reaches a sub-filter a mapped reader cannot see.  CLEAR and a
 * load lower the count, with the sequence odd, before the sub-filters
 * are freed after synchronize_rcu(): a fault looks its page up under
 * rcu_read_lock(), and a page already mapped keeps a reference of its
 * own (the fault's get_page()), so the freed cells stay readable, and
 * stale, to that mapping alone, which the sequence tells to map again.
 * A page the mapping had not touched yet, of a sub-filter dropped since
 * mmap() accepted its range, faults to a page of zeros (the table's
 * allocation keeps one past its end): a mapping never raises SIGBUS
 * within its length, and a reader, which finds the sequence moved, maps
 * again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "kbloom_internal.h"

/* The header page and the cells (a scalable filter's present ones). */
static unsigned long kbloom_map_pages(const struct kbloom_dev *kd)
{
	if (kd->scalable)
		return READ_ONCE(kd->map->map_bytes) >> PAGE_SHIFT;
	return 1 + (PAGE_ALIGN(kbloom_geometry_bytes(&kd->filter.geo)) >>
		    PAGE_SHIFT);
}

/* The end of the first n sub-filters' cells, page-aligned. */
static u64 kbloom_map_end(const struct kbloom_dev *kd, u32 n)
{
	const struct kbloom_map_subfilter *e = &kd->map_subs[n - 1];
	struct kbloom_geometry geo = kd->filter.geo;

	geo.nblocks = e->nblocks;
	return e->cells_offset + PAGE_ALIGN(kbloom_geometry_bytes(&geo));
}

/* Sub-filter index's table entry, from its geometry; grow_lock or create. */
static void kbloom_map_describe(struct kbloom_dev *kd, u32 index)
{
	const struct kbloom_geometry *geo =
		&kbloom_chain_sub(&kd->scalable->chain, index)->f.geo;
	struct kbloom_map_subfilter *e = &kd->map_subs[index];

	/* Right after the ones before it. */
	e->cells_offset = index ? kbloom_map_end(kd, index) :
				  kd->map->cells_offset;
	e->nblocks = geo->nblocks;
	e->seed = geo->seed;
	e->k = geo->k;
}

/*
 * The table, sub-filter 0's entry and the header's scalable fields.  The
 * table is vmalloc'ed in whole pages, which the faults hand out, and one
 * page more, never written: the zeros a fault past the sub-filters
 * present gets (kbloom_chain_page()).
 */
static u64 kbloom_map_table_bytes(u32 subs)
{
	return PAGE_ALIGN((u64)subs * sizeof(struct kbloom_map_subfilter));
}

u64 kbloom_map_held(u32 subs)
{
	/* The header's page; a chain's table and its page of zeros. */
	return PAGE_SIZE + (subs ? kbloom_map_table_bytes(subs) + PAGE_SIZE : 0);
}

static int kbloom_map_init_chain(struct kbloom_dev *kd)
{
	const struct kbloom_chain *c = &kd->scalable->chain;
	const struct kbloom_geometry *g0 = &kbloom_chain_sub(c, 0)->f.geo;
	struct kbloom_map_header *hdr = kd->map;
	u64 table = kbloom_map_table_bytes(kbloom_chain_max_subs(&c->params));

	kd->map_subs = __vmalloc(table + PAGE_SIZE, GFP_KERNEL_ACCOUNT |
				 __GFP_ZERO | __GFP_NOWARN);
	if (!kd->map_subs)
		return -ENOMEM;
	hdr->version = KBLOOM_MAP_VERSION_CHAIN;
	/* Sub-filter 0's, designed for a share of the filter's rate. */
	hdr->k = g0->k;
	hdr->nblocks = g0->nblocks;
	hdr->cells_bytes = kbloom_geometry_bytes(g0);
	hdr->expansion = kd->scalable->chain.params.expansion;
	hdr->subs_offset = PAGE_SIZE;
	hdr->cells_offset = PAGE_SIZE + table;
	kbloom_map_describe(kd, 0);
	hdr->map_bytes = kbloom_map_end(kd, 1);
	hdr->subfilters = 1;
	return 0;
}

/*
 * Sub-filter index, built but not yet published by the chain: its entry,
 * then the count that covers it.  Under grow_lock.
 */
void kbloom_map_sub_added(struct kbloom_dev *kd, u32 index)
{
	kbloom_map_describe(kd, index);
	WRITE_ONCE(kd->map->map_bytes, kbloom_map_end(kd, index + 1));
	/* Pairs with the acquire of readers and of the fault. */
	smp_store_release(&kd->map->subfilters, index + 1);
}

/* Down to the first n sub-filters; kd->lock exclusive, sequence odd. */
void kbloom_map_truncate(struct kbloom_dev *kd, u32 n)
{
	lockdep_assert_held_write(&kd->lock);
	/* After the cells it no longer covers were last changed. */
	smp_store_release(&kd->map->subfilters, n);
	WRITE_ONCE(kd->map->map_bytes, kbloom_map_end(kd, n));
}

int kbloom_map_init(struct kbloom_dev *kd)
{
	const struct kbloom_geometry *geo = &kd->filter.geo;
	struct kbloom_map_header *hdr;

	hdr = (void *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
	if (!hdr)
		return -ENOMEM;
	hdr->magic = KBLOOM_MAP_MAGIC;
	hdr->version = KBLOOM_MAP_VERSION;
	hdr->header_bytes = sizeof(*hdr);
	hdr->type = geo->type;
	hdr->k = geo->k;
	hdr->nblocks = geo->nblocks;
	hdr->seed = geo->seed;
	hdr->capacity = geo->capacity;
	hdr->cells_offset = PAGE_SIZE;
	hdr->cells_bytes = kbloom_geometry_bytes(geo);
	hdr->page_size = PAGE_SIZE;
	kd->map = hdr;
	if (kd->scalable) {
		int err = kbloom_map_init_chain(kd);

		if (err) {
			free_page((unsigned long)hdr);
			kd->map = NULL;
		}
		return err;
	}
	hdr->map_bytes = (u64)kbloom_map_pages(kd) << PAGE_SHIFT;
	/*
	 * A window's live planes, kept equal to the filter's own by the
	 * core's rotations and loads, so that a mapped check ANDs with the
	 * same set an ioctl would.
	 */
	if (geo->type == KBLOOM_TYPE_WINDOW) {
		hdr->generations = geo->generations;
		hdr->plane_order = geo->plane_order;
		hdr->live = kd->filter.win.live;
		hdr->rotations = kd->filter.win.rotations;
		kd->filter.win.live_mirror = &hdr->live;
	}
	return 0;
}

void kbloom_map_free(struct kbloom_dev *kd)
{
	kd->filter.win.live_mirror = NULL;
	vfree(kd->map_subs);
	kd->map_subs = NULL;
	free_page((unsigned long)kd->map);
	kd->map = NULL;
}

/*
 * The write side of a sequence count in the header page, under kd->lock
 * held exclusive, so the plain read-modify-write has a single writer.
 * Readers of the mapping see it odd while the cells are rewritten.
 */
void kbloom_map_rewrite_begin(struct kbloom_dev *kd)
{
	lockdep_assert_held_write(&kd->lock);
	WRITE_ONCE(kd->map->sequence, kd->map->sequence + 1);
	smp_wmb();	/* odd before any cell changes */
}

void kbloom_map_rewrite_end(struct kbloom_dev *kd)
{
	lockdep_assert_held_write(&kd->lock);
	smp_wmb();	/* every cell before even again */
	WRITE_ONCE(kd->map->sequence, kd->map->sequence + 1);
}

u64 kbloom_map_sequence(const struct kbloom_dev *kd)
{
	return READ_ONCE(kd->map->sequence);
}

void kbloom_map_mark_dead(struct kbloom_dev *kd)
{
	WRITE_ONCE(kd->map->flags, kd->map->flags | KBLOOM_MAP_DEAD);
}

static struct kbloom_dev *kbloom_vma_dev(struct vm_area_struct *vma)
{
	return ((struct kbloom_file *)vma->vm_file->private_data)->kd;
}

/* Every piece of a mapping (fork and split make more) is counted. */
static void kbloom_vm_open(struct vm_area_struct *vma)
{
	atomic_inc(&kbloom_vma_dev(vma)->mappings);
}

static void kbloom_vm_close(struct vm_area_struct *vma)
{
	atomic_dec(&kbloom_vma_dev(vma)->mappings);
}

/*
 * A page of a scalable filter's table or cells, with a reference; past
 * the sub-filters present, the page of zeros after the table.  Under
 * RCU, which keeps a sub-filter a CLEAR or load detaches until the
 * reference is taken.
 */
static struct page *kbloom_chain_page(struct kbloom_dev *kd, pgoff_t pgoff)
{
	u64 at = (u64)pgoff << PAGE_SHIFT, table = kd->map->cells_offset;
	const struct kbloom_map_subfilter *e;
	struct kbloom_chain_sub *sub;
	struct page *page = NULL;
	u32 i, n;

	if (at < table) {
		page = vmalloc_to_page((u8 *)kd->map_subs + at - PAGE_SIZE);
		get_page(page);
		return page;
	}
	rcu_read_lock();
	/* Pairs with the release of kbloom_map_sub_added(). */
	n = smp_load_acquire(&kd->map->subfilters);
	for (i = n; i-- > 0;) {
		e = &kd->map_subs[i];
		if (at < e->cells_offset)
			continue;
		if (at < kbloom_map_end(kd, i + 1)) {
			sub = kbloom_chain_sub(&kd->scalable->chain, i);
			page = vmalloc_to_page((u8 *)sub->f.words +
					       (at - e->cells_offset));
			get_page(page);
		}
		break;
	}
	rcu_read_unlock();
	if (!page) {
		page = vmalloc_to_page((u8 *)kd->map_subs + table - PAGE_SIZE);
		get_page(page);
	}
	return page;
}

static vm_fault_t kbloom_vm_fault(struct vm_fault *vmf)
{
	struct kbloom_dev *kd = kbloom_vma_dev(vmf->vma);
	struct page *page;

	if (kd->scalable && vmf->pgoff) {
		vmf->page = kbloom_chain_page(kd, vmf->pgoff);
		return 0;
	}

	/* mmap() checked the range and the mapping can only shrink. */
	if (vmf->pgoff >= kbloom_map_pages(kd))
		return VM_FAULT_SIGBUS;
	if (!vmf->pgoff)
		page = virt_to_page(kd->map);
	else
		page = vmalloc_to_page((u8 *)kd->filter.words +
				       ((vmf->pgoff - 1) << PAGE_SHIFT));
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct kbloom_vm_ops = {
	.open = kbloom_vm_open,
	.close = kbloom_vm_close,
	.fault = kbloom_vm_fault,
};

int kbloom_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct kbloom_dev *kd = ((struct kbloom_file *)file->private_data)->kd;
	unsigned long pages = kbloom_map_pages(kd);

	/*
	 * VM_MAYSHARE, not VM_SHARED: the kernel clears VM_SHARED from a
	 * MAP_SHARED mapping of a file not open for writing, which is how
	 * readers open a filter.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	if (vma->vm_pgoff >= pages || vma_pages(vma) > pages - vma->vm_pgoff)
		return -EINVAL;
	if (READ_ONCE(kd->dead))
		return -ENODEV;
	/*
	 * Never writable or executable, even by a later mprotect(); never
	 * grown by mremap() past the filter; and no part of a core dump,
	 * which would otherwise copy a filter of up to 1 GiB per process.
	 */
	vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &kbloom_vm_ops;
	kbloom_vm_open(vma);
	return 0;
}
