"""Seed 004 (TuckerBench): weights, renormalisation, judges, groups, completeness, missing vs zero, versions."""

from __future__ import annotations

import json

import pytest
from helpers import edit_json, fold, load, messages
from hypothesis import example, given
from hypothesis import strategies as st

from site_src.scoring.diagnostics import count_profanity
from site_src.scoring.dispatch import score_version
from site_src.systems.tuckerbench.display import score_text
from site_src.systems.tuckerbench.scoring import overall, weighted_score


@pytest.fixture
def tucker(demo):
    bench = demo.benchmark("tuckerbench")
    version = bench.versions[0]
    return version, score_version(bench, version)


def rows(scored):
    return {r.entrant_id: r for r in scored.leaderboard.rows}


def test_seed004_dimension_weights_come_from_the_pilot_settings(tucker):
    version, _ = tucker
    assert {d.id: d.weight for d in version.definition.dimensions} == {
        "fidelity": 40,
        "comic_invention": 25,
        "naturalness": 15,
        "conversational_fit": 10,
        "persistence": 10,
    }


def test_seed004_single_responses_omit_persistence_and_renormalise(tucker):
    version, _ = tucker
    d = version.definition
    scores = {"fidelity": 10, "comic_invention": 0, "naturalness": 0, "conversational_fit": 0}
    assert weighted_score(scores, "single", d) == pytest.approx(10 * 40 / 90)
    conv = {**scores, "persistence": 0}
    assert weighted_score(conv, "conversation", d) == pytest.approx(10 * 40 / 100)


def test_seed004_overall_is_one_third_single_two_thirds_conversation_out_of_100(tucker):
    version, _ = tucker
    assert overall({"single": 3.0, "conversation": 6.0}, version.definition) == pytest.approx(50.0)


def test_seed004_two_judges_averaged_per_transcript(tucker):
    version, scored = tucker
    run = version.runs[0]
    t = next(t for t in run.transcripts if t.entrant_id == "alpha" and t.item_id == "s3-bug-correction")
    r = scored.transcripts[t.id]
    assert r.score == pytest.approx(sum(r.by_judge.values()) / 2)


def test_seed004_each_conversation_weighs_the_same_whatever_its_turn_count(tucker):
    version, scored = tucker
    es = scored.tables["entrants"]["demo-pilot-run1--alpha"]
    convs = [
        scored.transcripts[t.id].score
        for t in version.runs[0].transcripts
        if t.entrant_id == "alpha" and scored.transcripts[t.id].kind == "conversation"
    ]
    assert es.groups["conversation"][0] == pytest.approx(sum(convs) / len(convs))


def test_seed004_recomputed_overall_matches_a_hand_computation(tucker):
    version, scored = tucker
    judg = {(j.judge_id, j.target_id): j.scores for j in version.runs[0].judgments}
    w = {"fidelity": 40, "comic_invention": 25, "naturalness": 15, "conversational_fit": 10, "persistence": 10}
    groups = {"single": [], "conversation": []}
    for t in version.runs[0].transcripts:
        if t.entrant_id != "beta":
            continue
        kind = version.item(t.item_id).kind
        per_judge = []
        for judge in ("judge-k", "judge-q"):
            s = judg[(judge, t.id)]
            per_judge.append(sum(w[k] * v for k, v in s.items()) / sum(w[k] for k in s))
        groups[kind].append(sum(per_judge) / 2)
    expected = 10 * (
        sum(groups["single"]) / len(groups["single"]) / 3
        + 2 * sum(groups["conversation"]) / len(groups["conversation"]) / 3
    )
    assert rows(scored)["beta"].score == pytest.approx(expected)


def test_seed004_complete_score_only_when_every_transcript_and_judgment_is_present(tucker):
    _, scored = tucker
    gamma = rows(scored)["gamma"]
    assert not gamma.complete and gamma.score is None and gamma.rank is None
    assert score_text(gamma, None).startswith("partial")
    assert rows(scored)["alpha"].rank == 1


def test_seed004_provider_errors_and_exhausted_quotas_are_missing_not_zero(tucker):
    version, scored = tucker
    t = next(t for t in version.runs[0].transcripts if t.entrant_id == "gamma" and t.status == "error")
    assert "quota_exhausted" in t.turns[-1].error
    assert scored.transcripts[t.id].score is None
    es = scored.tables["entrants"]["demo-pilot-run1--gamma"]
    assert es.groups["conversation"][1:] == (6, 8)  # two transcripts not averaged in as zero


