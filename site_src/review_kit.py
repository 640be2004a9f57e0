"""`build.py review-kit`: a small local site for the blind human reviewer, written outside the published site.

Each blind pair shows the scenario and two transcripts as A and B: no entrant label, no transcript id, no provider
metadata, no judgments. Choices (A, B or tie) are recorded in the browser and downloaded as human-pairs.jsonl in
the public pairs format; without JavaScript each pair page shows the line to copy. Pairs come from the run's private
answer key; when a run has none, matched pairs are drawn (same scenario and repetition, two entrants) with a fixed
seed and the new key is written to the kit's own private/ folder, for the author to place in the run.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from . import GENERATOR
from .model import BenchmarkVersion, Project, Run
from .outdir import output_problem, swap_in
from .paths import STATIC, TEMPLATES
from .site.app import CSP
from .site.text import show_text
from .systems import system

KIT_MANIFEST = "review-kit-manifest.json"


def draw_pairs(run: Run, count: int, seed: int) -> dict[str, dict[str, str]]:
    """Matched blind pairs among complete transcripts: pair id -> {"A": transcript id, "B": transcript id}."""
    rng = random.Random(seed)
    complete = [t for t in run.transcripts if t.status == "completed"]
    groups: dict[tuple[str, int], list[str]] = {}
    for t in complete:
        groups.setdefault((t.item_id, t.attempt), []).append(t.id)
    candidates = [(a, b) for ids in groups.values() for i, a in enumerate(ids) for b in ids[i + 1 :]]
    chosen = rng.sample(candidates, min(count, len(candidates)))
    pairs = {}
    for n, (a, b) in enumerate(chosen, start=1):
        if rng.random() < 0.5:
            a, b = b, a
        pairs[f"pair-{n:02d}"] = {"A": a, "B": b}
    return pairs


def write_review_kit(project: Project, out: Path, site: Path, count: int = 12, seed: int = 1) -> int:
    """Write the kit into a folder beside out and swap it in; refuse any out that is not ours to replace."""
    refused = output_problem(out, KIT_MANIFEST, [*project.inputs(), ("the published site folder", site)])
    if refused:
        print(f"error: {refused}", file=sys.stderr)
        return 1
    out = out.resolve()
    env = Environment(loader=FileSystemLoader(TEMPLATES / "review"), autoescape=select_autoescape())
    env.filters["text"] = show_text
    kits = []
    for bench in project.benchmarks:
        if not system(bench.system).review_kit:
            continue
        for version in bench.versions:
            for run in version.runs:
                kits.append((version, run, _pairs_for(version, run, count, seed)))
    if not kits:
        print("no TuckerBench run to review")
        return 1
    final, out = out, Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=_parent(out)))
    try:
        entries, demo = _write_kit(env, kits, out)
        files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
        manifest = {
            "generator": GENERATOR,
            "files": {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in files},
        }
        (out / KIT_MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        swap_in(out, final, wait=True)
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    print(
        f"review kit written to {final.name}/ ({len(entries)} pairs); open {final.name}/index.html in a browser. "
        "It is never published."
    )
    return 0


def _parent(out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    return out.parent


def _write_kit(env: Environment, kits: list, out: Path) -> tuple[list, bool]:
    (out / "static").mkdir(parents=True)
    shutil.copy(STATIC / "style.css", out / "static/style.css")
    shutil.copy(STATIC / "review.js", out / "static/review.js")
    entries = []
    for version, run, (pairs, drawn) in kits:
        base = out / run.id
        base.mkdir()
        transcripts = {t.id: t for t in run.transcripts}
        for pair_id, sides in pairs.items():
            a, b = transcripts[sides["A"]], transcripts[sides["B"]]
            scenario = version.item(a.item_id)
            (base / f"{pair_id}.html").write_text(
                env.get_template("pair.html").render(
                    csp=CSP, kit=run.id, pair_id=pair_id, scenario=scenario, a=a, b=b, demo=run.demo
                ),
                encoding="utf-8",
            )
            entries.append((run.id, pair_id, scenario.id, scenario.title))
        if drawn:
            key = {
                "pairs": {
                    p: {
                        s: {"entrant": transcripts[t].entrant_id, "repetition": transcripts[t].attempt}
                        for s, t in sides.items()
                    }
                    for p, sides in pairs.items()
                }
            }
            (out / "private" / run.id).mkdir(parents=True, exist_ok=True)
            (out / "private" / run.id / "answer-key.json").write_text(json.dumps(key, indent=1) + "\n")
    demo = any(run.demo for _, run, _ in kits)
    index = env.get_template("index.html").render(csp=CSP, entries=entries, demo=demo)
    (out / "index.html").write_text(index, encoding="utf-8")
    return entries, demo


def _pairs_for(version: BenchmarkVersion, run: Run, count: int, seed: int) -> tuple[dict[str, dict[str, str]], bool]:
    key = version.private_keys.get(run.id)
    if key is not None:
        return key.sides, False
    return draw_pairs(run, count, seed), True
