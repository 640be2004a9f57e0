"""`evalboard init [FOLDER]`: a minimal project to start from, in the user's own repository.

It writes a benchmark definition to edit (two exact-text cases, content/<benchmark>/), an empty runs/ folder, a
netlify.toml and a GitHub Pages workflow that install this very version of evalboard, and a .gitignore that keeps
the built site and the build cache out of the repository. With --example it also writes one run directory of
invented responses, marked as demo data, so that a site builds at once. It never overwrites a file."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from . import __version__
from .paths import PACKAGE

STARTER = PACKAGE / "starter"
_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")
TARGETS = {"gitignore": ".gitignore", "github/pages.yml": ".github/workflows/pages.yml"}  # starter -> project


def init(folder: Path, benchmark: str, example: bool) -> int:
    if not _ID.fullmatch(benchmark):
        print(f"error: --benchmark {benchmark!r}: use lower-case letters, digits and '-' (e.g. my-benchmark)")
        return 1
    files = _starter_files(benchmark)
    if example:
        files.update(_example_run(benchmark, files))
    taken = sorted(rel for rel in files if (folder / rel).exists())
    if taken:
        print(f"error: {folder} already holds {', '.join(taken)}: nothing was written (init never overwrites)")
        return 1
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    (folder / "runs" / benchmark).mkdir(parents=True, exist_ok=True)
    _next_steps(folder, benchmark, example)
    return 0


def _starter_files(benchmark: str) -> dict[str, str]:
    """Project path -> text of each starter file, with the benchmark id and this version filled in."""
    out = {}
    for path in sorted(p for p in STARTER.rglob("*") if p.is_file()):
        rel = path.relative_to(STARTER).as_posix()
        target = TARGETS.get(rel, rel).replace("__BENCHMARK__", benchmark)
        out[target] = path.read_text(encoding="utf-8").replace("__BENCHMARK__", benchmark)
        out[target] = out[target].replace("__VERSION__", __version__)
    return out


def _example_run(benchmark: str, files: dict[str, str]) -> dict[str, str]:
    """One run of invented responses (one pass, one fail), its metadata saying so."""
    prompts = files[f"content/{benchmark}/versions/0.1.0/prompts.jsonl"]
    meta = {
        "format": "uzbek-pack-run",
        "format_version": 1,
        "benchmark": benchmark,
        "run_id": "example-run",
        "pack_version": "0.1.0",
        "corpus_hash": "sha256:" + hashlib.sha256(prompts.encode("utf-8")).hexdigest(),
        "demo": True,
        "demo_note": "Invented example data written by evalboard init: no model was run. Replace it with your runs.",
        "model": {
            "id": "example-model",
            "name": "Example model",
            "provider": "none (invented)",
            "version": {"unavailable": "unknown"},
            "family": {"unavailable": "unknown"},
        },  # fmt: skip
        "interface": "none (invented)",
        "settings": {"temperature": 0, "seed": {"unavailable": "not_applicable"}, "max_output_tokens": 64},
        "system_prompt": {"unavailable": "not_applicable"},
        "context_reset": "new conversation per case",
        "tool_policy": "no tools",
        "attempts_per_case": 1,
        "repeated_run_policy": "one run",
        "collected_by": "evalboard init",
        "started_at": "2026-01-01T00:00:00Z",
        "finished_at": "2026-01-01T00:01:00Z",
    }
    graded = {"reviewer": "comparator", "graded_at": "2026-01-01T00:02:00Z"}
    responses = [
        {"case_id": "001", "raw_output": "Hello, world!", "outcome": "pass"},
        {"case_id": "002", "raw_output": "Four.", "outcome": "fail"},
    ]
    lines = [
        {
            "case_id": r["case_id"],
            "attempt": 1,
            "status": "completed",
            "collected_at": "2026-01-01T00:00:30Z",
            "raw_output": r["raw_output"],
            "error": None,
            "truncated": False,
            "grading": {"outcome": r["outcome"], "checks": {"comparison": r["outcome"]}, "notes": "", **graded},
        }  # fmt: skip
        for r in responses
    ]
    run = f"runs/{benchmark}/example-run"
    return {
        f"{run}/metadata.json": json.dumps(meta, indent=2, ensure_ascii=False) + "\n",
        f"{run}/responses.jsonl": "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
    }


def _next_steps(folder: Path, benchmark: str, example: bool) -> None:
    made = " and an invented example run" if example else ""
    print(f"wrote a project in {folder}: benchmark {benchmark} (content/{benchmark}/, to edit){made}")
    if folder != Path("."):
        print(f"cd {folder}, then:")
    print(f"put run directories in runs/{benchmark}/ (or: evalboard import inspect LOG --benchmark {benchmark}), then")
    print("  evalboard check    # validate content/ and runs/")
    print("  evalboard serve    # preview at http://127.0.0.1:8000/")
    print("  evalboard          # build the site into _site/")
