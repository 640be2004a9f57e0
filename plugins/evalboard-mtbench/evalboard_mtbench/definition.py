"""The frozen definition of an MT-Bench version: which judge's grades count, the pairwise baseline, the reference
answers the judge was shown for math, reasoning and coding."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class MTBenchDefinition:
    judge: str  # the judge model whose files were imported (FastChat's <judge>_single.jsonl)
    baseline: str | None  # the pairwise baseline (model_2 of every pairwise verdict), None without verdicts
    references: dict[str, list[str]]  # question id -> the reference answer's turns, where the judge had one
    uncertainty: dict[str, Any] = field(default_factory=dict)
