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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "kbloom_internal.h"

/* The header page and the cells, in pages. */
static unsigned long kbloom_map_pages(const struct kbloom_dev *kd)
{
	return 1 + (PAGE_ALIGN(kbloom_geometry_bytes(&kd->filter.geo)) >>
		    PAGE_SHIFT);
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
	hdr->map_bytes = (u64)kbloom_map_pages(kd) << PAGE_SHIFT;
	hdr->page_size = PAGE_SIZE;
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
	kd->map = hdr;
	return 0;
}

void kbloom_map_free(struct kbloom_dev *kd)
{
	kd->filter.win.live_mirror = NULL;
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

static vm_fault_t kbloom_vm_fault(struct vm_fault *vmf)
{
	struct kbloom_dev *kd = kbloom_vma_dev(vmf->vma);
	struct page *page;

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
	/* The mapping shows one array of blocks: no range fits another. */
	if (kd->scale)
		return READ_ONCE(kd->dead) ? -ENODEV : -EOPNOTSUPP;
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
