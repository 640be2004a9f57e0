"""Reader for TuckerBench runs (format tuckerbench-run/1).

Public files: manifest.json, transcripts/<entrant>/<scenario>.r<rep>.json, judgments/<judge>.jsonl,
calibration.jsonl, human-pairs.jsonl and the optional reported-scores.json. The format fixes
private/answer-key.json as the private blind-comparison answer key: it is read for aggregates only, kept apart
from the run, and nothing under private/ is ever published.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from sys import intern
from typing import TYPE_CHECKING, Any

from ...jsonio import read_bytes, read_json, read_jsonl, read_text
from ...model import (
    Benchmark,
    BenchmarkVersion,
    Entrant,
    HumanPair,
    Item,
    Judge,
    Judgment,
    PrivateKey,
    Run,
    Transcript,
    Turn,
)
from ...problems import InputError, Problem, Problems
from ...readers.content import content_rel, definition_file, files_hash, sha256_bytes, version_named
from ...results import named, plural
from ...validate import check, prune
from . import SYSTEM
from .definition import CalibrationResponse, Dimension, TuckerDefinition

if TYPE_CHECKING:
    from ...readers.project import Prior

ANSWER_KEY = "private/answer-key.json"
_TRANSCRIPT = re.compile(r"^transcripts/([A-Za-z0-9._-]+)/([A-Za-z0-9_-]+)\.r([1-9][0-9]*)\.json$")
_JUDGMENTS = re.compile(r"^judgments/([A-Za-z0-9._-]+)\.jsonl$")
_OPTIONAL = ("calibration.jsonl", "human-pairs.jsonl", "reported-scores.json")


def transcript_id(run_id: str, entrant: str, scenario: str, rep: int) -> str:
    return f"{run_id}--{entrant}--{scenario}--r{rep}"


REUSES_UNCHANGED_FILES = True  # read_run takes a Prior (readers/project.py): unchanged transcripts are not re-read


def read_run(
    run_dir: Path,
    rel: str,
    files: list[str],
    meta: dict[str, Any],
    bench: Benchmark,
    problems: Problems,
    prior: Prior | None = None,
) -> tuple[Run, PrivateKey | None] | None:
    """One run directory: its manifest, every expected transcript (a missing one is a coverage gap), the judges'
    judgments, and the optional calibration, blind-pair, reported-score and private answer-key files. With a prior
    read of the directory whose manifest is unchanged, each unchanged transcript file is taken from it, with what
    was said about it: at 10,000 transcripts, a run judged again re-reads its judgments, not its 500 transcripts."""
    meta_rel = f"{rel}/manifest.json"
    found = _manifest(meta, meta_rel, bench, problems)
    if found is None:
        return None
    meta, version = found
    run = _run(meta, meta_rel, rel, bench, version, problems)
    if run is None:
        return None
    public = ["manifest.json"]
    kept = _kept_transcripts(prior, rel) if prior and "manifest.json" in prior.unchanged else {}
    public += _read_transcripts(run_dir, rel, files, run, version, problems, kept)
    public += _read_judgments(run_dir, rel, files, run, version, problems)
    public += [name for name in _OPTIONAL if name in files]
    if "calibration.jsonl" in files:
        _read_calibration(run_dir, rel, run, version.definition, problems)
    if "human-pairs.jsonl" in files:
        _read_human_pairs(run_dir, rel, run, version, problems)
    if "reported-scores.json" in files:
        _read_reported_scores(run_dir, rel, run, problems)
    key = _answer_key(run_dir, rel, files, run, {e.id for e in run.entrants}, problems)
    run.public_files = sorted(public)
    return run, key


def _manifest(
    meta: dict[str, Any], meta_rel: str, bench: Benchmark, problems: Problems
) -> tuple[dict[str, Any], BenchmarkVersion] | None:
    """The manifest, checked and pruned, and the frozen version it was made with (same content hash) or None."""
    if not check(meta, "tucker-manifest", meta_rel, None, problems):
        return None
    meta = prune(meta, "tucker-manifest")  # unknown fields were warned about; they are never published
    if files_hash(meta["files"]) != meta["content_hash"]:
        problems.error(meta_rel, "content_hash does not match the manifest's own file list", None, "content_hash")
        return None
    version = version_named(bench, meta, SYSTEM.version_field, meta_rel, problems)
    if version is None:
        return None
    if meta["content_hash"] != version.content_hash:
        changed = sorted(
            k
            for k in set(meta["files"]) | set(version.definition.files)
            if meta["files"].get(k) != version.definition.files.get(k)
        )
        problems.error(
            meta_rel,
            f"content_hash differs from the frozen inputs of {version.id} (changed: "
            f"{', '.join(changed)}); a changed evaluation is a new version",
            None,
            "content_hash",
        )
        return None
    return meta, version


def _run(
    meta: dict[str, Any], meta_rel: str, rel: str, bench: Benchmark, version: BenchmarkVersion, problems: Problems
) -> Run | None:
    """The run with its entrants and judges, or None when an id is listed twice."""
    d: TuckerDefinition = version.definition
    entrants = [Entrant.from_record(e) for e in meta["entrants"]]
    judges = [
        Judge(j["id"], j["label"], j["selector"], j["family"], dict(j.get("requested_settings", {})))
        for j in meta["judges"]
    ]
    for kind, ids in (("entrant", [e.id for e in entrants]), ("judge", [j.id for j in judges])):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            problems.error(meta_rel, f"duplicate {kind} {named('id', dupes)}", None, f"{kind}s")
            return None
    if len(judges) != d.judges_required:
        problems.error(
            meta_rel, f"{plural(len(judges), 'judge')} listed, the pilot requires {d.judges_required}", None, "judges"
        )
    return Run(
        id=meta["run_id"],
        benchmark_id=bench.id,
        version_id=version.id,
        path=rel,
        format="tuckerbench-run/1",
        demo=meta["demo"],
        demo_note=meta.get("demo_note", ""),
        metadata=meta,
        entrants=entrants,
        judges=judges,
    )


def _kept_transcripts(prior: Prior, rel: str) -> dict[str, tuple[Transcript, list[Problem]]]:
    """Transcript file (name in the run directory) -> the transcript an earlier read made of it and what it said
    about that file, for each file unchanged since."""
    loaded = prior.load()
    if loaded is None:
        return {}
    run, said = loaded
    out = {}
    for t in run.transcripts:
        name = t.source_file.removeprefix(f"{rel}/")
        if t.source_record != "(no file)" and name in prior.unchanged:
            out[name] = (t, [p for p in said if p.file == t.source_file])
    prior.taken.update(out)  # each is taken: an unchanged file is still there, and still a transcript file
    return out


def _read_transcripts(
    run_dir: Path,
    rel: str,
    files: list[str],
    run: Run,
    version: BenchmarkVersion,
    problems: Problems,
    kept: dict[str, tuple[Transcript, list[Problem]]],
) -> list[str]:
    """Every expected transcript, read (or taken from kept) or recorded as missing; returns the transcript files."""
    d: TuckerDefinition = version.definition
    public: list[str] = []
    scenarios = {i.id: i for i in version.items}
    entrant_ids = {e.id for e in run.entrants}
    got: dict[tuple[str, str, int], Transcript] = {}
    for f in files:
        m = _TRANSCRIPT.match(f)
        if not m:
            continue
        public.append(f)
        key = (m.group(1), m.group(2), int(m.group(3)))
        if f in kept:  # the same file, read with the same manifest, content and code: the same outcome
            t, said = kept[f]
            problems.items.extend(said)
        else:
            t = _read_transcript(run_dir, rel, f, key, run, entrant_ids, scenarios, d, problems)
        if t:
            got[key] = t
    for e in run.entrants:  # every expected transcript: a missing one is a coverage gap, not a zero
        for s in version.items:
            for rep in range(1, d.repetitions + 1):
                t = got.pop((e.id, s.id, rep), None) or Transcript(
                    id=transcript_id(run.id, e.id, s.id, rep),
                    run_id=run.id,
                    entrant_id=e.id,
                    item_id=s.id,
                    attempt=rep,
                    status="missing",
                    source_file=f"{rel}/transcripts/{e.id}/{s.id}.r{rep}.json",
                    source_record="(no file)",
                    turns=[Turn("user", s.user_turns[0])],
                )
                run.transcripts.append(t)
    return public


def _read_judgments(
    run_dir: Path, rel: str, files: list[str], run: Run, version: BenchmarkVersion, problems: Problems
) -> list[str]:
    """Each judge's JSONL file: one judgment per expected transcript at most; returns the files read."""
    d: TuckerDefinition = version.definition
    public: list[str] = []
    scenarios = {i.id: i for i in version.items}
    judge_ids = {j.id for j in run.judges}
    # the transcript's own id is the judgment's target: one string for both (20,000 judgments at 10,000 transcripts)
    valid_targets = {t.id: t.id for t in run.transcripts}
    seen: set[tuple[str, str]] = set()
    records: dict[str, int] = {}  # judge -> records in its file
    for f in files:
        m = _JUDGMENTS.match(f)
        if not m:
            continue
        public.append(f)
        jrel = f"{rel}/{f}"
        judge = m.group(1)
        if judge not in judge_ids:
            problems.error(jrel, f"judge {judge!r} is not listed in the manifest")
            continue
        for line, rec in _jsonl(run_dir / f, jrel, problems):
            records[judge] = records.get(judge, 0) + 1
            record = f"line {line}"
            if not check(rec, "tucker-judgment", jrel, record, problems):
                continue
            tid = transcript_id(run.id, rec["entrant"], rec["scenario_id"], rec["repetition"])
            record = f"line {line} ({rec['entrant']}, {rec['scenario_id']}, repetition {rec['repetition']})"
            if tid not in valid_targets:
                problems.error(jrel, "judgment refers to no expected transcript", record, "scenario_id")
                continue
            if (judge, tid) in seen:
                problems.error(jrel, "duplicate judgment of the same transcript by the same judge", record)
                continue
            seen.add((judge, tid))
            kind = scenarios[rec["scenario_id"]].kind
            if _scores_ok(rec, d, kind, jrel, record, problems):
                run.judgments.append(_judgment(rec, judge, valid_targets[tid], jrel, record))
    _judges_without_judgments(rel, files, run, records, problems)
    return public


