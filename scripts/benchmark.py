"""Measure the pipeline on a synthetic TuckerBench release of any size and print the figures.

    python scripts/benchmark.py --entrants 20 --repetitions 50     # 6,000 transcripts, 12,000 judgments

    python scripts/benchmark.py --sizes 1000,5000,10000,20000         # build.py's time and peak memory by size
    python scripts/benchmark.py --sizes 20000,40000 --layout lean     # the same, with benchmark.yaml's lean layout

Printed, each measured in the same run:
- each phase in one process (read and validate, score, secret scan, render, search index, publish manifest) with
  the peak resident memory after it, the page count and the page sizes by kind;
- build.py as a user runs it (with compiled bytecode cached, Python's default): a full build, then rebuilds with
  nothing changed, after one transcript was edited and after one run was judged again (checked byte for byte
  against a second full build of the same inputs; a rebuild's share is of the mean of the two full builds);
- the transcript pages rendered by plain Jinja2 (same templates and context, no Flask) in 1 and 2 processes, and by
  the app in 1 and 2 processes, with the ratio (written to memory where the machine has /dev/shm), and the app's
  rate against Hugo's on this machine kind (a figure measured when the target was set: Hugo is not run here).

Synthetic runs (one run directory per entrant) are written to a temporary folder and removed afterwards.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from flask import url_for
from jinja2 import Environment, FileSystemLoader

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hugo_anchor import against_hugo  # noqa: E402

from site_src.build.manifest import PART_BYTES, write_manifest  # noqa: E402
from site_src.build.scanning import scan_release  # noqa: E402
from site_src.hosts import HOSTS, MIB, Measure, exceeded, summary  # noqa: E402
from site_src.outdir import files_below  # noqa: E402
from site_src.problems import Problems  # noqa: E402
from site_src.readers.content import files_hash, sha256_bytes  # noqa: E402
from site_src.readers.project import load_project  # noqa: E402
from site_src.release import Release  # noqa: E402
from site_src.scoring.release import build_release  # noqa: E402
from site_src.site.app import CSP, FILTERS, create_app, transcript_context  # noqa: E402
from site_src.site.downloads import LIST_PART  # noqa: E402
from site_src.site.freeze import freeze, render_urls  # noqa: E402
from site_src.site.search_index import bundles, index_for_search, parts_of  # noqa: E402
from site_src.site.urls import fold  # noqa: E402

VERSION = ROOT / "content/tuckerbench/versions/v1-pilot"
FILES = (
    "config/pilot.json",
    "config/scenarios.json",
    "config/calibration.json",
    "prompts/persona.md",
    "prompts/judge.md",
)
WORDS = "kettle ransom note spreadsheet marquee deadline board demo phone book resolver cache launch".split()


def synthesise(runs: Path, entrants: int, repetitions: int, seed: int = 1, layout: str = "full") -> int:
    rng = random.Random(seed)
    scenarios = json.loads((VERSION / "config/scenarios.json").read_text(encoding="utf-8"))["scenarios"]
    pilot = json.loads((VERSION / "config/pilot.json").read_text(encoding="utf-8"))
    files = {name: sha256_bytes((VERSION / name).read_bytes()) for name in FILES}
    pilot["repetitions"] = repetitions  # the synthetic release uses its own frozen copy
    content = runs.parent / "content"

    shutil.copytree(ROOT / "content", content)
    if layout != "full":  # benchmark.yaml's layout (docs/site-layout.md)
        described = content / "tuckerbench/benchmark.yaml"
        described.write_text(f"layout: {layout}\n" + described.read_text(encoding="utf-8"), encoding="utf-8")
    (content / "tuckerbench/versions/v1-pilot/config/pilot.json").write_text(json.dumps(pilot), encoding="utf-8")
    files["config/pilot.json"] = sha256_bytes(
        (content / "tuckerbench/versions/v1-pilot/config/pilot.json").read_bytes()
    )
    ids = [f"e{i:03d}" for i in range(entrants)]
    count = 0
    for i, e in enumerate(ids):  # one run directory per entrant, as each model is usually run on its own
        run = runs / "tuckerbench" / f"synthetic-{e}"
        manifest = {
            "format": "tuckerbench-run",
            "format_version": 1,
            "benchmark": "tuckerbench",
            "run_id": f"synthetic-{e}",
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
            ],
            "judges": [
                {"id": "jk", "label": "Judge K", "selector": "synthetic/jk", "family": "f0"},
                {"id": "jq", "label": "Judge Q", "selector": "synthetic/jq", "family": "f9"},
            ],
        }
        (run / "transcripts" / e).mkdir(parents=True)
        (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        judgments: dict[str, list[str]] = {"jk": [], "jq": []}
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


_PLAIN: tuple = ()


def _plain_share(share: list[int]) -> int:
    env, pages, dest = _PLAIN
    template = env.get_template("transcript.html")
    for i in share:
        view, tid = pages[i]
        path = dest / view.bench.id / view.version.id / "t" / fold(tid) / tid / "index.html"  # where the site has it
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.render(transcript_context(view, tid)), encoding="utf-8")
    return len(share)


def plain_jinja2(release, dest: Path, jobs: int) -> tuple[int, float]:  # noqa: ANN001
    """The transcript pages rendered from the same templates and context by plain Jinja2: no Flask, no test client,
    no url_for (links are constant strings). The floor the app's rendering is compared with."""
    global _PLAIN
    env = Environment(loader=FileSystemLoader(ROOT / "templates"), autoescape=True)
    env.filters.update(FILTERS)
    env.globals.update(
        link=lambda endpoint, **values: f"../{endpoint}/",
        release=release,
        generator="plain",
        csp=CSP,
        build_date=None,
        base_path=None,
        request=SimpleNamespace(endpoint="transcript"),
    )
    pages = [(view, tid) for view in release.views for tid in view.transcripts]
    dest.mkdir(parents=True)
    _PLAIN = (env, pages, dest)
    shares = [list(range(i, min(i + 100, len(pages)))) for i in range(0, len(pages), 100)]
    start = time.perf_counter()
    if jobs == 1:
        list(map(_plain_share, shares))
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            list(pool.imap_unordered(_plain_share, shares))
    return len(pages), time.perf_counter() - start


