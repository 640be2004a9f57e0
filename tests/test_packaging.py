"""evalboard as an installable tool: a wheel that carries its templates, schemas and starter project, an
`evalboard` command that works in a fresh virtual environment outside this checkout, `evalboard init`, and systems
added by installed plugins through the `evalboard.systems` entry point group."""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from helpers import ROOT

import site_src.cli as cli
from site_src import systems as registry
from site_src import validate

PLUGIN = ROOT / "tests/fixtures/plugin"
BROKEN = ROOT / "tests/fixtures/plugin-broken"


def _run(*argv: str | Path, cwd: Path) -> str:
    done = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{argv}: {done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout, installed with its pinned dependencies into a new virtual environment
    whose Python is run outside the checkout (so `site_src` can only come from the wheel)."""
    root = tmp_path_factory.mktemp("packaging")
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", root / "wheels", ROOT, cwd=root)
    wheel = next((root / "wheels").glob("evalboard-*.whl"))
    _run(sys.executable, "-m", "venv", root / "venv", cwd=root)
    pip = [root / "venv/bin/python", "-m", "pip", "install", "-q"]
    _run(*pip, "-c", ROOT / "constraints.txt", wheel, cwd=root)
    return root / "venv"


def test_the_wheel_carries_what_the_checkout_reads_and_runs_outside_it(fresh_venv, tmp_path):
    where = _run(fresh_venv / "bin/python", "-c", "import site_src.paths as p; print(p.TEMPLATES)", cwd=tmp_path)
    templates = Path(where.strip())
    assert templates.is_relative_to(fresh_venv) and (templates / "leaderboard.html").is_file()
    same = sorted(p.relative_to(ROOT / "templates").as_posix() for p in (ROOT / "templates").rglob("*") if p.is_file())
    assert sorted(p.relative_to(templates).as_posix() for p in templates.rglob("*") if p.is_file()) == same


def test_evalboard_init_then_evalboard_builds_a_site_in_a_fresh_venv(fresh_venv, tmp_path):
    evalboard = fresh_venv / "bin/evalboard"
    said = _run(evalboard, "init", "--example", "--benchmark", "my-evals", cwd=tmp_path)
    assert "evalboard check" in said and "evalboard serve" in said and "evalboard          # build" in said
    for rel in ("content/my-evals/benchmark.yaml", "content/my-evals/versions/0.1.0/prompts.jsonl", "netlify.toml",
                ".github/workflows/pages.yml", ".gitignore", "runs/my-evals/example-run/metadata.json"):  # fmt: skip
        assert (tmp_path / rel).is_file(), rel
    assert (
        "evalboard==" in (tmp_path / "netlify.toml").read_text() and "_site/" in (tmp_path / ".gitignore").read_text()
    )
    assert "ok: 1 benchmark, 1 run" in _run(evalboard, "check", cwd=tmp_path)
    _run(evalboard, "-q", cwd=tmp_path)
    board = (tmp_path / "_site/my-evals/0.1.0/index.html").read_text(encoding="utf-8")
    assert "Demo data." in board and "Example model" in board  # the invented example run says it is invented
    git_ignored = (tmp_path / ".gitignore").read_text().split()
    assert {"_site/", "._site.cache/"} <= set(git_ignored) and (tmp_path / "._site.cache").is_dir()


def test_init_never_overwrites_and_an_empty_project_says_what_is_missing(tmp_path, capsys):
    assert cli.main(["init", str(tmp_path)]) == 0
    assert not list((tmp_path / "runs").rglob("*.json"))  # no example run unless asked for
    assert cli.main(["init", str(tmp_path)]) == 1
    assert "already holds .github/workflows/pages.yml" in capsys.readouterr().out
    argv = ["--content", str(tmp_path / "content"), "--runs", str(tmp_path / "runs")]
    assert cli.main(["check", *argv]) == 1
    assert "no run directory found" in capsys.readouterr().err
    assert cli.main(["init", str(tmp_path / "other"), "--benchmark", "Not An Id"]) == 1


@pytest.fixture
def plugins(monkeypatch):
    """Installed plugins, as importlib.metadata would list them: set(name=package) within a test."""
    listed: list[EntryPoint] = []
    monkeypatch.syspath_prepend(str(PLUGIN))
    monkeypatch.syspath_prepend(str(BROKEN))
    monkeypatch.setattr(registry, "entry_points", lambda group: [e for e in listed if e.group == group])
    registry.systems.cache_clear()
    validate.schema_of.cache_clear()
    yield lambda **named: listed.extend(EntryPoint(n, v, registry.ENTRY_POINTS) for n, v in named.items())
    registry.systems.cache_clear()
    validate.schema_of.cache_clear()


def test_a_plugin_system_is_loaded_as_the_shipped_ones_are_and_listed(plugins, capsys):
    plugins(example="evalboard_example_plugin")
    assert cli.main(["systems"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].split() == ["uzbek-pack", "shipped", "with", "evalboard", "0.1.0"]
    assert len(listed) == len(registry.REGISTERED) + 1
    assert listed[-1].split()[:2] == ["example-plugin", "plugin"]
    assert "example-plugin" in validate.schema_of("benchmark")["properties"]["system"]["enum"]


def test_a_broken_plugin_stops_every_command_with_one_error_naming_it(plugins, capsys):
    plugins(broken="evalboard_broken_plugin")
    assert cli.main(["check"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: the evaluation system plugin 'broken' (evalboard_broken_plugin, plugin an unknown distribution) "
        "cannot be loaded: ModuleNotFoundError: No module named 'evalboard_dependency_that_is_not_installed'"
    ]


def test_a_plugin_cannot_take_a_shipped_systems_id(plugins, capsys, monkeypatch):
    plugins(example="evalboard_example_plugin")
    import evalboard_example_plugin

    monkeypatch.setattr(evalboard_example_plugin, "SYSTEM", registry.System("tuckerbench", "x.json", "x", ()))
    assert cli.main(["systems"]) == 1
    assert "has the id of tuckerbench (shipped with evalboard 0.1.0)" in capsys.readouterr().err


def test_an_installed_plugin_is_found_through_its_entry_point(fresh_venv, tmp_path):
    shutil.copytree(PLUGIN, tmp_path / "plugin")  # built there: the build leaves its files beside the source
    _run(fresh_venv / "bin/python", "-m", "pip", "install", "-q", "--no-deps", tmp_path / "plugin", cwd=tmp_path)
    listed = _run(fresh_venv / "bin/evalboard", "systems", cwd=tmp_path)
    assert "example-plugin plugin evalboard-example-plugin 0.2.0" in " ".join(listed.split())


def test_a_system_is_held_to_its_contract_by_name_and_its_optional_hooks_have_defaults(plugins, monkeypatch):
    """system_part gives each layer typed (site_src/systems/contract.py): a missing module or required function is
    an error naming it; an optional hook left out takes its documented default."""
    import types

    from site_src.systems.contract import ContractError

    plugins(example="evalboard_example_plugin")
    with pytest.raises(ContractError, match=r"example-plugin has no reader module \(evalboard_example_plugin.reader\)"):
        registry.system_part("example-plugin", "reader")
    charts = types.ModuleType("evalboard_example_plugin.charts")
    monkeypatch.setitem(sys.modules, charts.__name__, charts)
    with pytest.raises(ContractError, match="evalboard_example_plugin.charts defines no charts"):
        registry.system_part("example-plugin", "charts")
    charts.charts = lambda view: []
    part = registry.system_part("example-plugin", "charts")
    assert part.OWN_OVERALL is False and part.charts(None) == []
    assert registry.system_part("tuckerbench", "scoring").judge_reports is not None  # a system with judges
    assert registry.system_part("uzbek-pack", "scoring").judge_reports is None  # the default: no judges


def test_judges_declared_for_a_system_without_judges_is_a_warning_naming_the_file(tmp_path, capsys):
    shutil.copytree(ROOT / "content", tmp_path / "content")
    definition = tmp_path / "content/uzbek-pack/benchmark.yaml"
    definition.write_text(definition.read_text(encoding="utf-8").replace("judges: false", "judges: true"), "utf-8")
    assert cli.main(["check", "--content", str(tmp_path / "content"), "--runs", str(ROOT / "runs")]) == 0
    said = capsys.readouterr().err
    assert (
        "uzbek-pack/benchmark.yaml" in said
        and "statistics.judges: true, but the system 'uzbek-pack' has no judges" in said
    )
    assert cli.main(["check", "--strict", "--content", str(tmp_path / "content"), "--runs", str(ROOT / "runs")]) == 1


def test_the_mt_bench_plugin_installed_beside_evalboard_imports_real_results_and_builds(fresh_venv, tmp_path):
    """The MT-Bench system is a package of its own (plugins/evalboard-mtbench): installed with pip beside the wheel,
    evalboard finds it through its entry point, imports FastChat's files with it and builds their pages."""
    shutil.copytree(ROOT / "plugins/evalboard-mtbench", tmp_path / "plugin")
    _run(fresh_venv / "bin/python", "-m", "pip", "install", "-q", "--no-deps", tmp_path / "plugin", cwd=tmp_path)
    evalboard = fresh_venv / "bin/evalboard"
    assert "mt-bench plugin evalboard-mtbench 0.1.0" in " ".join(_run(evalboard, "systems", cwd=tmp_path).split())
    project = tmp_path / "project"
    (project / "content").mkdir(parents=True)
    fixture = ROOT / "tests/fixtures/mt_bench/mt_bench"
    said = _run(evalboard, "import", "mt-bench", fixture, "--benchmark", "mt-bench", cwd=project)
    assert "imported runs/mt-bench/phi-3-dpo" in said
    _run(evalboard, "-q", cwd=project)
    page = (project / "_site/mt-bench/v1/t/2a/phi-3-dpo--101/index.html").read_text(encoding="utf-8")
    assert "Grade of answer 2 (MT-Bench turn 2)" in page  # the plugin's own template, from its package
