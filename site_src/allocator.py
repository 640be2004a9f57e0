"""How a build's process gives back the large buffers it frees (glibc's malloc; elsewhere nothing is changed).

glibc maps a block of 128 KiB or more on its own, and unmaps it when it is freed; but once such a block is freed,
it raises that bound to the block's size, up to 32 MiB, so later blocks of that size come from the heap, where a
block still in use above them keeps the freed ones from going back. A build frees many such blocks (a manifest's
part of 10 MiB and the buffers it grows in, a run's file read whole, a page's text): a merge of 99,960 transcripts
held 206 MB at its peak with the bound moving, 176 MB with it fixed (and at a million, about 1.1 GB against 0.8).
"""

from __future__ import annotations

import ctypes

M_MMAP_THRESHOLD = -3  # mallopt's parameter, from glibc's malloc.h
THRESHOLD = 128 * 1024  # glibc's own starting bound
# what a read of a file in steps asks for at a time: os.read allocates all it asks for, so a step of THRESHOLD or
# more is mapped and unmapped on its own for every read (a merge of 50,040 transcripts made 208,916 mmap calls so)
READ_STEP = THRESHOLD // 2


def fix_mmap_threshold(threshold: int = THRESHOLD) -> bool:
    """Fix the size from which glibc maps a block on its own (which also stops it moving); False where the C
    library is not glibc. Called once, before a command does its work: worker processes forked after inherit it."""
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the symbols already loaded: the C library's, with no search for it
    except (OSError, AttributeError):  # not glibc (musl, macOS): it has no mallopt, or none to call
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return mallopt(M_MMAP_THRESHOLD, threshold) == 1
