"""The scan phase: every string a page can show is scanned for secrets before rendering (refused, or with
--redact-secrets replaced by a marker), and every written file again after, as a backstop."""

from __future__ import annotations

import dataclasses
import hashlib
import zlib
from collections.abc import Container
from pathlib import Path
from typing import BinaryIO

from ..progress import SILENT, Progress
from ..release import Release, VersionView
from ..secretrules import find
from ..secretscan import Finding, Scanner
from ..systems import by_format

# a run's fields that are scanned on their own above
NOT_RECORDS = ("metadata", "entrants", "judges", "public_files", "read_files", "ignored_files")
MAX_UNPACKED = 256 << 20  # what a compressed file may unpack to, for the scan
TEXT_SUFFIXES = {".html", ".json", ".jsonl", ".csv", ".svg", ".js", ".css", ".txt", ".xml"}
SCANNED = {*TEXT_SUFFIXES, ".gz"}  # what the backstop reads: text, and text compressed by gzip


def scan_release(
    release: Release,
    redact: bool,
    clean: set[tuple[str, str, str]] | None = None,
    clean_files: Container[str] = frozenset(),
    progress: Progress = SILENT,
) -> list[Finding]:
    """Scan every string a page or download can show. Scores were computed before, from the original text.

    clean holds (benchmark, version, run id) of runs an earlier build scanned without a finding, from the very same
    files, code and options (see cache.py): their records and results are not walked again. clean_files names run
    files whose records a changed run took unchanged from such a read (build/reading.py): those records are not
    walked again either; the run's other records and its results are. progress, when given, counts the runs."""
    clean = clean or set()
    scanner = Scanner(redact)
    seen: set[int] = set()
    for view in release.views:
        bench = view.bench
        if id(bench) not in seen:
            seen.add(id(bench))
            scanner.walk(bench, f"content/{bench.id}", None, "", skip=("versions",))
        version = view.version
        scanner.walk(version.items, f"content/{bench.id}/versions/{version.id}", None, "items")
        scanner.walk(version.definition, f"content/{bench.id}/versions/{version.id}", None, "definition")
        for run in version.runs:
            progress.update(1)
            if (bench.id, version.id, run.id) in clean:
                continue
            meta_file = f"{run.path}/{by_format(run.format).marker}"
            scanner.walk(run.metadata, meta_file, None, "")
            scanner.walk(run.entrants, meta_file, None, "entrants")
            scanner.walk(run.judges, meta_file, None, "judges")
            for name in run.public_files:
                scanner.text(name, f"{run.path}/{name}", None, "(file name)", blocking=True)
            scanner.skip_files = clean_files
            scanner.walk(run, meta_file, None, "", skip=NOT_RECORDS)
            scanner.skip_files = frozenset()  # results can name a record's file too: they are walked
        _scan_results(scanner, view, {r for b, v, r in clean if (b, v) == view.key})
    for path, _ in release.ignored:  # names only: these files are never read into pages
        scanner.text(path, path, None, "(file name)")
    return scanner.findings


def _scan_results(scanner: Scanner, view: VersionView, clean_runs: set[str]) -> None:
    """Derived text (comparison reasons, summaries, row labels) can quote a record: scan it at the record's place."""
    for tid, result in view.scored.transcripts.items():
        t = view.transcripts[tid]
        if t.run_id in clean_runs:
            continue
        scanner.walk(result, t.source_file, t.source_record, "(recomputed result)")
        summary = view.summaries[tid]
        text = scanner.text(summary.text, t.source_file, t.source_record, "(summary)")
        if text != summary.text:
            view.summaries[tid] = dataclasses.replace(summary, text=text)
    for row in view.rows:
        run = view.runs[row.run_ids[0]] if row.run_ids else None  # a baseline row stands for no run
        scanner.walk(
            row, f"{run.path}/{by_format(run.format).marker}" if run else "(definition)", None, "(leaderboard row)"
        )
    scanner.walk(view.scored.leaderboard.discrepancies, "(discrepancies)", None, "")
    scanner.walk(view.scored.tables, "(tables)", None, "")


def clean_runs(release: Release, findings: list[Finding]) -> set[tuple[str, str, str]]:
    """(benchmark, version, run id) of every run with no finding in its files."""
    dirty = {f.file for f in findings}
    return {
        (view.bench.id, view.version.id, run.id)
        for view in release.views
        for run in view.runs.values()
        if not any(f == run.path or f.startswith(run.path + "/") for f in dirty)
    }


