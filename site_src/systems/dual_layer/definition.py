"""The frozen definition of a rubric version (rubric.yaml and tasks.yaml), as the reader loads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class RubricDefinition:
    rubric_version: str
    categories: list[str]
    threshold: int
    max_iterations: int
    rounding: str
    low_confidence_below: float
    bands: list[tuple[int, str]]
    uncertainty: dict[str, Any] = field(default_factory=dict)
