"""What a build says: each problem with its file, record and field; why nothing was written when a build is
refused; and, once a site is in place, its totals with the time of each phase, like a static-site generator's."""

from __future__ import annotations

import sys
import time

from ..model import Project
from ..release import Release
from ..results import plural
from ..secretrules import masked
from ..secretscan import Finding
from .config import BuildConfig
from .output import NewSite


class Timer:
    """Wall-clock time of each phase, from when the timer was made."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._start = time.perf_counter()

    def done(self, name: str) -> None:
        now = time.perf_counter()
        self.seconds[name] = now - self._start
        self._start = now

    def lines(self) -> list[str]:
        width = max(map(len, self.seconds), default=5)
        rows = [f"  {name:<{width}}  {s:8.2f} s" for name, s in self.seconds.items()]
        return rows + [f"  {'total':<{width}}  {sum(self.seconds.values()):8.2f} s"]


def problems(project: Project, strict: bool) -> bool:
    """Print every problem (a message may quote a value: never a secret); True when the command must fail."""
    for problem in project.problems.items:
        print(problem, file=sys.stderr)
    failed = project.problems.failed(strict)
    errors, warnings = len(project.problems.errors), len(project.problems.warnings)
    if failed:
        why = plural(errors, "error") + (f", {plural(warnings, 'warning')} (--strict)" if strict and warnings else "")
        print(f"check failed: {why}", file=sys.stderr)
    return failed


def notice(config: BuildConfig, text: str) -> None:
    if text and not config.quiet:
        print(f"notice: {text}", file=sys.stderr)


def refused(why: str) -> int:
    print(f"error: {why}", file=sys.stderr)
    return 1


def secrets_refused(found: list[Finding], redacting: bool) -> int:
    for finding in found:
        print(finding, file=sys.stderr)
    hint = (
        "Rename each identifier or file named above; no build can publish it redacted."
        if redacting
        else "Remove them from the runs, or build with --redact-secrets to publish with each one replaced by a "
        "visible marker (identifiers and file names must be renamed)."
    )
    print(f"{plural(len(found), 'possible secret')} found; nothing was written. {hint}", file=sys.stderr)
    return 1


def built(config: BuildConfig, site: NewSite, release: Release, redactions: list[Finding], timer: Timer) -> None:
    """The totals of a build whose site is in place: pages, files (every file of the site: rendered, kept, search
    bundles and the manifest), each phase's time, what was redacted and what was not published."""
    if config.quiet:
        return
    pages = sum(1 for u in site.urls if u.endswith("/") or u.endswith(".html"))
    print(
        f"built {config.out.resolve().name}/: {pages} pages, {len(site.listed) + 1} files from "
        f"{plural(len(release.views), 'benchmark version')}"
    )
    if config.shards:
        taken = f"{site.taken} files taken from {len(config.shards)} shards"
        print(f"  {taken}, each checked against its shard's manifest")
    elif site.kept:
        print(f"  {len(site.kept)} unchanged files were kept from the last build; the rest were written anew")
    print("\n".join(timer.lines()))
    for finding in redactions:
        print(f"redacted: {finding}")  # Finding masks its own location
    if release.ignored:
        print(f"not published ({plural(len(release.ignored), 'file')} outside the run formats):")
        for path, why in release.ignored:
            print(f"  {masked(path)}: {why}")