def scan_output(site: Path, files: list[str], skip: Container[str] = frozenset()) -> list[Finding]:
    """Backstop after rendering: no written text file may match a rule (redaction markers never do). files: the site
    paths of the files below site (outdir.files_below; the manifest lists them too). Files in skip (site paths) are
    left out: they are byte for byte files that passed this scan in an earlier build."""
    findings = []
    for rel in files:
        if rel in skip or suffix(rel) not in SCANNED:  # no Path for these: a merge skips every file it took
            continue
        path = site / rel
        if path.is_file():
            findings += scan_written(rel, path.read_bytes())
    return findings


def suffix(rel: str) -> str:
    """PurePosixPath(rel).suffix, without making a path of it (the backstop asks for every file of the site)."""
    name = rel.rpartition("/")[2]
    i = name.rfind(".")
    return name[i:] if 0 < i < len(name) - 1 else ""


def scan_written(rel: str, data: bytes) -> list[Finding]:
    """The backstop's findings in one written file (site path rel), if it is text, or text compressed by gzip (the
    lean layout's downloads)."""
    kind = suffix(rel)
    if kind == ".gz":
        return scan_packed(rel, data, whole=True)
    if kind not in TEXT_SUFFIXES:
        return []
    return scan_text(rel, data)


def scan_packed(rel: str, data: bytes, whole: bool) -> list[Finding]:
    """The backstop's findings in what gzip data holds, read up to MAX_UNPACKED bytes. whole: the file must unpack
    whole within that, or it fails the scan (what was not read was not scanned); else (Pagefind's index, which
    holds the text of pages scanned on their own) the part read is scanned, and bytes that are not gzip as they
    are."""
    unpack = zlib.decompressobj(wbits=31)
    try:
        text = unpack.decompress(data, MAX_UNPACKED)
    except zlib.error:
        if whole:
            return [Finding(rel, None, "(written file)", "(not gzip: cannot be scanned)")]
        return scan_text(rel, data)
    if whole and (unpack.unconsumed_tail or not unpack.eof or unpack.unused_data):
        why = f"(not one gzip stream within {MAX_UNPACKED:,} bytes unpacked: cannot be scanned)"
        return [Finding(rel, None, "(written file)", why)]
    return scan_text(rel, text)


def scan_text(rel: str, data: bytes) -> list[Finding]:
    """The backstop's findings in bytes read as UTF-8 text, whatever the file is."""
    try:
        text, utf8 = data.decode("utf-8"), data
    except UnicodeDecodeError:
        text, utf8 = data.decode("utf-8", errors="replace"), None  # its bytes are not that text's UTF-8
    return [Finding(rel, None, "(written file)", rule) for rule in sorted({span[0] for span in find(text, utf8)})]


class ScannedWrites:
    """A binary file whose bytes the backstop scans as they are written, a stretch of about `stretch` bytes at a
    time, cut only between two writes: the file is never read back. The publish manifest is 11 MB at 10,000
    transcripts; read back and scanned whole (its bytes, its text and the copies the scan makes of it) it was the
    build's peak of memory, about 4 KB per transcript. Its writer writes whole entries (a thousand at a time), so
    every cut falls after an entry's closing brace and before the comma and line break of the next: no rule matches
    across those (a test cuts manifests holding a sample of every rule at every entry and compares with one scan)."""

    def __init__(self, out: BinaryIO, rel: str, stretch: int = 1 << 20) -> None:
        self.out, self.rel, self.stretch = out, rel, stretch
        self.pending: list[bytes] = []
        self.size = 0
        self.findings: list[Finding] = []
        self.sha256 = hashlib.sha256()  # of every byte written

    def write(self, data: bytes) -> int:
        self.out.write(data)
        self.sha256.update(data)
        self.pending.append(data)
        self.size += len(data)
        if self.size >= self.stretch:
            self.flush()
        return len(data)

    def flush(self) -> None:
        """Scan what was written since the last scan (call it once the last write is made)."""
        if self.pending:
            for finding in scan_written(self.rel, b"".join(self.pending)):
                if finding not in self.findings:
                    self.findings.append(finding)
        self.pending, self.size = [], 0
