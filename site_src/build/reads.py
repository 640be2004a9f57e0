"""`build.py read`: the map step of a sliced build. Each job reads a batch of the runs once, and the slices take
those reads instead of reading every run of the version again.

    build.py read --only BENCH/VERSION --slice K/N --out reads-K     (a job each: batch K of N of the version's runs)
    build.py --only BENCH/VERSION --slice K/N --reads reads-1 ... --reads reads-N --out slice-K

A read job reads, validates and works out (what scoring works out from a run alone) the runs of its batch, exactly
as a build's read phase does, and writes them as the build cache keeps them (store.py: data, never code) into a
folder of its own, listed in `reads.json` (schema: schemas/reads.schema.json, format_version 1):

    {"format": "evalboard-reads", "format_version": 1, "generator": "evalboard X.Y.Z",
     "only": "bench/version" or null, "batch": [k, n],
     "runs": [{"run": "runs/bench/run", "key": "<64 hex>",
               "files": {"run": "<SHA-256>", "turns": "<SHA-256>", "derived": "<SHA-256>"}}, ...]}

and the files `runs/<key>.run`, `.turns` and `.derived` beside it. A run's key covers the code, the content and the
run's files (BuildCache.run_key). A build given --reads takes a run from them only when its key is the one the
build gives that run from its own checkout, and every file has the SHA-256 listed: the read job read the very files
this build would, with the same code. It then seals the run into its own build cache, as if it had read it. A run
no reads folder holds is read as usual; a reads folder that is damaged, or was made from other inputs, is refused.

What a slice trusts: a reads folder is as trusted as a shard's summary in a merge (merge.py). It comes from another
job of the same workflow, is checked against this checkout's inputs by keys, and is decoded as data only (codec.py).
Every page made from it still passes the backstop scan as it is written, and the merge scans each file again.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from .. import GENERATOR
from ..jsonio import read_bytes
from ..outdir import overlap_problem
from ..problems import InputError, Problems
from ..readers.project import RunDir
from ..validate import check
from . import report
from .cache import BuildCache
from .config import BuildConfig

READS = "reads.json"
FORMAT, FORMAT_VERSION = "evalboard-reads", 1
# a kept run's file (run, turns, derived: store.py): its turns hold every transcript's text, so this bounds only a
# runaway file
MAX_RUN_FILE = 1 << 32


class ReadsError(ValueError):
    """A reads folder that cannot be taken: named, with what is wrong."""


def in_batch(found: list[RunDir], batch: tuple[int, int]) -> list[RunDir]:
    """The runs of batch k of n: every n-th of them in path order, from the k-th, so that batches hold as nearly
    the same number of runs as can be, and every job deals the same checkout alike."""
    k, n = batch
    chosen = {d.rel for d in sorted(found, key=lambda d: d.rel)[k - 1 :: n]}
    return [d for d in found if d.rel in chosen]  # in the order found, as their problems are said


def read_batch(config: BuildConfig) -> int:
    """build.py read: read the runs of batch config.part (all, without it) of config.only (every version, without
    it) and write them into config.out as a reads folder. Nothing is written when a run has a problem that fails
    the build (or config.out holds anything but an earlier reads folder)."""
    from ..readers.project import start_project
    from .pipeline import collector_paused
    from .reading import read, runs_to_read

    problem = _destination_problem(config)
    if problem:
        return report.refused(problem)
    out = config.out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with collector_paused(), tempfile.TemporaryDirectory(prefix=f".{out.name}.new-", dir=out.parent) as scratch:
        batch = runs_to_read(config, start_project(config.content, config.runs, Problems()), config.part or (1, 1))
        folders = [(d.path, d.rel) for d in batch]  # only these runs' files are digested, not the whole version's
        cache = BuildCache.open(
            Path(scratch) / "site", config.content, config.runs, config.options, True, run_dirs=folders
        )
        if cache.seal is None:
            return report.refused(f"{cache.notice}; a read job keeps what it reads as the build cache does")
        got = read(config, cache, batch=config.part or (1, 1))
        if report.problems(got.project, config.strict):
            print("nothing was written", file=sys.stderr)
            return 1
        cache.keep_derived()
        runs = [run.path for bench in got.project.benchmarks for version in bench.versions for run in version.runs]
        folder = Path(scratch) / "reads"
        write_reads(folder, cache, runs, config)
        _replace(folder, out)
    if not config.quiet:
        print(f"read {len(runs)} runs into {config.out}/")
    return 0


def _destination_problem(config: BuildConfig) -> str | None:
    """Why config.out cannot take the reads folder: it overlaps an input, or holds something other than an earlier
    reads folder (which it replaces)."""
    out = config.out
    if out.exists() and not (out / READS).is_file() and not (out.is_dir() and not any(out.iterdir())):
        return (f"{out} is not empty and holds no {READS} of an earlier read; it would be replaced, so nothing was "
                "written. Choose a new or empty folder.")  # fmt: skip
    return overlap_problem(out, config.inputs())


def write_reads(folder: Path, cache: BuildCache, runs: list[str], config: BuildConfig) -> None:
    """Write the runs this build read (their folders' paths, as problems name them) as a reads folder."""
    (folder / "runs").mkdir(parents=True)
    listed = []
    for rel in sorted(runs):
        key = cache.run_key(rel)
        files = cache.stored(rel)
        for name, data in files.items():
            (folder / "runs" / f"{key}.{name}").write_bytes(data)
        listed.append({"run": rel, "key": key, "files": {n: hashlib.sha256(d).hexdigest() for n, d in files.items()}})
    about = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "generator": GENERATOR,
        "only": config.only,
        "batch": list(config.part or (1, 1)),
        "runs": listed,
    }
    (folder / READS).write_bytes(orjson.dumps(about, option=orjson.OPT_INDENT_2) + b"\n")


