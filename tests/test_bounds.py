"""Every input is bounded in time and memory: what each limit refuses, with a message naming the limit and the file,
and that the work stops where the limit is reached. scripts/bounds.py prints each worst case's time and peak memory.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import pytest
from helpers import ROOT, copy_project

from site_src.jsonio import MAX_FILE_BYTES, read_bytes, read_jsonl
from site_src.problems import MAX_ERRORS_PER_FILE, InputError, Problems
from site_src.readers.importplan import ImportFailed
from site_src.systems.inspect_log import importer as inspect_importer
from site_src.systems.inspect_log import logfile
from site_src.systems.pairwise import importer as pairwise_importer

FIX = ROOT / "tests/fixtures"
LOG = FIX / "inspect_ai/log_formats.eval"


def _archive(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buffer.getvalue()


def _log_members() -> dict[str, bytes]:
    with zipfile.ZipFile(LOG) as z:
        return {name: z.read(name) for name in z.namelist()}


def _no_member_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("a member was read before the archive's limits were checked")

    monkeypatch.setattr(zipfile.ZipFile, "read", refuse)


def test_an_archive_that_inflates_a_thousand_times_is_refused_before_a_member_is_read(monkeypatch):
    bomb = _archive({**_log_members(), "samples/2_epoch_1.json": b" " * (20 * 1024 * 1024)})
    assert len(bomb) < 200_000
    _no_member_is_read(monkeypatch)
    with pytest.raises(logfile.LogError, match=r"inflates to \d+ times its \d+ bytes, over the limit of 100 times"):
        logfile.read_log("x.eval", bomb)


def test_an_archive_past_the_member_count_or_the_inflated_size_is_refused(monkeypatch):
    data = _archive(_log_members())
    monkeypatch.setattr(logfile, "MAX_MEMBERS", 3)
    _no_member_is_read(monkeypatch)
    with pytest.raises(logfile.LogError, match=r"the archive holds \d+ members, over the limit of 3"):
        logfile.read_log("x.eval", data)
    monkeypatch.setattr(logfile, "MAX_MEMBERS", 100)
    monkeypatch.setattr(logfile, "MAX_INFLATED_BYTES", 1000)
    with pytest.raises(logfile.LogError, match=r"the archive inflates to \d+ bytes, over the 1000-byte limit"):
        logfile.read_log("x.eval", data)


def test_the_real_logs_stay_within_every_limit():
    for path in sorted((FIX / "inspect_ai").glob("*.eval")) + sorted((FIX / "inspect_ai").glob("*.json")):
        assert logfile.read_log(path.name, path.read_bytes()).samples


def test_an_import_names_the_file_and_the_limit_and_never_opens_a_fifo(tmp_path, monkeypatch):
    fifo = tmp_path / "log.eval"
    os.mkfifo(fifo)
    with pytest.raises(ImportFailed, match="is not a regular file"):  # and does not block
        inspect_importer.plan([fifo], "b", None, None, {})
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2048)
    monkeypatch.setattr(inspect_importer, "MAX_LOG_BYTES", 1024)
    with pytest.raises(ImportFailed, match=rf"{big}: file is 2048 bytes, over the 1024-byte limit"):
        inspect_importer.plan([big], "b", None, None, {})
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model_outputs.json").write_bytes(b"[]" + b" " * 2048)
    monkeypatch.setattr(pairwise_importer, "MAX_RESULTS_BYTES", 1024)
    with pytest.raises(ImportFailed, match=r"model_outputs.json: file is 2050 bytes, over the 1024-byte limit"):
        pairwise_importer._read(folder / "model_outputs.json")


def test_a_results_file_with_a_key_given_twice_is_refused_on_import_and_on_reading(tmp_path):
    from site_src.systems.pairwise.reader import parse_json_list

    data = b'[{"instruction": "a", "output": "b", "output": "c"}]'
    with pytest.raises(ValueError, match="duplicate key 'output'"):
        parse_json_list(data, "model_outputs.json")
    path = tmp_path / "model_outputs.json"
    path.write_bytes(data)
    with pytest.raises(ImportFailed, match="duplicate key 'output'"):
        pairwise_importer._read(path)


def test_a_file_of_a_million_bad_records_is_read_no_further_than_its_error_limit(tmp_path, monkeypatch):
    """The lines of a JSON Lines file stop coming once the file has had more errors than are listed, whoever
    reported them: here the pack's reader, which finds every record lacking its fields."""
    import site_src.jsonio as jsonio

    parsed = []
    real = jsonio.loads_strict
    monkeypatch.setattr(jsonio, "loads_strict", lambda text, **kw: parsed.append(1) or real(text, **kw))
    project = copy_project(tmp_path / "project", ("content", "runs"))
    responses = project / "runs/uzbek-pack/demo-model-a-run1/responses.jsonl"
    responses.write_text("{}\n" * 1_000_000, encoding="utf-8")
    from site_src.readers.project import load_project

    problems = load_project(project / "content", [project / "runs"], Problems()).problems
    mine = [p for p in problems.items if p.file.endswith("demo-model-a-run1/responses.jsonl")]
    assert len(mine) == MAX_ERRORS_PER_FILE + 1 and "the rest are not read or listed" in mine[-1].message
    assert len(parsed) < 3 * MAX_ERRORS_PER_FILE  # not a million