def _judges_without_judgments(
    rel: str, files: list[str], run: Run, records: dict[str, int], problems: Problems
) -> None:
    """A judge the manifest lists needs its file, with judgments in it: without them no transcript of the run is
    fully judged, which check must say as coverage would."""
    for judge in sorted(j.id for j in run.judges):
        f = f"judgments/{judge}.jsonl"
        if f not in files:
            why = f"missing: judge {judge!r} is listed in manifest.json, so"
        elif not records.get(judge):
            why = "holds no judgment, so"
        else:
            continue
        problems.error(f"{rel}/{f}", f"{why} none of the run's {len(run.transcripts)} transcripts is fully judged")


def _read_calibration(run_dir: Path, rel: str, run: Run, d: TuckerDefinition, problems: Problems) -> None:
    """The judges' scores of the frozen diagnostic responses, each (judge, response) once."""
    judge_ids = {j.id for j in run.judges}
    crel = f"{rel}/calibration.jsonl"
    responses = {c.id for c in d.calibration}
    first_cal: dict[tuple[str, str], int] = {}
    for line, rec in _jsonl(run_dir / "calibration.jsonl", crel, problems):
        record = f"line {line}"
        if not check(rec, "tucker-calibration-judgment", crel, record, problems):
            continue
        if rec["judge"] not in judge_ids or rec["response_id"] not in responses:
            problems.error(crel, "unknown judge or calibration response", record)
            continue
        cal_key = (rec["judge"], rec["response_id"])
        if cal_key in first_cal:
            problems.error(
                crel,
                f"duplicate calibration judgment of {rec['response_id']} by {rec['judge']} "
                f"(first on line {first_cal[cal_key]})",
                record,
            )
            continue
        first_cal[cal_key] = line
        if _scores_ok(rec, d, "single", crel, record, problems):
            run.calibration.append(_judgment(rec, rec["judge"], rec["response_id"], crel, record))