def app_rendering(release, dest: Path, jobs: int) -> tuple[int, float]:  # noqa: ANN001
    """The same transcript pages as the build renders them: through the app's test client, in forked workers."""
    app = create_app(release)
    with app.test_request_context():
        urls = [
            url_for("transcript", bench=view.bench.id, version=view.version.id, tid=tid)
            for view in release.views
            for tid in view.transcripts
        ]
    start = time.perf_counter()
    render_urls(app, dest, urls, jobs)
    return len(urls), time.perf_counter() - start


def by_size(entrants: int, sizes: list[int], layout: str = "full") -> None:
    """build.py --fresh at each size, as a user runs it: its time, its render phase and its peak memory (the
    largest resident size of any one of its processes: the build process, its read and render workers, its chart
    drawer; see timed), so growth with the number of transcripts can be read off: "MB per 1,000 more" is what each
    thousand transcripts more added. Then one run is judged again and the site rebuilt, whose peak is printed too: a
    rebuild also holds what the last build recorded (the output's stats and digests, the page keys)."""
    print(
        f"{'transcripts':>11} {'whole build s':>13} {'render s':>9} {'pages/s':>8} {'peak MB':>8} "
        f"{'MB per 1,000 more':>17} {'rebuild peak MB':>15} {'MB per 1,000 more':>17}"
    )
    before: tuple[tuple[int, float] | None, ...] = (None, None)  # (transcripts, MB) of the size before
    measures: list[tuple[int, Measure, dict[str, int]]] = []
    for n in sizes:
        repetitions = max(1, round(n / (6 * entrants)))
        with tempfile.TemporaryDirectory() as tmp:
            count = synthesise(Path(tmp) / "runs", entrants, repetitions, layout=layout)
            site = Path(tmp) / "site"
            cmd = [sys.executable, str(ROOT / "build.py"), "--content", f"{tmp}/content", "--runs", f"{tmp}/runs"]
            seconds, peak, totals, _ = timed([*cmd, "--out", str(site), "--fresh"])
            pages = sum(1 for _ in site.rglob("*.html"))
            measures.append((count, Measure.of_folder(site), largest_files(site)))
            judge_again(sorted((Path(tmp) / "runs/tuckerbench").iterdir())[0])
            _, rebuild_peak, _, _ = timed([*cmd, "--out", str(site)])
        print(
            f"{count:>11} {seconds:>13.1f} {totals['render']:>9.1f} {pages / totals['render']:>8.0f} {peak:>8.0f} "
            f"{growth((count, peak), before[0])} {rebuild_peak:>15.0f} {growth((count, rebuild_peak), before[1])}"
        )
        before = ((count, peak), (count, rebuild_peak))
    host_figures(measures)


