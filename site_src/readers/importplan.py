"""What an importer (systems/<system>/importer.py) gives `build.py import`: the files of each new run directory
and, for a new benchmark, its definition (importing.py writes them, all or nothing)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .content import sha256_bytes


class ImportFailed(Exception):
    """A source that cannot be imported; the message names the file and what is wrong."""


@dataclass
class ImportPlan:
    benchmark: str
    content: dict[str, bytes] = field(default_factory=dict)  # path under content/<benchmark>/ -> bytes (new only)
    runs: dict[str, dict[str, bytes]] = field(default_factory=dict)  # run_id -> {file name: bytes}
    notes: list[str] = field(default_factory=list)  # what the user should know (discrepancies found, ...)
    sources: dict[str, str] = field(default_factory=dict)  # run_id -> the file or folder the user gave

    def add_model_run(
        self, given: Path, run_format: str, version: str, model: str, files: dict[str, bytes], source: str
    ) -> None:
        """Stage one model's run: its id made from the model's name, its metadata file (<run_format>.json, naming
        each file with its SHA-256) and its files. ImportFailed if another source already gave that model."""
        run_id = re.sub(r"[^a-z0-9.]+", "-", model.lower()).strip("-.")[:80] or "model"
        if run_id in self.runs:
            raise ImportFailed(f"{given}: model {model!r} is given twice")
        meta = {"format": run_format, "format_version": 1, "benchmark": self.benchmark, "version": version,
                "run_id": run_id, "demo": False, "entrant": {"id": run_id, "label": model}, "model": model,
                "files": {k: sha256_bytes(v) for k, v in files.items()}, "source": source}  # fmt: skip
        self.runs[run_id] = {f"{run_format}.json": (json.dumps(meta, indent=2) + "\n").encode(), **files}
        self.sources[run_id] = str(given)

    def named_for_user(self, problem_file: str) -> str:
        """A problem's file as the user knows it: a staged run's files by the source they were made from, the
        staged definition as made from the sources (the staging folder is the import's own, never the user's)."""
        parts = problem_file.split("/")
        if parts[0] == "runs" and len(parts) > 1 and parts[1] in self.sources:
            inside = "/".join(parts[2:])
            return f"{self.sources[parts[1]]}" + (f" (its {inside})" if inside else "")
        if parts[0] == "content" and len(parts) > 1 and parts[1] == self.benchmark:
            given = ", ".join(dict.fromkeys(self.sources.values())) or "the sources"
            return f"the definition made from {given}"
        return problem_file
