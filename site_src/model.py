"""The shared in-memory model: what every reader produces and every scorer and page consumes.

Every evaluation system speaks one vocabulary:
- an *Item* is what an entrant is asked to do: a case, a task, a scenario;
- a *Transcript* is one entrant's attempt at one item (a response, a task's iterations, a conversation), with the
  gradings that belong to it, in the records of its system's own (site_src/systems/<system>/records.py);
- a *Run* is one run directory; a *BenchmarkVersion* is one frozen definition with the runs made against it.
These are plain data: what a build keeps of them between builds is the build room's business.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .problems import Problems


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
        """An entrant as the run formats that list entrants in their metadata record one (their schemas fix these
        fields)."""
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
    kind: str  # as its system names its kinds of item: exact_text, task, single, conversation…
    prompt: str
    spec: dict[str, Any] = field(default_factory=dict)
    notes: str = ""
    user_turns: list[str] = field(default_factory=list)  # scripted user turns of a conversation


@dataclass(slots=True)
class ToolCall:
    """A call an assistant turn makes to a tool (agent transcripts), shown as a structured call."""

    id: str
    function: str
    arguments: str  # the arguments as indented JSON, exact characters kept
    parse_error: str | None = None
    result_turn: int | None = None  # the turn (1-based) holding its result, when the transcript has one


@dataclass(slots=True)
class Turn:
    role: str  # "user", "assistant", "system" or "tool"
    content: str | None  # exact characters as recorded; None when nothing was returned
    state: str = "ok"  # ok | empty | truncated | error
    stop_reason: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    truncated: bool = False  # stopped at the token limit; an empty completion can be truncated too
    tool_calls: list[ToolCall] = field(default_factory=list)  # calls this assistant turn makes
    tool_function: str | None = None  # a tool turn: the function whose result it holds
    tool_error: str | None = None  # a tool turn: the error the tool reported (part of the conversation)
    reasoning: list[str] = field(default_factory=list)  # reasoning blocks, when the run publishes them
    images: list[str] = field(default_factory=list)  # data: URIs of raster images, when the run publishes them
    left_out: list[str] = field(default_factory=list)  # what was not published, and why, one sentence each


@dataclass(slots=True)
class Transcript:
    id: str  # stable and URL-safe: unique within a benchmark version
    run_id: str
    entrant_id: str
    item_id: str
    attempt: int  # the attempt or repetition (display.attempt names it); 1 where an item has one
    status: str  # completed | error | not_run | missing | in_progress
    source_file: str
    source_record: str
    turns: Sequence[Turn] = field(default_factory=list)  # a list, or a sequence that reads its items when used
    collected_at: str | None = None
    error: str | None = None
    truncated: bool = False
    grading: Any = None  # its grading, in its system's record, where one grading belongs to the transcript
    grading_history: list[Any] = field(default_factory=list)  # gradings it replaced, likewise
    iterations: list[Any] = field(default_factory=list)  # revisions within the transcript, for systems that iterate
    record: dict[str, Any] = field(default_factory=dict)  # what a system's scorer reads beyond the turns, as recorded


@dataclass
class Judge:
    id: str
    label: str
    selector: str | None
    family: str | None
    settings: dict[str, Any] = field(default_factory=dict)


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
    judgments: Sequence[Judgment] = field(default_factory=list)  # likewise
    calibration: list[Judgment] = field(default_factory=list)
    human_pairs: list[HumanPair] = field(default_factory=list)
    stored_scores: dict[str, Any] = field(default_factory=dict)  # aggregates the run itself recorded
    stored_scores_file: str | None = None
    public_files: list[str] = field(default_factory=list)  # files the format defines as public
    # files the reader read that are not published as they stand (a log holding raw model calls): what the site
    # shows of them is what was read from them
    read_files: list[str] = field(default_factory=list)
    ignored_files: list[str] = field(default_factory=list)  # everything else found in the directory


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
    definition: Any  # its system's definition record (systems/<system>/definition.py)
    items: list[Item]
    runs: list[Run] = field(default_factory=list)
    private_keys: dict[str, PrivateKey] = field(default_factory=dict)  # run id -> key (never rendered)
    # from benchmark.yaml: a stored figure this close to the recomputed one agrees; None: at the stored figure's
    # precision (scoring/discrepancy.py)
    discrepancy_tolerance: float | None = None
    # from benchmark.yaml: "not_ranked" (the seeds' rule: an incomplete entrant is never ranked) or
    # "ranked_over_present" (a source's convention, e.g. AlpacaEval's: ranked by its figure over what is present)
    incomplete_entrants: str = "not_ranked"

    @property
    def demo(self) -> bool:
        return any(run.demo for run in self.runs)

    def item(self, item_id: str) -> Item:
        return next(i for i in self.items if i.id == item_id)


@dataclass
class Benchmark:
    id: str
    title: str
    system: str  # the id of its evaluation system (site_src/systems/)
    summary: str
    methodology_md: str
    limitations_md: str
    rank_claims: bool  # may the site rank entrants at all? (a definition may forbid superiority claims)
    versions: list[BenchmarkVersion] = field(default_factory=list)
    definition_demo_note: str = ""  # set when the definition's own text is an illustrative stand-in
    statistics: dict[str, bool] = field(default_factory=dict)  # which statistics the site shows (benchmark.yaml)
    display: dict[str, str] = field(default_factory=dict)  # vocabulary and units of its pages (benchmark.yaml)
    changelog: list[dict[str, str]] = field(default_factory=list)  # changelog.yaml's entries, newest first
    layout: str = "full"  # "lean": a download per run and folder of 256, item pages without the texts (benchmark.yaml)


@dataclass
class Project:
    """Everything read: the benchmarks with their versions and runs, and what was said about the files read."""

    benchmarks: list[Benchmark]
    problems: Problems
    ignored: list[tuple[str, str]] = field(default_factory=list)  # (file, why it is not published)
    content_dir: Path | None = None  # the inputs, which no output may overlap
    run_roots: list[Path] = field(default_factory=list)

    def inputs(self) -> list[tuple[str, Path]]:
        named = [("the content folder", self.content_dir)] if self.content_dir else []
        return named + [("a runs folder", root) for root in self.run_roots]

    def benchmark(self, bench_id: str) -> Benchmark:
        return next(b for b in self.benchmarks if b.id == bench_id)


def judgments_by_target(run: Run) -> dict[str, list[Judgment]]:
    """Transcript id -> the run's judgments of it, in the run's order."""
    out: dict[str, list[Judgment]] = {}
    for j in run.judgments:
        out.setdefault(j.target_id, []).append(j)
    return out
