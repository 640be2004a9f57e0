"""The frozen definition of a TuckerBench version (config/ and prompts/), as the reader loads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Dimension:
    id: str
    title: str
    weight: float
    applies_to: tuple[str, ...]


@dataclass
class CalibrationResponse:
    id: str
    title: str
    scenario_id: str
    response: str


@dataclass
class TuckerDefinition:
    version: str
    content_hash: str
    files: dict[str, str]  # relative path -> "sha256:…" for every frozen input
    status: str
    repetitions: int
    judges_required: int
    dimensions: list[Dimension]
    group_weights: dict[str, float]  # "single" -> 1/3, "conversation" -> 2/3
    group_titles: dict[str, str]  # "single" -> "Single responses", as pilot.json names them
    scale_max: float
    calibration: list[CalibrationResponse]
    profanity_lexicon: list[str]
    uncertainty: dict[str, Any]
    refusal_patterns: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)  # entrant and judge settings as frozen
    documents: dict[str, str] = field(default_factory=dict)  # persona.md, judge.md: text for the methodology page

    @property
    def to_100(self) -> float:
        """Multiply a judge-scale score by this to express it out of 100."""
        return 100 / self.scale_max

    def dimensions_for(self, kind: str) -> list[Dimension]:
        return [d for d in self.dimensions if kind in d.applies_to]
