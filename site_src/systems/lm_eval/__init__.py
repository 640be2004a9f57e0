"""lm-evaluation-harness results: a run's results_<time>.json with the samples_<task>_<time>.jsonl that --log_samples
wrote beside it, read in place (docs/format-lm-eval.md)."""

from .. import System

SYSTEM = System(
    id="lm-eval",
    marker="lm-eval-run.json",
    run_format="lm-eval-run",
    run_contents=(),  # results.json is no name of its own: a folder holding one is not taken for a run
    importer="lm-eval",
)
