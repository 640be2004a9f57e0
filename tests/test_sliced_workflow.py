"""The reusable workflow .github/workflows/sliced-pages.yml, run here step by step as a runner would: each job in a
fresh checkout of a copy of the project, its `run:` steps through bash with the environment the workflow gives
them, the render job once per entry of the matrix the plan job printed, and the artifact steps as folders. What it
publishes is, byte for byte, the site one build makes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import ROOT, copy_project, set_layout, tree_hash

WORKFLOW = yaml.safe_load((ROOT / ".github/workflows/sliced-pages.yml").read_text(encoding="utf-8"))
JOBS = WORKFLOW["jobs"]
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def test_every_action_is_pinned_and_no_expression_is_spliced_into_a_script():
    steps = [step for job in JOBS.values() for step in job["steps"]]
    uses = [s["uses"] for s in steps if "uses" in s]
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in uses), uses
    assert all("${{" not in s.get("run", "") for s in steps)
    assert WORKFLOW["permissions"] == {} and JOBS["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert all(job["permissions"] == {"contents": "read"} for name, job in JOBS.items() if name != "deploy")
    assert not any("run" in s for s in JOBS["deploy"]["steps"])  # the job that may write runs no project code


def listed(reads: Path) -> list[dict[str, Any]]:
    return json.loads((reads / "reads.json").read_text(encoding="utf-8"))["runs"]


class Runner:
    """Just enough of a GitHub Actions runner for this workflow: expressions of inputs, matrix, needs and github
    values; checkout, setup-python, artifacts and run steps."""

    def __init__(self, tmp: Path, inputs: dict[str, Any], lean: tuple[str, ...] = ()) -> None:
        self.tmp, self.inputs, self.outputs = tmp, inputs, {}
        self.said: dict[str, str] = {}  # what each job's run steps printed, by job (and matrix entry)
        self.artifacts = tmp / "artifacts"
        self.source = copy_project(tmp / "source")
        set_layout(self.source / "content", lean)  # benchmarks whose benchmark.yaml says layout: lean
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
        for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "runs"]):
            subprocess.run([*git, *cmd], cwd=self.source, check=True, env={**os.environ, "GIT_COMMITTER_DATE":
                           "2026-11-30T12:00:00Z", "GIT_AUTHOR_DATE": "2026-11-30T12:00:00Z"})  # fmt: skip

    def value(self, expression: str, matrix: dict[str, str]) -> Any:
        if expression.startswith("inputs."):
            return self.inputs[expression[len("inputs.") :]]
        if expression.startswith("matrix."):
            return matrix[expression[len("matrix.") :]]
        if expression == "github.event.repository.name":
            return "repo"
        need = re.fullmatch(r"needs\.(\w+)\.outputs\.(\w+)", expression)
        assert need, f"the workflow uses an expression this runner does not know: {expression}"
        return self.outputs[need[1]][need[2]]

    def expand(self, text: str, matrix: dict[str, str]) -> str:
        return EXPRESSION.sub(lambda m: str(self.value(m[1], matrix)), text)

    def job(self, name: str, matrix: dict[str, str] | None = None) -> None:
        job, matrix = JOBS[name], matrix or {}
        work = self.tmp / f"{name}-{matrix.get('name', 'job')}"
        shutil.copytree(self.source, work)  # actions/checkout: a fresh checkout for every job
        env = {k: self.expand(str(v), matrix) for k, v in job.get("env", {}).items()}
        outputs: dict[str, str] = {}
        for step in job["steps"]:
            self.step(step, work, env, matrix, outputs)
        self.outputs[name] = {  # each "${{ steps.<id>.outputs.<key> }}" of the job's outputs
            key: outputs[".".join(re.fullmatch(r"\$\{\{ steps\.(\w+)\.outputs\.(\w+) \}\}", value).groups())]
            for key, value in job.get("outputs", {}).items()
        }

    def step(self, step: dict[str, Any], work: Path, env: dict[str, str], matrix: dict[str, str],
             outputs: dict[str, str]) -> None:  # fmt: skip
        uses = step.get("uses", "").split("@")[0]
        given = {k: self.expand(str(v), matrix) for k, v in step.get("with", {}).items()}
        if uses in ("actions/checkout", "actions/setup-python"):
            return
        if uses == "actions/upload-artifact":
            shutil.copytree(work / given["path"], self.artifacts / given["name"])
        elif uses == "actions/download-artifact":
            pattern = re.compile(given["pattern"].replace("*", ".*"))
            for artifact in sorted(self.artifacts.iterdir()):
                if pattern.fullmatch(artifact.name):
                    shutil.copytree(artifact, work / given["path"] / artifact.name)
        elif uses == "actions/upload-pages-artifact":
            shutil.copytree(work / given["path"], self.artifacts / "github-pages")
        else:
            assert "run" in step, step
            said = work / ".github-output"
            said.write_text("", encoding="utf-8")
            step_env = {**os.environ, **env, "GITHUB_OUTPUT": str(said)}
            step_env.update({k: self.expand(str(v), matrix) for k, v in step.get("env", {}).items()})
            done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=work, env=step_env, capture_output=True,
                                  text=True)  # fmt: skip
            assert done.returncode == 0, f"{step['run']}\n{done.stdout}\n{done.stderr}"
            self.said[work.name] = self.said.get(work.name, "") + done.stdout + done.stderr
            for line in said.read_text(encoding="utf-8").splitlines():
                key, _, value = line.partition("=")
                outputs[f"{step.get('id')}.{key}"] = value


@pytest.mark.parametrize("lean", [(), ("tuckerbench", "uzbek-pack")], ids=["full", "lean"])
def test_the_workflow_run_step_by_step_publishes_what_one_build_makes(tmp_path, lean):
    python = sys.executable
    runner = Runner(tmp_path, {"slices": 2, "versions": "", "base-path": "", "host": "github-pages",
                               "install": "true", "command": f"{python} build.py"}, lean)  # fmt: skip
    runner.job("plan")
    matrix = json.loads(runner.outputs["plan"]["matrix"])["include"]
    assert len(matrix) == 6 and {m["slice"] for m in matrix} == {"1/2", "2/2"}
    for entry in matrix:
        runner.job("read", entry)
    read = [(entry["run"], folder.name) for folder in runner.artifacts.glob("reads--*") for entry in listed(folder)]
    runs = {f"runs/{p.parent.name}/{p.name}" for p in (runner.source / "runs").glob("*/*/")}
    assert sorted(run for run, _ in read) == sorted(runs)  # each run read once, by one read job
    read = dict(read)
    for entry in matrix:
        runner.job("render", entry)
        version_runs = sum(v.startswith(f"reads--{entry['folder']}--") for v in read.values())
        said = f"runs taken from the reads folders: {version_runs} of {version_runs} (the rest read here)"
        assert said in runner.said[f"render-{entry['name']}"]  # every run of its version, none read again
    runner.job("merge")
    published = runner.artifacts / "github-pages"
    epoch = runner.outputs["plan"]["epoch"]
    assert epoch == str(int(datetime(2026, 11, 30, 12, tzinfo=UTC).timestamp()))  # the commit's time
    whole = tmp_path / "whole"
    env = {**os.environ, "SOURCE_DATE_EPOCH": epoch}
    cmd = [python, "build.py", "--quiet", "--base-path", "/repo/", "--out", str(whole)]
    assert subprocess.run(cmd, cwd=runner.source, env=env).returncode == 0
    assert tree_hash(published) == tree_hash(whole)
    assert (published / "publish-manifest.json").is_file() and not list(published.glob("*/*/search/*/slice*"))
    assert bool(list(published.glob("tuckerbench/*/data/t/*/*.jsonl.gz"))) == bool(lean)  # the layout was published