def largest_files(site: Path, top: int = 20) -> dict[str, int]:
    """The site's largest files (site path -> bytes) and fullest folders ("<path>/" -> entries)."""
    sizes, folders = [], []
    for root, dirs, names in os.walk(site):  # one walk for both
        rel = Path(root).relative_to(site).as_posix()
        prefix = "" if rel == "." else f"{rel}/"
        if prefix:
            folders.append((prefix, len(dirs) + len(names)))
        sizes += [(prefix + name, os.stat(os.path.join(root, name)).st_size) for name in names]
    return dict(sorted(sizes, key=lambda item: -item[1])[:top] + sorted(folders, key=lambda item: -item[1])[:top])


def host_figures(measures: list[tuple[int, Measure, dict[str, int]]], projected: int = 1_000_000) -> None:
    """What each size's site holds against the hosts' limits (build.py --host), then a million transcripts'
    projected from the two largest sizes: bytes and files grow in step with the transcripts; the fullest folder is
    a 256th of them, 5% over (site layout 2), or a fuller folder's grown along the line through its two sizes; each
    of the largest files likewise, but a part of the transcript list stops at LIST_PART transcripts, a part of the
    manifest at PART_BYTES of entries, the folders of 256 at 256 entries, and a run's search fragments at its part's
    share, 10% over (search_index.parts_of)."""
    print(f"\n{'transcripts':>11} {'site MB':>9} {'files':>9} {'fullest folder':>15} {'largest file MiB':>17}  hosts")
    for count, m, _ in measures:
        _host_line(count, m, "")
    if len(measures) < 2:
        return
    (n0, _, big0), (n1, m1, big1) = measures[-2], measures[-1]
    scale = projected / n1
    grown = {rel: big1[rel] + (big1[rel] - big0[rel]) / (n1 - n0) * (projected - n1) for rel in big1 if rel in big0}
    bundle_pages = max((big1[rel] for rel in big1 if rel.endswith("/fragment/")), default=0)
    for rel in grown:
        factor = capped_growth(rel, n1, scale, bundle_pages)
        if factor is not None:
            grown[rel] = big1[rel] * factor
        grown[rel] = bounded(rel, grown[rel])
        if re.search(r"/(t|data/t|items)/$", rel):
            grown[rel] = 256
        if rel.endswith("/fragment/"):  # a run's search bundle: split in parts of PAGES_PER_BUNDLE on average
            pages = big1[rel] * scale
            grown[rel] = pages / parts_of(round(pages)) * 1.1
    files = [rel for rel in grown if not rel.endswith("/")]
    largest = max(files, key=lambda rel: grown[rel])
    fullest = max((rel for rel in grown if rel.endswith("/")), key=lambda rel: grown[rel])
    folder = round(max(grown[fullest], projected / 256 * 1.05))
    m0 = measures[-2][1]
    site_bytes = round(projected_total((n0, m0.site_bytes), (n1, m1.site_bytes), projected))
    files_count = round(projected_total((n0, m0.files), (n1, m1.files), projected))
    guess = Measure(site_bytes, files_count, folder, "", round(grown[largest]), largest)
    per = f"{m0.site_bytes / n0 / 1e3:.2f} and {m1.site_bytes / n1 / 1e3:.2f} KB a transcript"
    where = f"largest file {largest}, fullest folder {fullest}"
    _host_line(projected, guess, f"  projected from {n0:,} and {n1:,} ({per}): {where}")
    if grows_faster((n0, m0.site_bytes), (n1, m1.site_bytes)):
        print("  warning: a transcript costs more bytes in the larger site: a part grows faster than the "
              "transcripts, so the projection is low (compare the two sites' folders to find it)")  # fmt: skip


def grows_faster(small: tuple[int, float], large: tuple[int, float]) -> bool:
    """Whether a site's bytes a transcript rose by more than 2% from the smaller size to the larger: the sign of a
    part that grows faster than the transcripts, which no projection from two sizes follows."""
    return large[1] / large[0] > small[1] / small[0] * 1.02


def projected_total(small: tuple[int, float], large: tuple[int, float], projected: int) -> float:
    """A site's total (bytes, files) at `projected` transcripts from two sizes (transcripts, total): in step with
    the transcripts, or along the line through the two sizes where that is more. The line catches a part that grows
    faster than the transcripts (a pager that linked every page of its list grew as its square, and a projection in
    step with the transcripts left out about 10 GB at a million); in step keeps a fixed part (styles, charts) from
    lowering the projection."""
    (n0, t0), (n1, t1) = small, large
    return max(t1 * projected / n1, t1 + (t1 - t0) / (n1 - n0) * (projected - n1))


