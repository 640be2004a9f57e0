"""The frozen definition of a pairwise version: the instructions and the shared baseline's outputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class PairwiseDefinition:
    baseline_id: str
    baseline_label: str  # the baseline's generator name, as the annotations record it (generator_1)
    baseline_outputs: dict[str, str]  # item id -> the baseline's output
    by_instruction: dict[str, str]  # instruction text -> item id (AlpacaEval joins on the instruction)
    uncertainty: dict[str, Any] = field(default_factory=dict)
