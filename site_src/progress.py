"""The progress display of a build's long steps: reading the runs, the secret scan, rendering and the search index.

Each step shows a tqdm bar on standard error while that is a terminal, and clears it when the step ends (the build's
totals follow, with each phase's time). With --quiet, or when standard error is not a terminal (a log, CI), nothing
is shown.
"""

from __future__ import annotations

import sys
from typing import Any, Protocol


class Progress(Protocol):
    """What a step is given to report its progress: tqdm's bar, or Silent."""

    def reset(self, total: int | None = None) -> None: ...

    def update(self, n: int = 1) -> Any: ...


class Silent:
    """No display: for callers without one (tests, the benchmark, the preview server). A context manager, as tqdm's
    bar is."""

    def reset(self, total: int | None = None) -> None:
        pass

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> Silent:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


SILENT = Silent()  # the default of every step's progress argument: it holds nothing


def bar(desc: str, unit: str, quiet: bool, total: int | None = None) -> Any:
    """A bar for one step (unit: what it counts, e.g. " runs"), to use as a context manager: cleared when the step
    ends, however it ends. Silent with quiet or off a terminal."""
    if quiet:
        return SILENT
    from tqdm import tqdm  # only here: a build with nothing to do never shows one

    tqdm.monitor_interval = 0  # no monitoring thread: the build forks its workers while a bar is shown
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, disable=None)
