"""The GitHub Action (action.yml), its steps run here as the runner runs them: the build step on a copy of the demo
served from /<repository>/, and the pull-request comment step against a published site served over HTTP, with a
stand-in for the `gh` command (the one call that needs GitHub) that records what it was asked to post."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import CONTENT, ROOT

from site_src.site.serve_static import serve

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS = ACTION["runs"]["steps"]
# a stand-in for gh: it records each call, answers the listing of comments with FAKE_GH_LIST, and keeps each body
FAKE_GH = """#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_GH_LOG"], "a") as log:
    body = next((a[len("body=@"):] for a in args if a.startswith("body=@")), None)
    log.write(json.dumps({"args": args, "body": open(body).read() if body else None}) + "\\n")
if "--paginate" in args:
    print(os.environ.get("FAKE_GH_LIST", ""))
"""


def test_every_action_it_uses_is_pinned_and_no_input_is_spliced_into_a_script():
    uses = [s["uses"] for s in STEPS if "uses" in s]
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in uses), uses
    for step in STEPS:
        assert "${{" not in step.get("run", ""), step  # inputs arrive as environment variables only
    assert ACTION["runs"]["using"] == "composite"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A user's repository: the demo's content and runs, in a folder of its own."""
    shutil.copytree(CONTENT, tmp_path / "repo/content")
    shutil.copytree(ROOT / "runs", tmp_path / "repo/runs")
    return tmp_path / "repo"


def _step(name: str, workspace: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the action's step whose name starts with name, as the runner would: bash, in the workspace, with the
    step's env (inputs at their defaults) and the action's folder as GITHUB_ACTION_PATH."""
    step = next(s for s in STEPS if s.get("name", "").startswith(name))
    defaults = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
    given = {k: re.sub(r"\$\{\{ inputs\.([\w-]+) \}\}", lambda m: defaults[m.group(1)], str(v))
             for k, v in step.get("env", {}).items()}  # fmt: skip
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # where pip put evalboard
    full = {**os.environ, **given, **env, "PATH": env.get("PATH", path), "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_REPOSITORY": "someone/their-evals"}  # fmt: skip
    return subprocess.run(["bash", "-c", step["run"]], cwd=workspace, env=full, capture_output=True, text=True)


def test_the_build_step_builds_the_site_for_the_repositorys_pages_path(workspace):
    done = _step("Build the site", workspace)
    assert done.returncode == 0, done.stderr
    assert "/their-evals/" in (workspace / "_site/404.html").read_text(encoding="utf-8")
    assert (workspace / "_site/tuckerbench/v1-pilot/index.html").is_file()


def _fake_gh(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH.replace("python3", sys.executable, 1), encoding="utf-8")
    (bin_dir / "gh").chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return {"PATH": path, "FAKE_GH_LOG": str(tmp_path / "gh.log"), "PULL_REQUEST": "7"}


def _calls(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "gh.log").read_text().splitlines()]


def test_on_a_pull_request_one_comment_says_what_changed_against_the_published_site(workspace, tmp_path):
    assert _step("Build the site", workspace).returncode == 0
    published = tmp_path / "published"
    shutil.copytree(workspace / "_site", published)  # the deployed site: the demo as it is
    judged = workspace / "runs/tuckerbench/demo-pilot-run1/judgments/judge-k.jsonl"
    records = [json.loads(line) for line in judged.read_text(encoding="utf-8").splitlines()]
    for r in records:  # the pull request: one entrant judged again, two points higher
        if r.get("entrant") == "beta" and r.get("scores"):
            r["scores"] = {k: min(10, v + 2) for k, v in r["scores"].items()}
    judged.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert _step("Build the site", workspace).returncode == 0
    server, url = serve(published, "/their-evals/")
    try:
        env = _fake_gh(tmp_path)
        done = _step("Comment", workspace, PUBLISHED_URL=url, **env)
        assert done.returncode == 0, done.stderr
        listing, posted = _calls(tmp_path)
        assert listing["args"][:2] == ["api", "repos/someone/their-evals/issues/7/comments"]
        assert posted["args"][:4] == ["api", "-X", "POST", "repos/someone/their-evals/issues/7/comments"]
        body = posted["body"]
        assert body.startswith(
            "<!-- evalboard: what this change does to the leaderboard -->\n## evalboard: what changed"
        )
        assert "- Demo Entrant Beta: rank 2 -> 1; score 59.78 -> 69.78; mean item result +1.000" in body

        (tmp_path / "gh.log").unlink()  # a second push to the pull request: the comment is updated, not added
        done = _step("Comment", workspace, PUBLISHED_URL=url, FAKE_GH_LIST="4242", **env)
        assert done.returncode == 0, done.stderr
        assert _calls(tmp_path)[1]["args"][:4] == [
            "api",
            "-X",
            "PATCH",
            "repos/someone/their-evals/issues/comments/4242",
        ]
    finally:
        server.shutdown()


def test_before_anything_is_published_the_comment_shows_the_scores_and_says_why(workspace, tmp_path):
    assert _step("Build the site", workspace).returncode == 0
    (tmp_path / "nothing-here").mkdir()
    server, url = serve(tmp_path / "nothing-here", "/their-evals/")
    try:
        done = _step("Comment", workspace, PUBLISHED_URL=url, **_fake_gh(tmp_path))
    finally:
        server.shutdown()
    assert done.returncode == 0, done.stderr
    body = _calls(tmp_path)[1]["body"]
    assert "## evalboard: the scores with this change" in body
    assert "index.json: HTTP 404 (no site is published there yet?)" in body
    assert "Demo Entrant Beta" in body and "```text" in body
