"""A build's process gives back the large blocks it frees (site_src/allocator.py): glibc's bound for mapping a block
on its own stays fixed, instead of rising to the size of the largest block freed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from site_src.allocator import fix_mmap_threshold

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import ctypes, sys
from site_src.allocator import fix_mmap_threshold
if sys.argv[1] == "fixed":
    assert fix_mmap_threshold()
big = ctypes.create_string_buffer(16 << 20)  # a part of a manifest, say
del big  # freed: glibc, left alone, now takes blocks under 16 MiB from its heap
block = ctypes.create_string_buffer(1 << 20)
at = ctypes.addressof(block)
for line in open("/proc/self/maps"):
    span, *rest = line.split()
    start, end = (int(x, 16) for x in span.split("-"))
    if start <= at < end:
        print("heap" if rest[-1] == "[heap]" else "mapped")
"""


def glibc() -> bool:
    import platform

    return sys.platform == "linux" and platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not glibc(), reason="the bound is glibc's")
def test_after_a_large_block_is_freed_a_megabyte_is_still_mapped_on_its_own_and_so_given_back_when_freed():
    def where(mode: str) -> str:
        return subprocess.run(
            [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True, cwd=ROOT
        ).stdout.strip()

    assert where("moving") == "heap"  # glibc's own way: the bound rose to 16 MiB
    assert where("fixed") == "mapped"


def test_where_the_c_library_has_no_mallopt_nothing_is_changed(monkeypatch):
    import ctypes

    class NoMallopt:
        def __init__(self, name):  # noqa: ANN001
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoMallopt)
    assert fix_mmap_threshold() is False
