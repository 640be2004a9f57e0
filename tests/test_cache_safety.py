"""The build cache can cost time, never run code or change a published byte (site_src/build/sealed.py, store.py).

Every file of the cache is data sealed with a key that never leaves the machine that wrote it. A cache committed to
a repository, copied from another checkout or machine, or edited, is ignored with a one-line notice and built again,
and what is published is byte for byte what a build without it publishes. The payloads planted here are shown to
run under a loader that trusts them (pickle, Jinja2's own bytecode cache), then shown not to run under ours."""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import copy_project, edit_json, tree_hash
from jinja2 import Environment, FileSystemBytecodeCache, FileSystemLoader
from jinja2.bccache import Bucket

from site_src.build.sealed import Seal
from site_src.site.app import FILTERS


def build(project: Path, machine: Path, *args: str) -> subprocess.CompletedProcess:
    """build.py run in a checkout, on a machine whose user cache folder (where the key lies) is `machine`."""
    env = {**os.environ, "XDG_CACHE_HOME": str(machine)}
    return subprocess.run(
        [sys.executable, "build.py", *args], cwd=project, env=env, capture_output=True, text=True, timeout=300
    )


class Opens:
    """A pickle that creates a file when it is loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return open, (str(self.marker), "w")


def bytecode_payload(project: Path, name: str, marker: Path) -> tuple[str, bytes]:
    """Jinja2 bytecode for template `name` of a checkout, as Jinja2's bytecode cache names and checks it (its key and
    its source's checksum are easily worked out): the template's own code, which also creates marker when loaded."""
    env = Environment(loader=FileSystemLoader(str(project / "templates")))
    env.filters.update(FILTERS)
    source, filename, _ = env.loader.get_source(env, name)
    cache = FileSystemBytecodeCache()
    key = cache.get_cache_key(name, filename)
    bucket = Bucket(env, key, cache.get_source_checksum(source))
    python = env.compile(source, name, filename, raw=True)
    bucket.code = compile(f"open({str(marker)!r}, 'w').close()\n{python}", filename, "exec")
    return key, bucket.bytecode_to_string()


def plant(project: Path, marker: Path) -> None:
    """A contributor's commit: the site and cache of their build, with a changed page (its manifest entry changed to
    match), a pickle under every name a cache file has had, Jinja2 bytecode that runs code for every template, and
    each sealed file of the cache changed and sealed again with a key of the attacker's own."""
    site, cache = project / "_site", project / "._site.cache"
    page = site / "index.html"
    old = hashlib.sha256(page.read_bytes()).hexdigest()
    page.write_text(page.read_text(encoding="utf-8").replace("</main>", "<p>PLANTED</p></main>"), encoding="utf-8")
    manifest = site / "publish-manifest.json"
    new = hashlib.sha256(page.read_bytes()).hexdigest()
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    payload = pickle.dumps(Opens(marker))
    for name in ("state.json", "drawings.json", "specs.json", "runs/x.pickle", "derived/x.pickle"):
        (cache / name).write_bytes(payload)
    for run in (cache / "runs").glob("*.run"):
        (cache / "runs" / f"{run.stem}.pickle").write_bytes(payload)
    for name in Environment(loader=FileSystemLoader(str(project / "templates"))).list_templates():
        key, code = bytecode_payload(project, name, marker)
        (cache / "templates" / f"{key}.cache").write_bytes(code)
        (cache / "templates" / f"__jinja2_{key}.cache").write_bytes(code)
    attacker = Seal(b"attacker key, 32 bytes long. ok!", cache)
    for path in [cache / "state.jsonl", cache / "drawings.sealed", *cache.glob("*/*.run")]:
        data = path.read_bytes()[: -hashlib.sha256().digest_size]
        if path.name == "state.jsonl":
            attacker_lines = data.split(b"\n#seal ")[0] + b"\n"
            with attacker.writing_lines(path) as f:
                f.write(attacker_lines.replace(b"Demo Entrant Alpha", b"Entrant From The Attacker"))
        else:
            attacker.write(path, data.replace(b"Demo Entrant Alpha", b"Entrant From The Attacker"))


