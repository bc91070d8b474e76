// SPDX-License-Identifier: GPL-2.0
/* vm_flags_set() and vm_flags_clear(): vma->vm_flags is read-only (6.3). */
#include <linux/mm.h>

void kbloom_probe(struct vm_area_struct *vma);

void kbloom_probe(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTDUMP);
	vm_flags_clear(vma, VM_MAYWRITE);
}
