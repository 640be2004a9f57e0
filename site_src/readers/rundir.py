"""Find run directories and list their files safely. Run directories are only ever read, never written.

A run directory is any folder holding one of the format's metadata files. Every file inside is classified: the
reader of its format accepts some as public, the format fixes some as private (read for aggregates only), and
everything else is ignored and listed in the build report, never copied.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

from ..problems import Problems

# metadata file name -> format family
RUN_MARKERS = {"metadata.json": "uzbek-pack", "run.json": "dual-layer", "manifest.json": "tuckerbench"}

_SAFE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,120}$")


def find_run_dirs(root: Path, problems: Problems, label: str = "runs") -> list[Path]:
    """Every folder under root (root included) holding a run marker file; nested run folders are not searched."""
    if not root.exists():
        problems.error(label, "folder does not exist")
        return []
    if root.is_file():
        problems.error(label, "expected a folder of runs, got a file")
        return []
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        if any(name in RUN_MARKERS for name in filenames):
            found.append(here)
            dirnames[:] = []  # a run's own subfolders belong to it
            continue
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
    if not found:
        problems.error(label, "no run directory found (a run directory holds metadata.json, run.json or manifest.json)")
    return sorted(found)


def list_files(run_dir: Path, runs_root: Path, rel_run: str, problems: Problems) -> list[str]:
    """Relative POSIX paths of the regular files in a run directory; odd entries become problems, not reads."""
    out: list[str] = []
    root_real = runs_root.resolve()
    for dirpath, dirnames, filenames in os.walk(run_dir, followlinks=False):
        here = Path(dirpath)
        for name in sorted(dirnames + filenames):
            path = here / name
            rel = path.relative_to(run_dir).as_posix()
            shown = f"{rel_run}/{rel}"
            if path.is_symlink():
                target = path.resolve()
                if not target.is_relative_to(root_real):
                    problems.error(shown, "symbolic link points outside the runs folder; it is not followed")
                else:
                    problems.warning(shown, "symbolic link is not followed; store the file itself")
                if name in dirnames:
                    dirnames.remove(name)
                continue
            if not _name_ok(name):
                problems.error(
                    shown.encode("unicode_escape").decode("ascii"),
                    "file name has characters outside letters, digits, '.', '_' and '-'; it is not read",
                )
                if name in dirnames:
                    dirnames.remove(name)
                continue
            if name in filenames:
                out.append(rel)
    return sorted(out)


def _name_ok(name: str) -> bool:
    if _SAFE_NAME.match(name):
        return True
    # private folders and hidden files (".env", ".netrc") are classified as ignored, not refused
    return bool(re.match(r"^\.[A-Za-z0-9._-]{1,120}$", name)) and unicodedata.is_normalized("NFC", name)
