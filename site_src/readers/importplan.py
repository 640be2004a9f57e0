"""What an importer (systems/<system>/importer.py) gives `build.py import`: the files of each new run directory
and, for a new benchmark, its definition (importing.py writes them, all or nothing)."""

from __future__ import annotations

from dataclasses import dataclass, field


class ImportFailed(Exception):
    """A source that cannot be imported; the message names the file and what is wrong."""


@dataclass
class ImportPlan:
    benchmark: str
    content: dict[str, bytes] = field(default_factory=dict)  # path under content/<benchmark>/ -> bytes (new only)
    runs: dict[str, dict[str, bytes]] = field(default_factory=dict)  # run_id -> {file name: bytes}
    notes: list[str] = field(default_factory=list)  # what the user should know (discrepancies found, ...)
    sources: dict[str, str] = field(default_factory=dict)  # run_id -> the file or folder the user gave

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