def test_seed004_judge_parse_failure_is_missing_not_retried(tucker):
    version, scored = tucker
    failed = [j for j in version.runs[0].judgments if j.parse_status == "failed"]
    assert len(failed) == 1
    r = scored.transcripts[failed[0].target_id]
    assert r.judge_state["judge-q"] == "parse_failed" and r.score is None
    # its weighted score is missing, never a zero (the score keeps a placeholder number for it, never shown)
    assert r.by_judge["judge-q"] is None and list(r.by_judge.values()).count(None) == 1
    assert all(isinstance(v, float) for j, v in r.by_judge.items() if j != "judge-q")


def test_seed004_empty_completion_is_kept_as_an_empty_performance(tucker):
    version, scored = tucker
    t = next(
        t
        for t in version.runs[0].transcripts
        if t.entrant_id == "beta" and t.item_id == "s2-meeting-invite" and t.attempt == 1
    )
    assert t.turns[-1].content == "" and t.turns[-1].state == "empty"
    assert scored.transcripts[t.id].score is not None and scored.transcripts[t.id].empty


def test_seed004_token_limit_completion_kept_visible_and_flagged(tucker):
    version, scored = tucker
    t = next(t for t in version.runs[0].transcripts if t.truncated)
    turn = next(x for x in t.turns if x.state == "truncated")
    assert turn.stop_reason == "length" and turn.content
    assert any(f.code == "truncated" for f in rows(scored)[t.entrant_id].flags)


def test_seed004_outright_refusal_earns_zero(tucker):
    _, scored = tucker
    assert rows(scored)["delta"].score == 0


def test_seed004_same_family_judgments_flagged_and_included(tucker):
    _, scored = tucker
    assert any(f.code == "same_family_judge" for f in rows(scored)["alpha"].flags)
    assert not any(f.code == "same_family_judge" for f in rows(scored)["beta"].flags)


def test_seed004_settings_a_transport_did_not_honour_are_flagged(tucker):
    _, scored = tucker
    assert any(f.code == "transport" for f in rows(scored)["beta"].flags)


def test_seed004_stored_aggregate_disagreeing_is_a_discrepancy(tucker):
    _, scored = tucker
    fields = {(d.record, d.field) for d in scored.leaderboard.discrepancies}
    assert ("entrant alpha", "overall") in fields and ("entrant gamma", "complete") in fields


def test_seed004_changed_frozen_inputs_are_a_different_version(runs_copy, tmp_path):
    def change(m):
        m["files"]["prompts/judge.md"] = "sha256:" + "0" * 64
        from site_src.readers.content import files_hash

        m["content_hash"] = files_hash(m["files"])

    edit_json(runs_copy / "tuckerbench/demo-pilot-run1/manifest.json", change)
    project = load(runs_copy)
    assert any("a changed evaluation is a new version" in m and "prompts/judge.md" in m for m in messages(project))
    assert not project.benchmark("tuckerbench").versions[0].runs


def test_seed004_private_answer_key_is_kept_apart_from_the_run(demo):
    version = demo.benchmark("tuckerbench").versions[0]
    run = version.runs[0]
    assert "private/answer-key.json" not in run.public_files
    assert "private/answer-key.json" in run.ignored_files
    key = version.private_keys[run.id]
    assert len(key.sides) == 12 == len(run.human_pairs)
    assert not any(hasattr(p, "entrant") for p in run.human_pairs)


def test_seed004_auth_files_and_private_keys_are_never_public(demo):
    run = demo.benchmark("tuckerbench").versions[0].runs[0]
    assert {"auth.json", "private/id_ed25519"} <= set(run.ignored_files)
    assert not {"auth.json", "private/id_ed25519"} & set(run.public_files)


def test_seed004_pilot_shape_two_repetitions_of_six_scenarios(demo):
    version = demo.benchmark("tuckerbench").versions[0]
    kinds = [i.kind for i in version.items]
    assert kinds.count("single") == 2 and kinds.count("conversation") == 4
    assert all(5 <= len(i.user_turns) <= 6 for i in version.items if i.kind == "conversation")
    per_entrant = [t for t in version.runs[0].transcripts if t.entrant_id == "alpha"]
    assert len(per_entrant) == 12


def test_seed004_user_turns_must_follow_the_frozen_script(runs_copy):
    path = runs_copy / "tuckerbench/demo-pilot-run1/transcripts/alpha/s4-kettle.r1.json"
    edit_json(path, lambda t: t["turns"][0].update(content="Something else entirely"))
    assert any("user turns differ" in m for m in messages(load(runs_copy)))
    assert json.loads(path.read_text())["turns"][0]["content"] == "Something else entirely"


ODD_CASES = ["\u212a", "\u017f", "\u0130", "\u0131"]  # Kelvin sign, long s, dotted and dotless i


