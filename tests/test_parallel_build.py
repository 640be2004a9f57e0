"""Rendering in worker processes: the same bytes as one process, and nothing linked is left unbuilt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import tree_hash

from site_src.scoring.release import build_release
from site_src.site import freeze as build


def test_two_workers_write_the_same_bytes_as_one_process(demo, tmp_path: Path):
    release = build_release(demo)
    one = build.freeze(release, tmp_path / "one", jobs=1)
    two = build.freeze(release, tmp_path / "two", jobs=2)
    assert one == two and len(one) > 300
    assert tree_hash(tmp_path / "one") == tree_hash(tmp_path / "two")


def test_a_page_linked_but_not_listed_is_still_built(demo, tmp_path: Path, monkeypatch):
    listed = build.version_pages

    def without_methodology(view, skip=frozenset()):  # noqa: ANN001, ANN202
        return ((e, v) for e, v in listed(view, skip) if e != "methodology")

    monkeypatch.setattr(build, "version_pages", without_methodology)
    urls = build.freeze(build_release(demo), tmp_path / "site", jobs=2)
    assert "/tuckerbench/v1-pilot/methodology/" in urls  # linked from every page's sub-navigation
    assert (tmp_path / "site/tuckerbench/v1-pilot/methodology/index.html").stat().st_size > 1000


def test_the_collector_rests_while_a_build_reads_and_scores_and_works_while_pages_render(tmp_path, monkeypatch):
    """A build keeps what it reads until it ends, so the cycle collector is off while it reads and scores; pages
    are rendered with it on (they make and drop objects page after page); and the caller gets it back as it was."""
    import gc

    from helpers import CONTENT, RUNS

    import site_src.build.pipeline as pipeline
    import site_src.cli as cli

    seen: dict[str, bool] = {}
    load, render = pipeline.read, build._render_chunk

    def reading(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        seen["reading"] = gc.isenabled()
        return load(*args, **kwargs)

    def rendering(urls):  # noqa: ANN001, ANN202
        seen["rendering"] = gc.isenabled()
        return render(urls)

    monkeypatch.setattr(pipeline, "read", reading)
    monkeypatch.setattr(build, "_render_chunk", rendering)
    monkeypatch.setattr(build.os, "cpu_count", lambda: 1)  # render in this process, where the test can look
    assert gc.isenabled()
    assert cli.main(["--content", str(CONTENT), "--runs", str(RUNS), "--out", str(tmp_path / "site"), "-q"]) == 0
    assert seen == {"reading": False, "rendering": True}
    assert gc.isenabled()


def test_the_chart_drawer_starts_while_the_runs_are_read_and_is_gone_when_the_build_ends(
    runs_copy, tmp_path, monkeypatch
):
    """vl-convert's runtime is started in the drawing process while the build reads on the other core; the charts
    are handed to it once the release is scored, drawn there while it is scanned and pages are keyed, and the
    process is stopped before pages render, also when the build fails."""
    from helpers import CONTENT, edit_jsonl

    import site_src.build.pipeline as pipeline
    import site_src.cli as cli
    from site_src.site import drawing

    seen = []
    read = pipeline.read

    def reading(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        ahead = drawing._DRAWER
        seen.append(ahead._process if ahead is not None and ahead._process.poll() is None else None)  # running
        return read(*args, **kwargs)

    monkeypatch.setattr(pipeline, "read", reading)
    monkeypatch.setattr(drawing, "DRAWN", {})
    # a build's process, as build.py runs it: whatever an earlier test drew in this one (the app draws on demand)
    monkeypatch.setattr(drawing, "_RUNTIME", False)
    drawn_by = []
    draw = drawing.draw_all

    def draw_all(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        ahead = drawing._DRAWER
        drawn_by.append(ahead if ahead and ahead.asked is not None else "not asked for ahead (draw_soon)")
        drawn = draw(*args, **kwargs)
        drawn_by.append([p for p in seen if p is not None and p.poll() is None])  # stopped before workers fork
        return drawn

    monkeypatch.setattr(drawing, "draw_all", draw_all)
    argv = ["--content", str(CONTENT), "--runs", str(runs_copy), "--quiet"]
    assert cli.main([*argv, "--out", str(tmp_path / "site")]) == 0
    assert len(seen) == 1 and seen[0] and isinstance(drawn_by[0], drawing.Drawer) and drawn_by[1:] == [[]]
    assert len(drawing.DRAWN) >= 3  # the demo's charts, drawn by that process
    assert drawing._DRAWER is None and seen[0].poll() is not None

    token = "AKIA" + "Q" * 16  # a build refused for a secret stops the drawer too
    edit_jsonl(runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl", 3, lambda r: r.update(raw_output=token))
    assert cli.main([*argv, "--out", str(tmp_path / "refused")]) == 1
    assert len(seen) == 2 and seen[1] and len(drawn_by) == 2
    assert drawing._DRAWER is None and seen[1].poll() is not None


def test_a_chart_the_drawer_cannot_draw_stops_the_build_with_the_reason(monkeypatch):
    """The drawing process reports a failure instead of dying silently; the build raises it. It is started fresh,
    even from a process where vl-convert's runtime runs (as in the preview server): a fork of that process would
    wait for the runtime's threads for ever."""
    from site_src.site import drawing
    from site_src.site.charts import Chart
    from site_src.site.drawing import Drawer

    monkeypatch.setattr(drawing, "DRAWN", {})
    point = {"mark": "point", "data": {"values": [{"x": 1}]}}
    assert "<svg" in drawing.svg_for(Chart("warm", "warm", "a point", [], point)) and drawing._RUNTIME
    drawer = Drawer()
    try:
        drawer.ask({"bad": '{"mark": "no such mark", "data": {"values": []}}'})
        with pytest.raises(RuntimeError, match="drawing the charts failed"):
            drawer.collect()
        drawer.ask({"good": json.dumps(point)})
        assert drawer.collect()["good"].startswith("<svg")
    finally:
        drawer.stop()


