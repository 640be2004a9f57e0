"""Forked workers: a pool of processes that inherit what this one has made (the release, compiled templates,
Pagefind's engine), so nothing is sent to them but each task."""

from __future__ import annotations

import multiprocessing
from contextlib import AbstractContextManager, nullcontext
from multiprocessing.pool import Pool


def forked(jobs: int) -> AbstractContextManager[Pool | None]:
    """A pool of `jobs` forked workers, or None for one job: its work is done in this process, with no worker to
    fork and nothing to send."""
    return multiprocessing.get_context("fork").Pool(jobs) if jobs > 1 else nullcontext()
