"""Reader for AlpacaEval-style pairwise runs (format alpaca-eval-run/1), read in place (docs/format-alpaca-eval.md).

<run>/alpaca-eval-run.json names the files beside it, as AlpacaEval wrote them: model_outputs.json (the entrant's
outputs), annotations.json (one judgment per instruction: output_1 from the baseline, output_2 from the entrant,
the judge's preference), and optionally leaderboard-row.csv (the source's published row, to compare). Each
instruction becomes a transcript: the instruction, the baseline's output, the entrant's output, the judgment.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

from ...jsonio import no_duplicate_keys, read_bytes, read_json, too_deep
from ...model import Benchmark, BenchmarkVersion, Entrant, Item, Judge, Judgment, Run, Transcript, Turn
from ...problems import Problems
from ...readers.content import content_rel, definition_file, named_files, sha256_bytes, version_named
from ...readers.titles import opening
from ...validate import check
from . import SYSTEM
from .definition import PairwiseDefinition


def load_version(content_dir: Path, bench_id: str, vdir: Path, problems: Problems) -> BenchmarkVersion | None:
    path = definition_file(content_dir, vdir, "instructions.json")
    rel = content_rel(content_dir, vdir / "instructions.json")
    spec = read_json(path, rel, problems)
    if not check(spec, "alpaca-eval-instructions", rel, None, problems):
        return None
    items, by_text, ids = [], {}, set()
    for n, x in enumerate(spec["instructions"]):
        if x["id"] in ids or x["instruction"] in by_text:
            problems.error(rel, "instruction id or text is given twice", f"instructions[{n}]")
            return None
        by_text[x["instruction"]] = x["id"]
        ids.add(x["id"])
        title = opening(x["instruction"]) or f"Instruction {x['id']}"
        items.append(Item(x["id"], title, x.get("dataset") or "", "pairwise", x["instruction"]))
    definition = PairwiseDefinition(
        spec["baseline"]["id"],
        spec["baseline"]["generator"],
        {x["id"]: x["baseline_output"] for x in spec["instructions"]},
        by_text,
    )
    return BenchmarkVersion(bench_id, vdir.name, sha256_bytes(read_bytes(path, rel)), definition, items)


MAX_RESULTS_BYTES = 64 * 1024 * 1024  # one results file (AlpacaEval's annotations keep the judges' raw completions)


def parse_json_list(data: bytes, what: str) -> list[dict[str, Any]]:
    """A JSON list of objects as AlpacaEval writes it: pandas may write NaN (a failed judgment) — read as None. A key
    given twice in one object is refused, as by every other reader (json would keep the last silently)."""
    try:
        text = data.decode("utf-8")
        value = json.loads(text, parse_constant=lambda name: None, object_pairs_hook=no_duplicate_keys)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ValueError(f"{what} is not valid JSON ({exc})") from None
    if too_deep(value) or not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
        raise ValueError(f"{what} is not a JSON list of objects")
    return value


def preference_of(value: Any) -> float | None:
    """A preference as a number, None when the judgment failed (null, NaN, or not a number)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return None
    return float(value)


def read_leaderboard_row(data: bytes) -> dict[str, str]:
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    if len(rows) != 2 or len(rows[0]) != len(rows[1]):
        raise ValueError("expected the header and one row")
    header = ["name" if not h else h for h in rows[0]]
    return dict(zip(header, rows[1], strict=True))


