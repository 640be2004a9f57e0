"""The frozen definition of an lm-eval version: its tasks (metrics with their aggregation, the number of documents
evaluated), its groups, and the documents whose samples were logged (their prompts and targets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class LmEvalTask:
    name: str
    metrics: list[tuple[str, str, bool]]  # (metric, aggregation, higher is better), as the task's metric_list says
    documents: int  # how many documents the harness evaluated (n-samples effective)
    output_type: str
    num_fewshot: int | None


@dataclass
class LmEvalDefinition:
    tasks: dict[str, LmEvalTask]
    groups: dict[str, list[str]]  # group -> its tasks, as the harness aggregated them
    uncertainty: dict[str, Any] = field(default_factory=dict)
