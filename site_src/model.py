"""The shared in-memory model: what every reader produces and every scorer and page consumes.

Three evaluation systems, one vocabulary:
- an *Item* is what an entrant is asked to do: a pack case, a rubric task, a TuckerBench scenario;
- a *Transcript* is one entrant's attempt at one item (a pack response, a rubric task's iterations, a TuckerBench
  conversation), with the gradings that belong to it;
- a *Run* is one run directory; a *BenchmarkVersion* is one frozen definition with the runs made against it.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar, overload

T = TypeVar("T")
C = TypeVar("C", bound=type)


def pickled_by_fields(cls: C) -> C:
    """Pickle a slotted dataclass as a call of its constructor with its fields in order. Python pickles one by a
    __setstate__ that sets field after field in Python; a rebuild loads tens of thousands of these (runs and what
    was worked out from them, from the build cache): loading 10 cached TuckerBench runs took 0.094 s instead of
    0.133 s, and their pickles are an eighth smaller."""
    names = tuple(f.name for f in fields(cls))

    def __reduce__(self: Any) -> tuple[type, tuple[Any, ...]]:
        return cls, tuple(getattr(self, name) for name in names)

    cls.__reduce__ = __reduce__  # type: ignore[method-assign]
    return cls


@dataclass
class Entrant:
    id: str
    label: str
    selector: str | None = None  # the exact model selector that was requested
    provider: str | None = None
    family: str | None = None  # model family, used to flag same-family judging
    access_basis: str | None = None
    route: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)  # requested settings as recorded
    notes: list[str] = field(default_factory=list)  # e.g. settings a transport did not honour

    @classmethod
    def from_record(cls, e: dict[str, Any]) -> Entrant:
        """An entrant as the rubric and TuckerBench run formats record one (their schemas fix these fields)."""
        return cls(
            e["id"],
            e["label"],
            e["selector"],
            e.get("provider"),
            e.get("family"),
            e["access_basis"],
            e.get("route"),
            dict(e.get("requested_settings", {})),
            list(e.get("transport_notes", [])),
        )


@dataclass
class Item:
    id: str
    title: str
    category: str
    kind: str  # pack: exact_text | json | checklist; rubric: task; tucker: single | conversation
    prompt: str
    spec: dict[str, Any] = field(default_factory=dict)
    notes: str = ""
    user_turns: list[str] = field(default_factory=list)  # scripted user turns of a conversation


@pickled_by_fields
@dataclass(slots=True)
class Turn:
    role: str  # "user" or "assistant"
    content: str | None  # exact characters as recorded; None when nothing was returned
    state: str = "ok"  # ok | empty | truncated | error
    stop_reason: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    truncated: bool = False  # stopped at the token limit; an empty completion can be truncated too


class TurnsFile:
    """A file of the build cache holding one run's records that stay on disk: each transcript's turns, pickled on its
    own, one after another, then the run's judgments (site/cache.py writes it beside the run it belongs to). Where
    it lies is set again whenever the run is loaded (readers/project.py: load_run), so a cache folder that was moved
    still serves."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def read(self, offset: int, length: int) -> bytes:
        fd = os.open(self.path, os.O_RDONLY)  # opened for each read (a few microseconds): no descriptor is held
        try:
            return os.pread(fd, length, offset)
        finally:
            os.close(fd)

    def __reduce__(self) -> tuple[type, tuple[str]]:
        return TurnsFile, (self.path,)


class SpilledList(Sequence[T]):
    """A list a build keeps on disk once its run is in the build cache (a transcript's turns, a run's judgments): in
    the run's TurnsFile, read and unpickled each time it is used (about 6 microseconds for a transcript's turns),
    never kept. The text of the turns was the largest part of what a build held per transcript (about 3.6 KB of it,
    as objects), and a run's judgments the largest part of the rest; what a page or a score needs of them is read
    when it is needed. Equal to a list of the same items."""

    __slots__ = ("file", "offset", "length")

    def __init__(self, file: TurnsFile, offset: int, length: int) -> None:
        self.file, self.offset, self.length = file, offset, length

    def blob(self) -> bytes:
        return self.file.read(self.offset, self.length)

    def load(self) -> list[T]:
        return pickle.loads(self.blob())  # noqa: S301 - pickled by this build into its own cache folder (site/cache.py)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        return self.load()[index]

    def __len__(self) -> int:
        return len(self.load())

    def __iter__(self) -> Iterator[T]:
        return iter(self.load())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and not isinstance(other, str) and self.load() == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.load())

    def __reduce__(self) -> tuple[type, tuple[TurnsFile, int, int]]:
        return SpilledList, (self.file, self.offset, self.length)


@dataclass
class PackGrading:
    outcome: str  # as stored by the grader: pass | fail | needs_review | ungraded
    reviewer: str | None
    checks: dict[str, str]  # C1.. or "comparison" -> pass | fail | needs_review
    notes: str
    graded_at: str | None = None


@dataclass
class GradingRevision:
    grading: PackGrading
    replaced_at: str | None
    reason: str


@dataclass
class RubricGrading:
    """One dual-layer grading result (seed 001), as stored, in either its JSON or its Markdown form."""

    category_scores: dict[str, int]
    global_score: int | None
    threshold: int | None
    binary_decision: int | None
    confidence: float | None
    result: str | None
    iteration: int | None
    feedback: list[str]
    rubric_version: str | None
    source_form: str  # "json" or "markdown"


