"""Reader for lm-evaluation-harness runs (format lm-eval-run/1), read in place (docs/format-lm-eval.md).

A version, content/<benchmark>/versions/<version>/: lm-eval.json (its tasks: each metric with its aggregation, the
number of documents the harness evaluated; its groups) and documents.jsonl (the documents whose samples were
logged: prompt and target). A run, runs/<benchmark>/<run>/: lm-eval-run.json naming the harness's files beside it
with their sha256: results.json (its results_<time>.json, byte for byte) and samples_<task>.jsonl (each task's
samples_<task>_<time>.jsonl, byte for byte). Each logged document is a transcript: its prompt, the response, and
each filter's per-metric result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...jsonio import no_duplicate_keys, read_bytes, read_json, read_jsonl, too_deep
from ...model import Benchmark, BenchmarkVersion, Entrant, Item, Run, Transcript, Turn
from ...problems import Problems
from ...readers.content import content_rel, definition_file, named_files, sha256_bytes, version_named
from ...readers.titles import opening
from ...validate import check
from . import SYSTEM
from .definition import LmEvalDefinition, LmEvalTask

MAX_FILE_BYTES = 256 * 1024 * 1024  # a samples file keeps every document, prompt and response of a task


def load_version(content_dir: Path, bench_id: str, vdir: Path, problems: Problems) -> BenchmarkVersion | None:
    rel = content_rel(content_dir, vdir / "lm-eval.json")
    spec = read_json(definition_file(content_dir, vdir, "lm-eval.json"), rel, problems)
    if not check(spec, "lm-eval-tasks", rel, None, problems):
        return None
    tasks = {
        name: LmEvalTask(
            name,
            [(m["metric"], m["aggregation"], m.get("higher_is_better", True)) for m in t["metrics"]],
            t["documents"],
            t["output_type"],
            t.get("num_fewshot"),
        )  # fmt: skip
        for name, t in spec["tasks"].items()
    }
    docs_rel = content_rel(content_dir, vdir / "documents.jsonl")
    items, seen = [], set()
    for line, d in read_jsonl(definition_file(content_dir, vdir, "documents.jsonl"), docs_rel, problems):
        if not check(d, "lm-eval-document", docs_rel, f"line {line}", problems):
            continue
        item_id = f"{d['task']}--{d['doc_id']}"
        if d["task"] not in tasks or item_id in seen:
            problems.error(docs_rel, f"{item_id}: not a task of lm-eval.json, or given twice", f"line {line}")
            continue
        seen.add(item_id)
        title = opening(d["prompt"]) or f"{d['task']} document {d['doc_id']}"
        items.append(Item(item_id, title, d["task"], tasks[d["task"]].output_type, d["prompt"],
                          spec={"target": d["target"], "doc_id": d["doc_id"]}))  # fmt: skip
    digest = sha256_bytes(
        read_bytes(definition_file(content_dir, vdir, "lm-eval.json"), rel)
        + read_bytes(definition_file(content_dir, vdir, "documents.jsonl"), docs_rel)
    )
    return BenchmarkVersion(bench_id, vdir.name, digest, LmEvalDefinition(tasks, spec["groups"]), items)


def parse_json(data: bytes, what: str) -> Any:
    """A JSON value as the harness writes it: NaN and Infinity read as None; a key given twice refused."""
    value = json.loads(data.decode("utf-8"), parse_constant=lambda name: None, object_pairs_hook=no_duplicate_keys)
    if too_deep(value):
        raise ValueError(f"{what} nests too deep")
    return value


def prompt_of(arguments: Any) -> str:
    """The prompt of a sample: the context of its first request (gen_args_0.arg_0), as the harness logs it."""
    first = arguments.get("gen_args_0") if isinstance(arguments, dict) else None
    context = first.get("arg_0") if isinstance(first, dict) else None
    return context if isinstance(context, str) else json.dumps(arguments, ensure_ascii=False)


def response_of(sample: dict[str, Any]) -> str:
    """What the model gave: the filtered response of a generation, or each choice's log-likelihood of a
    multiple-choice request (its continuation, then the harness's [log-likelihood, is-greedy])."""
    filtered = sample.get("filtered_resps")
    if isinstance(filtered, list) and filtered and all(isinstance(x, str) for x in filtered):
        return "\n".join(filtered)
    arguments = sample.get("arguments") if isinstance(sample.get("arguments"), dict) else {}
    lines = []
    for n, (key, request) in enumerate(arguments.items()):
        continuation = request.get("arg_1") if isinstance(request, dict) else None
        got = filtered[n] if isinstance(filtered, list) and n < len(filtered) else None
        lines.append(f"{key}: {json.dumps(continuation, ensure_ascii=False)} -> {json.dumps(got)}")
    return "\n".join(lines) or json.dumps(filtered, ensure_ascii=False)


def read_run(
    run_dir: Path, rel: str, files: list[str], meta: dict[str, Any], bench: Benchmark, problems: Problems
) -> Run | None:
    meta_rel = f"{rel}/lm-eval-run.json"
    if not check(meta, "lm-eval-run", meta_rel, None, problems):
        return None
    version = version_named(bench, meta, SYSTEM.version_field, meta_rel, problems)
    data = (
        named_files(run_dir, rel, files, meta["files"], "lm-eval-run.json", MAX_FILE_BYTES, problems) if version else {}
    )
    if version is None or not data:
        return None
    try:
        results = parse_json(data["results.json"], "results.json")
    except (ValueError, UnicodeDecodeError) as exc:
        problems.error(f"{rel}/results.json", f"not valid JSON ({exc})")
        return None
    if not isinstance(results, dict) or not isinstance(results.get("results"), dict):
        problems.error(f"{rel}/results.json", "has no results object: not an lm-evaluation-harness results file")
        return None
    e = meta["entrant"]
    run = Run(meta["run_id"], bench.id, version.id, rel, "lm-eval-run/1", meta["demo"], meta.get("demo_note", ""),
              {"run_id": meta["run_id"], "model": meta["model"], "source": meta.get("source"),
               "lm_eval_version": results.get("lm_eval_version"), "limit": (results.get("config") or {}).get("limit")},
              entrants=[Entrant(e["id"], e["label"], selector=meta["model"])],
              public_files=["lm-eval-run.json", *sorted(data)])  # fmt: skip
    run.stored_scores = {"results": results["results"], "n-samples": results.get("n-samples") or {}}
    run.stored_scores_file = f"{rel}/results.json"
    logged = _samples(run, version, data, rel, problems)
    for item in version.items:
        if item.id not in logged:
            run.transcripts.append(Transcript(f"{run.id}--{item.id}", run.id, e["id"], item.id, 1, "missing",
                                              f"{rel}/samples_{item.category}.jsonl", f"doc_id {item.spec['doc_id']}",
                                              turns=[Turn("user", item.prompt)]))  # fmt: skip
    return run


def _samples(run: Run, version: BenchmarkVersion, data: dict[str, bytes], rel: str, problems: Problems) -> set[str]:
    """One transcript per logged document (its lines, one per filter, gathered); the item ids logged."""
    d: LmEvalDefinition = version.definition
    known = {item.id for item in version.items}
    per_doc: dict[str, list[tuple[str, int, dict[str, Any]]]] = {}
    for name in sorted(n for n in data if n.startswith("samples_")):
        task, srel = name[len("samples_") : -len(".jsonl")], f"{rel}/{name}"
        if task not in d.tasks:
            problems.error(srel, f"task {task!r} is not one of this version's tasks")
            continue
        for number, line in enumerate(data[name].decode("utf-8", "replace").split("\n"), start=1):
            if not line.strip():
                continue
            try:
                sample = parse_json(line.encode(), f"line {number}")
            except ValueError as exc:
                problems.error(srel, f"not valid JSON ({exc})", f"line {number}")
                continue
            item_id = f"{task}--{sample.get('doc_id') if isinstance(sample, dict) else None}"
            if item_id not in known:
                problems.error(srel, f"document {item_id} is not one of this version's logged documents",
                               f"line {number}", "doc_id")  # fmt: skip
                continue
            per_doc.setdefault(item_id, []).append((srel, number, sample))
    for item_id, lines in per_doc.items():
        srel, number, first = lines[0]
        filters = {str(s.get("filter", "none")): {m: s.get(m) for m in s.get("metrics") or [] if m in s}
                   for _, _, s in lines}  # fmt: skip
        run.transcripts.append(Transcript(
            f"{run.id}--{item_id}", run.id, run.entrants[0].id, item_id, 1, "completed", srel, f"line {number}",
            turns=[Turn("user", prompt_of(first.get("arguments"))), Turn("assistant", response_of(first))],
            record={"filters": filters, "target": first.get("target"), "arguments": first.get("arguments"),
                    "responses": {str(s.get("filter", "none")): response_of(s) for _, _, s in lines}},
        ))  # fmt: skip
    return set(per_doc)