def test_a_jsonl_file_stops_at_its_own_errors_too(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"ok": 1}\n' + b"x\n" * 500 + b'{"ok": 2}\n')
    problems = Problems()
    assert list(read_jsonl(path, "bad.jsonl", problems)) == [(1, {"ok": 1})]  # the good line after the cap is not read
    assert len(problems.items) == MAX_ERRORS_PER_FILE + 1


def test_a_run_file_over_the_limit_is_refused_without_being_read(tmp_path):
    path = tmp_path / "big.json"
    with path.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: no bytes are written or read
    with pytest.raises(InputError, match=f"over the {MAX_FILE_BYTES}-byte limit"):
        read_bytes(path, "big.json")


@pytest.mark.parametrize("told", [0, 10, 99, 100])
def test_a_file_is_read_whole_and_bounded_whatever_size_its_stat_gave(tmp_path, monkeypatch, told):
    """read_bytes asks for a file's size and a byte more (not for the limit); a file that grew since its stat is read
    on to its end, and refused past the limit, as before."""
    import site_src.jsonio as jsonio

    path = tmp_path / "run.json"
    path.write_bytes(bytes(range(100)))
    real = os.fstat

    def fstat(fd: int) -> os.stat_result:  # the size the file had when stat was asked, before it grew
        got = list(real(fd))
        got[6] = told  # st_size
        return os.stat_result(got)

    monkeypatch.setattr(jsonio.os, "fstat", fstat)
    assert read_bytes(path, "run.json") == bytes(range(100))
    with pytest.raises(InputError, match=r"run.json: file is (over|\d+ bytes, over) the 50-byte limit"):
        read_bytes(path, "run.json", limit=50)  # told 0 or 10: grown past it while read; told 99 or 100: by its stat


def test_invisible_characters_between_every_letter_are_removed_in_one_pass_and_positions_stay_exact():
    from site_src.secretrules import find, redact

    token = "ghp_" + "a1B2" * 9
    hidden = "\u034f".join(token)
    text = ("a\u034f" * 10_000) + f" key {hidden} end"
    spans = find(text)
    assert [rule for rule, _, _ in spans] == ["github-token"]
    assert redact(text, spans).endswith(" key [REDACTED: github-token] end")
    assert json.dumps(find("\u200b" * 100_000)) == "[]"


# ---- what CI installs is pinned
PAGEFIND_SHA256 = {  # pagefind_bin's binary for the version constraints.txt pins, by machine
    "x86_64": "c4b86009ce5420dc2a1748ab2705bef6ba730ed883f684fd52ef6008bd600532",
}


def test_ci_and_the_quick_start_install_the_pinned_versions_and_pagefind_is_the_pinned_binary():
    import hashlib
    import platform
    import re
    from importlib.metadata import version

    from pagefind_bin import get_executable

    pins = dict(
        line.split("==")
        for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    )
    assert {"pagefind_bin", "Flask", "Frozen-Flask", "Jinja2", "playwright", "pytest"} <= pins.keys()
    assert version("pagefind_bin") == pins["pagefind_bin"]
    for name in ("pytest", "playwright", "Flask", "orjson", "google-re2"):
        assert version(name) == pins[name], name
    for path in (ROOT / ".ci/run", ROOT / "README.md", ROOT / "netlify.toml", ROOT / ".github/workflows/pages.yml"):
        installs = re.findall(r"pip install[^\n&]*", path.read_text(encoding="utf-8"))
        assert installs and all("-c constraints.txt" in line for line in installs), (path, installs)
    machine = platform.machine()
    if machine in PAGEFIND_SHA256:
        assert hashlib.sha256(Path(get_executable()).read_bytes()).hexdigest() == PAGEFIND_SHA256[machine]


def test_past_the_checked_matches_of_a_rule_the_rest_are_findings_without_their_checks(monkeypatch):
    """A megabyte of secret-shaped assignments stays under a second: past MAX_CHECKED matches of one rule in one
    text, the rest are findings without their entropy and allowlist checks (more findings, never fewer)."""
    from site_src import secretrules

    allowed = "DB_PASSWORD=aaaaaa11"  # too little entropy: let be, while it is checked
    assert secretrules.find(allowed) == []
    text = " ".join(["DB_PASSWORD=hunter2x", "DB_PASSWORD=hunter3y", allowed])
    assert len(secretrules.find(text)) == 2
    monkeypatch.setattr(secretrules, "MAX_CHECKED", 2)
    assert len(secretrules.find(text)) == 3
