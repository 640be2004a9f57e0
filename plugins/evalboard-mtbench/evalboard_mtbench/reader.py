"""Reader for MT-Bench runs (format mt-bench-run/1) and versions, read in place (docs/format-mt-bench.md).

A version, content/<benchmark>/versions/<version>/: mt-bench.json (the judge and the pairwise baseline),
questions.jsonl (FastChat's question.jsonl, byte for byte) and optionally reference_answers.jsonl (the reference
answers the judge was shown). A run, runs/<benchmark>/<run>/: mt-bench-run.json naming the files beside it with
their sha256: model_answer.jsonl (the model's answers file, byte for byte), and single.jsonl and pair.jsonl (the
lines of the judge's files that grade this model, each line byte for byte). Each question becomes a transcript of
its two turns; each grade and verdict a judgment of it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from site_src.jsonio import StrictJSONError, loads_strict, read_bytes, read_json, read_jsonl
from site_src.model import Benchmark, BenchmarkVersion, Entrant, Item, Judge, Judgment, Run, Transcript, Turn
from site_src.problems import Problems
from site_src.readers.content import content_rel, definition_file, named_files, version_named
from site_src.readers.titles import opening

from .definition import MTBenchDefinition

DEFINITION = "mt-bench.json"
MAX_FILE_BYTES = 64 * 1024 * 1024
RUN_FIELDS = {"format": str, "format_version": int, "benchmark": str, "version": str, "run_id": str, "demo": bool,
              "entrant": dict, "model": str, "files": dict}  # fmt: skip
WINNERS = ("model_1", "model_2", "tie")  # a verdict of each order; anything else ("error") failed


def load_version(content_dir: Path, bench_id: str, vdir: Path, problems: Problems) -> BenchmarkVersion | None:
    rel = content_rel(content_dir, vdir / DEFINITION)
    spec = read_json(definition_file(content_dir, vdir, DEFINITION), rel, problems)
    if not isinstance(spec, dict) or not isinstance(spec.get("judge"), str) or spec.get("format") != "mt-bench":
        problems.error(rel, 'expected {"format": "mt-bench", "format_version": 1, "judge": ..., "baseline": ...}')
        return None
    items = list(_questions(content_dir, vdir, problems))
    references: dict[str, list[str]] = {}
    digest = hashlib.sha256()
    for name in (DEFINITION, "questions.jsonl", "reference_answers.jsonl"):
        if (vdir / name).is_file():
            digest.update(read_bytes(definition_file(content_dir, vdir, name), content_rel(content_dir, vdir / name)))
    if (vdir / "reference_answers.jsonl").is_file():
        ref_rel = content_rel(content_dir, vdir / "reference_answers.jsonl")
        for line, r in read_jsonl(definition_file(content_dir, vdir, "reference_answers.jsonl"), ref_rel, problems):
            turns = _turns_of(r)
            if turns is None:
                problems.error(ref_rel, "expected question_id and choices[0].turns (texts)", f"line {line}")
                continue
            references[str(r["question_id"])] = turns
    if not items:
        return None
    definition = MTBenchDefinition(spec["judge"], spec.get("baseline"), references)
    return BenchmarkVersion(bench_id, vdir.name, "sha256:" + digest.hexdigest(), definition, items)


def _questions(content_dir: Path, vdir: Path, problems: Problems) -> Iterator[Item]:
    rel = content_rel(content_dir, vdir / "questions.jsonl")
    seen: set[str] = set()
    for line, q in read_jsonl(definition_file(content_dir, vdir, "questions.jsonl"), rel, problems):
        turns = q.get("turns") if isinstance(q, dict) else None
        if not isinstance(turns, list) or not turns or not all(isinstance(t, str) for t in turns):
            problems.error(rel, "expected question_id, category and turns (a list of texts)", f"line {line}")
            continue
        qid = str(q.get("question_id"))
        if qid in seen:
            problems.error(rel, f"question {qid} is given twice", f"line {line}", "question_id")
            continue
        seen.add(qid)
        title = opening(turns[0]) or f"Question {qid}"
        category = str(q.get("category") or "")
        yield Item(qid, title, category, "conversation", turns[0], spec={"turns": len(turns)}, user_turns=turns)


def _turns_of(record: Any) -> list[str] | None:
    """choices[0].turns of an answer record (FastChat's layout), or None."""
    try:
        turns = record["choices"][0]["turns"]
    except (KeyError, IndexError, TypeError):
        return None
    return turns if isinstance(turns, list) and all(isinstance(t, str) for t in turns) else None


def _lines(data: bytes, rel: str, problems: Problems) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of each non-blank JSON line; a bad line is an error naming it."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.error(rel, f"not UTF-8 ({exc})")
        return
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = loads_strict(line)
        except StrictJSONError as exc:
            problems.error(rel, str(exc), f"line {number}")
            continue
        if isinstance(value, dict):
            yield number, value
        else:
            problems.error(rel, "expected a JSON object", f"line {number}")


def _metadata_ok(meta: dict[str, Any], meta_rel: str, problems: Problems) -> bool:
    for key, kind in RUN_FIELDS.items():
        if not isinstance(meta.get(key), kind) or (kind is int and isinstance(meta.get(key), bool)):
            problems.error(meta_rel, f"{key} must be a {kind.__name__}", None, key)
            return False
    if not all(isinstance(meta["entrant"].get(k), str) for k in ("id", "label")):
        problems.error(meta_rel, "entrant must have an id and a label", None, "entrant")
        return False
    return True


def _files(run_dir: Path, rel: str, files: list[str], meta: dict[str, Any], problems: Problems) -> dict[str, bytes]:
    """Each file the metadata names, checked against its sha256 ({} on the first that is missing or differs)."""
    meta_rel = f"{rel}/mt-bench-run.json"
    unknown = set(meta["files"]) - {"model_answer.jsonl", "single.jsonl", "pair.jsonl"}
    if unknown or "model_answer.jsonl" not in meta["files"]:
        problems.error(meta_rel, "names files other than model_answer.jsonl, single.jsonl and pair.jsonl, or no "
                       "model_answer.jsonl", None, "files")  # fmt: skip
        return {}
    return named_files(run_dir, rel, files, meta["files"], "mt-bench-run.json", MAX_FILE_BYTES, problems)


def read_run(
    run_dir: Path, rel: str, files: list[str], meta: dict[str, Any], bench: Benchmark, problems: Problems
) -> Run | None:
    meta_rel = f"{rel}/mt-bench-run.json"
    if not _metadata_ok(meta, meta_rel, problems):
        return None
    version = version_named(bench, meta, "version", meta_rel, problems)
    data = _files(run_dir, rel, files, meta, problems) if version else {}
    if version is None or not data:
        return None
    e = meta["entrant"]
    run = Run(meta["run_id"], bench.id, version.id, rel, "mt-bench-run/1", meta["demo"], meta.get("demo_note", ""),
              {"run_id": meta["run_id"], "model": meta["model"], "source": meta.get("source")},
              entrants=[Entrant(e["id"], e["label"], selector=meta["model"])],
              public_files=["mt-bench-run.json", *sorted(data)])  # fmt: skip
    answered = _answers(run, version, data["model_answer.jsonl"], f"{rel}/model_answer.jsonl", problems)
    for item in version.items:
        if item.id not in answered:
            run.transcripts.append(Transcript(f"{run.id}--{item.id}", run.id, run.entrants[0].id, item.id, 1,
                                              "missing", f"{rel}/model_answer.jsonl", f"question {item.id}",
                                              turns=[Turn("user", item.prompt)]))  # fmt: skip
    judgments: list[Judgment] = []
    judges: dict[str, Judge] = {}
    if "single.jsonl" in data:
        judgments += _grades(run, answered, data["single.jsonl"], f"{rel}/single.jsonl", judges, problems)
    if "pair.jsonl" in data:
        judgments += _verdicts(run, version, answered, data["pair.jsonl"], f"{rel}/pair.jsonl", judges, problems)
    run.judgments, run.judges = judgments, list(judges.values())
    return run


def _answers(run: Run, version: BenchmarkVersion, data: bytes, rel: str, problems: Problems) -> dict[str, str]:
    """One transcript per answered question (its turns: question, answer, question, answer); question id -> its
    transcript id."""
    questions = {item.id: item for item in version.items}
    out: dict[str, str] = {}
    for line, a in _lines(data, rel, problems):
        qid, turns, record = str(a.get("question_id")), _turns_of(a), f"line {line}"
        if qid not in questions:
            problems.error(rel, f"question {qid} is not one of this version's questions", record, "question_id")
            continue
        if a.get("model_id") != run.metadata["model"] or turns is None:
            problems.error(rel, f"not an answer of {run.metadata['model']!r} with its turns", record)
            continue
        if qid in out:
            problems.error(rel, f"question {qid} is answered twice; neither answer is guessed at", record)
            continue
        asked = questions[qid].user_turns
        conversation = [Turn(role, text) for pair in zip(asked, turns, strict=False)
                        for role, text in zip(("user", "assistant"), pair, strict=True)]  # fmt: skip
        if len(turns) < len(asked):
            conversation += [Turn("user", q) for q in asked[len(turns) :]]
            conversation += [Turn("assistant", None, state="empty")]
        tid = f"{run.id}--{qid}"
        out[qid] = tid
        run.transcripts.append(Transcript(tid, run.id, run.entrants[0].id, qid, 1, "completed", rel, record,
                                          turns=conversation, record={"answer_id": a.get("answer_id")}))  # fmt: skip
    return out


def _judge(judges: dict[str, Judge], name: Any) -> str:
    label = str(name)
    judges.setdefault(label, Judge(label, label, label, None))
    return label


def _grades(run: Run, answered: dict[str, str], data: bytes, rel: str, judges: dict[str, Judge],
            problems: Problems) -> Iterator[Judgment]:  # fmt: skip
    """The judge's single-answer grades of this model: one judgment per question and turn, its score 1-10 (-1,
    FastChat's mark of a grade it could not read, or any other value: failed, never a zero)."""
    for line, g in _lines(data, rel, problems):
        qid, record = str(g.get("question_id")), f"line {line}"
        judge = g.get("judge") if isinstance(g.get("judge"), list) and g.get("judge") else [None, None]
        if g.get("model") != run.metadata["model"] or qid not in answered or g.get("turn") not in (1, 2):
            problems.error(rel, "not a grade of an answered question's turn 1 or 2 by this model", record)
            continue
        score = g.get("score")
        valid = isinstance(score, int | float) and not isinstance(score, bool) and 1 <= score <= 10
        yield Judgment(_judge(judges, judge[0]), answered[qid], "ok" if valid else "failed",
                       {"turn": float(g["turn"]), **({"score": float(score)} if valid else {})},
                       str(g.get("judgment") or ""), rel, record)  # fmt: skip


def _verdicts(run: Run, version: BenchmarkVersion, answered: dict[str, str], data: bytes, rel: str,
              judges: dict[str, Judge], problems: Problems) -> Iterator[Judgment]:  # fmt: skip
    """The judge's pairwise verdicts of this model (model_1) against the baseline (model_2), each judged in both
    orders (g1, g2). Outcome for the model, as FastChat's show_result counts it: a win or a loss when both orders
    agree, a tie when either says tie or they disagree; a verdict with an error in either order failed."""
    baseline = version.definition.baseline
    for line, v in _lines(data, rel, problems):
        qid, record = str(v.get("question_id")), f"line {line}"
        if (v.get("model_1"), v.get("model_2")) != (run.metadata["model"], baseline) or qid not in answered:
            problems.error(rel, f"not a verdict of this model against the baseline {baseline!r}", record)
            continue
        judge = v.get("judge") if isinstance(v.get("judge"), list) and v.get("judge") else [None, None]
        g1, g2 = v.get("g1_winner"), v.get("g2_winner")
        if g1 not in WINNERS or g2 not in WINNERS:
            outcome: dict[str, float] = {}
        elif g1 == "tie" or g1 != g2:
            outcome = {"win": 0.5}
        else:
            outcome = {"win": 1.0 if g1 == "model_1" else 0.0}
        why = f"First order (this model shown first): {g1}\n{v.get('g1_judgment') or ''}\n\n"
        why += f"Second order (the baseline shown first): {g2}\n{v.get('g2_judgment') or ''}"
        yield Judgment(_judge(judges, f"{judge[0]} (pairwise)"), answered[qid],
                       "ok" if outcome else "failed", {"turn": float(v.get("turn") or 1), "pairwise": 1.0, **outcome},
                       why, rel, record)  # fmt: skip
