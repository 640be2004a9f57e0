"""Read jobs (`build.py read`, build/reads.py): each reads a batch of a version's runs once, and a slice given their
folders with --reads takes those runs instead of reading them again. What the slice publishes is byte for byte what
it publishes when it reads every run itself; a reads folder that is damaged, made from other inputs or by other code
is refused by name, and one whose bytes are not records is never run as code."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import orjson
import pytest
from helpers import CONTENT, ROOT, RUNS, copy_project, tree_hash
from test_importers import build

from site_src import GENERATOR
from site_src.build.reads import in_batch
from site_src.cli import main
from site_src.readers.project import RunDir

PACK = "uzbek-pack/0.1.0"  # three runs in the demo


def run(runs: Path, *args: str, content: Path = CONTENT) -> int:
    return main(["--content", str(content), "--runs", str(runs), *args])


def read_jobs(runs: Path, folder: Path, version: str, count: int, content: Path = CONTENT) -> list[Path]:
    out = []
    for k in range(1, count + 1):
        target = folder / f"reads-{k}"
        assert run(runs, "read", "--quiet", "--only", version, "--slice", f"{k}/{count}", "--out", str(target),
                   content=content) == 0  # fmt: skip
        out.append(target)
    return out


def listed(reads: Path) -> dict[str, object]:
    return json.loads((reads / "reads.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[Path]]:
    """The demo's runs, the pack's slice 1 of 2 built reading every run itself, and two read jobs' folders."""
    root = tmp_path_factory.mktemp("reads")
    runs = root / "runs"
    shutil.copytree(RUNS, runs)
    assert run(runs, "--quiet", "--only", PACK, "--slice", "1/2", "--out", str(root / "by-itself")) == 0
    return runs, root, read_jobs(runs, root, PACK, 2)


def test_read_jobs_read_each_run_of_the_version_once_and_list_it_by_key(made):
    runs, _, reads = made
    everyone = sorted(p.relative_to(runs.parent).as_posix() for p in (runs / "uzbek-pack").iterdir())
    got = [[entry["run"] for entry in listed(folder)["runs"]] for folder in reads]
    assert sorted(sum(got, [])) == everyone and [len(g) for g in got] == [2, 1]
    for folder in reads:
        about = listed(folder)
        assert about["format"] == "evalboard-reads" and about["format_version"] == 1 and about["only"] == PACK
        assert about["generator"] == GENERATOR
        for entry in about["runs"]:
            assert set(entry["files"]) == {"run", "turns", "derived"}
            for name, digest in entry["files"].items():
                data = (folder / "runs" / f"{entry['key']}.{name}").read_bytes()
                assert hashlib.sha256(data).hexdigest() == digest
    assert sorted(p.name for p in reads[0].iterdir()) == ["reads.json", "runs"]  # no seal, no cache state


def test_a_batch_is_every_nth_run_in_path_order_and_keeps_the_order_found():
    found = [RunDir(Path(name), name, Path("runs")) for name in ("runs/c", "runs/a", "runs/e", "runs/b", "runs/d")]
    batches = [[d.rel for d in in_batch(found, (k, 2))] for k in (1, 2)]
    assert batches == [["runs/c", "runs/a", "runs/e"], ["runs/b", "runs/d"]]
    assert [d.rel for d in in_batch(found, (1, 1))] == [d.rel for d in found]
    assert in_batch(found, (6, 8)) == [] and [d.rel for d in in_batch(found, (5, 8))] == [
        "runs/e"
    ]  # more jobs than runs


def test_a_slice_that_takes_the_reads_publishes_what_it_publishes_reading_every_run(made, tmp_path, capsys):
    runs, root, reads = made
    out = tmp_path / "took"
    assert run(runs, "--only", PACK, "--slice", "1/2", "--reads", str(root), "--out", str(out)) == 0  # both, found
    assert "runs taken from the reads folders: 3 of 3 (the rest read here)" in capsys.readouterr().err
    assert tree_hash(out) == tree_hash(root / "by-itself")
    partly = tmp_path / "partly"  # one read job's folder: the runs it does not hold are read here
    assert run(runs, "--only", PACK, "--slice", "1/2", "--reads", str(reads[1]), "--out", str(partly)) == 0
    assert "runs taken from the reads folders: 1 of 3 (the rest read here)" in capsys.readouterr().err
    assert tree_hash(partly) == tree_hash(root / "by-itself")


