"""MT-Bench, as FastChat's llm_judge writes it: two-turn questions, each model's answers, and a judge's single-answer
grades (1-10 per turn, with an explanation) and pairwise verdicts against a baseline. An evalboard system added as
a plugin (the entry point group evalboard.systems names this package)."""

from site_src.systems import System

SYSTEM = System(
    id="mt-bench",
    marker="mt-bench-run.json",
    run_format="mt-bench-run",
    run_contents=("model_answer.jsonl",),
    importer="mt-bench",
)
