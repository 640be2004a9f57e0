"""Adding an evaluation system is its own new files plus the registrations docs/adding-a-system.md lists.

The test adds a small fourth system ("quiz": questions with one right answer, scored by exact match) to a copy of
the project exactly as the guide says, then checks that only the registration files changed among the existing
ones, and that check, scores and build all work on it.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import copy_project

QUIZ_INIT = '''"""Quiz: questions with one right answer, scored by exact match (a worked example of a system)."""

from .. import System

SYSTEM = System(id="quiz", marker="quiz-run.json", run_format="quiz-run", run_contents=())
'''

QUIZ_READER = '''"""Quiz definitions (versions/<v>/questions.json) and runs (quiz-run.json with every answer)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...jsonio import read_bytes, read_json
from ...model import Benchmark, BenchmarkVersion, Entrant, Item, Run, Transcript, Turn
from ...problems import Problems
from ...readers.content import content_rel, definition_file, sha256_bytes


@dataclass
class QuizDefinition:
    answers: dict[str, str]
    uncertainty: dict[str, Any] = field(default_factory=dict)


def load_version(content_dir: Path, bench_id: str, vdir: Path, problems: Problems) -> BenchmarkVersion | None:
    path = definition_file(content_dir, vdir, "questions.json")
    rel = content_rel(content_dir, vdir / "questions.json")
    spec = read_json(path, rel, problems)
    items = [Item(q["id"], q["id"], "quiz", "question", q["question"]) for q in spec["questions"]]
    definition = QuizDefinition({q["id"]: q["answer"] for q in spec["questions"]})
    return BenchmarkVersion(bench_id, vdir.name, sha256_bytes(read_bytes(path, rel)), definition, items)


def read_run(run_dir: Path, rel: str, files: list[str], meta: dict[str, Any], bench: Benchmark, problems: Problems):
    version = next((v for v in bench.versions if v.id == meta.get("version")), None)
    if version is None:
        problems.error(f"{rel}/quiz-run.json", "unknown version", None, "version")
        return None
    entrant = Entrant(meta["entrant"]["id"], meta["entrant"]["label"])
    run = Run(meta["run_id"], bench.id, version.id, rel, "quiz-run/1", meta["demo"], meta["demo_note"],
              {"run_id": meta["run_id"]}, entrants=[entrant], public_files=["quiz-run.json"])
    for item in version.items:
        answer = meta["answers"].get(item.id)
        run.transcripts.append(Transcript(
            f"{run.id}--{item.id}", run.id, entrant.id, item.id, 1,
            "completed" if answer is not None else "missing", f"{rel}/quiz-run.json", f"answers.{item.id}",
            turns=[Turn("user", item.prompt)] + ([Turn("assistant", answer)] if answer is not None else []),
        ))
    return run
'''

QUIZ_SCORING = '''"""Quiz scoring: a question is right when the answer matches exactly."""

from __future__ import annotations

from typing import Any

from ...model import BenchmarkVersion
from ...results import Coverage, Leaderboard, Row, Scored, assign_ranks, order_rows

DIFFERENCE_SCALE = 100.0


def score(version: BenchmarkVersion) -> Scored:
    answers = version.definition.answers
    rows, results = [], {}
    for run in version.runs:
        cov = Coverage(expected=len(version.items))
        right = 0
        for t in run.transcripts:
            ok = t.status == "completed" and t.turns[-1].content == answers[t.item_id]
            results[t.id] = ok
            cov.collected += t.status == "completed"
            cov.missing += t.status != "completed"
            cov.graded += t.status == "completed"
            right += ok
        complete = cov.complete
        rows.append(Row(run.id, run.entrants[0].id, run.entrants[0].label, [run.id], complete,
                        right / cov.expected if complete else None, cov, count=right))
    assign_ranks(rows)
    board = Leaderboard(version.benchmark_id, version.id, "Right answers", [], order_rows(rows), ranked=True)
    return Scored(board, results)


def statistics(version: BenchmarkVersion, scored: Scored, params: dict[str, Any], declared: dict[str, bool]):
    from ...scoring.statistics import RowStats

    return {row.key: RowStats() for row in scored.leaderboard.rows}, {}, "No intervals for a quiz."
'''

QUIZ_DISPLAY = '''"""How quiz figures read."""

from __future__ import annotations

from typing import Any

from ...model import Transcript
from ...results import Summary, count_pct


def score_text(row, version) -> str:
    if row.complete:
        return count_pct(row.count, row.coverage.expected)
    return f"{row.coverage.missing} missing"


def cell_text(key, cell, version) -> str:
    return "–"


