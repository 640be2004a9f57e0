"""The dual-layer rubric (seed 001): five 0–100 categories, a rounded global score, a threshold decision."""

from .. import System

SYSTEM = System(
    id="dual-layer",
    marker="run.json",
    run_format="dual-layer-run",
    run_contents=("tasks",),
    version_field="rubric_version",
)