@dataclass
class Iteration:
    number: int
    output: str
    output_file: str
    grading: RubricGrading | None
    grading_file: str | None


@pickled_by_fields
@dataclass(slots=True)
class Transcript:
    id: str  # stable and URL-safe: unique within a benchmark version
    run_id: str
    entrant_id: str
    item_id: str
    attempt: int  # pack attempt, TuckerBench repetition; 1 for a rubric task
    status: str  # completed | error | not_run | missing | in_progress
    source_file: str
    source_record: str
    turns: list[Turn] | SpilledList[Turn] = field(default_factory=list)  # SpilledList once its run is cached
    collected_at: str | None = None
    error: str | None = None
    truncated: bool = False
    grading: PackGrading | None = None
    grading_history: list[GradingRevision] = field(default_factory=list)
    iterations: list[Iteration] = field(default_factory=list)
    record: dict[str, Any] = field(default_factory=dict)  # what a system's scorer reads beyond the turns, as recorded


@dataclass
class Judge:
    id: str
    label: str
    selector: str | None
    family: str | None
    settings: dict[str, Any] = field(default_factory=dict)


@pickled_by_fields
@dataclass(slots=True)
class Judgment:
    judge_id: str
    target_id: str  # a transcript id, or a calibration response id
    parse_status: str  # ok | failed
    scores: dict[str, float]
    rationale: str
    source_file: str
    source_record: str
    usage: dict[str, int] = field(default_factory=dict)
    price: float | None = None  # what the judgment cost, where the source records it
    seconds: float | None = None  # how long it took, likewise


@dataclass
class HumanPair:
    """The public half of a blind human comparison: which side the reviewer chose, nothing about who is who."""

    pair_id: str
    scenario_id: str
    choice: str  # A | B | tie
    reviewer: str | None
    source_file: str
    source_record: str


@dataclass
class Run:
    id: str
    benchmark_id: str
    version_id: str
    path: str  # relative to the runs folder
    format: str
    demo: bool
    demo_note: str
    metadata: dict[str, Any]  # the public metadata fields as recorded
    entrants: list[Entrant] = field(default_factory=list)
    transcripts: list[Transcript] = field(default_factory=list)
    judges: list[Judge] = field(default_factory=list)
    judgments: list[Judgment] | SpilledList[Judgment] = field(default_factory=list)  # SpilledList once cached
    calibration: list[Judgment] = field(default_factory=list)
    human_pairs: list[HumanPair] = field(default_factory=list)
    stored_scores: dict[str, Any] = field(default_factory=dict)  # aggregates the run itself recorded
    stored_scores_file: str | None = None
    public_files: list[str] = field(default_factory=list)  # files the format defines as public
    ignored_files: list[str] = field(default_factory=list)  # everything else found in the directory
    # what is worked out from this run alone (Run.once): name -> (what else it depends on, the result); never
    # shown as it is, never scanned
    derived: dict[str, tuple[Any, Any]] = field(default_factory=dict, compare=False, repr=False)

    def once(self, name: str, compute: Callable[[], T], depends_on: Any = None) -> T:
        """compute(), worked out on first use only. The build cache keeps what was worked out with the run it
        keeps (site/cache.py), so a rebuild works it out again only for runs whose files, or the code or content,
        changed. compute must therefore depend on nothing but this run, its version's definition and the code,
        or pass what else it depends on as depends_on (a result worked out for another is replaced); and what it
        returns must not be changed afterwards."""
        found = self.derived.get(name)
        if found is None or found[0] != depends_on:
            found = self.derived[name] = (depends_on, compute())
        return found[1]


@dataclass
class PrivateKey:
    """The private blind-comparison answer key: read to compute aggregates, never handed to a page."""

    source_file: str
    sides: dict[str, dict[str, str]]  # pair_id -> {"A": transcript id, "B": transcript id}


@dataclass
class BenchmarkVersion:
    benchmark_id: str
    id: str
    content_hash: str
    definition: Any  # PackDefinition | RubricDefinition | TuckerDefinition
    items: list[Item]
    runs: list[Run] = field(default_factory=list)
    private_keys: dict[str, PrivateKey] = field(default_factory=dict)  # run id -> key (never rendered)
    discrepancy_tolerance: float = 0.0  # from benchmark.yaml: a stored figure this close to the recomputed one agrees

    @property
    def demo(self) -> bool:
        return any(run.demo for run in self.runs)

    def item(self, item_id: str) -> Item:
        return next(i for i in self.items if i.id == item_id)


@dataclass
class Benchmark:
    id: str
    title: str
    system: str  # uzbek-pack | dual-layer | tuckerbench
    summary: str
    methodology_md: str
    limitations_md: str
    rank_claims: bool  # may the site rank entrants at all? (the pack's rubric forbids superiority claims)
    versions: list[BenchmarkVersion] = field(default_factory=list)
    definition_demo_note: str = ""  # set when the definition's own text is an illustrative stand-in
    statistics: dict[str, bool] = field(default_factory=dict)  # which statistics the site shows (benchmark.yaml)
    display: dict[str, str] = field(default_factory=dict)  # vocabulary and units of its pages (benchmark.yaml)