@given(
    text=st.text(alphabet=st.sampled_from([*"aAsSkKiI \n.,-'_\u00e9", *ODD_CASES])),
    lexicon=st.lists(st.text(alphabet=st.sampled_from([*"aAsSkKiI", *ODD_CASES]), min_size=1), max_size=3),
)
@example(text="a kiss.", lexicon=["ki\u017f\u017f"])  # an ASCII text, a word that is not: the regex decides
@example(text="K\u0130SS", lexicon=["kiss"])
def test_seed004_profanity_count_is_the_whole_word_case_insensitive_match_of_the_lexicon(text, lexicon):
    """The diagnostic counts the lexicon's words "deliberately simply": whole words, any case. Its shortcut for ASCII
    text must count exactly what the regular expression counts, including letters that match ASCII ones ignoring
    case (the Kelvin sign, the long s, the dotted and dotless i)."""
    import re

    found = [m.lower() for word in lexicon for m in re.findall(rf"\b{re.escape(word)}\b", text, flags=re.IGNORECASE)]
    assert count_profanity(text, lexicon) == (len(found), set(found))


def test_a_read_run_holds_each_repeated_name_once(tucker):
    """Memory at 10,000 transcripts: the user turns are the scenario script's own strings, and the names repeated
    in every record (score dimensions, token counts, states) are one string each, whatever record they came from."""
    version, _ = tucker
    run = version.runs[0]
    scripts = {item.id: item.user_turns for item in version.items}
    for t in run.transcripts:
        users = [x.content for x in t.turns if x.role == "user"]
        assert all(a is b for a, b in zip(users, scripts[t.item_id], strict=False))
    names = {}
    for record in [j.scores for j in run.judgments] + [x.usage for t in run.transcripts for x in t.turns]:
        for name in record:
            assert names.setdefault(name, name) is name
    assert len({id(x.stop_reason) for t in run.transcripts for x in t.turns if x.stop_reason == "stop"}) == 1


def test_seed004_run_variation_gives_each_repetitions_group_weighted_score(demo):
    """Run-to-run variation of a complete row: for each repetition, the group-weighted score (each group's mean
    transcript score, weighted 1/3 single and 2/3 conversation, on the 0-100 scale) of that repetition's
    transcripts alone, and the spread between the highest and the lowest, recomputed here from the transcript
    scores."""
    from statistics import fmean

    from site_src.scoring.release import build_release

    view = next(v for v in build_release(demo).views if v.bench.id == "tuckerbench")
    d = view.version.definition
    checked = 0
    for row in view.rows:
        if not row.complete:
            continue
        mine = [t for t in view.transcripts.values() if t.run_id == row.run_ids[0] and t.entrant_id == row.entrant_id]
        per_rep = {}
        for rep in sorted({t.attempt for t in mine}):
            results = [view.scored.transcripts[t.id] for t in mine if t.attempt == rep]
            per_rep[rep] = d.to_100 * sum(
                w * fmean(r.score for r in results if r.kind == g) for g, w in d.group_weights.items()
            )
        want = " · ".join(f"repetition {r}: {v:.1f}" for r, v in per_rep.items())
        want += f" (spread {max(per_rep.values()) - min(per_rep.values()):.1f})"
        assert view.stats.rows[row.key].variation == want
        checked += len(per_rep) > 1
    assert checked  # a complete row with more than one repetition


def test_seed004_transcript_download_gives_each_judges_score_and_each_dimension_by_name(demo):
    """A transcript's download shows its per-judge weighted scores and per-dimension means of the judges, keyed by
    judge and dimension id, recomputed from its judgments (the scorer keeps them compactly; the download does not)."""
    from site_src.scoring.release import build_release
    from site_src.site.app import create_app

    release = build_release(demo)
    view = release.view("tuckerbench", "v1-pilot")
    run = view.runs["demo-pilot-run1"]
    t = next(t for t in run.transcripts if t.entrant_id == "alpha" and t.item_id == "s3-bug-correction")
    with create_app(release).test_client() as client:
        result = client.get(f"/tuckerbench/v1-pilot/data/t/{fold(t.id)}/{t.id}.json").get_json()["result"]
    judgments = [j for j in run.judgments if j.target_id == t.id]
    d = view.version.definition
    weighted = {j.judge_id: pytest.approx(weighted_score(j.scores, "conversation", d)) for j in judgments}
    assert result["by_judge"] == weighted
    assert result["dimensions"] == {
        dim: pytest.approx(sum(j.scores[dim] for j in judgments) / len(judgments)) for dim in judgments[0].scores
    }
    assert result["score"] == pytest.approx(sum(result["by_judge"].values()) / 2)
    assert not {"weighted", "dimension_ids", "dimension_means"} & result.keys()


