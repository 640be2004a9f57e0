"""Where a site is published, and the limits each host documents (build.py --host).

A build given a host measures the site it made (total size, files, entries of the fullest folder, largest file)
before putting it in place, and refuses to publish one its host would refuse or cut short, saying what exceeds
which limit and by how much. Each limit is the host's documented one; where a host documents none, there is none.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

GB = 1000**3
MIB = 1 << 20
LIMITS = {  # what a limit is about -> the field of a Host (its limit) and of a Measure (the site's figure)
    "site size": "site_bytes",
    "files": "files",
    "entries in one folder": "folder_entries",
    "file size": "file_bytes",
}


@dataclass(frozen=True)
class Host:
    name: str  # as --host takes it
    title: str
    site_bytes: int | None  # the whole site
    files: int | None  # files in the site
    folder_entries: int | None  # files and folders in any one folder
    file_bytes: int | None  # any one file
    documented: str  # where the host says so

    def limits(self) -> list[tuple[str, int]]:
        """(what, most) of each limit the host documents."""
        named = [(what, getattr(self, field)) for what, field in LIMITS.items()]
        return [(what, most) for what, most in named if most is not None]


_GITHUB = "GitHub Pages limits: a published site may be no larger than 1 GB; GitHub blocks files larger than 100 MiB"
_NETLIFY = "Netlify's site deploys overview: a deploy fails when a folder holds more than 54,000 files"
_CLOUDFLARE = "Cloudflare Pages limits: {} files a site on {} plan, 25 MiB a file"
HOSTS: dict[str, Host] = {
    host.name: host
    for host in (
        Host("github-pages", "GitHub Pages", GB, None, None, 100 * MIB, _GITHUB),
        Host("netlify", "Netlify", None, None, 54_000, None, _NETLIFY),
        Host(
            "cloudflare",
            "Cloudflare Pages (free plan)",
            None,
            20_000,
            None,
            25 * MIB,
            _CLOUDFLARE.format("20,000", "the free"),
        ),
        Host(
            "cloudflare-paid",
            "Cloudflare Pages (paid plan)",
            None,
            100_000,
            None,
            25 * MIB,
            _CLOUDFLARE.format("100,000", "a paid"),
        ),
    )
}  # each: name, title, site size, files, entries in one folder, file size (None: none documented), source


@dataclass(frozen=True)
class Measure:
    """What a host's limits are about, measured on one site."""

    site_bytes: int
    files: int
    folder_entries: int  # of the fullest folder
    fullest_folder: str  # its site path ("" for the site's own folder)
    file_bytes: int  # of the largest file
    largest_file: str

    @classmethod
    def of(cls, sizes: Iterable[tuple[str, int]]) -> Measure:
        """The measure of a site given as (site path of each file, its size in bytes)."""
        entries: Counter[str] = Counter()
        seen: set[str] = set()
        total = files = 0
        largest = ("", 0)
        for rel, size in sizes:
            files, total = files + 1, total + size
            if size > largest[1] or not largest[0]:
                largest = (rel, size)
            path = PurePosixPath(rel)
            entries[str(path.parent) if str(path.parent) != "." else ""] += 1
            for folder in path.parents:  # each folder is an entry of its parent, counted once
                name = str(folder)
                if name == "." or name in seen:
                    continue
                seen.add(name)
                parent = str(folder.parent)
                entries["" if parent == "." else parent] += 1
        fullest, count = max(entries.items(), key=lambda item: (item[1], item[0]), default=("", 0))
        return cls(total, files, count, fullest, largest[1], largest[0])

    @classmethod
    def of_folder(cls, folder: Path) -> Measure:
        """The measure of a built site on disk."""
        return cls.of(_sizes_below(folder))

    def figure(self, what: str) -> int:
        return getattr(self, LIMITS[what])

    def where(self, what: str) -> str:
        if what == "entries in one folder":
            return f" ({self.fullest_folder}/)" if self.fullest_folder else " (the site folder)"
        return f" ({self.largest_file})" if what == "file size" else ""


def _sizes_below(folder: Path) -> Iterable[tuple[str, int]]:
    for root, _dirs, names in os.walk(folder):
        rel_root = Path(root).relative_to(folder).as_posix()
        for name in names:
            rel = name if rel_root == "." else f"{rel_root}/{name}"
            yield rel, os.lstat(os.path.join(root, name)).st_size


def amount(what: str, n: int) -> str:
    """A figure in the unit the hosts state its limit in: a site's size in MB, a file's in MiB (bytes when small),
    counts with separators."""
    if what == "site size" and n >= 100_000:
        return f"{n / 1e6:,.1f} MB"
    if what == "file size" and n >= 100_000:
        return f"{n / MIB:,.1f} MiB"
    return f"{n:,} bytes" if what in ("site size", "file size") else f"{n:,}"


def exceeded(host: Host, measure: Measure) -> list[str]:
    """Each limit of host that the measured site exceeds, with its figure, the limit and by how much."""
    over = []
    for what, most in host.limits():
        got = measure.figure(what)
        if got > most:
            over.append(
                f"{what}: {amount(what, got)}{measure.where(what)}, over the limit of {host.title}, "
                f"{amount(what, most)}, by {amount(what, got - most)}"
            )
    return over


def summary(host: Host, measure: Measure) -> str:
    """One line: the site's figures against its host's limits."""
    shown = [
        f"{what} {amount(what, measure.figure(what))}{measure.where(what)} of {amount(what, most)}"
        for what, most in host.limits()
    ]
    return f"within the limits of {host.title}: " + "; ".join(shown)
