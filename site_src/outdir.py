"""Output folders: the build only ever replaces a folder that an earlier build of ours wrote, whole.

The site and the review kit are written beside their output folder and swapped in when complete, so the old
folder is deleted. That is safe only when the old folder holds nothing but what a build wrote: each build leaves a
manifest listing every file it wrote, and a folder is replaced only when its manifest names our generator and
lists every file in it. A folder that is, contains or lies inside an input (a runs folder, the content folder, the
project itself) is never an output folder, however it looks.

A rebuild that changes a few files of many moves those into the old folder instead (update_in_place): each old
version is kept beside the folder and a journal is written before the first change, so a failed update is undone
at once, and one cut short (the process killed) is undone by the next build (recover) before anything else.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from stat import S_ISREG
from typing import Any

import orjson

from . import GENERATOR
from .jsonio import read_bytes
from .paths import CHECKOUT
from .problems import InputError

MANIFEST = "publish-manifest.json"  # the site's list of every file it holds
MAX_UNLISTED_SHOWN = 5


def site_path(rel: str) -> str:
    """The one string object that stands for a site path (or a page's URL) in this process. A rebuild keys half a
    dozen maps by the paths of the 30,000 files of a 10,000-transcript site (the last manifest, the recorded stats,
    the listing, the digests known and written, the page keys); each made its own copy of every path (about 130
    bytes each) until they shared one."""
    return sys.intern(rel)


def file_for(url: str) -> str:
    """Where a static server finds the page at a site-absolute URL: "/a/b/" -> "a/b/index.html"."""
    return site_path(url[1:] + "index.html" if url.endswith("/") else url[1:])


def url_of(file: str) -> str:
    """The site-absolute URL of a written file: the reverse of file_for."""
    return "/" + file.removesuffix("index.html")


def make_parent(path: Path, made: set[Path]) -> None:
    """Make the folder path lies in (and its parents) unless made holds it, then note it there: files written in
    folders they share (a lean version's pages share 256) cost one mkdir call a folder, not one a file."""
    if path.parent not in made:
        path.parent.mkdir(parents=True, exist_ok=True)
        made.add(path.parent)


def files_below(root: Path) -> list[str]:
    """Every file (and symbolic link) below root, as sorted relative POSIX paths. os.scandir tells folders, files
    and links apart without a call per entry: pathlib's rglob is several times slower at tens of thousands of files,
    and os.walk asks each folder it lists whether it is a link."""
    out: list[str] = []
    todo = [(str(root), "")]
    while todo:
        folder, prefix = todo.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    todo.append((entry.path, prefix + entry.name + "/"))
                else:
                    out.append(site_path(prefix + entry.name))
    return sorted(out)


def _overlaps(out: Path, folder: Path) -> str | None:
    if out == folder:
        return "is"
    if folder in out.parents:
        return "lies inside"
    if out in folder.parents:
        return "contains"
    return None


def output_problem(out: Path, manifest_name: str, inputs: list[tuple[str, Path]]) -> str | None:
    """Why out must not be written (replaced), or None when it is safe: missing, empty, or wholly ours.

    inputs are (what it is, folder) pairs: "the runs folder", "the content folder" and so on.
    """
    problem = placement_problem(out, manifest_name, inputs)
    if problem or not out.is_dir():
        return problem
    return unlisted_problem(out, manifest_name, files_below(out.resolve()))


def placement_problem(out: Path, manifest_name: str, inputs: list[tuple[str, Path]]) -> str | None:
    """The part of output_problem that needs no listing of out: out is or holds an input, or is a folder that no
    build of ours wrote (not empty, without our manifest)."""
    shown = str(out)
    real = out.resolve()
    overlap = overlap_problem(out, inputs)
    if overlap:
        return overlap
    if not real.exists():
        return None
    if not real.is_dir():
        return f"output folder {shown} exists and is not a folder; nothing was written"
    if not any(real.iterdir()):
        return None
    if listed_in(real / manifest_name) is None:
        return (
            f"output folder {shown} is not empty and was not written by a build (no {manifest_name} of "
            f"{GENERATOR.split()[0]}); it would be replaced, so nothing was written. Choose a new or empty folder."
        )
    return None


def overlap_problem(out: Path, inputs: list[tuple[str, Path]]) -> str | None:
    """Why out cannot be an output folder: it is, holds or lies inside an input, or holds the project."""
    real = out.resolve()
    for what, folder in [*inputs, ("the project folder", CHECKOUT)]:
        relation = _overlaps(real, folder.resolve())
        if relation and not (what == "the project folder" and relation == "lies inside"):
            return f"output folder {out} {relation} {what} ({folder}); choose a folder of its own, such as _site"
    return None


def unlisted_problem(out: Path, manifest_name: str, present: Iterable[str]) -> str | None:
    """The other part: out, a folder of ours, holds files (present: every file below it) that its manifest does
    not list, which replacing it would delete."""
    listed = listed_in(out / manifest_name) or {}
    unlisted = sorted(p for p in present if p != manifest_name and p not in listed)
    if unlisted:
        more = f" and {len(unlisted) - MAX_UNLISTED_SHOWN} more" if len(unlisted) > MAX_UNLISTED_SHOWN else ""
        return (
            f"output folder {out} holds {'a file' if len(unlisted) == 1 else 'files'} "
            f"its {manifest_name} does not list, "
            "which a rebuild would delete: "
            f"{', '.join(unlisted[:MAX_UNLISTED_SHOWN])}{more}; move them out first. Nothing was written."
        )
    return None


# a file's mode, size, modification time (ns) and inode, as lstat gives them, packed: the last 24 bytes are its
# IDENTITY, as the build state records it. A rebuild holds one for each of the 30,000 files of a 10,000-transcript
# site; as a tuple of four numbers, each took about 130 bytes more.
Stat = bytes
STAT, IDENTITY = struct.Struct("<QQqQ"), struct.Struct("<QqQ")


def is_file(listed: Stat) -> bool:
    """Whether a listed entry is a regular file (not a symbolic link or anything else)."""
    return S_ISREG(STAT.unpack(listed)[0])


def identity(listed: Stat) -> bytes:
    """A listed entry's size, mtime and inode, packed as IDENTITY packs what the build state records."""
    return listed[-IDENTITY.size :]


def list_files(root: Path) -> dict[str, Stat]:
    """Every file and symbolic link below root (relative POSIX path) with its lstat, in one walk; {} when root is
    no folder."""
    found: dict[str, Stat] = {}
    todo = [(str(root), "")]
    while todo:
        folder, prefix = todo.pop()
        try:
            entries = os.scandir(folder)
        except (FileNotFoundError, NotADirectoryError):
            continue
        with entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    todo.append((entry.path, prefix + entry.name + "/"))
                else:
                    st = entry.stat(follow_symlinks=False)
                    found[prefix + entry.name] = STAT.pack(st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino)
    return found


class Listing:
    """list_files(root), worked out by a process of its own from the moment this is made, while this process goes
    on (a build reads the runs meanwhile): at 30,000 files the walk and its stats take the kernel a few tenths of a
    second, which the other core can spend. files() waits for it; close() stops the process if still running.
    A plain forked process and a pipe: no thread is started here, so processes forked later inherit none."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: dict[str, Stat] | None = None
        self._process: Any = None
        if not root.is_dir():
            self._files = {}
            return
        context = multiprocessing.get_context("fork")
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(target=_send_listing, args=(root, send), daemon=True)
        self._process.start()
        send.close()

    def files(self) -> dict[str, Stat]:
        if self._files is None:
            try:
                received = self._receive.recv()
            except EOFError:  # the process failed: list here
                received = list_files(self.root)
            self._files = {site_path(rel): st for rel, st in received.items()}
            self.close()
        return self._files

    def close(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.join()
            self._receive.close()
            self._process = None


def _send_listing(root: Path, send: Any) -> None:
    send.send(list_files(root))
    send.close()


# the last manifest read, by its file's identity and stat (device, inode, size, mtime), not by the path's spelling:
# the output check is given the folder as typed and the cache its resolved path, and each read of the 11 MB manifest
# of 10,000 transcripts took 0.05 s until the three reads of a build were one
# -> (files, its SHA-256, the stat of each of its parts, its parts)
_READ: dict[tuple[int, int, int, int], tuple[dict[str, bytes | None], bytes, list[Any], list[tuple[str, bytes]]]] = {}


def listed_in(manifest: Path) -> dict[str, bytes | None] | None:
    """The files a manifest of ours lists, each with the SHA-256 it lists as its 32 bytes (None if it lists no such
    digest), or None when there is no such manifest. Read once per build: the output check and the rebuild keys both
    need it. Only the digests are kept of the entries: at 30,000 files, the entries as read (with the run files each
    names) were about 23 MB of a rebuild's memory; a rebuild names a kept file's sources again
    (build.write_manifest)."""
    found = _read_manifest(manifest)
    return found[0] if found else None


def manifest_digest(manifest: Path) -> bytes | None:
    """The SHA-256 of a manifest of ours (read once per build with listed_in), or None when there is none."""
    found = _read_manifest(manifest)
    return found[1] if found else None


def _read_manifest(manifest: Path) -> tuple[dict[str, bytes | None], bytes] | None:
    try:
        st = manifest.lstat()
    except OSError:
        return None
    if not S_ISREG(st.st_mode):
        return None
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if key in _READ and _READ[key][2] == _part_stats(manifest.parent, _READ[key][3]):
        return _READ[key][:2]
    try:
        data = manifest.read_bytes()
    except OSError:
        return None
    read = _listed(data)
    parts = manifest_parts(read[1]) if read else None
    files = _with_parts(manifest.parent, read[0], parts) if read and parts is not None else None
    if parts is None or files is None:
        return None
    _READ.clear()
    _READ[key] = (files, hashlib.sha256(data).digest(), _part_stats(manifest.parent, parts), parts)
    return _READ[key][:2]


def _listed(data: bytes) -> tuple[dict[str, bytes | None], dict[str, Any]] | None:
    """The files a manifest (or a part of one) lists with their digests, and its other members; None if it is not
    one of ours."""
    try:
        return _listed_in_pieces(data)
    except ValueError:  # not laid out as a build writes it (edited by hand, or a manifest in parts): read whole
        return _listed_whole(data)


def _with_parts(
    site: Path, files: dict[str, bytes | None], parts: list[tuple[str, bytes]]
) -> dict[str, bytes | None] | None:
    """files, with those of the manifest's parts (each part listed as a file too), or None when a part is missing
    or differs from the SHA-256 the manifest gives it: a manifest in parts is read whole or not at all."""
    for rel, digest in parts:
        data = read_part(site, rel, digest)
        read = data and _listed(data)
        if read is None:
            return None
        files.update(read[0])
        files[site_path(rel)] = digest
    return files


PARTS = "publish-manifest"  # the folder of a large manifest's parts: publish-manifest/1.json, 2.json, ...
MAX_PART = 1 << 27  # a part lists 10,000 files (about 3.5 MB); the bound only stops a read of a runaway file


def manifest_parts(manifest: dict[str, Any]) -> list[tuple[str, bytes]] | None:
    """The parts a manifest names (site path, SHA-256), in order, or None when it names them otherwise than a build
    writes them: part k is publish-manifest/k.json."""
    parts = manifest.get("parts", [])
    if not isinstance(parts, list):
        return None
    named = []
    for k, part in enumerate(parts, 1):
        digest = _digest(part.get("sha256")) if isinstance(part, dict) else None
        if digest is None or part.get("path") != f"{PARTS}/{k}.json":
            return None
        named.append((part["path"], digest))
    return named


def read_part(site: Path, rel: str, digest: bytes) -> bytes | None:
    """A part of site's manifest, read through no link, or None when it is missing, not a plain file, too large or
    not the bytes its SHA-256 names."""
    try:
        data = read_bytes(site / rel, rel, MAX_PART)  # a FIFO is refused, not opened to wait on
    except InputError:
        return None
    return data if hashlib.sha256(data).digest() == digest else None


def _part_stats(site: Path, parts: list[tuple[str, bytes]]) -> list[tuple[int, ...] | None]:
    """The stat of each part a manifest names (to tell a part changed since it was read)."""
    out: list[tuple[int, ...] | None] = []
    for rel, _ in parts:
        try:
            st = os.lstat(site / rel)
            out.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append(None)
    return out


FILES_OPEN, FILES_CLOSE, ENTRY = b'{\n  "files": {', b"\n  }", b'\n    "'  # as build.dump_manifest lays them out


def _listed_in_pieces(data: bytes, piece: int = 1 << 20) -> tuple[dict[str, bytes | None], dict[str, Any]] | None:
    """_listed's reading of a manifest laid out as a build writes it: its files' entries a megabyte at a time, each
    piece cut where an entry begins (a line with four spaces and a quote: no JSON string holds a line break). Read
    whole, the manifest of 20,000 transcripts rose the peak by 83 MB and left 74 MB resident (its objects left memory
    fragmented); in pieces, by 25 MB, leaving 41 MB. ValueError (orjson's errors are ValueErrors) when data is laid
    out otherwise: a piece that is no whole run of entries does not parse."""
    end = data.find(FILES_CLOSE)
    after = end + len(FILES_CLOSE)  # the other members follow the files' closing brace and a comma
    if not data.startswith(FILES_OPEN + b"\n") or end < 0 or data[after : after + 1] != b",":
        raise ValueError("not laid out as a build writes it")
    rest = orjson.loads(b"{" + data[after + 1 :])
    if "files" in rest:
        raise ValueError("a second files member")  # read whole, the later one counts
    if not _ours(rest):
        return None
    files: dict[str, bytes | None] = {}
    start = len(FILES_OPEN)
    while start < end:
        cut = data.find(ENTRY, min(start + piece, end), end)
        cut = end if cut < 0 else cut
        files.update(_digests(orjson.loads(b"{" + data[start:cut].removesuffix(b",") + b"}")))
        start = cut
    return files, rest


def _listed_whole(data: bytes) -> tuple[dict[str, bytes | None], dict[str, Any]] | None:
    try:
        whole = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    files = whole.pop("files", None) if isinstance(whole, dict) and _ours(whole) else None
    return (_digests(files), whole) if isinstance(files, dict) else None


def _ours(manifest: dict[str, Any]) -> bool:
    return str(manifest.get("generator", "")).startswith(GENERATOR.split()[0] + " ")


def _digests(entries: dict[str, Any]) -> dict[str, bytes | None]:
    return {site_path(rel): _digest(e.get("sha256") if isinstance(e, dict) else None) for rel, e in entries.items()}


def _digest(listed: object) -> bytes | None:
    """A SHA-256 as a manifest lists it (hex) as its 32 bytes; None if it is not one."""
    if not isinstance(listed, str) or len(listed) != 64:
        return None
    try:
        return bytes.fromhex(listed)
    except ValueError:
        return None


JOURNAL = "journal.json"  # in the undo folder: what an update in place changes, written before it changes anything


def undo_folder(out: Path) -> Path:
    out = out.resolve()
    return out.parent / f".{out.name}.undo"


def update_in_place(stage: Path, out: Path, files: list[str], remove: list[str], last: str) -> None:
    """Move each of files (site paths) from stage into out, over its old version if it has one, then delete the
    files in remove from out; the file `last` (the manifest) is moved in after all others. What is left of stage
    (the files not moved, its folders; it lies beside out) is deleted with the old versions, in the background.

    Each old version is first hard-linked (or, when removed, moved) into the undo folder, and the journal lists every
    change before the first is made. The undo folder is flat: the old version of the n-th file the journal lists as
    replaced or removed is the file named n, so keeping them makes no folders (there were hundreds). Each move
    replaces one file at once (rename), so a reader sees every file either old or new; if anything fails, recover()
    puts the old versions back before the error is raised."""
    out = out.resolve()
    undo = undo_folder(out)
    undo.mkdir()  # the command line has recovered (and so removed) any earlier one
    replaced = [rel for rel in files if os.path.lexists(out / rel)]
    added = sorted(set(files) - set(replaced))
    remove = [rel for rel in remove if os.path.lexists(out / rel)]
    journal = undo / f"{JOURNAL}.tmp"
    with journal.open("w", encoding="utf-8") as f:
        json.dump({"added": added, "replaced": replaced, "removed": remove}, f)
        f.flush()
        os.fsync(f.fileno())
    journal.rename(undo / JOURNAL)
    try:
        for n, rel in enumerate(replaced):
            os.link(out / rel, undo / str(n))
        for n, rel in enumerate(remove, len(replaced)):
            os.rename(out / rel, undo / str(n))
        for rel in sorted(files, key=lambda rel: rel == last):
            _place(stage / rel, out / rel, os.replace)
        _prune(out, remove)
    except BaseException:
        recover(out)
        raise
    (undo / JOURNAL).unlink()  # the update is complete: from here nothing is undone
    aside = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))  # a name of its own: the next
    undo.rename(aside / undo.name)  # build can start while it is deleted
    stage.rename(aside / "stage")  # its hundreds of emptied folders took a tenth of a second to delete here
    _delete_aside(aside)


def recover(out: Path) -> bool:
    """Undo an update in place of out that did not finish (its journal is still there): put back each old version,
    delete each file it added. True when there was one to undo."""
    out = out.resolve()
    undo = undo_folder(out)
    try:
        plan = json.loads((undo / JOURNAL).read_text(encoding="utf-8"))
    except FileNotFoundError:
        if undo.exists():  # the journal was never complete (nothing was changed) or the update was: only clear up
            shutil.rmtree(undo, ignore_errors=True)
        return False
    for rel in plan["added"]:
        (out / rel).unlink(missing_ok=True)
    for n, rel in enumerate([*plan["replaced"], *plan["removed"]]):
        if os.path.lexists(undo / str(n)):  # else it was never touched: out still holds the old version
            _place(undo / str(n), out / rel, os.replace)
    _prune(out, plan["added"])
    (undo / JOURNAL).unlink()
    shutil.rmtree(undo, ignore_errors=True)
    return True


def _place(source: Path, target: Path, how: Any) -> None:
    try:
        how(source, target)
    except FileNotFoundError:
        if not source.exists() and not source.is_symlink():
            raise
        target.parent.mkdir(parents=True, exist_ok=True)
        how(source, target)


def _prune(root: Path, rels: list[str]) -> None:
    """Remove the folders below root that held these files and are now empty (a full build would not have them)."""
    folders = {p for rel in rels for p in (root / rel).parents if root in p.parents}
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()
        except OSError:
            pass  # not empty


def swap_in(new: Path, out: Path, wait: bool = False) -> None:
    """Replace out with new; the old folder stays whole until the new one is in place.

    The old folder is then deleted in the background (see _delete_aside): deleting tens of thousands of files and
    folders is slower than a rebuild that changes a few. With wait=True it is deleted before swap_in returns."""
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        out.rename(old / out.name)
    new.chmod(0o755)  # mkdtemp made it private
    new.rename(out)
    if old is not None:
        _delete_aside(old, wait)


def _delete_aside(folder: Path, wait: bool = False) -> None:
    """Delete a folder set aside (named .<out>.old-*, so no build will use its name), by a process of its own in
    its own session (a Ctrl-C in the terminal does not stop it half way) while the build returns."""
    if wait:
        shutil.rmtree(folder, ignore_errors=True)
        return
    subprocess.Popen(
        [sys.executable, "-c", "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)", str(folder)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
