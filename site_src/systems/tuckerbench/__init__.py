"""TuckerBench (seed 004): two LLM judges, weighted dimensions, single responses and scripted conversations."""

from .. import System

SYSTEM = System(
    id="tuckerbench",
    marker="manifest.json",
    run_format="tuckerbench-run",
    run_contents=("transcripts", "judgments", "calibration.jsonl", "human-pairs.jsonl", "reported-scores.json"),
    review_kit=True,
    judges=True,
)
