"""The frozen definition of a pack version (pack.yaml and prompts.jsonl), as the reader loads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class PackDefinition:
    pack_version: str
    corpus_hash: str  # sha256 of prompts.jsonl, as a run records it
    glyphs: tuple[str, ...]  # the apostrophe_equivalent set of this pack version
    categories: list[tuple[str, str]]  # (id, title) in pack order
    cases_per_category: int
    case_count: int
    prompts_file: str
    uncertainty: dict[str, Any] = field(default_factory=dict)
