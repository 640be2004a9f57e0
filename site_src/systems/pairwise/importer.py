"""`build.py import alpaca-eval FOLDER… --benchmark ID [--leaderboard CSV]`: each model's AlpacaEval results.

A FOLDER is one model's results as AlpacaEval lays them out: model_outputs.json, and annotations.json either beside
it or in one annotator's subfolder. The files are copied byte for byte beside an alpaca-eval-run.json naming them
(with their sha256); with --leaderboard, the model's row of the source's published leaderboard CSV is kept as
leaderboard-row.csv (its header and that one line, byte for byte) to compare with the recomputation. A benchmark not
yet under content/ gets its definition from the first model's annotations: the instructions in their order and the
baseline's outputs. Every model must be judged against that same baseline.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from ...jsonio import loads_strict, read_bytes
from ...problems import InputError
from ...readers.content import sha256_bytes
from ...readers.importplan import ImportFailed, ImportPlan
from .reader import MAX_RESULTS_BYTES, parse_json_list

BENCHMARK_YAML = """id: {id}
title: {title}
system: alpaca-eval
summary: >-
  Pairwise judgments of each model's outputs against the baseline {baseline}, imported from AlpacaEval-style
  result files and recomputed as AlpacaEval computes its leaderboard.
rank_claims: true
statistics: {{intervals: false, rank_separation: false, run_variation: false, judges: false, calibration: false}}
methodology: methodology.md
limitations: limitations.md
discrepancy_tolerance: 1.0e-9
# AlpacaEval's convention: an entrant with a few missing outputs or failed judgments is ranked by its win rate over
# what is present (the count beside it, a flag saying what is missing). "not_ranked" keeps the stricter rule.
incomplete_entrants: ranked_over_present
display:
  attempt: attempt
  item_spec: Instruction
  breakdown: Judgment counts
  score_unit: ""
  result_files: judgment
  missing_item: instruction
"""

METHODOLOGY = """Each entrant's outputs were compared with the baseline {baseline}'s outputs on the same instructions
by an automatic judge, one judgment per instruction, as recorded in AlpacaEval's annotations.json.

The site recomputes every column of AlpacaEval's leaderboard from those judgments, as AlpacaEval's get_winrate()
computes them: win rate = 100 × mean of (preference − 1), where the preference is 1 when the baseline is preferred
and 2 when the entrant is (1.5, or 0 in older files, is a draw); standard error = 100 × the sample standard
deviation over the square root of the count; wins, losses, draws and the total of valid judgments; the discrete
win rate after rounding each preference; and the average output length in characters from model_outputs.json.

