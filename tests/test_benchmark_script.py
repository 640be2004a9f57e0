"""scripts/benchmark.py measures the speed and memory targets (docs/scale.md): it must keep running end to end. Run
here at a tiny size; its figures are not checked (a test is no place for timings), what it reports is."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from helpers import ROOT


def test_the_benchmark_runs_end_to_end_and_checks_its_rebuilds_byte_for_byte():
    tiny = ["--entrants", "2", "--repetitions", "2", "--rebuilds", "1"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts/benchmark.py"), *tiny],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    said = done.stdout
    assert "2 entrants x 6 scenarios x 2 repetitions = 24 transcripts, 48 judgments" in said
    for phase in ("read and validate", "score and statistics", "secret scan", "render and freeze", "search index"):
        assert re.search(rf"^  {phase} +[\d.]+ s   peak memory +\d+ MB$", said, re.M), phase
    for rebuild in ("nothing changed", "one transcript edited in one run", "one run judged again"):
        assert re.search(rf"^  rebuild, {rebuild} .* of the full build", said, re.M), rebuild
    for rebuild in ("one transcript edited in one run", "one run judged again"):  # CPU, the bound on two cores
        cpu = re.search(rf"^  rebuild, {rebuild} .* of the full build.*; CPU ([\d.]+) s$", said, re.M)
        assert cpu and float(cpu.group(1)) > 0, rebuild
    assert re.search(r"^  full build .*; CPU [\d.]+ s \(the first\)$", said, re.M)
    assert "after the changes, byte-identical to a full build: yes" in said
    assert re.search(r"^  the app in 2 processes / plain Jinja2 in 2 processes: [\d.]+$", said, re.M)
    assert re.search(r"^  the app in 2 processes / Hugo's 950 pages/s \(not measured here\): [\d.]+$", said, re.M)
    assert re.search(r"^  pages: \d+ HTML \(\d+ files\), \d+ pages/s \(\d+ files/s\) while freezing$", said, re.M)


def test_the_benchmark_by_size_runs_build_py_and_prints_the_growth_of_its_memory():
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts/benchmark.py"), "--entrants", "2", "--sizes", "12,24"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    number, growth = r" +(\d+)", r" +(-?[\d.]+| {17})"
    rows = re.findall(rf"^ +(\d+) +([\d.]+) +([\d.]+){number}{number}{growth}{number}{growth}$", done.stdout, re.M)
    assert [r[0] for r in rows] == ["12", "24"], done.stdout
    for peak, growth in ((4, 5), (6, 7)):  # a full build's, then a rebuild's after one run was judged again
        assert all(int(r[peak]) > 0 for r in rows) and not rows[0][growth].strip() and rows[1][growth].strip()
    hosts = re.findall(r"^ +(\d+) +([\d.]+) +(\d+) +(\d+) +([\d.]+)  (.*)$", done.stdout, re.M)
    assert [h[0] for h in hosts] == ["12", "24", "1000000"], done.stdout
    assert "github-pages, netlify, cloudflare, cloudflare-paid" in hosts[0][5]  # a small site fits every host
    assert "projected from 12 and 24" in hosts[2][5] and "not github-pages" in hosts[2][5]


def test_the_sliced_benchmark_runs_each_read_job_slice_and_the_merge_and_checks_the_merged_site_byte_for_byte():
    """At two sizes: each run's figures, and each process's memory projected along the line through them."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts/benchmark.py"), "--entrants", "2", "--sliced", "2", "--sizes", "12,24"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = re.findall(
        r"^ *(read \d|slice \d|merge|one build) +([\d.]+) +([\d.]+) +(\d+) +([\d.]+) +([\d.]+)$", done.stdout, re.M
    )
    assert [r[0] for r in rows] == 2 * ["read 1", "read 2", "slice 1", "slice 2", "merge", "one build"], done.stdout
    memory = r"^projected peak memory for 1,000,000 transcripts, along the line through 12 and 24: a read job of 62,500"
    assert re.search(memory, done.stdout, re.M), done.stdout
    assert "the merged site is byte-identical to one build's" in done.stdout
    projected = r"^projected for 1,000,000 transcripts on 16 runners: a read job [\d.]+ min, then a slice [\d.]+ min"
    assert re.search(projected, done.stdout, re.M)
    share = r"^projected CPU: the read jobs \d+ min, 16 slices \d+ min, the merge \d+ min \([\d.]+% of it\)$"
    assert re.search(share, done.stdout, re.M), done.stdout


