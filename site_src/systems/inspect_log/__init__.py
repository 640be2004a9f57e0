"""Inspect AI eval logs, read in place: a run directory holds the log as Inspect wrote it (docs/format-inspect.md)."""

from .. import System

SYSTEM = System(id="inspect", marker="inspect-run.json", run_format="inspect-run", run_contents=(), importer="inspect")