A judgment that failed (null, NaN, -1 or any value outside 1–2) is left out of every figure and listed as missing:
never counted as a loss. The length-controlled win rate needs a regression fitted over every model of the source's
leaderboard; it is shown as reported by the source, not recomputed.
"""

LIMITATIONS = """A single automatic judge decides each comparison; its preferences are known to favour longer
outputs, which the length-controlled win rate (reported, not recomputed here) tries to correct. Win rates are
against one baseline only. The judge's raw completions are not published unless the import allowed it.
"""


def _find(folder: Path, annotator: str | None) -> tuple[Path, Path]:
    """model_outputs.json and the one annotations.json to import: beside it, or in the annotator's folder (AlpacaEval's
    results tree keeps one folder per judge; --annotator NAME chooses one where there are several)."""
    outputs = folder / "model_outputs.json"
    if not outputs.is_file():
        raise ImportFailed(f"{folder}: has no model_outputs.json")
    found = [folder / "annotations.json"] if (folder / "annotations.json").is_file() else []
    found += sorted(p for p in folder.glob("*/annotations.json") if p.is_file())
    names = [str(p.parent.relative_to(folder)) for p in found]
    if annotator is not None:
        chosen = folder / annotator / "annotations.json"
        if not chosen.is_file():
            raise ImportFailed(f"{folder}: has no annotator folder {annotator!r}; " + _choices(names))
        return outputs, chosen
    if len(found) != 1:
        several = f"holds {len(found)} annotations.json; choose one with --annotator NAME: " if found else ""
        raise ImportFailed(f"{folder}: {several or 'has no annotations.json; '}" + _choices(names))
    return outputs, found[0]


def _choices(names: list[str]) -> str:
    shown = [n if n != "." else "(beside model_outputs.json)" for n in names]
    if not shown:
        return "expected one beside model_outputs.json or in a judge's folder"
    return f"the choices are {', '.join(shown)}"


def _read(path: Path) -> tuple[bytes, list[dict[str, Any]]]:
    try:
        data = read_bytes(path, str(path), MAX_RESULTS_BYTES)
        return data, parse_json_list(data, str(path))
    except InputError as exc:
        raise ImportFailed(str(exc.problem)) from None
    except ValueError as exc:
        raise ImportFailed(str(exc)) from None


def _leaderboard_row(path: Path, generator: str) -> bytes | None:
    try:
        data = read_bytes(path, str(path), MAX_RESULTS_BYTES)
        lines = data.decode("utf-8").splitlines(keepends=True)
    except InputError as exc:
        raise ImportFailed(str(exc.problem)) from None
    except UnicodeDecodeError as exc:
        raise ImportFailed(f"{path}: cannot be read ({exc})") from None
    for line in lines[1:]:
        fields = next(csv.reader(io.StringIO(line)), [])
        if fields and fields[0] == generator:
            return (lines[0] + line).encode("utf-8")
    return None


def plan(
    paths: list[Path], bench_id: str, version: str | None, bench_dir: Path | None, options: dict[str, Any]
) -> ImportPlan:
    version = version or "v1"
    out = ImportPlan(bench_id)
    existing = _existing(bench_dir, version)
    if bench_dir is not None and existing is None:
        raise ImportFailed(f"{bench_dir} exists but has no version {version}; an import never changes a definition")
    baseline, instructions = existing if existing else (None, {})
    board = Path(str(options["leaderboard"])) if options.get("leaderboard") else None
    for folder in paths:
        outputs_path, annotations_path = _find(folder, options.get("annotator"))
        outputs_bytes, outputs = _read(outputs_path)
        annotations_bytes, annotations = _read(annotations_path)
        generators = {a.get("generator_2") for a in annotations} | {o.get("generator") for o in outputs} - {None}
        if len(generators) != 1 or None in generators:
            raise ImportFailed(
                f"{annotations_path}: expected one model (generator_2), found {sorted(map(str, generators))}"
            )
        generator = str(generators.pop())
        firsts = {a.get("generator_1") for a in annotations}
        if None in firsts or any(not isinstance(a.get("output_1"), str) for a in annotations):
            raise ImportFailed(
                f"{annotations_path}: the baseline is missing: every judgment needs generator_1 and "
                "output_1 (the baseline's output)"
            )
        if len(firsts) != 1:
            raise ImportFailed(f"{annotations_path}: judged against several baselines ({sorted(map(str, firsts))})")
        first = str(firsts.pop())
        if baseline is None:
            baseline = first
        elif first != baseline:
            raise ImportFailed(
                f"{annotations_path}: judged against {first!r}, not the benchmark's baseline {baseline!r}"
            )
        for n, a in enumerate(annotations):
            text = a.get("instruction")
            if not isinstance(text, str):
                raise ImportFailed(f"{annotations_path}: record {n} has no instruction")
            known = instructions.get(text)
            if known is None:
                if existing:
                    raise ImportFailed(f"{annotations_path}: record {n}: instruction is not in {bench_id} {version}")
                instructions[text] = {
                    "id": "",
                    "instruction": text,
                    "dataset": a.get("dataset"),
                    "baseline_output": a["output_1"],
                }
            elif known["baseline_output"] != a["output_1"]:
                raise ImportFailed(
                    f"{annotations_path}: record {n}: the baseline's output differs from the same "
                    "instruction's baseline output elsewhere"
                )
        run_id = _slug(generator)
        files = {"model_outputs.json": outputs_bytes, "annotations.json": annotations_bytes}
        if board:
            row = _leaderboard_row(board, generator)
            if row is None:
                raise ImportFailed(f"{board}: has no row for {generator!r}")
            files["leaderboard-row.csv"] = row
        meta = {
            "format": "alpaca-eval-run",
            "format_version": 1,
            "benchmark": bench_id,
            "version": version,
            "run_id": run_id,
            "demo": False,
            "entrant": {"id": run_id, "label": generator},
            "generator": generator,
            "files": {k: sha256_bytes(v) for k, v in files.items()},
            "publish_raw_completions": bool(options.get("publish_raw_completions")),
            "source": f"AlpacaEval-style results from {folder.name}/ ({annotations_path.relative_to(folder)})"
            + (f"; published row from {board.name}" if board else ""),
        }
        if run_id in out.runs:
            raise ImportFailed(f"{folder}: model {generator!r} is given twice")
        out.runs[run_id] = {"alpaca-eval-run.json": (json.dumps(meta, indent=2) + "\n").encode(), **files}
        out.sources[run_id] = str(folder)
    if not existing:
        width = len(str(len(instructions)))
        for n, entry in enumerate(instructions.values(), start=1):
            entry["id"] = str(n).zfill(width)
        spec = {
            "format": "alpaca-eval-instructions",
            "format_version": 1,
            "baseline": {"id": _slug(str(baseline)), "generator": baseline},
            "instructions": list(instructions.values()),
        }
        out.content = {
            "benchmark.yaml": BENCHMARK_YAML.format(id=bench_id, title=bench_id, baseline=baseline).encode(),
            "methodology.md": METHODOLOGY.format(baseline=baseline).encode(),
            "limitations.md": LIMITATIONS.encode(),
            f"versions/{version}/instructions.json": (json.dumps(spec, indent=1, ensure_ascii=False) + "\n").encode(),
        }
    return out


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", name.lower()).strip("-.")[:80] or "model"


def _existing(bench_dir: Path | None, version: str) -> tuple[str, dict[str, dict[str, Any]]] | None:
    path = bench_dir / "versions" / version / "instructions.json" if bench_dir else None
    if path is None or not path.is_file():
        return None
    try:
        spec = loads_strict(read_bytes(path, str(path)).decode("utf-8"))
        return spec["baseline"]["generator"], {x["instruction"]: x for x in spec["instructions"]}
    except InputError as exc:
        raise ImportFailed(str(exc.problem)) from None
    except (ValueError, KeyError, TypeError) as exc:
        raise ImportFailed(f"{path}: cannot be read ({exc})") from None
