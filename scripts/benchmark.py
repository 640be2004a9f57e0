"""Measure the pipeline on a synthetic TuckerBench release of any size and print the figures.

    python scripts/benchmark.py --entrants 20 --repetitions 50     # 6,000 transcripts, 12,000 judgments

Each phase is timed separately (read and validate, score with statistics, secret scan, render and freeze, search
index), with the process's peak resident memory after each, the page count and the page sizes. Synthetic runs are
written to a temporary folder and removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_src.problems import Problems  # noqa: E402
from site_src.readers.content import files_hash, sha256_bytes  # noqa: E402
from site_src.readers.project import load_project  # noqa: E402
from site_src.release import build_release  # noqa: E402
from site_src.site.build import freeze, index_for_search  # noqa: E402
from site_src.site.publish import scan_release  # noqa: E402

VERSION = ROOT / "content/tuckerbench/versions/v1-pilot"
FILES = (
    "config/pilot.json",
    "config/scenarios.json",
    "config/calibration.json",
    "prompts/persona.md",
    "prompts/judge.md",
)
WORDS = "kettle ransom note spreadsheet marquee deadline board demo phone book resolver cache launch".split()


def synthesise(runs: Path, entrants: int, repetitions: int, seed: int = 1) -> int:
    rng = random.Random(seed)
    scenarios = json.loads((VERSION / "config/scenarios.json").read_text(encoding="utf-8"))["scenarios"]
    pilot = json.loads((VERSION / "config/pilot.json").read_text(encoding="utf-8"))
    run = runs / "tuckerbench" / "synthetic"
    files = {name: sha256_bytes((VERSION / name).read_bytes()) for name in FILES}
    pilot["repetitions"] = repetitions  # the synthetic release uses its own frozen copy
    content = runs.parent / "content"
    import shutil

    shutil.copytree(ROOT / "content", content)
    (content / "tuckerbench/versions/v1-pilot/config/pilot.json").write_text(json.dumps(pilot), encoding="utf-8")
    files["config/pilot.json"] = sha256_bytes(
        (content / "tuckerbench/versions/v1-pilot/config/pilot.json").read_bytes()
    )
    ids = [f"e{i:03d}" for i in range(entrants)]
    manifest = {
        "format": "tuckerbench-run",
        "format_version": 1,
        "benchmark": "tuckerbench",
        "run_id": "synthetic",
        "version": "v1-pilot",
        "content_hash": files_hash(files),
        "files": files,
        "demo": True,
        "demo_note": "Synthetic benchmark data.",
        "adapter": {"name": "synthetic", "version": "0"},
        "entrants": [
            {
                "id": e,
                "label": f"Synthetic {e}",
                "selector": f"synthetic/{e}",
                "family": f"f{i % 5}",
                "access_basis": "synthetic",
            }
            for i, e in enumerate(ids)
        ],
        "judges": [
            {"id": "jk", "label": "Judge K", "selector": "synthetic/jk", "family": "f0"},
            {"id": "jq", "label": "Judge Q", "selector": "synthetic/jq", "family": "f9"},
        ],
    }
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    judgments: dict[str, list[str]] = {"jk": [], "jq": []}
    count = 0
    for e in ids:
        (run / "transcripts" / e).mkdir(parents=True)
        base = rng.uniform(2, 8)
        for s in scenarios:
            dims = [d["id"] for d in pilot["dimensions"] if s["kind"] in d["applies_to"]]
            for rep in range(1, repetitions + 1):
                turns = []
                for user in s["user_turns"]:
                    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 80)))
                    turns += [
                        {"role": "user", "content": user},
                        {
                            "role": "assistant",
                            "content": text,
                            "stop_reason": "stop",
                            "started_at": "2026-11-25T10:00:00Z",
                            "completed_at": "2026-11-25T10:00:01Z",
                            "usage": {"input_tokens": 200, "output_tokens": len(text) // 4},
                        },
                    ]
                record = {"entrant": e, "scenario_id": s["id"], "repetition": rep, "turns": turns}
                (run / "transcripts" / e / f"{s['id']}.r{rep}.json").write_text(json.dumps(record), encoding="utf-8")
                count += 1
                for judge in judgments:
                    scores = {d: max(0, min(10, round(base + rng.gauss(0, 1.2)))) for d in dims}
                    judgments[judge].append(
                        json.dumps(
                            {
                                "entrant": e,
                                "scenario_id": s["id"],
                                "repetition": rep,
                                "parse_status": "ok",
                                "scores": scores,
                                "rationale": "synthetic",
                                "usage": {"input_tokens": 900},
                            }
                        )
                    )
    (run / "judgments").mkdir()
    for judge, lines in judgments.items():
        (run / "judgments" / f"{judge}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return count


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entrants", type=int, default=20)
    parser.add_argument("--repetitions", type=int, default=50)
    parser.add_argument("--no-search", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        t0 = time.perf_counter()
        n = synthesise(tmp_path / "runs", args.entrants, args.repetitions)
        figures = [("synthesise", time.perf_counter() - t0)]
        print(
            f"synthetic release: {args.entrants} entrants x 6 scenarios x {args.repetitions} repetitions = "
            f"{n} transcripts, {2 * n} judgments"
        )

        def phase(name, fn):  # noqa: ANN001, ANN202
            start = time.perf_counter()
            value = fn()
            figures.append((name, time.perf_counter() - start))
            print(f"  {name:<22} {figures[-1][1]:8.2f} s   peak memory {peak_mb():7.0f} MB")
            return value

        project = phase(
            "read and validate", lambda: load_project(tmp_path / "content", [tmp_path / "runs"], Problems())
        )
        assert not project.problems.errors, project.problems.errors[:3]
        release = phase("score and statistics", lambda: build_release(project))
        findings = phase("secret scan", lambda: scan_release(release, redact=False))
        assert not findings
        site = tmp_path / "site"
        urls = phase("render and freeze", lambda: freeze(release, site))
        if not args.no_search:
            phase("search index", lambda: index_for_search(site))
        pages = [p for p in site.rglob("*.html")]
        transcript_pages = [p.stat().st_size for p in site.glob("tuckerbench/*/t/*/index.html")]
        largest = max(pages, key=lambda p: p.stat().st_size)
        render = dict(figures)["render and freeze"]
        print(f"  pages: {len(pages)} HTML ({len(urls)} files), {len(pages) / render:.0f} pages/s while freezing")
        print(f"  largest page: {largest.relative_to(site)} ({largest.stat().st_size / 1024:.0f} KB)")
        print(
            f"  median transcript page: {statistics.median(transcript_pages) / 1024:.1f} KB; "
            f"site size {sum(p.stat().st_size for p in site.rglob('*') if p.is_file()) / 2**20:.0f} MB"
        )
        print(f"  total {sum(t for _, t in figures):.1f} s; peak memory {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
