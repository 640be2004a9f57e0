"""The frozen definition of an Inspect task version: its samples (the items) and its scorers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class InspectDefinition:
    task: str
    task_version: str
    dataset: dict[str, Any]  # name, location, samples (the dataset's full size)
    scorers: list[str]
    sample_ids: dict[str, Any]  # item id -> the sample id as Inspect records it (an int or a string)
    uncertainty: dict[str, Any] = field(default_factory=dict)
