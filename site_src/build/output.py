"""The output folder: whether a build may write it, the new site's folder beside it, and putting that in place.

The new site is made in a folder of its own beside the output, and the output is touched only once the site is
complete: then most of it is new, and the whole folder replaces the old (outdir.swap_in), or most of it is kept, and
the new files are moved in under a journal (outdir.update_in_place). A build that fails leaves the old site as it was.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections import ChainMap
from collections.abc import Iterator, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

from ..changes import DiffError
from ..outdir import MANIFEST, placement_problem, recover, swap_in, update_in_place
from ..secretscan import Finding
from .cache import BuildCache
from .config import BuildConfig
from .shard_files import MergedFiles


def refusal(config: BuildConfig) -> str | None:
    """Why config.out must not be written (it is, holds or lies inside an input, or is a folder no build of ours
    wrote), or None. An update of it that an earlier build left cut short is undone first."""
    if recover(config.out):
        print(f"{config.out}: an update cut short by an earlier build was undone; the site is as before it")
    if config.host and config.only:
        return "--host checks a whole site: give it to the merge of the shards, not to --only"
    return placement_problem(config.out, MANIFEST, config.inputs()) or earlier_site_problem(config)


def earlier_site_problem(config: BuildConfig) -> str | None:
    """Why the site --changes-since names cannot be compared with, or None."""
    if config.changes_since and (config.only or config.shards):
        return "--changes-since compares a whole build: it does not apply to --only or merge"
    try:
        config.previous  # noqa: B018 - read now, so a build refused for it has read nothing else
    except DiffError as exc:
        return f"--changes-since {exc}"
    return None


@dataclass
class NewSite:
    """The site a build makes, in a folder of its own beside the output until it is put in place."""

    folder: Path
    urls: list[str] = field(default_factory=list)  # the pages chosen: rendered, or kept from the last build
    kept: set[str] = field(default_factory=set)  # files (site paths) left as the last build wrote them
    rendered: dict[str, bytes] = field(default_factory=dict)  # site path -> SHA-256 of each file written here
    known: Mapping[str, bytes] = field(default_factory=dict)  # and of the files kept or taken from shards, checked
    leaked: list[Finding] = field(default_factory=list)  # what the backstop scan found in written files
    keys: dict[str, str] | None = None  # URL -> page key (cache.page_keys); None: none to compare with
    drawings: dict[str, str] = field(default_factory=dict)  # drawing key -> SVG of each chart of the pages rendered
    bundle_keys: dict[str, str] = field(default_factory=dict)  # search bundle -> key (cache.bundle_keys)
    # every file written here: listed after the render and the index (a merge's: shard_files.MergedFiles)
    new: list[str] | MergedFiles = field(default_factory=list)
    listed: list[str] | MergedFiles = field(default_factory=list)  # every file of the site but the manifest, likewise
    taken: int = 0  # files a merge took from its shards

    @classmethod
    def beside(cls, out: Path, scope: ExitStack, known: dict[str, bytes]) -> NewSite:
        """A new folder beside out, deleted when scope ends unless it was put in place."""
        out.parent.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        scope.callback(shutil.rmtree, folder, ignore_errors=True)
        return cls(folder, known=known)

    @property
    def sums(self) -> ChainMap[str, bytes]:
        """The files whose bytes are known, without a copy of their 30,000 names."""
        return ChainMap(self.rendered, self.known)

    def sizes(self, out: Path) -> Iterator[tuple[str, int]]:
        """(site path, size) of every file the site will have once put in place: the new ones are here, the kept
        ones still in out."""
        new = set(self.new) if self.kept else None  # None: every file is new (a merge's, a first build's)
        for rel in chain(self.listed, [MANIFEST]):
            here = new is None or rel in new or rel == MANIFEST
            yield rel, os.stat((self.folder if here else out) / rel).st_size

    def refuse(self, findings: list[Finding]) -> int:
        for finding in findings:
            print(finding, file=sys.stderr)
        print("the written site failed the secret scan; nothing was published", file=sys.stderr)
        return 1


def put_in_place(site: NewSite, out: Path, cache: BuildCache | None) -> None:
    """Replace out with the new site: its new files moved in when most files are kept (a file rendered again with
    the very bytes of the old one stays as it is), else the whole folder, the kept files linked into it."""
    if cache and in_place_pays(len(site.kept), len(site.new)):
        same = cache.unchanged({rel: site.sums[rel] for rel in site.new})
        site.kept.update(same)
        gone = [rel for rel in cache.previous_files if rel not in site.kept and rel not in site.new]
        moved = [*(rel for rel in site.new if rel not in same), MANIFEST]
        update_in_place(site.folder, out, moved, gone, last=MANIFEST)
    else:
        _link_kept(out, site.folder, site.kept)
        swap_in(site.folder, out)


def in_place_pays(kept: int, new: int) -> bool:
    """Whether to move the new files into the output (work in step with them) rather than link the kept ones into
    the new folder and swap it in (work in step with those): the cheaper of the two."""
    return kept > new


def _link_kept(previous: Path, site: Path, kept: set[str]) -> None:
    """Hard-link each kept file (its bytes checked against the last manifest) from the previous output into site."""
    made: set[Path] = set()
    for rel in sorted(kept):
        target = site / rel
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        os.link(previous / rel, target)