# ---- what check says of a judge's file


def test_seed004_a_missing_judge_file_fails_check_as_it_fails_coverage(runs_copy):
    (runs_copy / "tuckerbench/demo-pilot-run1/judgments/judge-q.jsonl").unlink()
    errors = messages(load(runs_copy))
    assert errors == [
        "error: runs/tuckerbench/demo-pilot-run1/judgments/judge-q.jsonl: missing: judge 'judge-q' is listed in "
        "manifest.json, so none of the run's 48 transcripts is fully judged"
    ]


def test_seed004_an_empty_judge_file_is_an_error_naming_it(runs_copy):
    (runs_copy / "tuckerbench/demo-pilot-run1/judgments/judge-k.jsonl").write_text("", encoding="utf-8")
    errors = messages(load(runs_copy))
    assert len(errors) == 1 and "judgments/judge-k.jsonl: holds no judgment" in errors[0], errors


@pytest.mark.parametrize(
    ("dimension", "value", "bound"), [("fidelity", 11, "at most 10"), ("naturalness", -1, "at least 0")]
)
def test_seed004_an_out_of_range_score_names_the_field_the_dimension_and_the_bound(runs_copy, dimension, value, bound):
    from helpers import edit_jsonl

    edit_jsonl(
        runs_copy / "tuckerbench/demo-pilot-run1/judgments/judge-k.jsonl",
        3,
        lambda r: r["scores"].update({dimension: value}),
    )
    errors = messages(load(runs_copy))
    assert len(errors) == 1, errors
    assert (
        f"judge-k.jsonl, line 3, field scores.{dimension}: {value} is out of range: {bound} (the scale runs 0–10)"
        in errors[0]
    )


def test_seed004_dimensions_csv_matches_the_judgment_files_and_says_no_score_only_where_there_is_none(built_site):
    """charts/dimensions.csv against a computation from the raw judgment files: an entrant's dimension is the mean
    over its transcripts of the judges' mean score; a cell with a value has no 'no score' note."""
    import csv
    from collections import defaultdict
    from pathlib import Path

    run = Path(__file__).resolve().parents[1] / "runs/tuckerbench/demo-pilot-run1"
    labels = {e["id"]: e["label"] for e in json.loads((run / "manifest.json").read_text())["entrants"]}
    per_transcript: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for path in (run / "judgments").glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            j = json.loads(line)
            if j["parse_status"] == "ok":
                for dim, v in j["scores"].items():
                    per_transcript[(j["entrant"], j["scenario_id"], j["repetition"])][dim].append(v)
    means: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (entrant, _, _), dims in per_transcript.items():
        for dim, values in dims.items():
            means[(entrant, dim)].append(sum(values) / len(values))
    titles = {"fidelity": "Fidelity", "comic_invention": "Comic invention", "naturalness": "Naturalness"}
    with (built_site / "tuckerbench/v1-pilot/charts/dimensions.csv").open(encoding="utf-8", newline="") as f:
        rows = {(r["entrant"], r["dimension"]): r for r in csv.DictReader(f)}
    for r in rows.values():
        assert (r["note"] == "no score") == (r["value"] == ""), r
    for entrant in ("alpha", "delta"):  # complete: every transcript judged by both judges
        for dim, title in titles.items():
            expected = sum(means[(entrant, dim)]) / len(means[(entrant, dim)])
            assert float(rows[(labels[entrant], title)]["value"]) == pytest.approx(expected, abs=5e-4)


def test_the_judge_report_reads_a_runs_judgments_a_bounded_number_of_times(demo):
    """A run's judgments are kept on disk by the build and decoded each time they are asked for: the report must ask
    for them a few times in all, not once per judgment (at 100,000 transcripts that took the build for ever)."""
    from site_src.systems.tuckerbench.judges import run_report

    class Counted(list):
        asked = 0

        def __len__(self) -> int:
            Counted.asked += 1
            return super().__len__()

        def __iter__(self):  # noqa: ANN204
            Counted.asked += 1
            return super().__iter__()

    from site_src.scoring.release import build_release

    view = build_release(demo).view("tuckerbench", "v1-pilot")
    run = next(iter(view.version.runs))
    run.judgments = Counted(run.judgments)
    try:
        kinds = {i.id: i.kind for i in view.version.items}
        report = run_report(run, view.version, kinds, view.scored.transcripts, view.version.private_keys.get(run.id))
    finally:
        run.judgments = list(run.judgments)
    assert len(run.judgments) > 20
    assert sum(report.parse_failures[j][2] for j in report.judges) == len(run.judgments)
    assert Counted.asked <= 8