def _read_human_pairs(run_dir: Path, rel: str, run: Run, version: BenchmarkVersion, problems: Problems) -> None:
    """The public half of the blind pairs: which side the reviewer chose, each pair once."""
    scenarios = {i.id for i in version.items}
    hrel = f"{rel}/human-pairs.jsonl"
    first_pair: dict[str, int] = {}
    for line, rec in _jsonl(run_dir / "human-pairs.jsonl", hrel, problems):
        record = f"line {line}"
        if check(rec, "tucker-human-pair", hrel, record, problems):
            if rec["scenario_id"] not in scenarios:
                problems.error(hrel, "unknown scenario", record, "scenario_id")
                continue
            if rec["pair_id"] in first_pair:  # a repeat or a conflicting choice: neither may count twice
                problems.error(
                    hrel,
                    f"pair {rec['pair_id']} is recorded twice (first on line {first_pair[rec['pair_id']]})",
                    record,
                    "pair_id",
                )
                continue
            first_pair[rec["pair_id"]] = line
            run.human_pairs.append(
                HumanPair(rec["pair_id"], rec["scenario_id"], rec["choice"], rec.get("reviewer"), hrel, record)
            )


def _read_reported_scores(run_dir: Path, rel: str, run: Run, problems: Problems) -> None:
    """Aggregates the run itself reported: compared with the recomputation, never trusted."""
    srel = f"{rel}/reported-scores.json"
    try:
        stored = read_json(run_dir / "reported-scores.json", srel, problems)
        if check(stored, "tucker-reported-scores", srel, None, problems):
            run.stored_scores, run.stored_scores_file = stored["entrants"], srel
    except InputError as exc:
        problems.items.append(exc.problem)