def summarise(result: bool, t: Transcript, definition: Any) -> Summary:
    if t.status != "completed":
        return Summary("missing", "missing")
    return Summary("right" if result else "wrong", "pass" if result else "fail")
'''

QUIZ_CHARTS = '''"""Quiz charts: none; the leaderboard says it all."""


def charts(view):
    return []
'''

BENCHMARK_YAML = """id: quiz
title: Quiz
system: quiz
summary: Questions with one right answer.
rank_claims: true
statistics: {intervals: false, rank_separation: false, run_variation: false, judges: false, calibration: false}
methodology: methodology.md
limitations: limitations.md
display:
  attempt: attempt
  item_spec: Question
  breakdown: Per-question
  score_unit: "%"
  result_files: grading
  missing_item: question
"""


def _hashes(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


def add_quiz(root: Path) -> None:
    """Everything docs/adding-a-system.md asks for, and nothing else."""
    package = root / "site_src/systems/quiz"
    package.mkdir()
    for name, text in (
        ("__init__.py", QUIZ_INIT),
        ("reader.py", QUIZ_READER),
        ("scoring.py", QUIZ_SCORING),
        ("display.py", QUIZ_DISPLAY),
        ("charts.py", QUIZ_CHARTS),
    ):
        (package / name).write_text(text, encoding="utf-8")
    # the registrations: one line in the registry, one id in the benchmark schema's `system` enum
    registry = root / "site_src/systems/__init__.py"
    text = registry.read_text(encoding="utf-8")
    start = text.index("REGISTERED = (")
    end = text.index("\n)", start)
    registry.write_text(text[:end] + '\n    "quiz",' + text[end:], encoding="utf-8")
    schema_path = root / "site_src/schemas/benchmark.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    schema["properties"]["system"]["enum"].append("quiz")
    schema_path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    # a benchmark of the new system, and a run of it
    bench = root / "content/quiz"
    (bench / "versions/v1").mkdir(parents=True)
    (bench / "benchmark.yaml").write_text(BENCHMARK_YAML, encoding="utf-8")
    (bench / "methodology.md").write_text("Exact match.\n", encoding="utf-8")
    (bench / "limitations.md").write_text("Two questions.\n", encoding="utf-8")
    questions = [
        {"id": "q1", "question": "2 + 2?", "answer": "4"},
        {"id": "q2", "question": "Capital of Uzbekistan?", "answer": "Tashkent"},
    ]
    (bench / "versions/v1/questions.json").write_text(json.dumps({"questions": questions}), encoding="utf-8")
    run = root / "runs/quiz/demo-quiz-run"
    run.mkdir(parents=True)
    meta = {
        "format": "quiz-run",
        "format_version": 1,
        "benchmark": "quiz",
        "run_id": "demo-quiz-run",
        "version": "v1",
        "demo": True,
        "demo_note": "Invented demo data.",
        "entrant": {"id": "demo-quizzer", "label": "Demo Quizzer"},
        "answers": {"q1": "4", "q2": "Samarkand"},
    }
    (run / "quiz-run.json").write_text(json.dumps(meta), encoding="utf-8")


def test_a_new_system_touches_only_its_own_files_and_two_registrations(project):
    before = _hashes(project)
    add_quiz(project)
    after = _hashes(project)
    changed = sorted(p for p in before if after.get(p) != before[p])
    assert changed == ["site_src/schemas/benchmark.schema.json", "site_src/systems/__init__.py"]
    added = sorted(set(after) - set(before))
    assert all(p.startswith(("site_src/systems/quiz/", "content/quiz/", "runs/quiz/")) for p in added), added


def test_a_new_system_is_checked_scored_and_published(project):
    add_quiz(project)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "build.py", *args], cwd=project, capture_output=True, text=True, timeout=600
        )

    check = run("check")
    assert check.returncode == 0, check.stderr
    assert check.stdout.startswith("ok: 4 benchmarks, 7 runs")
    scores = run("scores")
    assert "Quiz · version v1 · DEMO DATA" in scores.stdout and "1 / 2 · 50%" in scores.stdout
    build = run("--out", "_site", "--no-search")
    assert build.returncode == 0, build.stderr
    site = project / "_site"
    leaderboard = (site / "quiz/v1/index.html").read_text(encoding="utf-8")
    assert "Demo Quizzer" in leaderboard and "1 / 2 · 50%" in leaderboard and "invented" in leaderboard.lower()
    transcript = (site / "quiz/v1/t/e5/demo-quiz-run--q2/index.html").read_text(encoding="utf-8")
    assert "Samarkand" in transcript and "wrong" in transcript and "Question" in transcript