def capped_growth(rel: str, count: int, scale: float, bundle_pages: int) -> float | None:
    """How much a file of a site of `count` transcripts grows when the release grows `scale` times, for the files
    whose growth stops: a part of the transcript list holds LIST_PART transcripts once there are that many; a search
    bundle's file grows with its bundle's pages (bundle_pages now), which stop at a bundle's share, 10% over
    (search_index.parts_of). None for any other file (a part of the manifest grows along its line, up to its bound:
    bounded)."""
    if "/data/transcripts/" in rel:
        return min(scale, LIST_PART / min(count, LIST_PART))
    if "/search/" in rel and not rel.endswith("/") and bundle_pages:
        pages = bundle_pages * scale
        return min(scale, pages / parts_of(round(pages)) * 1.1 / bundle_pages)
    return None


def bounded(rel: str, size: float) -> float:
    """A projected file's size, stopped at its bound: a part of the manifest holds at most PART_BYTES of entries
    (its own frame is under 100 bytes). A full layout's parts hold a fixed count of files and do not grow; a lean
    layout's grow with the transcripts of a run's downloads, which each entry names."""
    return min(size, PART_BYTES + 100) if rel.startswith("publish-manifest/") else size


def _host_line(count: int, m: Measure, note: str) -> None:
    fits = ", ".join(h if not exceeded(HOSTS[h], m) else f"not {h}" for h in HOSTS)
    print(f"{count:>11} {m.site_bytes / 1e6:>9.1f} {m.files:>9} {m.folder_entries:>15} {m.file_bytes / MIB:>17.2f}  "
          f"{fits}{note}")  # fmt: skip