def _replace(new: Path, out: Path) -> None:
    """Put the new reads folder at out, in place of an earlier one (output_problem allowed no other folder)."""
    if out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.replace(out, old)
        shutil.rmtree(old)
    os.replace(new, out)


def take_reads(folders: list[Path], wanted: list[RunDir], cache: BuildCache) -> None:
    """Take into the build cache the runs of wanted that the reads folders hold (ReadsError when one of them cannot
    be taken): cache.from_reads lists them."""
    wanted_rels = {d.rel for d in wanted}
    for folder in _reads_folders(folders):
        for entry in _listed(folder):
            rel = entry["run"]
            if rel not in wanted_rels or cache.has(rel):
                continue
            if entry["key"] != cache.run_key(rel):
                raise ReadsError(
                    f"{folder / READS}: its read of {rel} was made from other files than this build's (the code, the "
                    f"content or that run's files differ); make it again with build.py read from this checkout"
                )
            cache.take_read(rel, _files(folder, entry))


def _reads_folders(given: list[Path]) -> Iterator[Path]:
    """Each reads folder given, or, for a folder that is none, each one directly inside it (as CI's artifacts are
    downloaded: a folder each)."""
    for folder in given:
        if (folder / READS).is_file():
            yield folder
            continue
        inside = sorted(p for p in folder.iterdir() if (p / READS).is_file()) if folder.is_dir() else []
        if not inside:
            raise ReadsError(f"{folder} is not a reads folder (no {READS}) and holds none")
        yield from inside


def _listed(folder: Path) -> list[dict[str, Any]]:
    """The runs reads.json lists, checked against its schema and this code's generator."""
    path = folder / READS
    try:
        about = orjson.loads(read_bytes(path, str(path)))
    except InputError as exc:
        raise ReadsError(f"{path} cannot be read: {exc}") from None
    except orjson.JSONDecodeError as exc:
        raise ReadsError(f"{path} cannot be read as JSON ({exc})") from None
    problems = Problems()
    if not check(about, "reads", str(path), None, problems) or problems.items:
        raise ReadsError(f"{path} is not a reads list: {problems.items[0]}")
    if about["generator"] != GENERATOR:
        raise ReadsError(f"{path} was written by {about['generator']}, not {GENERATOR}; make it again with this one")
    return about["runs"]


def _files(folder: Path, entry: dict[str, Any]) -> dict[str, bytes]:
    """A listed run's files, each with the SHA-256 reads.json gives it."""
    files = {}
    for name, digest in entry["files"].items():
        path = folder / "runs" / f"{entry['key']}.{name}"
        try:  # a regular file reached through no link at its last step (a FIFO is refused, not waited on)
            data = read_bytes(path, str(path), MAX_RUN_FILE)
        except InputError:
            data = None
        if data is None or hashlib.sha256(data).hexdigest() != digest:
            raise ReadsError(
                f"{path} is missing, a link, not a plain file, or differs from its {READS}; "
                "make that reads folder again"
            )
        files[name] = data
    return files
