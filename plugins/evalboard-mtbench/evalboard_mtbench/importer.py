"""`evalboard import mt-bench FOLDER --benchmark ID [--annotator JUDGE]`: MT-Bench results as FastChat's llm_judge
lays them out in data/<bench>/: question.jsonl, model_answer/<model>.jsonl, model_judgment/<judge>_single.jsonl and
<judge>_pair.jsonl, reference_answer/<judge>.jsonl.

Each model's answers file becomes a run directory, byte for byte, with the lines of the judge's files that grade
that model (each line byte for byte) beside an mt-bench-run.json naming them with their sha256. A benchmark not yet
under content/ gets its definition from the folder: the questions and reference answers byte for byte, the judge,
and the pairwise baseline (the model every pairwise verdict is against: FastChat's model_2 in pairwise-baseline
mode). A model's answers that are already imported are never replaced.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from site_src.jsonio import read_bytes
from site_src.problems import InputError
from site_src.readers.importplan import ImportFailed, ImportPlan

MAX_BYTES = 256 * 1024 * 1024

BENCHMARK_YAML = """id: {id}
title: {id}
system: mt-bench
summary: >-
  Two-turn questions answered by each model and graded 1-10 per turn by {judge}, imported from FastChat's llm_judge
  files and recomputed as FastChat's show_result computes them.
rank_claims: true
statistics: {{intervals: false, rank_separation: false, run_variation: false, judges: false, calibration: false}}
methodology: methodology.md
limitations: limitations.md
display:
  attempt: answer
  item_spec: Question
  breakdown: Per turn and category
  score_unit: ""
  result_files: judgments
  missing_item: question
"""

METHODOLOGY = """Each model answered every two-turn question; {judge} graded each answer's turns from 1 to 10 with a
short explanation (FastChat's single-answer grading; math, reasoning and coding questions with a reference
answer). The site recomputes the MT-Bench score as the mean grade over every turn graded, and the first-turn,
second-turn and per-category means, each with its count.{pairwise}
"""

PAIRWISE = """ Pairwise, {judge} compared each model's answer with {baseline}'s in both orders; a verdict is a win
or a loss when both orders agree and a tie otherwise, and the win rates count them as FastChat's show_result does."""

LIMITATIONS = """One automatic judge grades every answer; single-answer grades of a model judged in isolation are
known to drift, and a judge prefers longer and its own style of answers. Eighty questions give wide uncertainty.
"""


def _lines(data: bytes) -> list[bytes]:
    """The file's lines, each with its own bytes (its newline kept)."""
    return [line for line in data.splitlines(keepends=True) if line.strip()]


def _records(path: Path) -> tuple[bytes, list[tuple[bytes, dict[str, Any]]]]:
    try:
        data = read_bytes(path, str(path), MAX_BYTES)
    except InputError as exc:
        raise ImportFailed(str(exc.problem)) from None
    out = []
    for n, line in enumerate(_lines(data), start=1):
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise ImportFailed(f"{path}: line {n} is not JSON ({exc})") from None
        if not isinstance(value, dict):
            raise ImportFailed(f"{path}: line {n} is not a JSON object")
        out.append((line, value))
    return data, out


def _judge(folder: Path, chosen: str | None) -> str:
    judges = sorted(p.name[: -len("_single.jsonl")] for p in (folder / "model_judgment").glob("*_single.jsonl"))
    judges += sorted(p.name[: -len("_pair.jsonl")] for p in (folder / "model_judgment").glob("*_pair.jsonl"))
    judges = list(dict.fromkeys(judges))
    if chosen is not None:
        if chosen not in judges:
            raise ImportFailed(f"{folder}/model_judgment: has no judgments by {chosen!r}; the judges are {judges}")
        return chosen
    if len(judges) != 1:
        found = f"judgments by {', '.join(judges)}; choose one with --annotator JUDGE" if judges else "no judgments"
        raise ImportFailed(f"{folder}/model_judgment: holds {found} (<judge>_single.jsonl, <judge>_pair.jsonl)")
    return judges[0]


