"""The Uzbek instruction pack (seed 000): exact-text, JSON and checklist cases, strict case success, coverage."""

from .. import System

SYSTEM = System(
    id="uzbek-pack",
    marker="metadata.json",
    run_format="uzbek-pack-run",
    run_contents=("responses.jsonl",),
    version_field="pack_version",
)