def test_many_run_files_are_hashed_on_every_core_to_the_same_digests(tmp_path: Path, monkeypatch):
    """A fresh checkout hashes every run file: past HASHED_APART files a core, on every core, each file's SHA-256
    as one process gives it, in the same order; a file recorded with its size, mtime and inode is not read."""
    import hashlib
    import os

    from site_src import workers
    from site_src.build import cache

    files = {f"run-{i % 7}/t/{i}.json": (f'{{"n": {i}}}' * (i % 50 + 1)).encode() for i in range(300)}
    files["run-0/empty.json"] = b""
    for rel, data in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    one = cache._digests(tmp_path, "runs")
    monkeypatch.setattr(cache, "HASHED_APART", 10)
    monkeypatch.setattr(cache, "HASHED_CHUNK", 7)
    pools: list[int] = []  # the workers of each pool made
    fork = workers.multiprocessing.get_context("fork")

    class Forking:
        def Pool(self, jobs: int):  # noqa: N802
            pools.append(jobs)
            return fork.Pool(jobs)

    monkeypatch.setattr(workers.multiprocessing, "get_context", lambda kind: Forking())
    many = cache._digests(tmp_path, "runs")
    assert many == one and list(many) == list(one) and len(one) == len(files)
    assert all(cache._hex_of(one[f"runs/{rel}"]) == hashlib.sha256(data).hexdigest() for rel, data in files.items())
    assert pools == ([min(os.cpu_count(), 30)] if (os.cpu_count() or 1) > 1 else [])  # 301 files, 10 a core
    (tmp_path / "run-0/empty.json").unlink()  # a file known by its stat is not opened: gone, it would fail
    kept = cache._digests(tmp_path, "runs", dict(cache._as_recorded(one)))  # as the build state records them
    assert kept == {k: v for k, v in one.items() if k != "runs/run-0/empty.json"}
