/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kbloom: Bloom filters held in kernel memory, shared between processes.
 *
 * Nodes
 *   /dev/kbloom-control   create and destroy named filters (root only by
 *                         default).
 *   /dev/kbloom/<name>    one character device per filter.  Read permission
 *                         allows CHECK, GET_INFO, REPORT, read() and a
 *                         read-only mmap() (see "Mapping"); write
 *                         permission allows ADD, DELETE, CLEAR, MERGE,
 *                         INTERSECT and write().
 *                         The mode binds users of the nodes only: kernel
 *                         modules and BPF programs check and add through
 *                         include/linux/kbloom_api.h whatever it is, and a
 *                         process with CAP_BPF alone can run such a program
 *                         on demand (BPF_PROG_RUN of a SYSCALL program), so
 *                         CAP_BPF is trusted like root for every filter.
 *   /sys/class/kbloom/<name>/  the geometry, readable by all, and the
 *                         statistics, readable by all only when others
 *                         may read the node (its node_mode at create has
 *                         S_IROTH), else by root alone: GET_INFO is how the
 *                         owner and group read them.
 *
 * Rates are integers in parts per billion (ppb): 1 % is 10000000.
 *
 * Filter types.  Every filter is an array of 64-byte blocks, one block per
 * key, and a key probes k cells of its block.
 *   KBLOOM_TYPE_BITS      512 one-bit cells per block.  No DELETE.
 *   KBLOOM_TYPE_COUNTING  128 four-bit counters per block, so that keys can
 *                         be deleted.  ADD increments the key's k counters
 *                         (once per probe: a cell two of its probes share
 *                         counts twice, and DELETE takes it down twice),
 *                         stopping at KBLOOM_COUNTER_MAX, where a counter
 *                         stays for good: DELETE never decrements it, so
 *                         overflow cannot cause false negatives.  CHECK
 *                         asks that all k counters be non-zero.  A counting
 *                         filter needs 4 times the memory of a bits filter
 *                         with as many cells, and its smaller blocks load
 *                         less evenly; sizing by rate accounts for both (a
 *                         filter for 1 % takes 4.4 times the bytes of a
 *                         bits one, for 0.1 % 4.9 times).
 *   KBLOOM_TYPE_WINDOW    a sliding window: g generations (2 to
 *                         KBLOOM_GENERATIONS_MAX) of 512-bit blocks.  ADD
 *                         sets the key in the current generation; CHECK
 *                         answers "may be present" when any live
 *                         generation has it.  A rotation empties the
 *                         oldest generation and makes a clean one current:
 *                         every rotate_ms milliseconds (a kernel timer),
 *                         after rotate_every keys added to the current
 *                         generation, or when asked (KBLOOM_IOC_ROTATE).
 *                         Each cell of a key block is a mask of P bits, P
 *                         the smallest power of two above g (bit i: plane
 *                         i set it), so a key block is P 64-byte lines, a
 *                         key's k probes fall in at most k adjacent lines
 *                         of it, and each generation is a 512-cell blocked
 *                         filter of its own.  g planes are live; one more,
 *                         the spare, is emptied in the background after a
 *                         rotation, so rotating never waits for a clear
 *                         and readers never see a half-cleared generation.
 *                         No DELETE.
 *                         The guarantee: a key whose ADD began at time t
 *                         is found by every CHECK until at least
 *                         t + (g - 1) * rotate_ms, and while fewer than
 *                         (g - 1) * rotate_every ADDs have begun after
 *                         it, whichever ends first (a ROTATE by hand
 *                         shortens both); after g rotations it is gone,
 *                         except as a false positive.  With several
 *                         writers, an ADD already running when the key's
 *                         began may count towards a later generation: the
 *                         count then holds up to one batch per concurrent
 *                         writer short.  Rotation by count:
 *                         KBLOOM_IOC_ADD stops at the key that fills the
 *                         generation, rotates, and goes on with the rest
 *                         of the batch, so each generation gets exactly
 *                         rotate_every keys of one writer's ADDs, and a
 *                         full one is rotated by the time the ioctl
 *                         returns.  Adds from the kernel (in-kernel API,
 *                         BPF), which may run in atomic context, leave the
 *                         rotation to a kernel worker that runs soon after:
 *                         adds meanwhile still land in the full
 *                         generation, so it may hold more than
 *                         rotate_every keys (the guarantee holds; the rate
 *                         is higher until the rotation), as it may when
 *                         several writers add at once.  A generation's
 *                         count holds only keys added to it since it was
 *                         last emptied: keys whose generation was retired,
 *                         cleared or loaded over before a racing batch
 *                         counted them are not charged to the keys that
 *                         come after (they would bring a rotation early).
 *   Memory: the byte caps (the module parameters max_filter_bytes, one
 *   filter, and max_total_bytes, all filters and the images being
 *   restored) count all the kernel memory a filter holds, "held_bytes"
 *   (info and sysfs): its cells in whole pages, and the rest, the same
 *   for a filter of any size (its structures, write locks, per-CPU
 *   counts, the mapping's header page; a scalable filter's for each
 *   sub-filter, which dominates for small sub-filters, and its slot and
 *   mapping tables sized for its last sub-filter); total_bytes (sysfs)
 *   is their sum.  So a filter of exactly max_filter_bytes of cells
 *   does not fit.
 *   For every type, "bits" and "bits_per_key" (create) and "bits" and
 *   "bytes" (info) count memory, and nblocks counts 64-byte blocks of
 *   memory (a window key block is P of them); "bits_set" and "fill_ppb"
 *   count cells that are non-zero (bits set, counters above 0, or a window
 *   cell set in any live generation) against nblocks * 512,
 *   nblocks * 128 or nblocks * 512 / P cells.
 *
 * Scalable filters: filters that grow, for users who cannot know their
 * key count (Almeida et al., "Scalable Bloom Filters", 2007).  A bits or
 *   counting filter created with an expansion e (KBLOOM_EXPANSION_MIN to
 *   _MAX) is a chain of sub-filters.  Sub-filter i (0, the first, is the
 *   oldest) is designed for capacity * e^i keys at the rate
 *   fp_ppb / ((i + 1) * (i + 2)), with a seed of its own: the create's
 *   seed for sub-filter 0, for i >= 1 xxh64's final avalanche (the
 *   multiply-xorshift steps that end xxh64) of seed + i * 0x9e3779b185ebca87.
 *   A key's hash h is xxh64 of the key with the seed; in sub-filter
 *   i >= 1 it probes the avalanche of h ^ (that sub-filter's seed), placed
 *   as "Where a key's cells are" says.
 *   The bound: while each sub-filter holds at most its capacity, the
 *   filter's false-positive rate is at most
 *   fp_ppb * (1 - 1 / (subfilters + 1)) < fp_ppb, however many keys it
 *   took (the union bound over the sub-filters' rates, a telescoping sum).
 *   CHECK answers "may be present" when any sub-filter does.  ADD of a key
 *   that some sub-filter already answers "may be present" for changes no
 *   bit (a counting filter counts the key once more in the oldest such
 *   sub-filter, its home); a new key goes to the newest sub-filter and
 *   counts in its keys.  When the newest holds its capacity of new keys,
 *   the filter grows by one sub-filter before it takes the next new key:
 *   ADD allocates it then (and may sleep for it); an add from the
 *   in-kernel API or a BPF program, which may run in atomic context and
 *   never allocates, fails with -EAGAIN, changes nothing, and has a
 *   kernel worker grow the filter, soon after, for the next add.  Growth
 *   ends with E2BIG past max_filter_bytes (what all of the filter holds,
 *   see "Memory" above) or max_total_bytes, at KBLOOM_SUBFILTERS_MAX sub-filters or
 *   where capacity * e^i passes 2^64 - 1, or where a sub-filter would pass
 *   the module's own limit; with ENOMEM when the memory (or the memory
 *   cgroup of the adder, or of the creator for the worker) has none.
 *   Then ADD stops at that key (done says where) and the in-kernel adds
 *   fail with that errno instead of -EAGAIN (they ask the worker to try
 *   again, at most once per backoff that doubles from 10 ms to 1 s with
 *   each failure in a row, so a raised cap lets the filter grow within a
 *   second; at the filter's last sub-filter never, until a CLEAR or a
 *   load makes room); keys already present
 *   are still accepted, and saturated is 1 until a growth succeeds.  The
 *   rate never passes the bound: a full filter takes no new key.
 *   DELETE (counting) takes a key from its home, so every ADD is undone
 *   by one DELETE and no other key's counters are touched; it gives back
 *   no capacity.  The home stays put: only the newest sub-filter takes
 *   new keys (an add reserves its place there before writing, so racing
 *   adders never take it past its capacity, and a growth waits for the
 *   adds that may still reach the old newest before the new one takes
 *   any), and an ADD of a known key never sets a cell from zero.  CLEAR
 *   takes the filter back
 *   to sub-filter 0 alone, emptied, the others' memory freed before it
 *   returns.  MERGE into a bits scalable filter needs the other scalable
 *   and compatible (equal capacity, fp_ppb, expansion, type and seed),
 *   else EXDEV; it grows this filter to as many sub-filters as the other
 *   has (E2BIG or ENOMEM as a growth, keys unchanged) and merges each
 *   sub-filter into the one of its index; sub-filters may then hold more
 *   than their capacity, and fp_now_ppb says what that costs.  Not for
 *   scalable filters (EOPNOTSUPP, after EBADF and ENODEV): INTERSECT,
 *   since two filters hold a common key in sub-filters of different
 *   indexes; and MERGE into a counting one (from any filter, itself
 *   included, before EXDEV), since the other's keys would land in its
 *   older sub-filters, which could then answer "may be present" for keys
 *   of its newer ones and move their homes: a DELETE would then take
 *   counts of keys still there.  Their
 *   mappings list the sub-filters ("Mapping"); their images are of version
 *   KBLOOM_IMAGE_VERSION_CHAIN ("Filter images" says what a load does to
 *   the sub-filters).  GET_INFO reports the whole filter: capacity and fp_target_ppb
 *   as created, nblocks, bits, bytes, bits_set, est_keys and fill_ppb of
 *   all sub-filters together, k and seed of sub-filter 0, fp_design_ppb
 *   the rate with every present sub-filter at its capacity, fp_now_ppb
 *   1 - prod(1 - fp_now of each), expansion and subfilters;
 *   KBLOOM_IOC_GET_SUBFILTER reports one sub-filter.
 *
 * Control node commands (the node must be open for writing, else EBADF)
 *   KBLOOM_CTL_CREATE   struct kbloom_create.  Exactly one way of choosing
 *                       the geometry must be used:
 *                         capacity + fp_ppb         (k chosen, k must be 0)
 *                         bits [+ k]                (capacity optional)
 *                         capacity + bits_per_key [+ k]
 *                       A zero k means "best k for the geometry".  type
 *                       is KBLOOM_TYPE_BITS, _COUNTING or _WINDOW.  A
 *                       window filter needs generations (2 to
 *                       KBLOOM_GENERATIONS_MAX) and may have rotate_ms
 *                       (KBLOOM_ROTATE_MS_MIN to KBLOOM_ROTATE_MS_MAX)
 *                       and rotate_every (1 to KBLOOM_ROTATE_EVERY_MAX),
 *                       0 for none; other types need all three 0.  For a
 *                       window, capacity counts the keys of g - 1
 *                       generations (the window the guarantee covers),
 *                       fp_ppb is the rate of the whole window when all g
 *                       live generations hold capacity / (g - 1) keys
 *                       each (just before a rotation), bits and
 *                       bits_per_key count all the memory (spare plane
 *                       included); with rotate_every and no capacity,
 *                       capacity is (g - 1) * rotate_every.  The
 *                       seed must be 0 without KBLOOM_CREATE_SEED.
 *                       expansion 0 makes a filter of fixed size; 1 to
 *                       KBLOOM_EXPANSION_MAX a scalable one (see
 *                       "Scalable filters"): type bits or counting,
 *                       sized by capacity + fp_ppb, k 0; the caps judge
 *                       sub-filter 0.  The
 *                       node belongs to the caller's fsuid and fsgid;
 *                       node_mode holds permission bits only (0777).
 *                       Names are one namespace, and every user who may
 *                       write the control node may create any free name
 *                       with any mode: whoever may write it is trusted
 *                       that far (root alone by default; a group with
 *                       userspace/60-kbloom.rules).  CREATE is
 *                       exclusive (EEXIST for a name in use, never the
 *                       existing filter), so a service that creates its
 *                       filter knows it made it; one that finds the name
 *                       taken, or opens a filter it expects to be its
 *                       own, checks the node's owner: st_uid of
 *                       /dev/kbloom/<name> (fstat() of an open
 *                       descriptor) is the creator's fsuid for the
 *                       filter's life, and only root can change it.
 *                       bits_per_key is at most KBLOOM_MAX_BITS_PER_KEY,
 *                       for a window too, where it counts all the memory
 *                       per window key: the few windows that need more
 *                       (g = 2 at 0.1 % needs 70) are sized by fp_ppb or
 *                       bits instead.
 *                       Errors: EINVAL (bad name, "." or "..", geometry,
 *                       bits_per_key over KBLOOM_MAX_BITS_PER_KEY,
 *                       flags, seed, reserved field, type, node mode,
 *                       generations, rotate_ms, rotate_every, an
 *                       expansion over KBLOOM_EXPANSION_MAX, or one
 *                       with a window type, bits, bits_per_key, k, or
 *                       without capacity or fp_ppb),
 *                       EEXIST (name in use, also by a filter whose
 *                       destroy has not returned yet, or one of the names
 *                       taken by the class files "total_filters" and
 *                       "total_bytes"),
 *                       E2BIG (over the per-filter or total byte cap,
 *                       or the module's own limit whatever the caps:
 *                       128 GiB of cells, and on a 32-bit kernel 4 GiB
 *                       less 1 MiB, what its size_t holds),
 *                       ENOSPC (filter count cap reached), ENOMEM, EFAULT.
 *   KBLOOM_CTL_DESTROY  struct kbloom_name.  Open file descriptors of the
 *                       filter keep working only for close(); every other
 *                       call on them returns ENODEV.  An open racing with
 *                       destroy fails (ENOENT, ENXIO or ENODEV); it never
 *                       reaches a filter created afterwards, even under
 *                       the same name, as minors are not reused at once.
 *                       In-kernel users and BPF programs holding the
 *                       filter (include/linux/kbloom_api.h) get -ENODEV
 *                       from then on too; its id (sysfs "id") finds
 *                       nothing.  The memory goes at the last close,
 *                       munmap() or in-kernel release.
 *                       Write access to the control node is not enough:
 *                       the caller also needs the right to the filter.
 *                       Allowed when the caller's fsuid owns it (the
 *                       fsuid it was created with), or the caller may
 *                       write its node by the node_mode, uid and gid
 *                       given at create (owner, group, other classes as
 *                       for a file: a member of its group, by fsgid or a
 *                       supplementary group, is judged by the group bits
 *                       alone), or has CAP_SYS_ADMIN.
 *                       Errors: EINVAL (bad name, reserved field),
 *                       ENOENT (no such filter), EACCES (no right to the
 *                       filter; nothing changed), EFAULT.
 *
 * Filter node commands
 *   KBLOOM_IOC_ADD      struct kbloom_batch.  Adds count keys.  Bit i of
 *                       results is set when key i set at least one new bit
 *                       (took a counter from 0 to 1); hits counts those
 *                       keys.  Needs write permission.
 *   KBLOOM_IOC_CHECK    struct kbloom_batch.  Bit i of results is set when
 *                       key i may be present; hits counts those keys.
 *   KBLOOM_IOC_DELETE   struct kbloom_batch, counting filters only (else
 *                       EOPNOTSUPP, checked before the batch, nothing
 *                       changed).  A key whose k counters are all non-zero
 *                       is removed: each counter is decremented (except
 *                       sticky ones at KBLOOM_COUNTER_MAX) and bit i of
 *                       results is set; hits counts those keys.  Any other
 *                       key is reported absent and changes nothing.  Delete
 *                       only keys that were added, as often as they were
 *                       added: deleting another key that happens to look
 *                       present (a false positive) decrements counters that
 *                       other keys need, and those keys may then be
 *                       reported absent (false negatives), which no
 *                       counting filter can prevent.  Needs write
 *                       permission.
 *   KBLOOM_IOC_CLEAR    no argument (must be 0).  Resets every cell and
 *                       counter.  Needs write permission.  A window filter
 *                       keeps its rotation schedule and its count of
 *                       rotations; every generation is emptied.  An add
 *                       racing it from any path (another file's ioctl,
 *                       the in-kernel API, a BPF program, a key's cells
 *                       all being in one block) lands wholly before the
 *                       clear of its block, and is gone, or wholly after
 *                       it, and is kept: once CLEAR returns, every cell
 *                       set belongs to a key whose add had not returned
 *                       when CLEAR began.
 *   KBLOOM_IOC_ROTATE   no argument (must be 0).  Window filters only
 *                       (else EOPNOTSUPP): rotates now, as the timer
 *                       would; returns once the retired generation is
 *                       empty (a clear of its plane, which concurrent
 *                       ADD and CHECK do not wait for).  The timer's next
 *                       rotation is rotate_ms from this one.  Needs write
 *                       permission.
 *   KBLOOM_IOC_GET_WINDOW struct kbloom_window_info (output only).  Window
 *                       filters only (else EOPNOTSUPP): the rotation
 *                       settings and state, and per generation, newest
 *                       first, the keys added into it and what its cells
 *                       show.
 *   KBLOOM_IOC_MERGE    struct kbloom_other.  Union: bits are ORed,
 *                       counters added (stopping at KBLOOM_COUNTER_MAX),
 *                       and window generations by age: the other's
 *                       current generation into this one's current, its
 *                       previous into the previous, and so on.
 *                       A filter merged with itself (through any open
 *                       file of it) is unchanged, for both types: the
 *                       union of its keys with the same keys.  Adding a
 *                       counting filter's counters to themselves would
 *                       count each key twice, and one DELETE per ADD
 *                       would then leave every key present.  A copy of
 *                       it, another filter, has its counters added.
 *   KBLOOM_IOC_INTERSECT struct kbloom_other. Bits are ANDed, counters
 *                       take the lower of the two, window generations are
 *                       ANDed by age.  Both need
 *                       write permission here and the other filter open
 *                       for reading (else EBADF).  Filters must be
 *                       compatible (same blocks, k, seed, type, and for
 *                       windows generations; their rotation settings may
 *                       differ): otherwise
 *                       EXDEV.  A destroyed other filter gives ENODEV.
 *   KBLOOM_IOC_GET_INFO struct kbloom_info (output only).
 *   KBLOOM_IOC_GET_SUBFILTER struct kbloom_subfilter: index and flags in,
 *                       the rest out.  Scalable filters only (else
 *                       EOPNOTSUPP); an index at or past the filter's
 *                       subfilters is ERANGE; flags or reserved non-zero
 *                       EINVAL.  Read permission is enough.
 *   KBLOOM_IOC_REPORT   struct kbloom_report.  Callers feed back what the
 *                       real lookup behind a CHECK answer found, so that
 *                       the observed false-positive ratio can be shown:
 *                       observed = false_positives /
 *                                  (false_positives + true_negatives).
 *                       Read permission is enough.  One report carries
 *                       at most KBLOOM_REPORT_MAX answers: a larger
 *                       false_positives + true_positives + true_negatives
 *                       (the sum taken without wrapping) is EINVAL and
 *                       records nothing.  The sums are also kept per
 *                       reporting fsuid, shown to root in sysfs
 *                       "reporters", so that who moved the figure can be
 *                       seen.  CLEAR and an image load reset all of them.
 *   Batches.  ADD, CHECK and DELETE validate every length and zero the
 *   results bitmap before touching the filter, so those errors leave it
 *   unchanged.  The keys then go in order, in runs that each take the
 *   filter's lock on their own (a batch of 65536 keys never holds off a
 *   destroy, CLEAR or load for its whole length), so an error met between
 *   two runs leaves the keys before it added, checked or deleted:
 *   EFAULT (the keys buffer faults part way, or results cannot be
 *   written), ENODEV (the filter was destroyed during the call), EINTR
 *   (a fatal signal while a window filter rotated by count), EINVAL
 *   (another thread changed the lengths since they were validated).
 *   Whatever the outcome, done tells how far the call got: keys 0 to
 *   done - 1 took effect and the others did not (0 when the call failed
 *   before the first key, count on success).  Every call that reads the
 *   struct writes it; the errors judged before the argument (EBADF,
 *   ENODEV of a filter already destroyed, EOPNOTSUPP) leave it as given,
 *   so give 0.  hits and results are written only on success.
 *   Errors of the filter commands: EINVAL (count 0 or over
 *   KBLOOM_BATCH_MAX, a key length of 0 or over KBLOOM_KEY_MAX, lengths not
 *   summing to keys_len, flags, pad or reserved field, a CLEAR argument,
 *   a REPORT over KBLOOM_REPORT_MAX, a ROTATE argument),
 *   EFAULT (bad pointer), EBADF (the node is not open with the access the
 *   command needs, or the MERGE/INTERSECT fd is not a kbloom filter open
 *   for reading), ENODEV (filter destroyed), EOPNOTSUPP (DELETE on a bits
 *   filter, ROTATE or GET_WINDOW on a filter that is not a window,
 *   GET_SUBFILTER on one that is not scalable, INTERSECT with a scalable
 *   filter on either side, MERGE into a counting scalable filter), ERANGE
 *   (a GET_SUBFILTER index),
 *   E2BIG and ENOMEM (an ADD or MERGE that could not grow a scalable
 *   filter),
 *   ENOTTY (unknown command).
 *   They are judged in this order: ENOTTY (an unknown command is ENOTTY
 *   always, also on a destroyed filter, the kernel's rule for ioctls),
 *   EBADF (the access the command needs: EBADF before EOPNOTSUPP, and
 *   before ENODEV), ENODEV, EOPNOTSUPP (the filter's type), then the
 *   argument (EFAULT, EINVAL, EXDEV).  After destroy, lseek() is ENODEV
 *   too, as read(), write() and mmap() are.
 *
 * Images
 *   read() on a filter node streams its image from offset 0: a
 *   struct kbloom_image_header, then a struct kbloom_image_window,
 *   nblocks * 64 bytes of cells (64-bit little-endian words; a counting
 *   filter's counter i of a block is bits 4 * (i % 16) to
 *   4 * (i % 16) + 3 of the block's word i / 16), then a little-endian
 *   CRC32C over all that came before.  Reads must be
 *   sequential: lseek() only rewinds to 0 and a read or write at any other
 *   offset than the stream's is ESPIPE.  Adds and deletes may run during a
 *   read, and keys added before it began and not deleted are in the
 *   image, as are keys merged in; a CLEAR, INTERSECT or image load during
 *   a read ends the stream with ESTALE (read again from offset 0), and so
 *   does a rotation of a window filter (it retires a generation the
 *   image's header says is live).  A window's image holds the cells of
 *   its live generations only (the spare plane reads as 0).  The
 *   image carries add_calls and add_new but not the delete counters,
 *   which a load resets to 0.
 *   Versions: the module writes and reads version 3, whose header is
 *   followed by a struct kbloom_image_window (all zero but for window
 *   filters) and whose header_bytes counts both.  Versions 1 and 2
 *   (kbloom 0.1) placed a key's cells inside its block differently (double
 *   hashing), so their cells would answer for other keys: they are
 *   refused with EPROTO, and such a filter is rebuilt by adding its keys
 *   again.  A window image restores the generations, which one is
 *   current, the rotations so far, the keys added to each generation and
 *   the time since the last rotation (so the timer's next rotation comes
 *   when it would have); the filter keeps its own rotate_ms and
 *   rotate_every.
 *   A scalable filter's image is of version 4 (KBLOOM_IMAGE_VERSION_CHAIN):
 *   the header holds the filter as created (capacity, fp_target_ppb, type,
 *   and sub-filter 0's k and seed) and in nblocks the blocks of all its
 *   sub-filters; the window part is zero; a struct kbloom_image_chain and
 *   one struct kbloom_image_subfilter per sub-filter follow, all counted
 *   in header_bytes; then the cells of sub-filter 0, 1, ... in turn, each
 *   as a version 3 image places them.  A read streams the sub-filters
 *   there were when it began; a growth during it does not end it (the
 *   keys added before it began are in those).  A version 4 image loads
 *   only into a scalable filter of equal capacity, fp_target_ppb,
 *   expansion, type and seed (EXDEV otherwise, and for a version 3 image
 *   into a scalable filter); each sub-filter's nblocks, seed and k must be
 *   those of its index (EINVAL otherwise).  The load leaves the filter with
 *   the image's sub-filters, their cells and their keys: it grows the
 *   filter to as many first, as ADD would (E2BIG, ENOMEM: the image is
 *   rejected, and the filter keeps the empty sub-filters it grew, its keys
 *   and answers unchanged), or frees those past the image's before it
 *   returns.
 *   write() of a whole image, starting at offset 0, restores it into a
 *   compatible filter at the final byte, with the report counters reset;
 *   the filter keeps its own capacity and fp_target_ppb (it was sized by
 *   them), whatever the image's say.  Once that write() returns, every
 *   key of the image is found, whatever adds raced it from any path; an
 *   add that had not returned when the write() began may be kept or not
 *   (each key wholly).  MERGE keeps racing adds, and so does a rotation
 *   in the live generations; INTERSECT keeps a racing add whole or
 *   intersects it whole.  The magic and the version are
 *   judged as their bytes arrive (a first byte other than 'K' fails that
 *   very write with ENOEXEC), the other header fields once the whole
 *   header has arrived, the checksum at the final byte.  A rejected image
 *   is dropped whole, and the next one starts with a write at offset 0
 *   (lseek(fd, 0, SEEK_SET), then write(); or pwrite() at 0); a write at
 *   any other offset is ESPIPE.  The call that fails moves no offset: the
 *   file offset stays where write() found it, and pwrite() never moves it.
 *   The filter is unchanged if the image is rejected:
 *     ENOEXEC  wrong magic          EPROTO   unsupported version
 *     EINVAL   invalid header field EXDEV    geometry, type, seed or
 *              (window part,                 generations differ (scalable:
 *              sub-filters too)              capacity, rate, expansion,
 *                                            or only one is scalable)
 *     EMSGSIZE longer than its header says (also: any byte written after
 *              an image was loaded, until a write at offset 0 starts anew)
 *     E2BIG    the image is staged whole before it is checked, and its
 *              buffer counts against max_total_bytes with the filters:
 *              past it, the write that completes the header fails; for
 *              a scalable filter that write also fails when the cells
 *              the header counts pass max_filter_bytes (nothing is
 *              staged for an image the load would refuse), and the
 *              growth the image needs may fail at the final byte (as
 *              for ADD)
 *     EFAULT, ENOMEM  as for any write, and the image is rejected too
 *     EBADMSG  CRC mismatch
 *     ENODATA  truncated image: returned by the close() that drops the
 *              last reference to an open file holding part of an image.
 *              A close() that leaves another (a dup(), a fork()ed
 *              child's copy, a descriptor passed over a socket, a
 *              mapping) returns 0 and the stream goes on, since the image
 *              may still be finished through the others; two closes
 *              racing for the last two references may both return 0.
 *
 * Where a key's cells are (images of version 3, mappings of version 2)
 *   h = xxh64(key, seed).  The key's block is (h * nblocks) >> 64 (the
 *   high half of the 128-bit product); a window's key block is
 *   (h * (nblocks >> plane_order)) >> 64, the P = 1 << plane_order
 *   64-byte blocks from that one times P.  Its k cells are slices of
 *   64-bit draws, all arithmetic modulo 2^64: draw 0 is
 *   r = h * 0xd6e8feb86659fd93; draw d >= 1 is x = h ^ (h >> 31),
 *   x *= 0xff51afd7ed558ccd + 2 * d, x ^= x >> 29, r = x * 0xd6e8feb86659fd93.
 *   A bits or window filter's cells are 9-bit numbers (0..511), 7 per
 *   draw: cell = r >> 55, then r <<= 9; a counting filter's are 7-bit
 *   numbers (0..127), 9 per draw: cell = r >> 57, then r <<= 7.  Cell i of
 *   a bits filter is bit i % 64 of the block's word i / 64; counter i is
 *   bits 4 * (i % 16) to 4 * (i % 16) + 3 of word i / 16; a window's cell
 *   i is the P-bit mask at bit i * P of its key block (plane j at bit
 *   i * P + j).  A key may be present when all k cells are non-zero (for
 *   a window: the AND of its k masks with the live planes is non-zero).
 *   Cells may repeat within a key; a counter probed twice counts twice.
 *
 * Mapping: checks without a system call
 *   mmap() of a filter node maps the filter read-only into the caller, so
 *   that checks cost what a check of the caller's own memory costs.  Only
 *   PROT_READ with MAP_SHARED is accepted, on a node open for reading:
 *     EACCES   the node is not open for reading, or PROT_WRITE on a node
 *              not open for writing (both refused by the kernel itself)
 *     EPERM    PROT_WRITE or PROT_EXEC
 *     EINVAL   MAP_PRIVATE, or an offset or length reaching past
 *              kbloom_map_header.map_bytes
 *     ENODEV   the filter was destroyed before mmap()
 *   mprotect() can never add PROT_WRITE or PROT_EXEC (EACCES).
 *   The mapping is map_bytes long (a whole number of pages): first a
 *   header page, struct kbloom_map_header, then the cells from
 *   cells_offset (page-aligned): nblocks * 64 bytes of 64-bit words in
 *   the machine's byte order (so, on little-endian machines, exactly the
 *   cells of the image), zero up to map_bytes.  Any page-aligned part of
 *   it may be mapped.  A key's answer is the one KBLOOM_IOC_CHECK gives,
 *   computed the same way: xxh64 of the key with the seed, the block
 *   (hash * nblocks) >> 64, k cells placed as "Where a key's cells are"
 *   says (libkbloom's kbl_map() runs the module's own code;
 *   kbloom_map_header.version names the placement too, so a reader built
 *   for another one refuses the mapping instead of answering wrongly);
 *   a counting filter's key may be present when its k counters are all
 *   non-zero.  A window's key block is (hash * (nblocks / P)) >> 64,
 *   P = 1 << plane_order, and its key may be present when the AND of its
 *   k cell masks with kbloom_map_header.live is non-zero.
 *   Consistency: adds, deletes and merges change single words atomically,
 *   so a reader sees each key's cells before or after it; CLEAR,
 *   INTERSECT and an image load rewrite the whole filter and make
 *   kbloom_map_header.sequence odd while they run and even again, two
 *   higher than before, when done.  A reader who reads sequence (acquire) before a
 *   check, finds it even, and reads it unchanged after the check (after a
 *   read barrier) got an answer from one state of the filter, as an ioctl
 *   would have; otherwise it should check again (libkbloom then asks the
 *   module with an ioctl).  A rotation does not move sequence: it makes
 *   one store to live, which drops the retired plane and adds the new
 *   current one at once, before any ADD writes into the new one, and only
 *   then clears the retired plane.  A reader that loads live (acquire)
 *   once per check or batch and ANDs with it sees every key whose ADD
 *   completed before that load and is still inside its window.
 *   Lifetime: a mapping holds the open file, so the filter's memory and
 *   the module stay until the last munmap(): until then rmmod is refused
 *   (delete_module() fails with EAGAIN, as for any module in use).  After
 *   destroy the mapping keeps the last cells, sequence stops changing and
 *   flags has KBLOOM_MAP_DEAD.  fork(), partial
 *   munmap() and mremap() that moves or shrinks behave as for any shared
 *   read-only mapping; mremap() cannot grow it (EFAULT).
 *   Scalable filters: the header's version is KBLOOM_MAP_VERSION_CHAIN,
 *   its type, k, nblocks, seed, capacity, cells_offset and cells_bytes are
 *   sub-filter 0's, expansion the filter's, and from subs_offset (the
 *   page after the header) a table of struct kbloom_map_subfilter, one
 *   entry per sub-filter the filter can have (pages enough for
 *   KBLOOM_SUBFILTERS_MAX or fewer, as its schedule ends), lists each
 *   sub-filter's cells_offset (page-aligned, in index order), nblocks,
 *   seed and k; a key may be present when any sub-filter 0 .. subfilters
 *   - 1 answers so.  subfilters is published with a release after the
 *   table entry it covers, and before any ADD can reach that sub-filter:
 *   a reader that loads it (acquire) at the start of a check sees every
 *   sub-filter a completed ADD went to.  map_bytes is the end of the last
 *   of them, page-aligned; the layout of a sub-filter of one index never
 *   moves, so a growth only adds pages past map_bytes, and a reader
 *   whose mapping is shorter than the new map_bytes maps again to check
 *   the new sub-filter (mmap() takes the current map_bytes).  CLEAR and
 *   an image load may free sub-filters: they move sequence, as for every
 *   filter, and lower subfilters; pages mapped before then keep the
 *   freed cells for the mapping's life, and a page of the mapping not
 *   touched before then reads as zeros (never SIGBUS within the length
 *   mmap() accepted), so a reader whose mapping was made before sequence
 *   last moved maps again.
 *   Mapped checks do not pass through the module: check_calls, check_hits
 *   and check_ioctls do not count them.  Knowing the seed is part of
 *   reading a filter: the mapping shows it, as the image does.
 */
#ifndef _UAPI_LINUX_KBLOOM_H
#define _UAPI_LINUX_KBLOOM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define KBLOOM_IOC_MAGIC	0xBF

#define KBLOOM_NAME_MAX		32	/* includes the terminating NUL */
#define KBLOOM_KEY_MAX		4096	/* bytes per key */
#define KBLOOM_BATCH_MAX	65536	/* keys per ADD/CHECK/DELETE call */
#define KBLOOM_K_MAX		16
#define KBLOOM_MAX_BITS_PER_KEY	64	/* kbloom_create.bits_per_key */
/* Answers (fp + tp + tn) one KBLOOM_IOC_REPORT may carry */
#define KBLOOM_REPORT_MAX	((__u64)1 << 32)
#define KBLOOM_PPB		1000000000U	/* a rate of 1.0 */

/* Filter types: how the cells of a block are used. */
#define KBLOOM_TYPE_BITS	0	/* one bit per cell */
#define KBLOOM_TYPE_COUNTING	1	/* a 4-bit counter per cell */
#define KBLOOM_TYPE_WINDOW	2	/* generations that rotate */
#define KBLOOM_COUNTER_MAX	15	/* where a counter sticks */

/*
 * Window filters.  63, not 64: the 63 live planes and the spare one fill a
 * 64-bit cell.  The shortest period is what a busy machine's timers keep
 * to; the longest is what msecs_to_jiffies() takes whole (24.8 days).
 */
#define KBLOOM_GENERATIONS_MIN	2
#define KBLOOM_GENERATIONS_MAX	63
#define KBLOOM_ROTATE_MS_MIN	10
#define KBLOOM_ROTATE_MS_MAX	((__u64)1 << 31)
#define KBLOOM_ROTATE_EVERY_MAX	((__u64)1 << 48)

/*
 * Scalable filters (kbloom_create.expansion): each sub-filter's capacity
 * over the one before, and the sub-filters a filter can have at most.
 */
#define KBLOOM_EXPANSION_MIN	1
#define KBLOOM_EXPANSION_MAX	16
#define KBLOOM_SUBFILTERS_MAX	1024

/* struct kbloom_create.flags */
#define KBLOOM_CREATE_SEED	(1U << 0)	/* use .seed, else random */
#define KBLOOM_CREATE_FLAGS	KBLOOM_CREATE_SEED

struct kbloom_create {
	char name[KBLOOM_NAME_MAX];	/* 1-31 of [A-Za-z0-9._-], NUL-padded */
	__u64 capacity;			/* keys the filter is designed for */
	__u64 bits;			/* memory bits, rounded up to 512 */
	__u64 seed;			/* with KBLOOM_CREATE_SEED */
	__u32 fp_ppb;			/* target false-positive rate */
	__u32 k;			/* probes per key, 0 = best */
	__u32 bits_per_key;
	__u32 flags;
	__u32 node_mode;		/* permission bits, 0 = 0600 */
	__u32 type;			/* KBLOOM_TYPE_* */
	__u32 generations;		/* window: 2..63; else 0 */
	__u32 expansion;		/* scalable: 1..16; 0 = fixed size */
	__u64 rotate_ms;		/* window: timer period, 0 = none */
	__u64 rotate_every;		/* window: adds per generation, 0 = none */
	__u64 reserved[1];		/* must be 0 */
};

struct kbloom_name {
	char name[KBLOOM_NAME_MAX];
	__u64 reserved[2];		/* must be 0 */
};

struct kbloom_batch {
	__u64 keys;		/* user pointer: the keys' bytes, back to back */
	__u64 lens;		/* user pointer: count __u32 key lengths */
	__u64 results;		/* user pointer: (count + 63) / 64 __u64 words,
				 * or 0 for none
				 */
	__u64 keys_len;		/* bytes at keys: the sum of lens */
	__u32 count;		/* keys in the batch */
	__u32 flags;		/* must be 0 */
	__u32 hits;		/* out: see KBLOOM_IOC_ADD, _CHECK, _DELETE */
	__u32 pad;		/* must be 0 */
	__u64 done;		/* out: keys [0, done) took effect, on
				 * success and on failure (see "Batches");
				 * ignored on input, but give 0: a module
				 * older than it refuses it as reserved
				 */
	__u64 reserved[1];	/* must be 0 */
};

struct kbloom_other {
	__u32 fd;		/* an open /dev/kbloom/<name> */
	__u32 flags;		/* must be 0 */
	__u64 reserved[2];	/* must be 0 */
};

struct kbloom_report {
	__u64 false_positives;	/* "maybe" answers whose key was absent */
	__u64 true_positives;	/* "maybe" answers whose key was present */
	__u64 true_negatives;	/* "definitely absent" answers */
	__u32 flags;		/* must be 0 */
	__u32 pad;		/* must be 0 */
	__u64 reserved[2];	/* must be 0 */
};

struct kbloom_info {
	char name[KBLOOM_NAME_MAX];
	__u64 capacity;		/* design capacity, 0 if none given */
	__u64 nblocks;		/* 64-byte blocks */
	__u64 bits;		/* nblocks * 512, memory */
	__u64 bytes;		/* kernel memory held by the cells */
	__u64 seed;
	__u64 add_calls;	/* keys submitted to ADD since create/clear */
	__u64 add_new;		/* of those, keys that set a new bit */
	__u64 check_calls;	/* keys submitted to CHECK */
	__u64 check_hits;	/* of those, "maybe present" answers */
	__u64 bits_set;		/* cells non-zero (bits set, counters > 0) */
	__u64 est_keys;		/* distinct keys, estimated from block fill */
	__u64 reported_fp;	/* sums of KBLOOM_IOC_REPORT */
	__u64 reported_tp;
	__u64 reported_tn;
	__u32 k;
	__u32 type;
	__u32 fp_target_ppb;	/* asked for at create (0 if none) */
	__u32 fp_design_ppb;	/* formula rate at capacity (a window's:
				 * all g generations at their share)
				 */
	__u32 fp_now_ppb;	/* exact rate of the current cells */
	__u32 fill_ppb;		/* bits_set / cells */
	__u32 observed_fp_ppb;	/* reported_fp / (reported_fp + reported_tn) */
	__u32 saturated;	/* 1: over capacity (add_new - delete_hits >
				 * capacity; a window: a live generation
				 * took more adds than capacity / (g - 1),
				 * rounded up, plus 1/128) or fp_now above
				 * target
				 */
	__u32 node_mode;
	__u32 expansion;	/* scalable: as created; 0: fixed size */
	__u64 delete_calls;	/* keys submitted to DELETE */
	__u64 delete_hits;	/* of those, keys removed */
	__u64 mappings;		/* mapped areas (mmap) of the filter now */
	__u32 subfilters;	/* scalable: sub-filters now; else 0 */
	__u32 pad;
	__u64 held_bytes;	/* kernel memory the filter holds, cells and
				 * the rest: what the byte caps count
				 */
	__u64 reserved[3];
};

/* One sub-filter of a scalable filter: KBLOOM_IOC_GET_SUBFILTER. */
struct kbloom_subfilter {
	__u32 index;		/* in: 0 (the first, oldest) .. subfilters - 1 */
	__u32 flags;		/* in: must be 0 */
	__u64 capacity;		/* new keys it takes before the next grows */
	__u64 keys;		/* new keys it took (set a new cell) */
	__u64 nblocks;		/* 64-byte blocks */
	__u64 bytes;		/* kernel memory held by its cells */
	__u64 seed;		/* its own (see "Scalable filters") */
	__u64 bits_set;		/* cells non-zero */
	__u64 est_keys;		/* distinct keys, estimated from its fill */
	__u32 k;
	__u32 fp_target_ppb;	/* its share of the filter's rate */
	__u32 fp_now_ppb;	/* exact rate of its cells now */
	__u32 fill_ppb;		/* bits_set / cells */
	__u64 reserved[4];	/* must be 0 */
};

#define KBLOOM_CTL_CREATE	_IOW(KBLOOM_IOC_MAGIC, 0x00, struct kbloom_create)
#define KBLOOM_CTL_DESTROY	_IOW(KBLOOM_IOC_MAGIC, 0x01, struct kbloom_name)

#define KBLOOM_IOC_ADD		_IOWR(KBLOOM_IOC_MAGIC, 0x10, struct kbloom_batch)
#define KBLOOM_IOC_CHECK	_IOWR(KBLOOM_IOC_MAGIC, 0x11, struct kbloom_batch)
#define KBLOOM_IOC_CLEAR	_IO(KBLOOM_IOC_MAGIC, 0x12)
#define KBLOOM_IOC_MERGE	_IOW(KBLOOM_IOC_MAGIC, 0x13, struct kbloom_other)
#define KBLOOM_IOC_INTERSECT	_IOW(KBLOOM_IOC_MAGIC, 0x14, struct kbloom_other)
#define KBLOOM_IOC_GET_INFO	_IOR(KBLOOM_IOC_MAGIC, 0x15, struct kbloom_info)
#define KBLOOM_IOC_REPORT	_IOW(KBLOOM_IOC_MAGIC, 0x16, struct kbloom_report)
#define KBLOOM_IOC_DELETE	_IOWR(KBLOOM_IOC_MAGIC, 0x17, struct kbloom_batch)
#define KBLOOM_IOC_ROTATE	_IO(KBLOOM_IOC_MAGIC, 0x18)
#define KBLOOM_IOC_GET_WINDOW	_IOR(KBLOOM_IOC_MAGIC, 0x19, \
				     struct kbloom_window_info)
#define KBLOOM_IOC_GET_SUBFILTER _IOWR(KBLOOM_IOC_MAGIC, 0x1a, \
				      struct kbloom_subfilter)

