"""Output folders: the build only ever replaces a folder that an earlier build of ours wrote, whole.

The site and the review kit are written beside their output folder and swapped in when complete, so the old
folder is deleted. That is safe only when the old folder holds nothing but what a build wrote: each build leaves a
manifest listing every file it wrote, and a folder is replaced only when its manifest names our generator and
lists every file in it. A folder that is, contains or lies inside an input (a runs folder, the content folder, the
project itself) is never an output folder, however it looks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import GENERATOR

PROJECT_ROOT = Path(__file__).resolve().parent.parent
MANIFEST = "publish-manifest.json"  # the site's list of every file it holds
MAX_UNLISTED_SHOWN = 5


def file_for(url: str) -> str:
    """Where a static server finds the page at a site-absolute URL: "/a/b/" -> "a/b/index.html"."""
    return url[1:] + "index.html" if url.endswith("/") else url[1:]


def url_of(file: str) -> str:
    """The site-absolute URL of a written file: the reverse of file_for."""
    return "/" + file.removesuffix("index.html")


def files_below(root: Path) -> list[str]:
    """Every file (and symbolic link) below root, as sorted relative POSIX paths: os.walk, as pathlib's rglob is
    several times slower at tens of thousands of files."""
    out = []
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if rel == "." else rel + "/"
        out += [prefix + name for name in files]
        out += [prefix + name for name in dirs if os.path.islink(os.path.join(folder, name))]
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
    shown = str(out)
    real = out.resolve()
    for what, folder in [*inputs, ("the project folder", PROJECT_ROOT)]:
        relation = _overlaps(real, folder.resolve())
        if relation and not (what == "the project folder" and relation == "lies inside"):
            return f"output folder {shown} {relation} {what} ({folder}); choose a folder of its own, such as _site"
    if not real.exists():
        return None
    if not real.is_dir():
        return f"output folder {shown} exists and is not a folder; nothing was written"
    if not any(real.iterdir()):
        return None
    manifest = real / manifest_name
    listed = _listed_files(manifest)
    if listed is None:
        return (
            f"output folder {shown} is not empty and was not written by a build (no {manifest_name} of "
            f"{GENERATOR.split()[0]}); it would be replaced, so nothing was written. Choose a new or empty folder."
        )
    present = files_below(real)
    unlisted = [p for p in present if p != manifest_name and p not in listed]
    if unlisted:
        more = f" and {len(unlisted) - MAX_UNLISTED_SHOWN} more" if len(unlisted) > MAX_UNLISTED_SHOWN else ""
        return (
            f"output folder {shown} holds file(s) its {manifest_name} does not list, which a rebuild would delete: "
            f"{', '.join(unlisted[:MAX_UNLISTED_SHOWN])}{more}; move them out first. Nothing was written."
        )
    return None


def _listed_files(manifest: Path) -> set[str] | None:
    """The files a manifest of ours lists, or None when there is no such manifest."""
    if manifest.is_symlink() or not manifest.is_file():
        return None
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or not str(data.get("generator", "")).startswith(GENERATOR.split()[0] + " "):
        return None
    files = data.get("files")
    return set(files) if isinstance(files, dict) else None


def swap_in(new: Path, out: Path, wait: bool = False) -> None:
    """Replace out with new; the old folder stays whole until the new one is in place.

    The old folder is then deleted by a process of its own, in its own session (so a Ctrl-C in the terminal does
    not stop it half way), while the build returns: deleting tens of thousands of files and folders is slower than
    a rebuild that changes a few. With wait=True it is deleted before swap_in returns."""
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        out.rename(old / out.name)
    new.chmod(0o755)  # mkdtemp made it private
    new.rename(out)
    if old is None:
        return
    if wait:
        shutil.rmtree(old, ignore_errors=True)
        return
    subprocess.Popen(
        [sys.executable, "-c", "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)", str(old)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
