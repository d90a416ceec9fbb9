"""Memory for the transposition table: aligned, and in huge pages where the system allows.

The search probes its table (32 MB at master's 2^21 entries) at random, once an inner node and
once a move for the enhanced transposition cutoffs, and most probes miss the processor's caches.
Two things make each miss dearer than it need be, and this module removes both:

- **The page walk.** In 4 KB pages the table spans 8,192 pages, far more than the processor's
  address cache (TLB) holds, so most probes also wait for the page tables to be read. Linux
  backs memory with 2 MB pages where a program asks (``madvise(MADV_HUGEPAGE)``; the default
  setting of ``/sys/kernel/mm/transparent_hugepage/enabled`` is ``madvise`` on many systems):
  then 16 pages, which the TLB holds.
- **A bucket across two cache lines.** A bucket is 32 bytes; numpy's arrays start 16 bytes into
  a page, and the table starts wherever the header before it ends, so half the buckets
  straddled two 64-byte lines (two misses instead of one). Here the table starts on a 2 MB
  boundary, so every bucket lies within one line.

Neither changes a number the search computes: the same searches, only faster (docs/engine.md, *Speed*).
Where ``MADV_HUGEPAGE`` does not exist (not Linux) or the system refuses it, the memory is still
aligned and simply stays in small pages.
"""

from __future__ import annotations

import contextlib
import mmap

import numpy as np

#: A huge page on x86-64 and most 64-bit Arm Linux systems: the alignment asked for.
HUGE_PAGE = 2 * 1024 * 1024
WORD = np.dtype(np.int64).itemsize


def zeroed_words(size: int, aligned_at: int) -> np.ndarray:
    """A zeroed int64 array of ``size`` words whose word ``aligned_at`` lies on a ``HUGE_PAGE``
    boundary, in memory the system is asked to back with huge pages.

    >>> words = zeroed_words(1000, 3)
    >>> (words.ctypes.data + 3 * WORD) % HUGE_PAGE, int(words.sum()), words.flags.writeable
    (0, 0, True)
    """
    if not 0 <= aligned_at <= size:
        raise ValueError(f"word {aligned_at} is not within {size} words")
    length = size * WORD + HUGE_PAGE  # room to move the start to the boundary
    if hasattr(mmap, "MAP_PRIVATE"):
        # Private: a shared anonymous mapping (mmap's default on Unix) is file memory, which
        # the system does not back with huge pages. Anonymous memory comes zeroed.
        memory = mmap.mmap(-1, length, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    else:  # Windows
        memory = mmap.mmap(-1, length)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        with contextlib.suppress(OSError):  # a kernel without transparent huge pages
            memory.madvise(mmap.MADV_HUGEPAGE)
    start = np.frombuffer(memory, dtype=np.uint8, count=1).ctypes.data
    skip = -(start + aligned_at * WORD) % HUGE_PAGE
    return np.frombuffer(memory, dtype=np.int64, count=size, offset=skip)