/* One generation of a window filter, in struct kbloom_window_info. */
struct kbloom_generation {
	__u64 add_calls;	/* keys added into it since it was emptied */
	__u64 bits_set;		/* its cells set */
	__u64 est_keys;		/* distinct keys, estimated from its fill */
	__u32 fill_ppb;		/* bits_set / (nblocks * 512 / P) */
	__u32 pad;
};

struct kbloom_window_info {
	__u32 generations;	/* g */
	__u32 plane_order;	/* log2 P: planes per cell */
	__u64 rotate_ms;	/* 0: no timer */
	__u64 rotate_every;	/* 0: no count */
	__u64 rotations;	/* since create */
	__u64 next_rotation_ms;	/* until the timer's next one; 0: no timer,
				 * or one running or overdue; may exceed
				 * rotate_ms by the timer's rounding up to
				 * a whole tick
				 */
	__u64 reserved[3];
	/* newest first: gen[0] is the current one; gen[g..] are 0 */
	struct kbloom_generation gen[KBLOOM_GENERATIONS_MAX];
};

/* The image: little-endian, followed by the cells and a CRC32C. */
#define KBLOOM_IMAGE_MAGIC	0x4d4c424bU	/* "KBLM" */
/*
 * 3: a key's cells are slices of one multiply (kbloom 0.2); 1 and 2, whose
 * cells were placed otherwise, are refused.
 */
