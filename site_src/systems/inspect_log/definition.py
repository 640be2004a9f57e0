"""The frozen definition of an Inspect task version: its samples (the items) and its scorers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

# Inspect's score letters, as Inspect View words them
LETTERS = {"C": "correct", "I": "incorrect", "P": "partly correct", "N": "no answer"}


def in_words(value: Any) -> str:
    """A recorded score value as a reader reads it: "correct (C)" for Inspect's letters, numbers and text as they
    are; a list or a dict is not one value."""
    if isinstance(value, str) and value in LETTERS:
        return f"{LETTERS[value]} ({value})"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"{value:g}"
    return value if isinstance(value, str) else "(not a single value)"


@dataclass
class InspectDefinition:
    task: str
    task_version: str
    dataset: dict[str, Any]  # name, location, samples (the dataset's full size)
    scorers: list[str]
    sample_ids: dict[str, Any]  # item id -> the sample id as Inspect records it (an int or a string)
    uncertainty: dict[str, Any] = field(default_factory=dict)
    score_ranges: dict[str, tuple[float, float]] = field(default_factory=dict)  # column -> declared (low, high)
    letters: ClassVar[dict[str, str]] = LETTERS  # for the templates


def metric_range(d: InspectDefinition, column: str, metric: str) -> tuple[float, float] | None:
    """The declared range of a metric of a score column: accuracy and mean keep the range of its values, declared
    in task.json (score_ranges); accuracy is a proportion, 0–1, by Inspect's definition. Other metrics (stderr, std,
    var) and undeclared means have none: their charts take the axis from the figures shown, and say so."""
    if metric not in ("accuracy", "mean"):
        return None
    if column in d.score_ranges:
        return d.score_ranges[column]
    return (0.0, 1.0) if metric == "accuracy" else None
