"""What a system's layer modules must define, and the optional hooks with their defaults: the typed contract the
core calls through (system_part), in place of probing a module for an attribute that may be missing.

Each layer is a frozen dataclass made from the module: a required function missing is an error naming the module
and the function (what a plugin's author needs to read), an optional one missing takes its default here, where it
is documented once. See docs/adding-a-system.md for what each function is given and returns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields
from types import ModuleType
from typing import Any


class ContractError(RuntimeError):
    pass


@dataclass(frozen=True)
class ReaderPart:
    load_version: Callable[..., Any]  # (content_dir, bench_id, version_dir, problems) -> BenchmarkVersion | None
    read_run: Callable[..., Any]  # (run_dir, rel, files, meta, bench, problems[, prior]) -> Run | (Run, key) | None
    REUSES_UNCHANGED_FILES: bool = False  # read_run takes prior= (the run as read before from unchanged files)


@dataclass(frozen=True)
class ScoringPart:
    score: Callable[..., Any]  # (version) -> Scored
    statistics: Callable[..., Any]  # (version, scored, params, declared) -> (rows, bootstrap draws, note)
    DIFFERENCE_SCALE: float  # a score difference times this is in the score's unit (100 for a percentage)
    INTERVAL_SCALE: float = 1.0  # an interval of a score times this is in the score's unit
    judge_reports: Callable[..., Any] | None = None  # (version, results) -> judge reports: systems with judges
    # (version, run, key, judges) -> None: what score() and judge_reports() work out from one run alone
    # (worked_out.once), worked out ahead where the run is read; key: the run's private key, judges: whether reports
    work_out_run: Callable[..., Any] | None = None


@dataclass(frozen=True)
class DisplayPart:
    score_text: Callable[..., str]  # (row, version) -> a row's score with its counts
    cell_text: Callable[..., str]  # (key, cell, version) -> one breakdown cell
    summarise: Callable[..., Any]  # (result, transcript, definition) -> Summary, one line per transcript
    item_result: Callable[..., str] | None = None  # (item analysis) -> an item's result in words, where not a pass rate


@dataclass(frozen=True)
class ChartsPart:
    charts: Callable[..., list[Any]]  # (view) -> its charts; the first is shown on the leaderboard
    OWN_OVERALL: bool = False  # the first chart is the system's own overall chart (else the shared one is added)


@dataclass(frozen=True)
class ImporterPart:
    plan: Callable[..., Any]  # another tool's files -> the run directories to write (site_src/importing.py)


PARTS: dict[str, type] = {
    "reader": ReaderPart,
    "scoring": ScoringPart,
    "display": DisplayPart,
    "charts": ChartsPart,
    "importer": ImporterPart,
}


def part_of(module: ModuleType, layer: str) -> Any:
    """The layer's part made from the module: each field from the attribute of its name, or its default."""
    kind = PARTS[layer]
    values = {}
    for f in fields(kind):
        if hasattr(module, f.name):
            values[f.name] = getattr(module, f.name)
        elif f.default is MISSING:
            raise ContractError(f"{module.__name__} defines no {f.name}, which a system's {layer} module must define")
    return kind(**values)
