"""build.py --host: a site is measured against its host's documented limits before it is put in place, and one
that exceeds them is not published, with what exceeds which limit and by how much."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from helpers import CONTENT, tree_hash

from site_src import hosts
from site_src.cli import main
from site_src.hosts import HOSTS, Measure, exceeded


def run(runs: Path, *args: str) -> int:
    return main(["--content", str(CONTENT), "--runs", str(runs), *args])


def walked(folder: Path) -> dict[str, object]:
    """The same figures, counted another way: from every path below the folder."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    folders = [folder, *(p for p in folder.rglob("*") if p.is_dir())]
    entries = {f: len(os.listdir(f)) for f in folders}
    largest = max(files, key=lambda p: p.stat().st_size)
    return {
        "site_bytes": sum(p.stat().st_size for p in files),
        "files": len(files),
        "folder_entries": max(entries.values()),
        "file_bytes": largest.stat().st_size,
    }


def test_measure_counts_size_files_the_fullest_folder_and_the_largest_file():
    m = Measure.of([("a/b/c.html", 10), ("a/b/d.html", 20), ("a/x.html", 5), ("top.html", 3), ("a/e/f", 1)])
    assert (m.site_bytes, m.files, m.file_bytes, m.largest_file) == (39, 5, 20, "a/b/d.html")
    assert (m.folder_entries, m.fullest_folder) == (3, "a")  # b/, e/ and x.html: a folder is an entry once


def test_measure_of_a_built_site_agrees_with_a_walk_of_it(built_site):
    m = Measure.of_folder(built_site)
    got = {k: getattr(m, k) for k in ("site_bytes", "files", "folder_entries", "file_bytes")}
    assert got == walked(built_site)


def test_each_limit_exceeded_is_named_with_the_figure_the_limit_and_by_how_much():
    m = Measure(site_bytes=1_250_000_000, files=25_000, folder_entries=60_000, fullest_folder="b/v/t",
                file_bytes=30 * hosts.MIB, largest_file="b/v/data/transcripts.json")  # fmt: skip
    assert exceeded(HOSTS["github-pages"], m) == [
        "site size: 1,250.0 MB, over the limit of GitHub Pages, 1,000.0 MB, by 250.0 MB"
    ]
    assert exceeded(HOSTS["netlify"], m) == [
        "entries in one folder: 60,000 (b/v/t/), over the limit of Netlify, 54,000, by 6,000"
    ]
    assert exceeded(HOSTS["cloudflare"], m) == [
        "files: 25,000, over the limit of Cloudflare Pages (free plan), 20,000, by 5,000",
        "file size: 30.0 MiB (b/v/data/transcripts.json), over the limit of Cloudflare Pages (free plan), "
        "25.0 MiB, by 5.0 MiB",
    ]
    assert exceeded(HOSTS["cloudflare-paid"], m) == [exceeded(HOSTS["cloudflare"], m)[1].replace("free", "paid")]


def test_a_site_within_its_hosts_limits_is_published_with_its_figures(runs_copy, tmp_path, capsys):
    out = tmp_path / "site"
    assert run(runs_copy, "--out", str(out), "--host", "netlify") == 0
    m = Measure.of_folder(out)
    said = capsys.readouterr().out
    assert f"within the limits of Netlify: entries in one folder {m.folder_entries:,} ({m.fullest_folder}/)" in said


@pytest.mark.parametrize("host", ["cloudflare", "netlify"])
def test_a_site_over_its_hosts_limits_is_not_published_and_the_last_one_stays(runs_copy, tmp_path, capsys,
                                                                              monkeypatch, host):  # fmt: skip
    out = tmp_path / "site"
    assert run(runs_copy, "--out", str(out), "--quiet") == 0
    before = tree_hash(out)
    files, entries = Measure.of_folder(out).files, Measure.of_folder(out).folder_entries
    small = dataclasses.replace(HOSTS[host], files=files - 3, folder_entries=entries - 1)
    monkeypatch.setitem(HOSTS, host, small)
    capsys.readouterr()
    assert run(runs_copy, "--out", str(out), "--host", host, "--fresh") == 1
    err = capsys.readouterr().err
    assert f"files: {files:,}, over the limit of {small.title}, {files - 3:,}, by 3" in err
    assert f"entries in one folder: {entries:,} (" in err and f"{entries - 1:,}, by 1" in err
    assert f"the site does not fit {small.title}" in err and "nothing was published" in err
    assert tree_hash(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site.tmp-")]


def test_a_site_up_to_date_is_still_checked_against_the_host_named(runs_copy, tmp_path, capsys, monkeypatch):
    out = tmp_path / "site"
    assert run(runs_copy, "--out", str(out), "--quiet") == 0
    size = Measure.of_folder(out).site_bytes
    monkeypatch.setitem(HOSTS, "github-pages", dataclasses.replace(HOSTS["github-pages"], site_bytes=size - 10))
    assert run(runs_copy, "--out", str(out), "--host", "github-pages") == 1
    captured = capsys.readouterr()
    assert "is up to date" in captured.out and "over the limit of GitHub Pages" in captured.err


def test_the_sites_measure_before_it_is_in_place_is_that_of_the_site_put_in_place(runs_copy, tmp_path, monkeypatch):
    """A rebuild measures the new files where they are staged and the kept ones where they still lie."""
    out = tmp_path / "site"
    assert run(runs_copy, "--out", str(out), "--quiet") == 0
    seen: list[Measure] = []
    from site_src.build import pipeline

    real = pipeline.hosted
    monkeypatch.setattr(pipeline, "hosted", lambda config, m, *full: seen.append(m) or real(config, m, *full))
    lines = (runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl").read_text(encoding="utf-8")
    (runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl").write_text(
        lines.replace('"raw_output": "', '"raw_output": "x', 1), encoding="utf-8"
    )
    assert run(runs_copy, "--out", str(out), "--quiet", "--host", "cloudflare") == 0
    assert seen == [Measure.of_folder(out)]


def test_host_is_refused_for_one_shard(runs_copy, tmp_path, capsys):
    assert run(runs_copy, "--only", "tuckerbench/v1-pilot", "--host", "netlify", "--out", str(tmp_path / "s")) == 1
    assert "--host checks a whole site" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()