#define KBLOOM_IMAGE_VERSION	3
/*
 * 4: a scalable filter's image: version 3's header and window part, a
 * struct kbloom_image_chain and its struct kbloom_image_subfilter array,
 * then each sub-filter's cells as version 3 places them.
 */
#define KBLOOM_IMAGE_VERSION_CHAIN	4

struct kbloom_image_header {
	__le32 magic;
	__le16 version;
	__le16 header_bytes;	/* sizeof(struct kbloom_image_header) */
	__le32 k;
	__le32 type;
	__le64 nblocks;
	__le64 seed;
	__le64 capacity;
	__le32 fp_target_ppb;
	__le32 flags;		/* must be 0 */
	__le64 add_calls;
	__le64 add_new;
	__le64 reserved[3];	/* must be 0 */
};

/* After the header, part of header_bytes; 0 but for windows. */
#define KBLOOM_IMAGE_PLANES	64

struct kbloom_image_window {
	__le32 generations;
	__le32 cur_plane;		/* the plane adds go to */
	__le64 live;		/* bit i: plane i is live; current among them */
	__le64 rotations;
	__le64 elapsed_ms;	/* since the last rotation; 0 without a
				 * timer (so an unchanged window reads
				 * back byte for byte)
				 */
	__le64 reserved[4];	/* must be 0 */
	/*
	 * Keys added to each plane since it was last emptied: 0 for planes
	 * outside live, at most 2^48 - 1 (where a plane's count stops), or
	 * the image is refused with EINVAL.
	 */
	__le64 plane_adds[KBLOOM_IMAGE_PLANES];
};