def _judgment(rec: dict[str, Any], judge: str, target: str, file: str, record: str) -> Judgment:
    """A judge's scores of a transcript or of a calibration response, as recorded."""
    return Judgment(
        intern(judge),
        target,
        intern(rec["parse_status"]),
        _shared_keys(rec["scores"] or {}),
        rec["rationale"],
        file,
        record,
        _shared_keys(rec.get("usage", {})),
    )


def _one(value: Any) -> Any:
    return intern(value) if isinstance(value, str) else value


def _shared_keys(record: dict[str, Any]) -> dict[str, Any]:
    """A copy of a small record whose keys (dimension names, token counts' names) are one string each for the
    whole release, not one per record read. Repeated names, states and timestamps were about a quarter of what a
    read run held in memory in the benchmark's synthetic release."""
    return {intern(k): v for k, v in record.items()}


def _jsonl(path: Path, rel: str, problems: Problems) -> Iterable[tuple[int, Any]]:
    try:
        return read_jsonl(path, rel, problems)
    except InputError as exc:
        problems.items.append(exc.problem)
        return []


def _scores_ok(rec: dict[str, Any], d: TuckerDefinition, kind: str, file: str, record: str, problems: Problems) -> bool:
    if rec["parse_status"] == "failed":
        if rec["scores"]:
            problems.error(file, "a failed parse has no scores (use null)", record, "scores")
            return False
        return True
    if rec["scores"] is None:
        problems.error(file, "parse_status ok needs scores", record, "scores")
        return False
    want = {dim.id for dim in d.dimensions_for(kind)}
    have = set(rec["scores"])
    if have != want:
        detail = []
        if want - have:
            detail.append(f"missing {', '.join(sorted(want - have))}")
        if have - want:
            detail.append(f"not scored for a {kind} item: {', '.join(sorted(have - want))}")
        problems.error(file, "; ".join(detail), record, "scores")
        return False
    return True


def _read_transcript(
    run_dir: Path,
    rel: str,
    f: str,
    key: tuple[str, str, int],
    run: Run,
    entrant_ids: set[str],
    scenarios: dict[str, Any],
    d: TuckerDefinition,
    problems: Problems,
) -> Transcript | None:
    trel = f"{rel}/{f}"
    entrant, scenario_id, rep = key
    try:
        rec = read_json(run_dir / f, trel, problems)
    except InputError as exc:
        problems.items.append(exc.problem)
        return None
    if not check(rec, "tucker-transcript", trel, None, problems):
        return None
    if (rec["entrant"], rec["scenario_id"], rec["repetition"]) != key:
        problems.error(
            trel,
            f"record says ({rec['entrant']}, {rec['scenario_id']}, {rec['repetition']}) but the file name "
            f"says ({entrant}, {scenario_id}, {rep})",
        )
        return None
    if entrant not in entrant_ids or scenario_id not in scenarios or rep > d.repetitions:
        problems.error(trel, "unknown entrant, scenario or repetition beyond the pilot's count")
        return None
    scenario = scenarios[scenario_id]
    script = scenario.user_turns
    turns: list[Turn] = []
    users: list[str] = []  # as recorded, checked against the script below
    status = "completed"
    for i, raw in enumerate(rec["turns"]):
        if raw["role"] == "user":
            k = len(users)
            users.append(raw["content"])
            same = k < len(script) and raw["content"] == script[k]
            turns.append(Turn("user", script[k] if same else raw["content"]))  # the script's own string, if the same
            continue
        content = raw["content"]
        if raw.get("error") or raw["stop_reason"] == "error":
            state, status = "error", "error"
        elif content is None:
            problems.error(trel, "an assistant turn without an error needs content", f"turn {i + 1}", "content")
            return None
        else:
            state = "empty" if content == "" else ("truncated" if raw["stop_reason"] == "length" else "ok")
        kind = raw.get("error_kind") or ("provider_error" if state == "error" else None)
        turns.append(
            Turn(
                "assistant",
                content,
                state,
                intern(raw["stop_reason"]),
                intern(raw["started_at"]),
                _one(raw["completed_at"]),  # null while a turn has not completed
                _shared_keys(raw["usage"]),
                f"{kind}: {raw['error']}" if state == "error" else None,
                truncated=state != "error" and raw["stop_reason"] == "length",
            )
        )
    if users != script[: len(users)]:
        problems.error(trel, f"user turns differ from scenario {scenario_id}'s script")
        return None
    roles = [t.role for t in turns]
    if any(a == b for a, b in zip(roles, roles[1:], strict=False)) or (roles and roles[0] != "user"):
        problems.error(trel, "turns must alternate user, assistant, starting with the user", None, "turns")
        return None
    if status == "completed" and (len(users) < len(script) or roles[-1] != "assistant"):
        status = "in_progress"  # an interrupted conversation: resumed later, missing until then
    return Transcript(
        id=transcript_id(run.id, entrant, scenario_id, rep),
        run_id=run.id,
        entrant_id=intern(entrant),
        item_id=intern(scenario_id),
        attempt=rep,
        status=status,
        source_file=trel,
        source_record="(whole file)",
        turns=turns,
        truncated=any(t.truncated for t in turns),
    )


