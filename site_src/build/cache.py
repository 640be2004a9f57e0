"""Rebuilds that redo only what changed.

A build records its keys in a folder beside its output (`.<out>.cache/`, never inside the output, so none of it is
published). A key is a SHA-256 over what something is made from:

- the build key covers the code and templates, the build options and every input file (content and runs). When it
  is unchanged and the output folder is as the last build left it, the build returns at once. As in git's index, a
  file whose size, modification time and inode are those recorded keeps its recorded digest, so an unchanged
  release is checked without reading it (`--fresh` reads and renders everything);
- a page's key covers the code, the options, every content file and the data the page shows (page_keys.py says
  which pages have one and what their keys cover). A page whose key is unchanged is kept from the previous
  output, after its bytes are checked against the previous publish manifest; every other page is rendered. Any
  change to code, templates or content renders everything.

Pages drawn from every run of a version (leaderboard, breakdown, items, entrants) are rendered whenever the build
runs.

Everything the folder holds is data under a seal (sealed.py, store.py): what was not written on this machine for this
checkout by this version, or was changed since, is ignored (with one notice) and built again, so the cache can cost
time but never run code or change a published byte. A build writes what it keeps into a stage beside the folder and
moves it in only once its site is in place: a build that fails or is refused leaves the cache as it was.
"""

from __future__ import annotations

import functools
import hashlib
import os
import secrets
import shutil
import struct
from collections.abc import Container, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING, Any

import orjson

from .. import GENERATOR, worked_out
from ..allocator import READ_STEP
from ..jsonio import object_pieces
from ..outdir import (
    IDENTITY,
    MANIFEST,
    Listing,
    Stat,
    file_for,
    files_below,
    identity,
    is_file,
    listed_in,
    manifest_digest,
    site_path,
)
from ..paths import PACKAGE, TEMPLATES
from ..readers.project import Prior
from ..systems import systems
from ..workers import forked
from .input_files import InputFiles
from .sealed import Seal, machine_key
from .store import read_run, read_value, turns_beside, write_run, write_value

if TYPE_CHECKING:  # the fast path (nothing changed) loads no scoring code
    from ..release import Release

STATE_FORMAT = 4  # 3: JSON lines (see _dump_state); 4: every file sealed (build/sealed.py), runs as data
STATE = "state.jsonl"
HASHED_APART = 2_000  # files to hash, per core at least, for them to be hashed on more than one (sha256s)
HASHED_CHUNK = 1_000  # files a worker hashes at a time
HASHED_TOGETHER = 50_000  # files _digests stats and hashes at a time (on every core past HASHED_APART a core)
DRAWINGS, SPECS = "drawings.sealed", "specs.sealed"
STAGE = ".new-"  # .<out>.cache.new-<pid>-<token>: a build's stage (BuildCache.stage)
OF_INPUTS = ("format", "code", "inputs", "clean")  # what the state records of the inputs alone, not of the output