def hugo_comparison(entrants: int, repetitions: int, rounds: int, layout: str = "full") -> None:
    """build.py's whole publish against Hugo + Pagefind over the same synthetic transcripts (hugo_anchor.py)."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        synthesise(tmp_path / "runs", entrants, repetitions, layout=layout)
        release = build_release(load_project(tmp_path / "content", [tmp_path / "runs"], Problems()))
        build = [sys.executable, str(ROOT / "build.py"), "--content", f"{tmp}/content", "--runs", f"{tmp}/runs"]
        against_hugo(release, tmp_path, build, rounds, timed)


WHOLE_VERSION = ("read", "score")  # what every slice does for the whole version (it scans only its own runs)


Peaks = tuple[int, float, float, float]  # a sliced run's transcripts, and its largest read job, slice and merge (MB)
GOAL_MB = 1024  # each process of a sliced build of a million transcripts (docs/scale.md)


def by_slices(
    entrants: int, size: int, count: int, runners: int = 16, projected: int = 1_000_000, layout: str = "full"
) -> Peaks:
    """The sliced pipeline on this machine, one process after another, as `build.py --only --slice K/N` and
    `build.py merge` run on the runners of a matrix: each slice's wall time, CPU and peak memory, the merge's, a
    whole build's for comparison and the byte check of the merged site against it; then the wall time projected for
    `projected` transcripts on `runners` runners (see project_slices)."""
    repetitions = max(1, round(size / (6 * entrants)))
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1796040000")  # every slice and the merge must build alike
    with tempfile.TemporaryDirectory() as tmp:
        n = synthesise(Path(tmp) / "runs", entrants, repetitions, layout=layout)
        cmd = [sys.executable, str(ROOT / "build.py"), "--content", f"{tmp}/content", "--runs", f"{tmp}/runs"]
        print(f"{n:,} transcripts in one version, {count} slices, one after another ({layout} layout)")
        print(
            f"{'':>9} {'wall s':>8} {'CPU s':>8} {'peak MB':>8} {'whole-version phases s':>23} {'slice phases s':>15}"
        )
        reads, slices = [], []
        for k in range(1, count + 1):  # the read jobs, as the workflow's read job runs them: a batch of runs each
            out = f"{tmp}/reads/reads-{k}"
            reads.append(
                timed([*cmd, "read", "--only", "tuckerbench/v1-pilot", "--slice", f"{k}/{count}", "--out", out])
            )
            _slice_line(f"read {k}", reads[-1])
        for k in range(1, count + 1):
            out = f"{tmp}/slice-{k}"
            job = ["--only", "tuckerbench/v1-pilot", "--slice", f"{k}/{count}", "--reads", f"{tmp}/reads"]
            slices.append(timed([*cmd, *job, "--out", out]))
            _slice_line(f"slice {k}", slices[-1])
        merge = timed([*cmd, "merge", *(f"{tmp}/slice-{k}" for k in range(1, count + 1)), "--out", f"{tmp}/site"])
        _slice_line("merge", merge)
        whole = timed([*cmd, "--out", f"{tmp}/whole"])
        _slice_line("one build", whole)
        same = tree_digest(Path(tmp) / "site") == tree_digest(Path(tmp) / "whole")
        site = Measure.of_folder(Path(tmp) / "site")
    print(
        f"the site: {site.site_bytes / 1e6:,.1f} MB, {site.files:,} files, fullest folder {site.folder_entries:,} "
        f"entries ({site.fullest_folder}/), largest file {site.file_bytes / MIB:.1f} MiB ({site.largest_file})"
    )
    for host in HOSTS.values():
        print(f"  {host.name}: " + ("; ".join(exceeded(host, site)) or summary(host, site)))
    cpu = sum(s[3] for s in reads + slices) + merge[3]
    print(f"total CPU {cpu:.0f} s (one build: {whole[3]:.0f} s); largest read job {max(r[0] for r in reads):.1f} s "
          f"wall, {max(r[1] for r in reads):.0f} MB; largest slice {max(s[0] for s in slices):.1f} s wall, "
          f"{max(s[1] for s in slices):.0f} MB; merge {merge[0]:.1f} s wall, {merge[1]:.0f} MB, "
          f"{merge[3] / cpu:.1%} of the CPU")  # fmt: skip
    print(f"the merged site is {'byte-identical to' if same else 'NOT the same as'} one build's")
    project_slices(n, reads, slices, merge, runners, projected)
    return n, max(r[1] for r in reads), max(s[1] for s in slices), merge[1]


def project_peaks(small: Peaks, large: Peaks, count: int, runners: int = 16, projected: int = 1_000_000) -> None:
    """Each process's peak memory for `projected` transcripts in one version, along the line through two sliced runs
    of `count` slices (a process's memory has a large fixed part, the libraries: grown in step with the transcripts
    it would be counted ten times over). A read job reads its batch, so its line runs through the transcripts of a
    batch (n / count) to a batch of `runners` (projected / runners); a slice's and the merge's through the version's
    transcripts. A slice of `runners` writes a smaller share of the files than a slice of `count`: its figure is
    an upper bound when runners > count."""

    def along(x0: float, y0: float, x1: float, y1: float, x: float) -> float:
        return y1 + (y1 - y0) / (x1 - x0) * (x - x1)

    (n0, *peaks0), (n1, *peaks1) = small, large
    batch = projected / runners
    read = along(n0 / count, peaks0[0], n1 / count, peaks1[0], batch)
    slice_, merge = (along(n0, peaks0[k], n1, peaks1[k], projected) for k in (1, 2))
    verdict = ", ".join(f"{name} {'within' if mb <= GOAL_MB else 'over'}"
                        for name, mb in (("read job", read), ("slice", slice_), ("merge", merge)))  # fmt: skip
    print(f"projected peak memory for {projected:,} transcripts, along the line through {n0:,} and {n1:,}: a read job "
          f"of {batch:,.0f} transcripts {read:,.0f} MB, a slice (of {count}) {slice_:,.0f} MB, the merge "
          f"{merge:,.0f} MB; against {GOAL_MB:,} MB a process: {verdict}")  # fmt: skip


def _phases(totals: dict[str, float]) -> tuple[float, float]:
    """(the whole-version phases' seconds, the other phases') of a build's printed totals."""
    fixed = sum(totals.get(p, 0.0) for p in WHOLE_VERSION)
    return fixed, sum(s for p, s in totals.items() if p != "total") - fixed


def _slice_line(name: str, got: tuple[float, float, dict[str, float], float]) -> None:
    seconds, peak, totals, cpu = got
    fixed, rest = _phases(totals)
    print(f"{name:>9} {seconds:>8.1f} {cpu:>8.1f} {peak:>8.0f} {fixed:>23.1f} {rest:>15.1f}")