def _baseline(pairs: list[tuple[bytes, dict[str, Any]]], path: Path) -> str | None:
    against = {str(v.get("model_2")) for _, v in pairs}
    if len(against) > 1:
        raise ImportFailed(f"{path}: verdicts against several models ({sorted(against)}); only FastChat's "
                           "pairwise-baseline layout (every verdict against one model_2) is imported")  # fmt: skip
    return against.pop() if against else None


def plan(
    paths: list[Path], bench_id: str, version: str | None, bench_dir: Path | None, options: dict[str, Any]
) -> ImportPlan:
    if len(paths) != 1:
        raise ImportFailed("give one folder laid out as FastChat's data/<bench>/ (question.jsonl, model_answer/, ...)")
    folder, version = paths[0], version or "v1"
    if not (folder / "question.jsonl").is_file():
        raise ImportFailed(f"{folder}: has no question.jsonl (give FastChat's data/<bench>/ folder)")
    judge = _judge(folder, options.get("annotator"))  # type: ignore[arg-type]
    judged = folder / "model_judgment"
    single = _records(judged / f"{judge}_single.jsonl")[1] if (judged / f"{judge}_single.jsonl").is_file() else []
    pairs = _records(judged / f"{judge}_pair.jsonl")[1] if (judged / f"{judge}_pair.jsonl").is_file() else []
    baseline = _baseline(pairs, judged / f"{judge}_pair.jsonl")
    out = ImportPlan(bench_id)
    _definition(out, folder, judge, baseline, version, bench_dir)
    answers = sorted((folder / "model_answer").glob("*.jsonl"))
    if not answers:
        raise ImportFailed(f"{folder}/model_answer: holds no <model>.jsonl")
    for path in answers:
        data, records = _records(path)
        models = {str(r.get("model_id")) for _, r in records}
        if len(models) != 1:
            raise ImportFailed(f"{path}: expected the answers of one model (model_id), found {sorted(models)}")
        model = models.pop()
        files = {"model_answer.jsonl": data}
        grades = b"".join(line for line, g in single if g.get("model") == model)
        verdicts = b"".join(line for line, v in pairs if v.get("model_1") == model and model != baseline)
        files |= {"single.jsonl": grades} if grades else {}
        files |= {"pair.jsonl": verdicts} if verdicts else {}
        source = f"FastChat llm_judge files: {path.name} and {judge}'s judgments"
        out.add_model_run(path, "mt-bench-run", version, model, files, source)
    return out


def _definition(out: ImportPlan, folder: Path, judge: str, baseline: str | None, version: str,
                bench_dir: Path | None) -> None:  # fmt: skip
    """The version's definition from the folder: new, or checked against the one under content/."""
    questions = _records(folder / "question.jsonl")[0]
    refs_path = folder / "reference_answer" / f"{judge}.jsonl"
    spec = {"format": "mt-bench", "format_version": 1, "judge": judge, "baseline": baseline}
    if bench_dir is not None:
        vdir = bench_dir / "versions" / version
        if not (vdir / "questions.jsonl").is_file():
            raise ImportFailed(f"{bench_dir} exists but has no version {version}; an import never changes a definition")
        if (vdir / "questions.jsonl").read_bytes() != questions:
            raise ImportFailed(f"{folder}/question.jsonl: differs from {vdir}/questions.jsonl (a new version?)")
        if json.loads((vdir / "mt-bench.json").read_text(encoding="utf-8")) != spec:
            raise ImportFailed(f"{folder}: judge {judge!r} or baseline {baseline!r} differs from {vdir}/mt-bench.json")
        return
    pairwise = PAIRWISE.format(judge=judge, baseline=baseline) if baseline else ""
    out.content = {
        "benchmark.yaml": BENCHMARK_YAML.format(id=out.benchmark, judge=judge).encode(),
        "methodology.md": METHODOLOGY.format(judge=judge, pairwise=pairwise).encode(),
        "limitations.md": LIMITATIONS.encode(),
        f"versions/{version}/mt-bench.json": (json.dumps(spec, indent=1) + "\n").encode(),
        f"versions/{version}/questions.jsonl": questions,
    }
    if refs_path.is_file():
        out.content[f"versions/{version}/reference_answers.jsonl"] = _records(refs_path)[0]