def _answer_key(
    run_dir: Path, rel: str, files: list[str], run: Run, entrant_ids: set[str], problems: Problems
) -> PrivateKey | None:
    if ANSWER_KEY not in files:
        if run.human_pairs:
            problems.warning(
                f"{rel}/human-pairs.jsonl",
                "human pairs without a private answer key cannot be compared with judge preferences",
            )
        return None
    krel = f"{rel}/{ANSWER_KEY}"
    try:
        raw = read_json(run_dir / ANSWER_KEY, krel, problems)
    except InputError as exc:
        problems.items.append(exc.problem)
        return None
    # errors name the pair but never echo the mapping itself
    if not check(raw, "tucker-answer-key", krel, None, problems):
        return None
    sides: dict[str, dict[str, str]] = {}
    public_ids = {p.pair_id for p in run.human_pairs}
    for pair_id, pair in raw["pairs"].items():
        if pair_id not in public_ids:
            problems.error(krel, "pair has no public record in human-pairs.jsonl", f"pair {pair_id}")
            continue
        if not {pair["A"]["entrant"], pair["B"]["entrant"]} <= entrant_ids:
            problems.error(krel, "pair names an entrant the manifest does not list", f"pair {pair_id}")
            continue
        sides[pair_id] = {
            s: transcript_id(
                run.id,
                pair[s]["entrant"],
                next(p.scenario_id for p in run.human_pairs if p.pair_id == pair_id),
                pair[s]["repetition"],
            )
            for s in ("A", "B")
        }
    for pair_id in sorted(public_ids - set(raw["pairs"])):
        problems.error(krel, "public pair has no entry in the answer key", f"pair {pair_id}")
    return PrivateKey(krel, sides)


TUCKER_FILES = (
    "config/pilot.json",
    "config/scenarios.json",
    "config/calibration.json",
    "prompts/persona.md",
    "prompts/judge.md",
)


def weights_ok(pilot: dict[str, Any], file: str, problems: Problems) -> bool:
    """Dimension weights are percentages adding up to 100, group weights fractions adding up to 1, and every group
    has a dimension to score it: each violation is named with the arithmetic that shows it."""
    ok = True
    dims, groups = pilot["dimensions"], pilot["groups"]
    total = sum(Fraction(str(d["weight"])) for d in dims)
    if total != 100:
        terms = " + ".join(f"{d['id']} {d['weight']:g}" for d in dims)
        problems.error(file, f"dimension weights add up to {float(total):g}, not 100: {terms}", None, "dimensions")
        ok = False
    shares = {g["id"]: Fraction(g["weight"]) / Fraction(g["weight_denominator"]) for g in groups}
    if sum(shares.values()) != 1:
        terms = " + ".join(f"{g} {share}" for g, share in shares.items())
        problems.error(file, f"group weights add up to {sum(shares.values())}, not 1: {terms}", None, "groups")
        ok = False
    for i, g in enumerate(groups):
        if not any(g["id"] in d["applies_to"] for d in dims):
            problems.error(
                file,
                f"no dimension applies to group {g['id']!r}, so none of its items can be scored",
                None,
                f"groups[{i}]",
            )
            ok = False
    return ok