def read_run(
    run_dir: Path, rel: str, files: list[str], meta: dict[str, Any], bench: Benchmark, problems: Problems
) -> Run | None:
    meta_rel = f"{rel}/alpaca-eval-run.json"
    if not check(meta, "alpaca-eval-run", meta_rel, None, problems):
        return None
    version = version_named(bench, meta, SYSTEM.version_field, meta_rel, problems)
    if version is None:
        return None
    d: PairwiseDefinition = version.definition
    data = named_files(run_dir, rel, files, meta["files"], "alpaca-eval-run.json", MAX_RESULTS_BYTES, problems)
    if not data:
        return None
    try:
        outputs = parse_json_list(data["model_outputs.json"], "model_outputs.json")
        annotations = parse_json_list(data["annotations.json"], "annotations.json")
        reported = read_leaderboard_row(data["leaderboard-row.csv"]) if "leaderboard-row.csv" in data else None
    except (ValueError, UnicodeDecodeError) as exc:
        problems.error(rel, str(exc))
        return None
    e = meta["entrant"]
    entrant = Entrant(e["id"], e["label"], selector=meta["generator"])
    ann_rel, out_rel = f"{rel}/annotations.json", f"{rel}/model_outputs.json"
    run = Run(
        meta["run_id"],
        bench.id,
        version.id,
        rel,
        "alpaca-eval-run/1",
        meta["demo"],
        meta.get("demo_note", ""),
        {
            "run_id": meta["run_id"],
            "generator": meta["generator"],
            "source": meta.get("source"),
            **{k: meta[k] for k in ("repeat_of", "rejudge_of") if k in meta},
        },
        entrants=[entrant],
        public_files=["alpaca-eval-run.json"],
    )
    model_outputs: dict[str, str] = {}
    for n, x in enumerate(outputs):
        if x.get("generator") not in (None, meta["generator"]) or not isinstance(x.get("output"), str):
            problems.error(out_rel, f"not an output of {meta['generator']!r} with a text output", f"record {n}")
            continue
        model_outputs[str(x.get("instruction"))] = x["output"]
    run.stored_scores = {"reported": reported, "output_lengths": [len(o) for o in model_outputs.values()]}
    run.stored_scores_file = f"{rel}/leaderboard-row.csv" if reported else None
    run.read_files = sorted(data)
    judges: dict[str, Judge] = {}
    seen: set[str] = set()
    allow_raw = bool(meta.get("publish_raw_completions", False))
    for n, a in enumerate(annotations):
        record = f"record {n}"
        iid = d.by_instruction.get(str(a.get("instruction")))
        if iid is None:
            problems.error(ann_rel, "instruction is not one of this version's instructions", record, "instruction")
            continue
        if iid in seen:
            problems.error(ann_rel, f"instruction {iid} is judged twice; neither judgment is guessed at", record)
            continue
        seen.add(iid)
        if a.get("generator_1") != d.baseline_label or a.get("output_1") != d.baseline_outputs[iid]:
            problems.error(ann_rel, f"output_1 is not the baseline {d.baseline_label!r}'s output", record, "output_1")
            continue
        if a.get("generator_2") != meta["generator"] or not isinstance(a.get("output_2"), str):
            problems.error(ann_rel, f"output_2 is not a text output of {meta['generator']!r}", record, "output_2")
            continue
        annotator = str(a.get("annotator") or "unknown judge")
        judges.setdefault(annotator, Judge(annotator, annotator, annotator, None))
        raw = {k: v for k, v in a.items() if k.endswith("raw_completion")}
        tid = f"{run.id}--{iid}"
        pref = preference_of(a.get("preference"))
        run.transcripts.append(
            Transcript(
                tid,
                run.id,
                entrant.id,
                iid,
                1,
                "completed",
                ann_rel,
                record,
                turns=[
                    Turn("user", str(a["instruction"])),
                    Turn("baseline", a["output_1"]),
                    Turn("assistant", a["output_2"]),
                ],
                record={
                    "preference": a.get("preference") if pref is None else pref,
                    "judged_output_matches_model_outputs": model_outputs.get(str(a["instruction"])) == a["output_2"],
                },
            )
        )
        run.judgments.append(
            Judgment(
                annotator,
                tid,
                "ok" if pref is not None else "failed",
                {"preference": pref} if pref is not None else {},
                "\n".join(str(v) for v in raw.values()) if allow_raw else "",
                ann_rel,
                record,
                price=a.get("price_per_example") if isinstance(a.get("price_per_example"), int | float) else None,
                seconds=a.get("time_per_example") if isinstance(a.get("time_per_example"), int | float) else None,
            )
        )
    run.judges = list(judges.values())
    for item in version.items:
        if item.id not in seen:
            run.transcripts.append(
                Transcript(
                    f"{run.id}--{item.id}",
                    run.id,
                    entrant.id,
                    item.id,
                    1,
                    "missing",
                    ann_rel,
                    f"instruction {item.id}",
                    turns=[Turn("user", item.prompt)],
                )
            )
    judged = [t for t in run.transcripts if t.status == "completed"]
    run.stored_scores["judged_lengths"] = [len(t.turns[2].content or "") for t in judged]
    run.metadata["model_outputs_without_judgment"] = len(set(model_outputs) - set(d.by_instruction))
    run.metadata["judged_without_model_output"] = sum(
        1 for t in run.transcripts if t.status == "completed" and not t.record["judged_output_matches_model_outputs"]
    )
    return run