def project_slices(n: int, reads: list, slices: list, merge: tuple, runners: int, projected: int) -> None:  # noqa: ANN001
    """Wall time for `projected` transcripts in one version on `runners` runners, a read job and a slice each, from
    what was measured: the read jobs' time (each reads its batch of runs) summed and shared by the runners; a slice's
    whole-version phases (read, score: every slice takes the version's runs from the read jobs and scores them all)
    grow with the transcripts; the slice phases (secret scan of its own runs, render, search index, backstop,
    manifest, put in place) summed over the slices grow with the transcripts and are shared by the runners; the
    merge (which reads no run: it takes every file and renders the site-wide pages from the summaries) grows with
    the files, so with the transcripts; start-up is left out.
    Measured at a size where start-up is small against the rest (100,000), the projection is close to linear."""
    scale = projected / n
    read_wall = sum(r[0] for r in reads) / runners * scale
    fixed = max(_phases(s[2])[0] for s in slices)
    shared = sum(_phases(s[2])[1] for s in slices)
    slice_wall = (fixed + shared / runners) * scale
    merge_wall = merge[0] * scale
    print(f"projected for {projected:,} transcripts on {runners} runners: a read job {read_wall / 60:.1f} min, then "
          f"a slice {slice_wall / 60:.1f} min ({fixed * scale / 60:.1f} min of it the whole version's read and "
          f"score), then the merge {merge_wall / 60:.1f} min: {(read_wall + slice_wall + merge_wall) / 60:.1f} min "
          "in all")  # fmt: skip
    reads_cpu, slices_cpu, merge_cpu = projected_cpu(reads, slices, merge, runners, scale)
    print(f"projected CPU: the read jobs {reads_cpu / 60:.0f} min, {runners} slices {slices_cpu / 60:.0f} min, the "
          f"merge {merge_cpu / 60:.0f} min ({merge_cpu / (reads_cpu + slices_cpu + merge_cpu):.1%} of it)")  # fmt: skip


def projected_cpu(reads: list, slices: list, merge: tuple, runners: int, scale: float) -> tuple[float, float, float]:  # noqa: ANN001
    """CPU seconds of the read jobs, the slices and the merge for the projected release in as many slices as runners,
    each measured figure grown by scale: a slice's own phases summed over the slices (they split the transcripts
    whatever their count), plus the whole-version phases once for each of the `runners` slices. Those phases are
    counted by their wall time, which is their CPU in one process and less than it where the run files are hashed
    on every core: the slices' CPU is counted low, so the merge's share high, never low."""
    fixed = [_phases(s[2])[0] for s in slices]
    slices_cpu = runners * max(fixed) + sum(s[3] for s in slices) - sum(fixed)
    return sum(r[3] for r in reads) * scale, slices_cpu * scale, merge[3] * scale


def growth(now: tuple[int, float], before: tuple[int, float] | None) -> str:
    """MB per 1,000 transcripts more, from (transcripts, MB) of the size before; blank for the first size."""
    return f"{(now[1] - before[1]) / (now[0] - before[0]) * 1000:17.1f}" if before else f"{'':>17}"


def timed(cmd: list[str]) -> tuple[float, float, dict[str, float], float]:
    """Wall seconds and peak resident MB of one command (the largest of its process and every process it waited for,
    as wait4 reports it: a forked worker counts the pages it shares with the build process too), the
    seconds of each phase the build printed in its totals (none with --quiet), and the CPU seconds (user and
    system) of the command and every process it waited for (its workers, chart drawer and folder listing; not the
    deletion of an old folder it leaves running in the background)."""
    # Python's default of caching compiled bytecode, whatever this shell says: a user's build does not compile the
    # project's modules again on every run
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryFile("w+", encoding="utf-8") as said:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=said, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        said.seek(0)
        totals = {m[1]: float(m[2]) for m in re.finditer(r"^  ([a-z][a-z ]*?) +([0-9.]+) s$", said.read(), re.M)}
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed with exit status {proc.returncode}")
    return seconds, usage.ru_maxrss / 1024, totals, usage.ru_utime + usage.ru_stime


