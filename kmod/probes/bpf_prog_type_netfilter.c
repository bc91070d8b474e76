// SPDX-License-Identifier: GPL-2.0
/* BPF_PROG_TYPE_NETFILTER: netfilter hooks run BPF programs (6.4). */
#include <linux/bpf.h>

int kbloom_probe(void);

int kbloom_probe(void)
{
	return BPF_PROG_TYPE_NETFILTER;
}