def test_the_planted_payloads_run_under_a_loader_that_trusts_them(tmp_path):
    """The payloads are real: pickle runs one on load, and Jinja2's own file cache runs the planted bytecode."""
    marker = tmp_path / "ran"
    pickle.loads(pickle.dumps(Opens(marker)))
    assert marker.exists()
    marker.unlink()
    project = copy_project(tmp_path / "checkout")
    key, code = bytecode_payload(project, "base.html", marker)
    (tmp_path / "bytecode").mkdir()
    (tmp_path / "bytecode" / f"__jinja2_{key}.cache").write_bytes(code)
    env = Environment(
        loader=FileSystemLoader(str(project / "templates")),
        bytecode_cache=FileSystemBytecodeCache(tmp_path / "bytecode"),
    )
    env.get_template("base.html")
    assert marker.exists()


def test_a_cache_committed_to_a_fresh_clone_runs_nothing_and_publishes_what_a_clean_build_does(tmp_path):
    contributor, reviewer = tmp_path / "contributor-machine", tmp_path / "reviewer-machine"
    theirs = copy_project(tmp_path / "theirs")
    assert build(theirs, contributor).returncode == 0
    clone = copy_project(tmp_path / "clone")
    shutil.copytree(theirs / "_site", clone / "_site")
    shutil.copytree(theirs / "._site.cache", clone / "._site.cache")
    marker = tmp_path / "ran"
    plant(clone, marker)

    done = build(clone, reviewer)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    notices = [line for line in done.stderr.splitlines() if line.startswith("notice:")]
    assert notices == [
        "notice: the build cache ._site.cache/ beside _site/ was not written on this machine for this checkout by "
        "this version (or was changed since): it is ignored and built again"
    ]
    clean = copy_project(tmp_path / "clean")
    assert build(clean, reviewer).returncode == 0
    assert tree_hash(clone / "_site") == tree_hash(clean / "_site")
    # what the reviewer's build keeps is its own: the next build finds it up to date, and nothing ran then either
    again = build(clone, reviewer)
    assert "is up to date" in again.stdout and "notice" not in again.stderr and not marker.exists()
    assert not list((clone / "._site.cache").rglob("*.pickle")) and not (clone / "._site.cache/state.json").exists()


def test_a_cache_copied_from_another_checkout_on_the_same_machine_is_built_again(tmp_path):
    machine = tmp_path / "machine"
    first = copy_project(tmp_path / "first")
    assert build(first, machine).returncode == 0
    second = copy_project(tmp_path / "second")
    shutil.copytree(first / "._site.cache", second / "._site.cache")
    shutil.copytree(first / "_site", second / "_site")
    done = build(second, machine)
    assert done.returncode == 0 and "is up to date" not in done.stdout
    assert "was not written on this machine for this checkout" in done.stderr
    assert tree_hash(second / "_site") == tree_hash(first / "_site")


@pytest.mark.parametrize("part", ["a kept run", "its turns", "compiled templates", "drawn charts"])
def test_a_cache_file_edited_in_place_is_worked_out_again(part, tmp_path):
    """An edited file of this checkout's own cache verifies no more: the build reads, compiles or draws again, and
    publishes what a build without a cache publishes."""
    machine = tmp_path / "machine"
    project = copy_project(tmp_path / "project")
    assert build(project, machine).returncode == 0
    cache = project / "._site.cache"
    files = {
        "a kept run": cache.glob("runs/*.run"),
        "its turns": cache.glob("runs/*.turns"),
        "compiled templates": cache.glob("templates/*.cache"),
        "drawn charts": cache.glob("drawings.sealed"),
    }[part]
    for path in files:
        data = path.read_bytes()
        middle = len(data) // 2
        path.write_bytes(data[:middle] + bytes([data[middle] ^ 1]) + data[middle + 1 :])  # one bit changed
    # one transcript changes, so the build does not stop at "up to date": every run is read or loaded
    edit_json(
        next((project / "runs/tuckerbench").rglob("transcripts/*/*.json")),
        lambda t: t["turns"][-1].update(content="edited"),
    )
    done = build(project, machine)
    assert done.returncode == 0, done.stderr
    fresh = build(project, machine, "--out", "_fresh", "--fresh")
    assert fresh.returncode == 0, fresh.stderr
    assert tree_hash(project / "_site") == tree_hash(project / "_fresh")
    if part in ("a kept run", "its turns"):
        assert re.search(r"\d+ runs kept in the build cache did not verify; they were read again", done.stderr)


