"""AlpacaEval-style pairwise judgments, read in place: model_outputs.json and annotations.json against a baseline."""

from .. import System

SYSTEM = System(
    id="alpaca-eval",
    marker="alpaca-eval-run.json",
    run_format="alpaca-eval-run",
    run_contents=("annotations.json", "model_outputs.json"),
    importer="alpaca-eval",
    ranks_over_present=True,
)