/* After the window part of a version 4 image. */
struct kbloom_image_chain {
	__le32 expansion;
	__le32 subfilters;	/* 1 .. KBLOOM_SUBFILTERS_MAX */
	__le64 reserved[3];	/* must be 0 */
};

/* subfilters of them, after the struct kbloom_image_chain, oldest first. */
struct kbloom_image_subfilter {
	__le64 nblocks;
	__le64 seed;
	__le64 keys;		/* new keys it took: its load */
	__le32 k;
	__le32 reserved;	/* must be 0 */
};

/*
 * The first page of a filter's mapping (see "Mapping" above), in the
 * machine's byte order.  Every field but sequence and flags is fixed for
 * the filter's life.
 */
#define KBLOOM_MAP_MAGIC	0x504d424bU	/* "KBMP" in memory order */
/* 2: cells placed as image version 3 places them (kbloom 0.2). */
#define KBLOOM_MAP_VERSION	2
/*
 * 3: a scalable filter's mapping, which a reader of version 2 alone
 * must refuse (it would miss the keys of every sub-filter but the first).
 */
#define KBLOOM_MAP_VERSION_CHAIN	3
/* kbloom_map_header.flags */
#define KBLOOM_MAP_DEAD		(1U << 0)	/* filter destroyed */

struct kbloom_map_header {
	__u32 magic;		/* KBLOOM_MAP_MAGIC */
	__u16 version;		/* KBLOOM_MAP_VERSION */
	__u16 header_bytes;	/* sizeof(struct kbloom_map_header) */
	__u32 type;		/* KBLOOM_TYPE_* */
	__u32 k;
	__u64 nblocks;
	__u64 seed;
	__u64 capacity;
	__u64 cells_offset;	/* bytes from the start of the mapping */
	__u64 cells_bytes;	/* nblocks * 64 */
	__u64 map_bytes;	/* the whole mapping, page-aligned */
	__u64 sequence;		/* odd while the whole filter is rewritten */
	__u32 flags;		/* KBLOOM_MAP_* */
	__u32 page_size;	/* the kernel's page size */
	__u64 live;		/* window: bit i = plane i is live; else 0 */
	__u32 generations;	/* window: g; else 0 */
	__u32 plane_order;	/* window: log2 P, the planes of a cell */
	__u64 rotations;	/* window: rotations so far */
	__u32 expansion;	/* scalable: its expansion; else 0 */
	__u32 subfilters;	/* scalable: entries of the table in use */
	__u64 subs_offset;	/* scalable: the table's offset; else 0 */
	__u64 reserved[1];	/* 0 */
};

/*
 * A scalable filter's mapping (KBLOOM_MAP_VERSION_CHAIN) lists its
 * sub-filters from subs_offset: entry i describes sub-filter i.
 */
struct kbloom_map_subfilter {
	__u64 cells_offset;	/* bytes from the start of the mapping */
	__u64 nblocks;
	__u64 seed;
	__u32 k;
	__u32 reserved;		/* 0 */
};

#endif /* _UAPI_LINUX_KBLOOM_H */