# ---- the codec (site_src/build/codec.py): records as data
def test_the_codec_gives_back_every_kind_of_value_a_record_holds():
    from array import array

    from site_src.build import codec
    from site_src.model import Turn

    value = {
        "$schema": ("a", 1, 2.5, None, True),
        (1, "x"): {frozenset({"b", "a"}), 3},
        "bytes": b"\x00\xff",
        "figures": array("d", [0.25, 7.0]),
        "odd floats": [float("inf"), -0.0, 1e308],
        "big": 1 << 70,
        "turn": Turn("assistant", "hi \u034f there", truncated=True),
    }
    back = codec.loads(codec.dumps(value))
    assert back == value and type(back[(1, "x")]) is set and type(back["$schema"]) is tuple
    assert type(back["figures"]) is array and back["figures"].typecode == "d"
    assert str(codec.loads(codec.dumps(float("nan")))) == "nan"


def test_records_decoded_together_share_each_string_they_hold_alike():
    """A run's transcripts, decoded from the cache or a read job's folder, hold their run's, entrant's and item's
    ids as one string each (JSON gives every row its own): equal records, a third less of their strings' memory."""
    from site_src.build import codec
    from site_src.model import Transcript

    def fresh(text: str) -> str:  # a string object of its own, as a reader's parse makes one
        return "".join(list(text))

    def transcript(n: int) -> Transcript:
        ids = map(fresh, (f"run-a--e1--item--r{n}", "run-a", "e1", "item"))
        return Transcript(*ids, n, fresh("completed"), fresh(f"runs/b/run-a/t/r{n}.json"), fresh("(whole file)"))

    rows = [transcript(n) for n in (1, 2, 3)]
    assert rows[0].run_id is not rows[1].run_id
    back = codec.loads(codec.dumps({"transcripts": rows}))["transcripts"]
    assert back == rows
    for name in ("run_id", "entrant_id", "item_id", "status", "source_record"):
        assert len({id(getattr(t, name)) for t in back}) == 1, name
    assert len({id(t.id) for t in back}) == 3


@pytest.mark.parametrize(
    "planted",
    [
        b'{"$d": "os:system", "v": ["touch /tmp/x"]}',
        b'{"$d": "builtins:eval", "v": ["1"]}',
        b'{"$d": "site_src.cli:main", "v": [["--help"]]}',
        b'{"$d": "site_src.build.cache:BuildCache", "v": []}',
        b'{"$d": "antigravity:x", "v": []}',
        b'{"$d": "site_src.model:Turn", "v": ["user"]}',
        b'{"$x": 1}',
        b'{"$a": "O", "v": []}',
    ],
)
def test_the_codec_refuses_what_it_did_not_write_and_imports_nothing_it_names(planted):
    from site_src.build import codec

    with pytest.raises(codec.CodecError):
        codec.loads(planted)
    assert "antigravity" not in sys.modules


def test_a_record_of_a_module_not_yet_imported_decodes_in_a_new_process():
    """A rebuild loads kept runs before it imports the scorers: their records (a TuckerBench transcript score) must
    decode then too, or everything worked out from a run is worked out again."""
    script = (
        "import sys; from site_src.build import codec; "
        "assert 'site_src.systems.tuckerbench.scoring' not in sys.modules; "
        'v = codec.loads(b\'{"$d": "site_src.systems.tuckerbench.scoring:TranscriptScore", "v": '
        '["single", "completed", {}, {"$a": "d", "v": []}, null, {"$t": []}, [], false, false]}\'); '
        "print(type(v).__name__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=Path(__file__).parent.parent, capture_output=True, text=True
    )
    assert done.stdout.strip() == "TranscriptScore", done.stderr


def test_a_page_and_its_manifest_entry_changed_together_are_made_again(tmp_path):
    """Pages are kept from the last build when their bytes match the output folder's manifest: a page changed with
    its manifest entry to match (a pull request that commits _site/, say) matches, so the manifest itself must be the
    one the last build wrote, or nothing of the output is kept."""
    machine = tmp_path / "machine"
    project = copy_project(tmp_path / "project")
    assert build(project, machine).returncode == 0
    site = project / "_site"
    page = next(site.rglob("t/*/*/index.html"))
    old = hashlib.sha256(page.read_bytes()).hexdigest()
    page.write_text(page.read_text(encoding="utf-8").replace("</main>", "<p>PLANTED</p></main>"), encoding="utf-8")
    manifest = site / "publish-manifest.json"
    new = hashlib.sha256(page.read_bytes()).hexdigest()
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    done = build(project, machine)
    assert done.returncode == 0, done.stderr
    assert "notice: _site/publish-manifest.json changed since the last build: every page is made again" in done.stderr
    assert "PLANTED" not in page.read_text(encoding="utf-8")
    assert build(project, machine, "--out", "_fresh", "--fresh").returncode == 0
    assert tree_hash(site) == tree_hash(project / "_fresh")