def _hash(*parts: Any) -> str:
    return hashlib.sha256(orjson.dumps(parts, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _identity(st: os.stat_result) -> list[int]:
    """What tells a file unchanged since it was recorded, as git's index does: size, mtime and inode."""
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _stat(path: str) -> list[int]:
    return _identity(os.stat(path))  # a path string, not a Path: a merge asks this of every file it took


def _recorded(packed: bytes | None) -> list[int] | None:
    """A file's size, mtime and inode as the build state records them, from outdir.IDENTITY's packing."""
    return list(IDENTITY.unpack(packed)) if packed else None


def _digests(folder: Path, label: str, seen: dict[str, Any] | None = None) -> InputFiles:
    """label/relative path -> the size, mtime and inode (outdir.IDENTITY's packing) and SHA-256 (32 bytes) of every
    file below folder (bytecode caches aside), as one bytes (_hex_of, _as_recorded), held packed (input_files.py): a
    million run files took about 250 bytes each more as a list of numbers and hex, and 250 more in a dict. A file
    whose size, mtime and inode are those recorded in seen (the build state's form: [size, mtime, inode, hex]) keeps
    its recorded digest, as git's index does; a build with --fresh hashes everything again (sha256s: on every core
    when there are many), HASHED_TOGETHER files at a time."""
    if not folder.is_dir():
        return InputFiles()
    root, rels = str(folder) + os.sep, files_below(folder)
    chunks = (rels[i : i + HASHED_TOGETHER] for i in range(0, len(rels), HASHED_TOGETHER))
    return InputFiles(pair for chunk in chunks for pair in _digest_chunk(root, label, chunk, seen or {}))


def _digest_chunk(root: str, label: str, rels: list[str], seen: dict[str, Any]) -> list[tuple[str, bytes]]:
    """_digests' pairs for some of its files, in order: a file's stat, then its digest as recorded or hashed."""
    out: list[tuple[str, bytes]] = []
    unknown: list[int] = []  # where in out the files whose digest is not known are: hashed together below
    paths: list[str] = []  # and their paths on disk
    for rel in rels:
        if "__pycache__" in rel.split("/"):
            continue
        try:
            st = os.stat(root + rel)  # one call for what it is and its stat
        except OSError:
            continue  # a dangling link: no file
        if S_ISREG(st.st_mode):
            name = f"{label}/{rel}"
            stat = _identity(st)
            before = seen.get(name)
            same = isinstance(before, list) and before[:3] == stat and isinstance(before[3], str)
            out.append((name, IDENTITY.pack(*stat) + (bytes.fromhex(before[3]) if same else b"")))  # type: ignore[index]
            if not same:
                unknown.append(len(out) - 1)
                paths.append(root + rel)
    for i, digest in zip(unknown, sha256s(paths), strict=True):
        out[i] = (out[i][0], out[i][1] + digest)
    return out


def _hex_of(packed: bytes) -> str:
    """The SHA-256 (hex) of a file as _digests packs it."""
    return packed[IDENTITY.size :].hex()


def _as_recorded(files: Mapping[str, bytes]) -> Iterator[tuple[str, list[Any]]]:
    """Files as _digests packs them, in the build state's form: name, [size, mtime, inode, SHA-256 hex]."""
    for name, packed in files.items():
        yield name, [*IDENTITY.unpack(packed[: IDENTITY.size]), _hex_of(packed)]


def sha256s(paths: list[str]) -> list[bytes]:
    """The SHA-256 of each file, in order. A fresh checkout of a large release hashes every run file (a file
    of a few KB in 6 microseconds of CPU when the disk's cache holds it, up to 40 when it does not: up to 40 s at a
    million), and every slice and the merge of a version hashes all of them; past HASHED_APART files they are hashed
    on every core."""
    jobs = min(os.cpu_count() or 1, len(paths) // HASHED_APART)
    chunks = [paths[i : i + HASHED_CHUNK] for i in range(0, len(paths), HASHED_CHUNK)] if jobs > 1 else [paths]
    with forked(jobs) as pool:
        return [digest for done in (pool.imap if pool else map)(_sha256_each, chunks) for digest in done]


def _sha256_each(paths: list[str]) -> list[bytes]:
    """Each file read by its descriptor, with no file object: 6 microseconds for a run file of a few KB, against 14
    through open() and hashlib.file_digest."""
    out = []
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            digest = hashlib.sha256()
            while chunk := os.read(fd, READ_STEP):
                digest.update(chunk)
        finally:
            os.close(fd)
        out.append(digest.digest())
    return out


def _dump_state(seal: Seal, path: Path, data: dict[str, Any]) -> None:
    """Write the build state as JSON lines: its plain members as one object on the first line, then each member given
    as an iterator of (key, value) pairs as lines [name, {a thousand of its pairs}], never made whole. It lists every
    input file, output file and page key (about 8 MB at 10,000 transcripts): made whole, its dicts and its bytes were
    the peak of a full build's memory, about 2.4 KB per transcript; read whole, it rose a rebuild's peak at 20,000
    transcripts by 83 MB (a line at a time, by 50 MB). read_state reads it back a line at a time."""
    with seal.writing_lines(path) as f:
        f.write(orjson.dumps({name: value for name, value in data.items() if not isinstance(value, Iterator)}) + b"\n")
        for name, value in data.items():
            if isinstance(value, Iterator):
                pieces = object_pieces(value)
                for piece in chain([next(pieces, b"")], pieces):  # an empty member is one empty piece
                    f.write(b"[%s,{%s}]\n" % (orjson.dumps(name), piece))


def read_state(seal: Seal, path: Path) -> dict[str, Any]:
    """The build state _dump_state wrote, a line at a time, its site paths and URLs one string each with this
    build's (outdir.site_path); {} when there is none, it cannot be read, it is of another format, or its seal does
    not verify (then the whole of it is dropped, once read: nothing of it is used before)."""
    try:
        lines = seal.lines(path)
        state = orjson.loads(next(lines))
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            return {}
        for line in lines:
            name, piece = orjson.loads(line)
            if name == "outputs":  # each file's size, mtime and inode as outdir.IDENTITY packs them
                piece = {site_path(rel): IDENTITY.pack(*value) for rel, value in piece.items()}
            elif name == "pages":
                piece = {site_path(rel): value for rel, value in piece.items()}
            state.setdefault(name, {}).update(piece)
    except (OSError, ValueError, TypeError, AttributeError, struct.error, StopIteration):  # BrokenSeal included
        return {}
    return state


def _derived_file(run_file: Path) -> Path:
    return run_file.parent.parent / "derived" / run_file.name


def cache_folder(out: Path) -> Path:
    out = out.resolve()
    return out.parent / f".{out.name}.cache"


@dataclass
class BuildCache:
    out: Path
    options: dict[str, Any]
    previous: dict[str, Any]  # what the last build into out recorded (empty when none, or with --fresh)
    inputs: InputFiles  # content and run files (named as the readers name them) -> stat and digest (_digests)
    scope: str = "all"  # which pages: "all", "only bench/version" (a shard) or "merge"
    fresh: bool = False  # --fresh: nothing an earlier build kept is used (runs are read, and what they give worked out)
    code_files: dict[str, bytes] = field(init=False)  # the code and templates -> stat and digest (_digests)
    code: str = field(init=False)
    key: str = field(init=False)
    content: dict[str, str] = field(init=False)  # content file -> digest
    known: dict[str, bytes] = field(init=False, default_factory=dict)  # reused site path -> checked SHA-256
    known_stats: dict[str, bytes] = field(init=False, default_factory=dict)  # reused, unchanged since recorded
    listing: Listing | None = None  # the output folder's files and their stats, listed as the build reads
    seal: Seal | None = None  # seals and checks the cache folder's files; None when this machine has no key
    notice: str = ""  # why what the cache folder holds is not used, said once by the command line
    broken: int = field(init=False, default=0)  # kept runs that were there but did not verify
    reset: bool = False  # the cache folder holds nothing of this checkout's own: save empties it first
    # where this build writes what it keeps, beside the cache folder; save moves it in, so a build that fails or is
    # refused leaves the cache folder as it was (discard removes it)
    stage: Path = field(init=False)
    runs_used: set[str] = field(init=False, default_factory=set)  # run caches this build read or wrote
    run_keys_of: dict[int, dict[Any, str]] = field(init=False, default_factory=dict)
    # run file -> (the run, what was worked out from it when it was loaded): what changed since is kept (save)
    derived_from: dict[Path, tuple[Any, dict[str, Any]]] = field(init=False, default_factory=dict)
    from_reads: set[Path] = field(init=False, default_factory=set)  # runs taken from a read job's folder (take_read)

    def __post_init__(self) -> None:
        seen = self.previous.get("code", {})
        code = {**_digests(PACKAGE, "site_src", seen), **_digests(TEMPLATES, "templates", seen)}
        for s in systems():  # a plugin's code and templates, as a shipped system's are covered above
            if s.plugin:
                code.update(_digests(s.folder, s.package, seen))
        self.code_files = code
        self.code = _hash(GENERATOR, {k: _hex_of(v) for k, v in code.items()})
        self.content = {k: _hex_of(v) for k, v in self.inputs.below("content/")}
        self.key = _hash(STATE_FORMAT, self.code, self.options, self.content, self._runs_digest(), self.scope)
        folder = cache_folder(self.out)
        self.stage = folder.with_name(f"{folder.name}{STAGE}{os.getpid()}-{secrets.token_hex(4)}")

    @classmethod
    def open(
        cls,
        out: Path,
        content_dir: Path,
        run_roots: Iterable[Path],
        options: dict[str, Any],
        fresh: bool = False,
        scope: str = "all",
        listing: Listing | None = None,
        run_dirs: Iterable[tuple[Path, str]] | None = None,
    ) -> BuildCache:
        """The keys of a build into out; with fresh=True, as if no build had been made there before. listing, when
        given, lists out (else out is listed when a check needs it). run_dirs, when given ((folder, rel) each), are
        the only run folders whose files are digested (a read job's batch): the runs' keys need only theirs."""
        out = out.resolve()
        key, why = machine_key()
        seal = Seal(key, cache_folder(out)) if key else None
        previous, notice = ({}, f"no build cache is kept: {why}") if seal is None else ({}, "")
        reset = False
        if seal is not None and not fresh:
            previous, notice, reset = _previous(seal, out)
        seen = previous.get("inputs", {})
        inputs = _digests(content_dir, "content", seen)
        for root in run_roots if run_dirs is None else ():
            inputs |= _digests(root, root.name or str(root), seen)
        for folder, rel in run_dirs or ():
            inputs |= _digests(folder, rel, seen)
        cache = cls(out, options, previous, inputs, scope, fresh, listing, seal, notice, reset)
        if previous.get("code_key", cache.code) != cache.code and not notice:
            cache.notice = f"the code changed since the last build into {out.name}/: everything is made again"
        return cache

    # ---- runs as read: readers are the slow part of reading, so a run whose files did not change is not read again.
    # A kept run is data (build/store.py), sealed: what was not written here for this checkout is read again.
    def _run_file(self, rel: str) -> Path:
        key = _hash(STATE_FORMAT, self.code, self.content, rel, self._files_in(rel))
        self.runs_used.add(key)
        return cache_folder(self.out) / "runs" / f"{key}.run"

    def load(self, rel: str) -> tuple[Any, Any, list[Any]] | None:
        """The run as read by an earlier build (or taken from another job's read, take_read), with what that build
        worked out from it alone (worked_out)."""
        path = self._run_file(rel)
        if path in self.from_reads:
            return self._loaded(path, read_run(self.seal, self._staged(path)), self._staged(path))  # type: ignore[arg-type]
        found = None if self.fresh or self.seal is None else read_run(self.seal, path)
        if found is None and not self.fresh and self.seal is not None and path.exists():
            self.broken += 1  # there, but not sealed here for this checkout, or changed since: read again
        return self._loaded(path, found, path)

    def _loaded(self, path: Path, found: Any, at: Path) -> tuple[Any, Any, list[Any]] | None:
        """A run read from the cache file at (path's place, or its place in the stage), with what was worked out."""
        if found is not None:
            derived = read_value(self.seal, _derived_file(at))  # type: ignore[arg-type]
            worked_out.of(found[0]).update(derived if isinstance(derived, dict) else {})
            self.derived_from[path] = (found[0], dict(worked_out.of(found[0])))
        return found

    def prior(self, rel: str) -> Prior | None:
        """The run in folder rel as the last build read it, when only some of its files changed since (with the
        same code and content): a reader may take what it read from the others (see readers/project.py)."""
        if self.fresh or self.seal is None:
            return None
        before = self._before(rel)
        path = (
            cache_folder(self.out)
            / "runs"
            / f"{_hash(STATE_FORMAT, self.code, self.content, rel, sorted(before.items()))}.run"
        )
        if not before or not path.is_file():
            return None
        unchanged = frozenset(n[len(rel) + 1 :] for n, digest in self._files_in(rel) if before.get(n) == digest)
        return Prior(functools.partial(read_run, self.seal, path), unchanged)

    def prior_scanned_clean(self, rel: str) -> bool:
        """Whether the last build's secret scan found nothing in the read prior(rel) gives: its clean key is the one
        the last build recorded (_clean_keys) for a scan that found nothing. The key names each file of the folder,
        so no other run's can be the same."""
        before = self._before(rel)
        clean_then = _hash(self.base, _hash(sorted(before.items())))
        return bool(before) and clean_then in self.previous.get("clean", {}).values()

    def _before(self, rel: str) -> dict[str, str]:
        """The files of the folder rel as the last build recorded them: name -> SHA-256."""
        start = f"{rel}/"
        return {n: v[3] for n, v in self.previous.get("inputs", {}).items() if n.startswith(start)}

    def has(self, rel: str) -> bool:
        """Whether load(rel) will find the run (the read ahead reads the others in other processes meanwhile)."""
        if self.seal is None:
            return False
        path = self._run_file(rel)
        return path in self.from_reads or (not self.fresh and path.is_file() and turns_beside(path).is_file())

    def store(self, rel: str, run: Any, key: Any, warnings: list[Any]) -> None:
        """Keep the run as read (before any scoring, scanning or redaction), for the next build; from now on its
        transcripts' turns and its judgments are read from the cache folder when used (store.StoredList), in this
        build too."""
        if self.seal is None:
            return
        path = self._run_file(rel)
        write_run(self.seal, self._staged(path), run, key, warnings)
        self.derived_from[path] = (run, {})

    def adopt(self, rel: str, run: Any) -> None:
        """Take a run another process read and stored (store), as stored: what is worked out from it is kept too."""
        self.derived_from[self._run_file(rel)] = (run, {})

    # ---- runs another job read (build.py read, build/reads.py): given as they were stored there, taken as if read here
    def run_key(self, rel: str) -> str:
        """The key of the run in folder rel: of this code, this content and the run's files (name and digest each)."""
        return self._run_file(rel).stem

    def stored(self, rel: str) -> dict[str, bytes]:
        """The run this build read and stored (store, adopt) as the files that keep it, unsealed: "run", "turns"
        and, when something was worked out from it, "derived"."""
        assert self.seal is not None
        path = self._staged(self._run_file(rel))
        run, derived = self.seal.read(path), self.seal.read(_derived_file(path))
        assert run is not None, f"{rel} was not stored by this build"
        files = {"run": run, "turns": turns_beside(path).read_bytes()}
        return files | ({"derived": derived} if derived is not None else {})

    def take_read(self, rel: str, files: dict[str, bytes]) -> None:
        """Take the run in folder rel as another job stored it (stored: files), sealed into this build's stage: load
        then finds it as if this build had read it, and it is kept for the next build. The caller has checked that
        the job read the very files this build would (by run_key); load checks the turns against the run file."""
        assert self.seal is not None
        path = self._run_file(rel)
        staged = self._staged(path)
        self.seal.write(staged, files["run"])
        turns_beside(staged).write_bytes(files["turns"])
        if "derived" in files:
            self.seal.write(_derived_file(staged), files["derived"])
        self.from_reads.add(path)

    def keep_derived(self) -> None:
        """Store now what was worked out from each run alone (save does it once the site is in place)."""
        self._store_derived()

    def _store_derived(self) -> None:
        """Keep what this build worked out from each run alone, beside the run, for the next build (see load)."""
        for path, (run, loaded) in self.derived_from.items():
            now = worked_out.of(run)
            if now.keys() != loaded.keys() or any(now[n] is not loaded[n] for n in loaded):
                write_value(self.seal, self._staged(_derived_file(path)), now)  # type: ignore[arg-type]

    def _staged(self, path: Path) -> Path:
        """Where this build writes a file of the cache folder: its place in the stage."""
        return self.stage / path.relative_to(cache_folder(self.out))

    def discard(self) -> None:
        """Drop what this build staged, unless save moved it in."""
        shutil.rmtree(self.stage, ignore_errors=True)

    def commit(self) -> None:
        """Move what this build staged into the cache folder (emptied first when it held nothing of this checkout's
        own), and clear away runs no longer among the inputs and the stages of builds that were killed."""
        folder = cache_folder(self.out)
        if self.reset:
            shutil.rmtree(folder, ignore_errors=True)
        for rel in files_below(self.stage):
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.stage / rel, target)
        self.discard()
        used = {f"{key}{suffix}" for key in self.runs_used for suffix in (".run", ".turns")}
        for old in [*(folder / "runs").glob("*"), *(folder / "derived").glob("*")]:
            if old.name not in used:  # runs no longer among the inputs, or changed since
                old.unlink(missing_ok=True)
        for old_name in ("state.json", "drawings.json", "specs.json"):  # as builds before format 4 wrote them
            (folder / old_name).unlink(missing_ok=True)
        for stage in folder.parent.glob(f"{folder.name}{STAGE}*"):
            pid = stage.name[len(folder.name + STAGE) :].split("-")[0]
            if pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(stage, ignore_errors=True)

    def output_files(self) -> dict[str, Stat]:
        """Every file in out with its lstat, as listed at the start of the build."""
        if self.listing is None:
            self.listing = Listing(self.out)
        return self.listing.files()

    def _outputs(self) -> dict[str, bytes]:
        return {rel: identity(stat) for rel, stat in self.output_files().items()}

    def up_to_date(self) -> bool:
        """The last build into out had these very inputs, and out holds what it wrote: every file with the size,
        mtime and inode recorded then (a file edited or added by hand since makes the build run)."""
        if self.previous.get("build_key") != self.key or not self.out.is_dir():
            return False
        return self._outputs() == self.previous.get("outputs")

    def _files_in(self, rel: str) -> list[tuple[str, str]]:
        """(name, digest) of every run file below the folder rel: they lie together in name order."""
        return [(name, _hex_of(packed)) for name, packed in self.inputs.below(rel + "/")]

    def _runs_digest(self) -> str:
        """One SHA-256 over every run file's name and digest, in name order, taken a file at a time: at a million
        run files, a dict of them dumped whole for the build's key took about 100 MB."""
        digest = hashlib.sha256()
        for name, packed in self.inputs.items():  # a name holds no NUL; a digest is 32 bytes
            if not name.startswith("content/"):
                digest.update(b"%s\0%s" % (name.encode(), packed[IDENTITY.size :]))
        return digest.hexdigest()

    def _run_keys(self, release: Release) -> dict[tuple[tuple[str, str], str], str]:
        """(version key, run id) -> one key over the run directory's files; worked out once per release."""
        if id(release) not in self.run_keys_of:
            self.run_keys_of[id(release)] = {
                (view.key, run_id): _hash(self._files_in(run.path))
                for view in release.views
                for run_id, run in view.runs.items()
            }
        return self.run_keys_of[id(release)]

    def version_keys(self, release: Release) -> dict[str, str]:
        """ "bench/version" -> key over everything its pages are made from: code, options, content and its runs. A
        shard records it; a merge takes the shard's files only when its own inputs give the same key."""
        runs = self._run_keys(release)
        return {view.folder: _hash(self.base, sorted(runs[(view.key, r)] for r in view.runs)) for view in release.views}

    def _clean_keys(self, release: Release) -> dict[str, str]:
        """ "bench/version/run" -> key under which a run scanned without a finding stays clean."""
        return {f"{b}/{v}/{r}": _hash(self.base, key) for ((b, v), r), key in self._run_keys(release).items()}

    def clean_before(self, release: Release) -> set[tuple[str, str, str]]:
        """Runs the last build scanned without a finding, from the same files, code and options as now."""
        recorded = self.previous.get("clean", {})
        now = self._clean_keys(release)
        return {tuple(name.split("/", 2)) for name, key in now.items() if recorded.get(name) == key}  # type: ignore[misc]

    def page_keys(self, release: Release) -> dict[str, str] | None:
        """URL -> key of every page that comes in thousands (transcripts, their downloads, item and list pages),
        over what the page shows (see page_keys.py); None when the last build recorded none to compare them with (a
        first build, or --fresh). Then save works them out as it writes them, and the build never holds them: at
        10,000 transcripts, about 0.25 KB a transcript less at the peak of a full build."""
        if not self.previous.get("pages"):
            return None
        return dict(self._each_page_key(release))

    def _each_page_key(self, release: Release) -> Iterator[tuple[str, str]]:
        from .page_keys import each_page_key  # the scored release is loaded by now; the up-to-date check needs neither

        return each_page_key(release, self.base)

    def search_keys(self, release: Release, pages: Container[str]) -> dict[str, str]:
        """Transcript page (site path) -> key of what search indexes of it (see page_keys.search_keys), for the
        pages given."""
        from .page_keys import search_keys

        return search_keys(release, self.base, pages)

    @cached_property
    def base(self) -> str:
        """One key over the code, the options and the content: every key of a page, a version or a clean run covers
        it, besides the runs that one is made from."""
        return _hash(self.code, self.options, self.content)

    @cached_property
    def previous_files(self) -> dict[str, bytes | None]:
        """The previous output's files, each with the SHA-256 its manifest lists (pages and bundles are both checked
        against it)."""
        return listed_in(self.out / MANIFEST) or {}

    def _check(self, rels: list[str]) -> bool:
        """Each file is in the previous output with the bytes its manifest lists; noted in known when so. A file
        whose size, mtime and inode (as listed when this build started) are those recorded after the last build is
        unchanged since; any other is read and hashed."""
        sums: dict[str, bytes] = {}
        stats: dict[str, bytes] = {}
        manifest, recorded, present = self.previous_files, self.previous.get("outputs", {}), self.output_files()
        for rel in rels:
            found = present.get(rel)
            if found is None or rel not in manifest or not is_file(found):  # a link or a folder is no file of ours
                return False
            listed, stat = manifest[rel], identity(found)
            if recorded.get(rel) == stat:
                sums[rel], stats[rel] = listed, stat
            else:
                sums[rel] = hashlib.sha256((self.out / rel).read_bytes()).digest()
            if sums[rel] != listed:
                return False
        self.known |= sums
        self.known_stats |= stats
        return True

    def unchanged(self, digests: dict[str, bytes]) -> list[str]:
        """The files (site path -> SHA-256 of the new bytes) whose file in the previous output holds those bytes."""
        manifest = self.previous_files
        return [rel for rel, digest in digests.items() if manifest.get(rel) == digest and self._check([rel])]

    def reusable(self, keys: dict[str, str]) -> set[str]:
        """The URLs whose file in the previous output holds exactly the bytes this build would write for them."""
        pages = self.previous.get("pages", {})
        return {url for url, key in keys.items() if pages.get(url) == key and self._check([file_for(url)])}

    def bundle_keys(self, bundles: dict[str, list[str]], release: Release) -> dict[str, str]:
        """A search bundle's key: the keys of what search indexes of each page it indexes."""
        keys = self.search_keys(release, {page for pages in bundles.values() for page in pages})  # a slice's own
        return {name: _hash([keys.get(p) for p in pages]) for name, pages in bundles.items()}

    def reusable_bundles(self, bundle_keys: dict[str, str]) -> dict[str, list[str]]:
        """Bundle folder -> its files (site paths) in the previous output, for every bundle whose key is unchanged."""
        previous, manifest = self.previous.get("bundles", {}), self.previous_files
        by_bundle: dict[str, list[str]] = {}
        from ..site.search_index import bundle_of  # the rendering's modules: a build with nothing changed loads none

        for rel in manifest:
            name = bundle_of(rel)
            if name in bundle_keys:
                by_bundle.setdefault(name, []).append(rel)
        return {
            name: files
            for name, files in by_bundle.items()
            if previous.get(name) == bundle_keys[name] and self._check(files)
        }

    def save(
        self,
        keys: dict[str, str] | None,
        bundle_keys: dict[str, str],
        release: Release,
        clean: set[tuple[str, str, str]],
        files: Iterable[str],
        manifest: bytes,
        drawings: dict[str, str] | None = None,
        specs: dict[str, Any] | None = None,
    ) -> None:
        """Record this build's keys, once its output (these files, and the manifest whose SHA-256 is given) is in
        place; its page keys are worked out as they are written when not given (see page_keys). A file kept from the
        last build keeps the size, mtime and inode recorded then; only the files written anew are looked at."""
        if self.seal is None:
            return
        clean_keys = self._clean_keys(release)
        state = {
            "format": STATE_FORMAT,
            "build_key": self.key,
            "code_key": self.code,
            "manifest": manifest.hex(),
            "code": dict(_as_recorded(self.code_files)),
            "inputs": _as_recorded(self.inputs),
            "outputs": ((rel, _recorded(self.known_stats.get(rel)) or _stat(f"{self.out}/{rel}")) for rel in files),
            "pages": iter(keys.items()) if keys is not None else self._each_page_key(release),
            "bundles": bundle_keys,
            "clean": {name: key for name, key in clean_keys.items() if tuple(name.split("/", 2)) in clean},
        }
        shapes = {"code": self.code, "specs": specs or {}}
        for name, data in ((DRAWINGS, drawings or {}), (SPECS, shapes)):
            write_value(self.seal, self.stage / name, data)
        _dump_state(self.seal, self.stage / STATE, state)
        self._store_derived()  # after the page keys: working them out keeps each run's record keys (worked_out)
        self.commit()

    def drawings(self) -> dict[str, str]:
        """The charts the last build drew (drawing key -> SVG; the key covers the spec and vl-convert's version).
        Drawing is the slow part of a chart; a chart whose spec did not change is not drawn again."""
        found = self._kept(DRAWINGS)
        return found if isinstance(found, dict) else {}

    def specs(self) -> dict[str, Any]:
        """The chart shapes the last build made (charts.spec_key -> spec without its rows), if it ran the same code:
        a rebuild whose charts changed only in their rows takes them instead of importing Altair to make them."""
        found = self._kept(SPECS)
        if not isinstance(found, dict) or found.get("code") != self.code or not isinstance(found.get("specs"), dict):
            return {}
        return found["specs"]

    def _kept(self, name: str) -> Any:
        """What the last build kept in a file of the cache folder (see save), or None: with --fresh, when no build
        was made before, or when the file is missing or its seal does not verify."""
        if not self.previous or self.seal is None:
            return None
        return read_value(self.seal, cache_folder(self.out) / name)

    def bytecode_cache(self) -> Any:
        """Where compiled templates are kept for the next build, sealed (a Jinja2 BytecodeCache); None without a
        key."""
        from .templates_cache import SealedBytecodeCache  # Jinja2 is loaded by a build that renders

        if self.seal is None:
            return None
        return SealedBytecodeCache(self.seal, cache_folder(self.out) / "templates", self.stage / "templates")


def last_state(out: Path) -> dict[str, Any]:
    """What the last build into out recorded, as this machine reads it ({} when there is none it can verify)."""
    key, _ = machine_key()
    return read_state(Seal(key, cache_folder(out)), cache_folder(out) / STATE) if key else {}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's
    return True


def _previous(seal: Seal, out: Path) -> tuple[dict[str, Any], str, bool]:
    """What the last build into out recorded, why it is not used when it is not, and whether the cache folder holds
    nothing of this checkout's own: its state is missing (no notice: a first build), or was not written here for this
    checkout by this code (or was changed since). When the output folder's manifest is no longer the one that build
    wrote, nothing recorded of the output is used: every page is made again."""
    path = cache_folder(out) / STATE
    if not path.exists():
        return {}, "", cache_folder(out).exists()
    previous = read_state(seal, path)
    if not previous:  # nothing in the folder is this checkout's own: save empties it before it moves its files in
        return (
            {},
            (
                f"the build cache {cache_folder(out).name}/ beside {out.name}/ was not written on this machine for "
                "this checkout by this version (or was changed since): it is ignored and built again"
            ),
            True,
        )
    if _manifest_changed(previous, out):
        previous = {name: previous[name] for name in OF_INPUTS if name in previous}
        if os.path.lexists(out / MANIFEST):
            return previous, f"{out.name}/{MANIFEST} changed since the last build: every page is made again", False
    return previous, "", False


def _manifest_changed(previous: dict[str, Any], out: Path) -> bool:
    """Whether the output folder's manifest is not the one the last build wrote: by its size, mtime and inode as the
    state records them when those are unchanged (the usual rebuild reads nothing more), else by its SHA-256."""
    try:
        st = (out / MANIFEST).lstat()
    except OSError:
        return True
    if previous.get("outputs", {}).get(MANIFEST) == IDENTITY.pack(*_identity(st)):
        return False
    return previous.get("manifest") != (manifest_digest(out / MANIFEST) or b"").hex()