def damaged(reads: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "damaged"
    shutil.copytree(reads, copy)
    return copy


def test_a_reads_file_that_differs_from_its_list_is_refused_by_name_and_nothing_is_written(made, tmp_path, capsys):
    runs, _, reads = made
    copy = damaged(reads[0], tmp_path)
    entry = listed(copy)["runs"][0]
    turns = copy / "runs" / f"{entry['key']}.turns"
    turns.write_bytes(turns.read_bytes() + b" ")
    out = tmp_path / "out"
    assert run(runs, "--quiet", "--only", PACK, "--slice", "1/2", "--reads", str(copy), "--out", str(out)) == 1
    said = capsys.readouterr().err
    assert f"{turns} is missing, a link, not a plain file, or differs from its reads.json" in said
    assert "nothing was written" in said
    assert not out.exists()
    turns.unlink()
    turns.symlink_to(reads[0] / "runs" / turns.name)  # the very bytes, through a link: not taken either
    assert run(runs, "--quiet", "--only", PACK, "--slice", "1/2", "--reads", str(copy), "--out", str(out)) == 1
    assert "is missing, a link, not a plain file, or differs" in capsys.readouterr().err and not out.exists()
    turns.unlink()
    os.mkfifo(turns)  # a FIFO is refused, not opened to wait for a writer
    assert run(runs, "--quiet", "--only", PACK, "--slice", "1/2", "--reads", str(copy), "--out", str(out)) == 1
    assert "is missing, a link, not a plain file, or differs" in capsys.readouterr().err and not out.exists()


def test_reads_made_from_other_inputs_or_by_other_code_are_refused(made, tmp_path, capsys):
    runs, _, reads = made
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    with (content / "uzbek-pack/methodology.md").open("a", encoding="utf-8") as f:
        f.write("\nOne more sentence.\n")  # the content differs, so every run's key does
    out = tmp_path / "out"
    args = ["--quiet", "--only", PACK, "--slice", "1/2", "--reads", str(reads[0]), "--out", str(out)]
    assert run(runs, *args, content=content) == 1
    first = listed(reads[0])["runs"][0]["run"]
    assert f"its read of {first} was made from other files than this build's" in capsys.readouterr().err
    copy = damaged(reads[0], tmp_path)
    about = listed(copy) | {"generator": "evalboard 0.0.1"}
    (copy / "reads.json").write_text(json.dumps(about), encoding="utf-8")
    assert run(runs, "--quiet", "--only", PACK, "--slice", "1/2", "--reads", str(copy), "--out", str(out)) == 1
    assert f"was written by evalboard 0.0.1, not {GENERATOR}" in capsys.readouterr().err
    (copy / "reads.json").write_text(json.dumps(about | {"runs": "all"}), encoding="utf-8")
    assert run(runs, "--quiet", "--only", PACK, "--slice", "1/2", "--reads", str(copy), "--out", str(out)) == 1
    assert "reads.json is not a reads list" in capsys.readouterr().err
    assert run(runs, "--quiet", "--only", PACK, "--reads", str(tmp_path / "content"), "--out", str(out)) == 1
    assert "is not a reads folder (no reads.json) and holds none" in capsys.readouterr().err
    assert not out.exists()


def test_a_reads_file_of_other_objects_is_decoded_as_data_never_run(made, tmp_path, capsys):
    """A reads folder that names a class outside the records (os.system, say) with a digest to match is sealed into
    the cache as it is, but decoding refuses it: the run is read here, and nothing named is called."""
    runs, root, reads = made
    copy = damaged(reads[0], tmp_path)
    about = listed(copy)
    entry = about["runs"][0]
    hostile = orjson.dumps({"$d": "os:system", "v": [f"touch {tmp_path / 'ran'}"]})
    (copy / "runs" / f"{entry['key']}.run").write_bytes(hostile)
    entry["files"]["run"] = hashlib.sha256(hostile).hexdigest()
    (copy / "reads.json").write_text(json.dumps(about), encoding="utf-8")
    out = tmp_path / "out"
    assert run(runs, "--only", PACK, "--slice", "1/2", "--reads", str(copy), "--out", str(out)) == 0
    assert not (tmp_path / "ran").exists()
    assert tree_hash(out) == tree_hash(root / "by-itself")


def test_a_read_job_writes_nothing_when_a_run_fails_and_replaces_only_an_earlier_reads_folder(tmp_path, capsys):
    runs = tmp_path / "runs"
    shutil.copytree(RUNS, runs)
    broken = sorted((runs / "uzbek-pack").iterdir())[0]
    responses = next(broken.rglob("*.jsonl"))
    responses.write_text(responses.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    out = tmp_path / "reads"
    assert run(runs, "read", "--only", PACK, "--slice", "1/1", "--out", str(out)) == 1
    said = capsys.readouterr().err
    assert responses.name in said and "nothing was written" in said and not out.exists()
    assert not list(tmp_path.glob(".reads*"))  # nor a scratch folder left beside it
    shutil.rmtree(runs)
    shutil.copytree(RUNS, runs)
    assert run(runs, "read", "--quiet", "--only", PACK, "--slice", "2/2", "--out", str(out)) == 0
    assert run(runs, "read", "--quiet", "--only", PACK, "--slice", "1/2", "--out", str(out)) == 0  # replaced
    assert listed(out)["batch"] == [1, 2]
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine", encoding="utf-8")
    assert run(runs, "read", "--only", PACK, "--out", str(other)) == 1
    assert "is not empty and holds no reads.json" in capsys.readouterr().err
    assert [p.name for p in other.iterdir()] == ["notes.txt"]
    assert run(runs, "read", "--only", PACK, "--out", str(runs / "x")) == 1
    assert "lies inside a runs folder" in capsys.readouterr().err


REAL = [  # (importer, benchmark, fixture, options): real results, tests/fixtures/ with their licences
    ("inspect", "agent", "tests/fixtures/inspect_ai/metr/small.eval", ["--publish-reasoning"]),
    ("alpaca-eval", "alpaca", "tests/fixtures/alpaca_eval/text_davinci_001", ["--annotator=alpaca_eval_gpt4"]),
]


def test_real_results_taken_from_read_jobs_publish_what_a_slice_reading_them_publishes(tmp_path):
    """An Inspect agent log and an AlpacaEval folder, imported as a user imports them: each imported version's
    runs read by a read job and taken by a slice, which publishes what the slice reading them itself does."""
    project = copy_project(tmp_path / "project")
    for source, bench, fixture, options in REAL:
        done = build(project, "import", source, str(ROOT / fixture), "--benchmark", bench, *options)
        assert done.returncode == 0, done.stdout + done.stderr
    done = build(project, "matrix", "--slices", "2")
    versions = {job["version"] for job in json.loads(done.stdout)["include"]}
    imported = sorted(v for v in versions if v.split("/")[0] in {bench for _, bench, _, _ in REAL})
    assert len(imported) == 2, versions
    for version in imported:
        done = build(project, "read", "--only", version, "--out", f"reads/{version}")
        assert done.returncode == 0, done.stdout + done.stderr
        listed_runs = listed(project / "reads" / version)["runs"]
        assert listed_runs and all(entry["run"].startswith(f"runs/{version.split('/')[0]}/") for entry in listed_runs)
        args = ["--only", version, "--slice", "1/2", "--out"]
        took = build(project, *args, f"took/{version}", "--reads", f"reads/{version}")
        itself = build(project, *args, f"itself/{version}", "-q")
        assert took.returncode == 0 and itself.returncode == 0, took.stderr + itself.stderr
        count = len(listed_runs)
        assert f"runs taken from the reads folders: {count} of {count}" in took.stderr
        assert tree_hash(project / "took" / version) == tree_hash(project / "itself" / version)
