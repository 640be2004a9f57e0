"""Intervals that keep their promise with few clusters (seed 004: scenario-clustered uncertainty): the stratified t
interval, its Student t machinery against scipy, its simulated coverage at the pilot's own design and its rate of
false "resolved" comparisons, and what the demo's pages say of it."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from helpers import ROOT
from scipy import stats as scipy_stats

from site_src.scoring.uncertainty import TParts, linearized, separation_t, stratified_t, t_cdf, t_quantile

sys.path.insert(0, str(ROOT / "scripts"))
from coverage import DESIGNS, coverage_at, false_resolved_at  # noqa: E402

PILOT = ROOT / "content/tuckerbench/versions/v1-pilot/config/pilot.json"


@pytest.fixture(scope="module")
def client(demo):  # noqa: ANN001, ANN201
    from site_src.scoring.release import build_release
    from site_src.site.app import create_app

    return create_app(build_release(demo)).test_client()


@pytest.mark.parametrize("df", [1, 1.7, 2, 3.6, 5, 12.4, 30, 300])
@pytest.mark.parametrize("p", [0.5, 0.9, 0.975, 0.995])
def test_t_quantile_and_distribution_are_scipys(df, p):
    assert t_quantile(p, df) == pytest.approx(scipy_stats.t.ppf(p, df), rel=1e-9, abs=1e-12)
    assert t_cdf(1.234, df) == pytest.approx(scipy_stats.t.cdf(1.234, df), abs=1e-12)


def test_stratified_t_is_the_welch_satterthwaite_interval_computed_independently():
    rng = np.random.default_rng(7)
    single, conversation = rng.normal(5, 1, 3), rng.normal(6, 2, 5)  # equal cluster sizes: cluster means
    w1, w2 = 1 / 3, 2 / 3
    sums, counts = np.concatenate([single, conversation]) * 2, np.full(8, 2.0)
    masks = [np.array([1.0] * 3 + [0.0] * 5), np.array([0.0] * 3 + [1.0] * 5)]
    (m1, z1), (m2, z2) = linearized(sums, counts, masks[0]), linearized(sums, counts, masks[1])
    got = stratified_t(w1 * m1 + w2 * m2, [(w1, z1), (w2, z2)], 0.95)
    a1, a2 = w1**2 * single.var(ddof=1) / 3, w2**2 * conversation.var(ddof=1) / 5
    df = (a1 + a2) ** 2 / (a1**2 / 2 + a2**2 / 4)
    half = scipy_stats.t.ppf(0.975, df) * np.sqrt(a1 + a2)
    centre = w1 * single.mean() + w2 * conversation.mean()
    assert got.df == pytest.approx(df) and got.se == pytest.approx(np.sqrt(a1 + a2))
    assert (got.interval.lo, got.interval.hi) == pytest.approx((centre - half, centre + half))


def test_a_stratum_of_one_cluster_gives_no_interval_and_identical_clusters_a_zero_width_one():
    assert stratified_t(1.0, [(1.0, np.array([0.3]))], 0.95) is None
    flat = stratified_t(2.0, [(1.0, np.zeros(4))], 0.95)
    assert (flat.interval.lo, flat.interval.hi, flat.df) == (2.0, 2.0, 0.0)


def test_seed004_stratified_t_covers_95_percent_at_the_pilots_own_design_and_the_frozen_figure_is_that():
    covered = coverage_at({"single": 2, "conversation": 4}, 2, sims=4000, seed=1)
    print(f"\nstratified t at the pilot design (2 + 4 scenarios, 2 repetitions): coverage {covered:.4f}")
    assert 0.93 <= covered <= 0.97
    frozen = json.loads(PILOT.read_text(encoding="utf-8"))["uncertainty"]
    assert frozen["method"] == "stratified-t"
    assert frozen["simulated_coverage"] == {
        "coverage": covered,
        "simulations": 4000,
        "design": {"single": 2, "conversation": 4, "repetitions": 2},
    }


def test_seed004_equal_entrants_are_called_apart_at_most_5_percent_of_the_time_at_the_pilot_design():
    rate = false_resolved_at(DESIGNS[0], sims=3000, seed=2)
    print(f"\nfalse 'resolved' at the pilot design, stratified t on paired differences: {rate:.4f}")
    assert rate <= 0.06


def test_rank_intervals_follow_the_resolved_paired_differences():
    a = TParts(70.0, [(1.0, np.array([1.0, -1.0, 0.5, -0.5]))])
    b = TParts(50.0, [(1.0, np.array([1.1, -0.9, 0.4, -0.6]))])  # far below a, with the same scenario pattern
    c = TParts(69.5, [(1.0, np.array([-1.0, 1.0, -0.5, 0.5]))])  # close to a
    sep = separation_t({"a": 70.0, "b": 50.0, "c": 69.5}, {"a": a, "b": b, "c": c}, 0.95)
    assert sep.differences[("a", "b")][2] and not sep.differences[("a", "c")][2]
    assert sep.rank_intervals == {"a": (1, 2), "c": (1, 2), "b": (3, 3)}


def test_the_demo_shows_the_method_its_degrees_of_freedom_and_its_simulated_coverage(client):
    board = client.get("/tuckerbench/v1-pilot/").get_data(as_text=True)
    assert "95% interval [58.3, 65.6] (t, 3.6 df)" in board
    breakdown = client.get("/tuckerbench/v1-pilot/breakdown/").get_data(as_text=True)
    assert "stratified t over the 6 scenarios (2 single, 4 conversation)" in breakdown
    assert "simulated coverage of nominal 95% was 96.4% (4000 simulated releases" in breakdown
    assert "too narrow" not in breakdown  # the warning belongs to the bootstrap at few clusters


def test_a_frozen_coverage_simulated_for_another_design_is_said(tmp_path):
    from helpers import copy_project
    from test_importers import build

    project = copy_project(tmp_path / "p")
    path = project / "content/tuckerbench/versions/v1-pilot/config/pilot.json"
    pilot = json.loads(path.read_text(encoding="utf-8"))
    pilot["uncertainty"]["simulated_coverage"]["design"]["conversation"] = 40
    path.write_text(json.dumps(pilot, indent=2), encoding="utf-8")
    done = build(project, "check")
    said = done.stdout + done.stderr
    assert "simulated_coverage was simulated for" in said and "content/tuckerbench/versions/v1-pilot" in said


def test_a_version_that_freezes_the_cluster_bootstrap_keeps_it(tmp_path):
    from helpers import copy_project, load

    from site_src.scoring.release import build_release
    from site_src.site.app import create_app

    project = copy_project(tmp_path / "p")
    path = project / "content/tuckerbench/versions/v1-pilot/config/pilot.json"
    pilot = json.loads(path.read_text(encoding="utf-8"))
    pilot["uncertainty"] = {k: v for k, v in pilot["uncertainty"].items() if k != "simulated_coverage"}
    pilot["uncertainty"]["method"] = "cluster-bootstrap"
    path.write_text(json.dumps(pilot, indent=2), encoding="utf-8")
    manifest = project / "runs/tuckerbench/demo-pilot-run1/manifest.json"  # the run names its definition's bytes
    import hashlib

    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["files"]["config/pilot.json"] = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    from site_src.readers.content import files_hash

    data["content_hash"] = files_hash(data["files"])
    manifest.write_text(json.dumps(data, indent=2), encoding="utf-8")
    project_read = load(project / "runs", project / "content")
    assert not project_read.problems.errors, project_read.problems.errors
    client = create_app(build_release(project_read)).test_client()
    board = client.get("/tuckerbench/v1-pilot/").get_data(as_text=True)
    assert "95% interval [59.8, 63.8]" in board and "df)" not in board  # the percentile bootstrap's, as before
    breakdown = client.get("/tuckerbench/v1-pilot/breakdown/").get_data(as_text=True)
    assert "scenario-clustered bootstrap" in breakdown and "too narrow" in breakdown