def test_the_projected_cpu_counts_the_whole_versions_phases_once_for_each_runners_slice(monkeypatch):
    """At a million transcripts in 16 slices, each slice still reads and scores the whole version: the CPU projected
    counts those phases 16 times, and each slice's own phases (which split the transcripts) once in all."""
    import importlib.util

    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    spec = importlib.util.spec_from_file_location("benchmark_script", ROOT / "scripts/benchmark.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    reads = [(1.0, 100, {}, 2.0), (1.0, 100, {}, 3.0)]  # (wall, peak MB, phases, CPU)
    slices = [(9.0, 500, {"read": 1.0, "score": 2.0, "render": 6.0, "total": 9.0}, 12.0),
              (9.0, 500, {"read": 1.5, "score": 2.5, "render": 5.0, "total": 9.0}, 14.0)]  # fmt: skip
    merge = (4.0, 300, {}, 5.0)
    reads_cpu, slices_cpu, merge_cpu = bench.projected_cpu(reads, slices, merge, runners=16, scale=10)
    assert reads_cpu == 50.0 and merge_cpu == 50.0
    assert slices_cpu == (16 * 4.0 + (12.0 - 3.0) + (14.0 - 4.0)) * 10  # the largest slice's whole-version phases


def test_each_process_peak_is_projected_along_the_line_through_two_sizes_a_read_job_by_the_batch_it_reads(
    monkeypatch, capsys
):
    """A process's memory has a large fixed part (the libraries), so it is projected along the line through two
    sizes, not in step with the transcripts; a read job's by the transcripts of its batch (a sixteenth of a million
    on 16 runners), a slice's and the merge's by the version's."""
    import importlib.util

    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    spec = importlib.util.spec_from_file_location("benchmark_script", ROOT / "scripts/benchmark.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.project_peaks((50_000, 88.0, 282.0, 179.0), (100_000, 145.0, 456.0, 263.0), count=4)
    said = capsys.readouterr().out
    read = 145 + (145 - 88) / (25_000 - 12_500) * (62_500 - 25_000)  # batches of 12,500 and 25,000 read
    slice_, merge = (y1 + (y1 - y0) / 50_000 * 900_000 for y0, y1 in ((282, 456), (179, 263)))
    assert f"a read job of 62,500 transcripts {read:,.0f} MB" in said and round(read) == 316
    assert f"a slice (of 4) {slice_:,.0f} MB, the merge {merge:,.0f} MB" in said
    assert said.rstrip().endswith("against 1,024 MB a process: read job within, slice over, merge over")


def test_the_whole_publish_is_timed_against_hugo_and_pagefind_in_alternating_rounds():
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts/benchmark.py"),
            "--entrants",
            "2",
            "--repetitions",
            "2",
            "--against-hugo",
            "2",
        ],  # fmt: skip
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    head = r"^the whole publish of 24 transcripts: build\.py against v0\.\d+\.\d+\S* \+ Pagefind"
    assert re.search(head, done.stdout, re.M), done.stdout
    rounds = re.findall(r"^  round (\d): (build\.py|Hugo) +[\d.]+ s wall", done.stdout, re.M)
    assert rounds == [("1", "build.py"), ("1", "Hugo"), ("2", "Hugo"), ("2", "build.py")]  # who goes first alternates
    assert re.search(r"build\.py / Hugo \+ Pagefind = [\d.]+$", done.stdout, re.M)


def test_the_host_projection_stops_the_growth_of_files_whose_size_is_bounded(monkeypatch):
    """A part of the transcript list, a part of the manifest (in bytes) and a search bundle's files stop growing at
    their bound; the projected million-transcript site's largest file is worked out from that (host_figures)."""
    import importlib.util

    monkeypatch.syspath_prepend(str(ROOT / "scripts"))  # as when it is run: its helpers lie beside it
    spec = importlib.util.spec_from_file_location("benchmark_script", ROOT / "scripts/benchmark.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    grow = bench.capped_growth
    assert grow("b/v/data/transcripts/1.json", 100_000, 10, 0) == 1  # already a full part of 10,000
    assert grow("b/v/data/transcripts/1.json", 5_000, 10, 0) == 2  # half full now
    assert grow("b/v/data/transcripts/1.json", 500, 2, 0) == 2
    assert grow("publish-manifest/1.json", 100_000, 10, 0) is None  # grows along its line, to its bound
    assert bench.bounded("publish-manifest/1.json", 80e6) == bench.PART_BYTES + 100 < 25 * 2**20  # Cloudflare's
    assert bench.bounded("publish-manifest/1.json", 3.5e6) == 3.5e6 and bench.bounded("b/v/index.html", 80e6) == 80e6
    bundle = grow("b/v/search/run-1/pagefind.en_1.pf_meta", 100_000, 10, 5_000)  # a run of 50,000 pages, in parts
    assert bench.parts_of(50_000) > 1 and bundle == pytest.approx(50_000 / bench.parts_of(50_000) * 1.1 / 5_000)
    assert grow("b/v/search/run-1/pagefind.en_1.pf_meta", 1_000, 2, 500) == 2  # 1,000 pages: still one bundle
    assert grow("b/v/items/ab/x/index.html", 100_000, 10, 5_000) is None  # grows along its line
    total = bench.projected_total
    assert total((1_000, 15e6), (2_000, 30e6), 1_000_000) == pytest.approx(15e9)  # in step
    assert total((1_000, 16e6), (2_000, 31e6), 1_000_000) == pytest.approx(15.5e9)  # a fixed part: in step, not less
    square = [(n, 14_000 * n + 0.01 * n * n) for n in (40_000, 100_000)]  # a part growing as the square (a pager)
    assert square[1][1] * 10 < total(*square, 1_000_000) < 14_000 * 1_000_000 + 0.01 * 1_000_000**2  # a floor
    assert bench.grows_faster(*square)  # so the benchmark warns that it is one
    assert not bench.grows_faster((1_000, 16e6), (2_000, 31e6)) and not bench.grows_faster((1_000, 15e6), (2_000, 30e6))
    # the lean sites of 39,960 and 99,960 transcripts before a pager linked a few pages: 2.7% more a transcript
    assert bench.grows_faster((39_960, 598.6e6), (99_960, 1_538.5e6))