def rebuilds(tmp: Path, repeats: int) -> bool:
    """Full build, then rebuilds into the same folder: with nothing changed, after one transcript's text was edited
    in one run, and after one run was judged again (every judgment of it moved, so its scores move). Each through
    build.py, as a user runs it, `repeats` times over different runs (the median and the range are printed: a
    rebuild takes a few seconds, and a shared machine's speed swings by a third from minute to minute); after the
    changes the output is compared byte for byte with a full build, whose time is the second full build's. Each
    rebuild is given as a share of the mean of the two full builds."""
    cmd = [sys.executable, str(ROOT / "build.py"), "--content", str(tmp / "content"), "--runs", str(tmp / "runs")]
    site = ["--out", str(tmp / "cli-site")]
    full, full_mb, _, full_cpu = timed([*cmd, *site, "--quiet", "--fresh"])
    same, *_ = timed([*cmd, *site, "--quiet"])
    runs = sorted((tmp / "runs/tuckerbench").iterdir())
    edited, rejudged = [], []
    for i in range(repeats):
        transcript = sorted((runs[(2 * i) % len(runs)] / "transcripts").rglob("*.json"))[i]
        record = json.loads(transcript.read_text(encoding="utf-8"))
        record["turns"][1]["content"] += " (changed)"
        transcript.write_text(json.dumps(record), encoding="utf-8")
        edited.append(timed([*cmd, *site]))  # its totals show what it spent
        judge_again(runs[(2 * i + 1) % len(runs)])
        rejudged.append(timed([*cmd, *site]))
    again, *_ = timed([*cmd, "--out", str(tmp / "cli-fresh"), "--quiet", "--fresh"])
    identical = tree_digest(tmp / "cli-site") == tree_digest(tmp / "cli-fresh")
    first, full = full, (full + again) / 2  # a full build before the rebuilds and one after: their mean
    print("build.py, whole build (read, score, scan, render, charts, search index, manifest):")
    print(
        f"  {'full build (mean of the first and the last)':<48} {full:8.2f} s   ({first:.2f} s and {again:.2f} s); "
        f"peak memory {full_mb:5.0f} MB (largest process); CPU {full_cpu:.1f} s (the first)"
    )
    print(f"  {'rebuild, nothing changed':<48} {same:8.2f} s   {same / full:6.1%} of the full build")
    for what, timings in (
        ("one transcript edited in one run", edited),
        ("one run judged again (its scores move)", rejudged),
    ):
        seconds = sorted(t[0] for t in timings)
        median = statistics.median(seconds)
        spread = (
            f" (range {seconds[0] / full:.1%}-{seconds[-1] / full:.1%}, {len(seconds)} rebuilds)" if repeats > 1 else ""
        )
        cpu = statistics.median(t[3] for t in timings)
        print(
            f"  {'rebuild, ' + what:<48} {median:8.2f} s   {median / full:6.1%} of the full build{spread}; "
            f"CPU {cpu:.1f} s"
        )
    print(f"  after the changes, byte-identical to a full build: {'yes' if identical else 'NO'}")
    print(
        "where a rebuild's time goes (s, median of each; start-up is Python and the imports, before the first phase):"
    )
    for what, timings in (("one transcript edited", edited), ("one run judged again", rejudged)):
        spent = [{"start-up": seconds - totals.get("total", seconds), **totals} for seconds, _, totals, _ in timings]
        names = [name for name in spent[0] if name != "total"]
        print(f"  {what:<22} " + ", ".join(f"{n} {statistics.median(s[n] for s in spent):.2f}" for n in names))
    return identical


def judge_again(run: Path) -> None:
    """Every judgment of a run scores one point lower (floored at 0): its scores move, its transcripts do not."""
    for judgments in sorted((run / "judgments").glob("*.jsonl")):
        lines = []
        for line in judgments.read_text(encoding="utf-8").splitlines():
            judgment = json.loads(line)
            judgment["scores"] = {d: max(0, v - 1) for d, v in judgment["scores"].items()}
            lines.append(json.dumps(judgment))
        judgments.write_text("\n".join(lines) + "\n", encoding="utf-8")


def tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        h.update(path.relative_to(root).as_posix().encode())
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def children_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entrants", type=int, default=20)
    parser.add_argument("--repetitions", type=int, default=50)
    parser.add_argument("--no-search", action="store_true")
    parser.add_argument("--no-comparison", action="store_true", help="skip the plain Jinja2 comparison")
    parser.add_argument("--no-rebuilds", action="store_true", help="skip the full and incremental build.py runs")
    parser.add_argument("--rebuilds", type=int, default=3, help="how many times each kind of rebuild is measured")
    parser.add_argument(
        "--sizes",
        help="comma-separated transcript counts: one whole run per size, each in its own process (with --sliced: the "
        "sliced pipeline at each size, and each process's memory projected from the last two)",
    )
    parser.add_argument("--against-hugo", type=int, metavar="ROUNDS", help="the whole publish against Hugo + Pagefind")
    parser.add_argument("--sliced", type=int, metavar="N", help="run the sliced pipeline: N slices, then the merge")
    parser.add_argument("--size", type=int, default=100_000, help="with --sliced: transcripts (default: 100,000)")
    parser.add_argument(
        "--layout",
        choices=("full", "lean"),
        default="full",
        help="with --sizes, --sliced or --against-hugo: benchmark.yaml's layout",
    )
    args = parser.parse_args()
    if args.sliced:
        sizes = [int(n) for n in args.sizes.split(",")] if args.sizes else [args.size]
        runs = [by_slices(args.entrants, size, args.sliced, layout=args.layout) for size in sizes]
        if len(runs) > 1:
            project_peaks(runs[-2], runs[-1], args.sliced)
        return None
    if args.against_hugo:
        return hugo_comparison(args.entrants, args.repetitions, args.against_hugo, layout=args.layout)
    if args.sizes:
        return by_size(args.entrants, [int(n) for n in args.sizes.split(",")], layout=args.layout)
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
        sums: dict[str, str] = {}  # each page's SHA-256, from the render workers (as build.py has them)
        urls = phase("render and freeze", lambda: freeze(release, site, sums=sums))
        if not args.no_search:
            phase("search index", lambda: index_for_search(site, bundles(release)))
        phase("publish manifest", lambda: write_manifest(site, files_below(site), release, [], sums))
        pipeline_peak = peak_mb()  # the build's own: the listing of pages below is the benchmark's
        pages = [p for p in site.rglob("*.html")]
        render = dict(figures)["render and freeze"]
        print(
            f"  pages: {len(pages)} HTML ({len(urls)} files), {len(pages) / render:.0f} pages/s "
            f"({len(urls) / render:.0f} files/s) while freezing"
        )
        kinds = {
            "transcript": "tuckerbench/*/t/*/*/index.html",
            "item": "tuckerbench/*/items/*/**/index.html",
            "leaderboard": "tuckerbench/*/index.html",
            "breakdown": "tuckerbench/*/breakdown/index.html",
            "entrant": "tuckerbench/*/entrants/*/index.html",
        }
        for kind, pattern in kinds.items():
            sizes = [p.stat().st_size / 1024 for p in site.glob(pattern)]
            print(f"  {kind} pages: median {statistics.median(sizes):.1f} KB, largest {max(sizes):.1f} KB")
        print(f"  site size {sum(p.stat().st_size for p in site.rglob('*') if p.is_file()) / 2**20:.0f} MB")
        total = sum(t for n, t in figures if n != "synthesise")
        print(f"  whole build / rendering: {total / render:.2f}")
        print(f"  total {total:.1f} s; peak memory {pipeline_peak:.0f} MB (largest worker {children_peak_mb():.0f} MB)")
        identical = args.no_rebuilds or rebuilds(tmp_path, args.rebuilds)
        if not args.no_comparison:
            compare_rendering(release, tmp_path)
    if not identical:
        raise SystemExit("the rebuilt site differs from a full build of the same inputs")


def compare_rendering(release: Release, tmp_path: Path) -> None:
    """The transcript pages rendered by plain Jinja2 and by the app, in 1 and 2 processes, and the ratio."""
    # Rendering is compared, not the disk: this machine kind's disk varies twofold from minute to minute, so the
    # pages are written to memory where there is a memory-backed folder.
    memory = Path("/dev/shm")
    where = Path(tempfile.mkdtemp(dir=memory)) if memory.is_dir() and os.access(memory, os.W_OK) else tmp_path
    print(
        f"transcript pages only, rendering and writing {'to memory' if where != tmp_path else 'to disk'} "
        "(pages/s, best of 3 rounds, alternating who goes first):"
    )
    rates: dict[tuple[str, int], float] = {}
    order = [("plain Jinja2", plain_jinja2), ("the app", app_rendering)]
    try:
        for round_ in range(3):
            for name, fn in order if round_ % 2 == 0 else order[::-1]:
                for jobs in (1, 2):
                    folder = where / f"{name}-{jobs}-{round_}".replace(" ", "-")
                    n_pages, seconds = fn(release, folder, jobs)
                    rates[name, jobs] = max(rates.get((name, jobs), 0), n_pages / seconds)
                    shutil.rmtree(folder)
    finally:
        if where != tmp_path:
            shutil.rmtree(where, ignore_errors=True)
    for (name, jobs), rate in rates.items():
        print(f"  {name:<13} {jobs} process(es): {rate:7.0f}")
    ratio = rates["the app", 2] / rates["plain Jinja2", 2]
    print(f"  the app in 2 processes / plain Jinja2 in 2 processes: {ratio:.2f}")
    print(f"  the app in 2 processes / Hugo's {HUGO} pages/s (not measured here): {rates['the app', 2] / HUGO:.2f}")


HUGO = 950  # pages/s: Hugo on this machine kind, as measured when the rendering target was set; Hugo is not run here


if __name__ == "__main__":
    main()