def load_version(content_dir: Path, bench_id: str, vdir: Path, problems: Problems) -> BenchmarkVersion | None:
    def rel(name: str) -> str:
        return content_rel(content_dir, vdir / name)

    missing = [n for n in TUCKER_FILES if not (vdir / n).is_file()]
    if missing:
        problems.error(content_rel(content_dir, vdir), f"{named('frozen input', missing)} missing")
        return None
    paths = {n: definition_file(content_dir, vdir, n) for n in TUCKER_FILES}
    files = {n: sha256_bytes(read_bytes(paths[n], rel(n))) for n in TUCKER_FILES}
    pilot = read_json(paths["config/pilot.json"], rel("config/pilot.json"), problems)
    scen = read_json(paths["config/scenarios.json"], rel("config/scenarios.json"), problems)
    cal = read_json(paths["config/calibration.json"], rel("config/calibration.json"), problems)
    ok = check(pilot, "tucker-pilot", rel("config/pilot.json"), None, problems)
    ok &= check(scen, "tucker-scenarios", rel("config/scenarios.json"), None, problems)
    ok &= check(cal, "tucker-calibration", rel("config/calibration.json"), None, problems)
    if not ok:
        return None
    if pilot["version"] != vdir.name:
        problems.error(
            rel("config/pilot.json"), f"version {pilot['version']!r} differs from its folder", None, "version"
        )
        return None
    if not weights_ok(pilot, rel("config/pilot.json"), problems):
        return None
    groups = {g["id"]: Fraction(g["weight"]) / Fraction(g["weight_denominator"]) for g in pilot["groups"]}
    items = [
        Item(
            id=s["id"],
            title=s["title"],
            category=s["context"],
            kind=s["kind"],
            prompt=s["situation"],
            user_turns=list(s["user_turns"]),
        )
        for s in scen["scenarios"]
    ]
    for item in items:
        if item.kind == "single" and len(item.user_turns) != 1:
            problems.error(
                rel("config/scenarios.json"),
                "a single-response scenario has exactly one user turn",
                f"scenario {item.id}",
                "user_turns",
            )
    definition = TuckerDefinition(
        version=pilot["version"],
        content_hash=files_hash(files),
        files=files,
        status=pilot.get("status", ""),
        repetitions=pilot["repetitions"],
        judges_required=pilot["judges_required"],
        dimensions=[
            Dimension(d["id"], d["title"], float(d["weight"]), tuple(d["applies_to"])) for d in pilot["dimensions"]
        ],
        group_weights={k: float(v) for k, v in groups.items()},
        group_titles={g["id"]: g["title"] for g in pilot["groups"]},
        scale_max=float(pilot["scale"]["max"]),
        calibration=[
            CalibrationResponse(r["id"], r["title"], r["scenario_id"], r["response"]) for r in cal["responses"]
        ],
        profanity_lexicon=list(pilot.get("profanity_lexicon", [])),
        uncertainty=dict(pilot["uncertainty"]),
        refusal_patterns=list(pilot.get("refusal_patterns", [])),
        settings={"entrants": pilot.get("entrant_settings", {}), "judges": pilot.get("judge_settings", {})},
        documents={
            "persona.md": read_text(paths["prompts/persona.md"], rel("prompts/persona.md"), problems),
            "judge.md": read_text(paths["prompts/judge.md"], rel("prompts/judge.md"), problems),
        },
    )
    _check_simulated_design(definition, items, rel("config/pilot.json"), problems)
    return BenchmarkVersion(bench_id, pilot["version"], definition.content_hash, definition, items)


def _check_simulated_design(d: TuckerDefinition, items: list[Item], rel: str, problems: Problems) -> None:
    """The coverage a definition freezes for its interval method holds at the design it was simulated for: say so
    where the version's own design (scenarios per group, repetitions) is another."""
    design = (d.uncertainty.get("simulated_coverage") or {}).get("design")
    if design is None:
        return
    own = {kind: sum(i.kind == kind for i in items) for kind in ("single", "conversation")}
    own["repetitions"] = d.repetitions
    if own != design:
        problems.warning(
            rel,
            f"simulated_coverage was simulated for {design}, not this version's design {own}: run "
            "scripts/coverage.py --design SINGLES,CONVERSATIONS,REPETITIONS and freeze its figure",
            None,
            "uncertainty.simulated_coverage",
        )
