"""Write the invented demo runs under runs/. Deterministic: running it twice gives the same bytes.

Every record here is invented to exercise the scoring rules; none is a real model result, and every run's
metadata says so (demo: true).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_src.readers.content import files_hash, sha256_bytes  # noqa: E402
from site_src.systems.tuckerbench.reader import ANSWER_KEY  # noqa: E402

RUNS = ROOT / "runs"
DEMO_NOTE = "Invented demo data: no model was run; these records exist only to show how the site works."
OK, TQ = "\u02bb", "\u02bc"
UNKNOWN = {"unavailable": "unknown"}
NOT_EXPOSED = {"unavailable": "not_exposed"}
NA = {"unavailable": "not_applicable"}


def write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


# ---------------------------------------------------------------- Uzbek instruction pack
def pack_cases() -> list[dict]:
    path = ROOT / "content/uzbek-pack/versions/0.1.0/prompts.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def good_output(case: dict) -> str:
    spec = case["specification"]
    if case["type"] == "exact_text":
        return spec["expected"]
    if case["type"] == "json":
        value = spec["expected"]
        if isinstance(value, dict):  # another key order and spacing: both are allowed to differ
            value = dict(reversed(list(value.items())))
        return json.dumps(value, ensure_ascii=False, indent=1)
    return spec["reference_answer"]


def pack_grading(
    case: dict,
    outcome: str,
    checks: dict[str, str] | None = None,
    notes: str = "",
    reviewer: str | None = "demo-reviewer-1",
) -> dict:
    if case["type"] != "checklist":
        checks = {"comparison": outcome if outcome != "needs_review" else "needs_review"}
    elif checks is None:
        checks = {k: ("pass" if outcome == "pass" else "pass") for k in case["specification"]["checks"]}
    return {
        "outcome": outcome,
        "reviewer": reviewer if case["type"] == "checklist" else "comparator",
        "checks": checks,
        "notes": notes or ("All checks pass." if outcome == "pass" else notes),
        "graded_at": "2026-11-20T10:00:00Z",
    }


def pack_metadata(run_id: str, model_id: str, name: str, corpus_hash: str, started: str) -> dict:
    return {
        "format": "uzbek-pack-run",
        "format_version": 1,
        "benchmark": "uzbek-pack",
        "run_id": run_id,
        "pack_version": "0.1.0",
        "corpus_hash": corpus_hash,
        "demo": True,
        "demo_note": DEMO_NOTE,
        "model": {"id": model_id, "name": name, "provider": "Demo provider", "version": UNKNOWN, "family": NOT_EXPOSED},
        "interface": "chat API (invented)",
        "settings": {"temperature": 0, "seed": UNKNOWN, "max_output_tokens": 512, "top_p": NOT_EXPOSED},
        "system_prompt": NA,
        "context_reset": "new conversation per case",
        "tool_policy": "no tools",
        "attempts_per_case": 1,
        "repeated_run_policy": "two runs per model, each in its own directory",
        "collected_by": "demo-collector",
        "started_at": started,
        "finished_at": started.replace("T09", "T11"),
        "notes": "Invented for the demo site.",
    }


def make_pack() -> None:
    cases = pack_cases()
    corpus = sha256_bytes((ROOT / "content/uzbek-pack/versions/0.1.0/prompts.jsonl").read_bytes())
    by_id = {c["case_id"]: c for c in cases}

    def record(
        cid: str,
        output: str | None,
        outcome: str | None,
        *,
        status: str = "completed",
        checks: dict | None = None,
        notes: str = "",
        truncated: bool = False,
        error: str | None = None,
        minute: int = 0,
        history: list | None = None,
    ) -> dict:
        case = by_id[cid]
        rec = {
            "case_id": cid,
            "attempt": 1,
            "status": status,
            "collected_at": None if status == "not_run" else f"2026-11-18T09:{minute:02d}:00Z",
            "raw_output": output,
            "error": error,
            "truncated": truncated,
            "grading": None if outcome is None else pack_grading(case, outcome, checks, notes),
        }
        if history:
            rec["grading_history"] = history
        return rec

    # Demo Model A, run 1: complete and adjudicated
    a1 = []
    for i, case in enumerate(cases):
        cid, out = case["case_id"], good_output(case)
        if cid == "001":
            out = out + "\r\n"  # CRLF and a trailing line ending are harmless
        if cid == "005":
            out = out.replace(OK, "\u2019")  # a declared equivalent glyph: still a pass
        if cid == "004":  # ’ instead of ʼ: the case asks for exact code points; stored "pass" disagrees
            a1.append(
                record(
                    cid,
                    out.replace(TQ, "\u2019"),
                    "pass",
                    minute=i,
                    notes="Looked right at a glance (this stored outcome is wrong on purpose).",
                )
            )
            continue
        if cid == "013":
            three = "Buyurtmangiz kechikdi. Uzr so" + OK + "raymiz. Ertaga albatta yetkazamiz."
            a1.append(
                record(
                    cid,
                    three,
                    "fail",
                    checks={"C1": "fail", "C2": "pass", "C3": "fail"},
                    minute=i,
                    notes="Three sentences; 'Ertaga albatta yetkazamiz' invents a commitment.",
                )
            )
            continue
        if cid == "020":
            a1.append(
                record(
                    cid,
                    "Amaldagi jadval 10:00–19:00.",
                    "fail",
                    checks={"C1": "fail", "C2": "fail", "C3": "fail"},
                    minute=i,
                    notes="Picks one undated schedule as current.",
                    history=[
                        {
                            "grading": pack_grading(
                                case,
                                "pass",
                                {"C1": "pass", "C2": "pass", "C3": "pass"},
                                "First pass, before adjudication.",
                            ),
                            "replaced_at": "2026-11-21T15:00:00Z",
                            "reason": "Adjudication: the answer picks a schedule the records do not date.",
                        }
                    ],
                )
            )
            continue
        a1.append(record(cid, out, "pass", minute=i))
    d = RUNS / "uzbek-pack/demo-model-a-run1"
    write_json(
        d / "metadata.json",
        pack_metadata("demo-model-a-run1", "demo-model-a", "Demo Model A", corpus, "2026-11-18T09:00:00Z"),
    )
    write_jsonl(d / "responses.jsonl", a1)

    # Demo Model A, run 2: the same model again, in its own directory; a little different
    a2 = []
    for i, case in enumerate(cases):
        cid, out = case["case_id"], good_output(case)
        if cid == "003":  # Latin h as х instead of ҳ
            a2.append(record(cid, out.replace("Ҳ", "Х"), "fail", minute=i))
        elif cid == "009":
            a2.append(record(cid, '["Samarqand", "Toshkent", "Buxoro"]', "fail", minute=i))
        elif cid == "018":
            a2.append(
                record(
                    cid,
                    "Menejer Alisher sizga qo" + OK + "ng" + OK + "iroq qiladi.",
                    "fail",
                    checks={"C1": "fail", "C2": "pass", "C3": "pass"},
                    minute=i,
                    notes="The protected Cyrillic name was transliterated.",
                )
            )
        else:
            a2.append(record(cid, out, "pass", minute=i))
    d = RUNS / "uzbek-pack/demo-model-a-run2"
    meta = pack_metadata("demo-model-a-run2", "demo-model-a", "Demo Model A", corpus, "2026-11-19T09:00:00Z")
    write_json(d / "metadata.json", meta)
    write_jsonl(d / "responses.jsonl", a2)

    # Demo Model B: incomplete, with every kind of gap the rubric names
    b = []
    for i, case in enumerate(cases):
        cid, out = case["case_id"], good_output(case)
        if cid == "001":
            b.append(record(cid, "Ассалому алайкум, хурматли мижоз!", "fail", minute=i))  # х, not ҳ
        elif cid == "007":
            b.append(record(cid, '{"customer": "Dilnoza", "items": 3.0}', "fail", minute=i))  # not an integer token
        elif cid == "008":
            b.append(record(cid, '```json\n{"payment": "karta", "amount": 45000}\n```', "fail", minute=i))
        elif cid == "012":
            b.append(record(cid, None, None, status="error", error="provider timeout after 60 s", minute=i))
        elif cid == "013":  # a refusal is a completed attempt, graded against the prompt
            b.append(
                record(
                    cid,
                    "Kechirasiz, bu so" + OK + "rovga javob bera olmayman.",
                    "fail",
                    checks={"C1": "fail", "C2": "fail", "C3": "pass"},
                    minute=i,
                    notes="Refusal.",
                )
            )
        elif cid == "014":  # a blank answer is a completed attempt too
            b.append(
                record(
                    cid, "", "fail", checks={"C1": "fail", "C2": "fail", "C3": "fail"}, minute=i, notes="Blank answer."
                )
            )
        elif cid == "016":
            b.append(
                record(
                    cid,
                    "G" + OK + "ayrat Jo" + OK + "rayev bugun ishga keldi, u juda mehnatkash.",
                    "needs_review",
                    checks={"C1": "pass", "C2": "pass", "C3": "needs_review"},
                    minute=i,
                    notes="Is 'u juda mehnatkash' an added fact or politeness? Reviewers disagree.",
                )
            )
        elif cid == "017":  # spaces and leading zeros must stay
            b.append(record(cid, '{"amount": "1250000 so' + OK + 'm", "document": "731"}', "fail", minute=i))
        elif cid == "019":
            b.append(record(cid, "Qizil qalam soni ko" + OK + "rsatilmagan.", None, minute=i))  # not graded yet
        elif cid == "021":
            b.append(record(cid, '{"open": "9:00", "close": "20:00", "holiday": null}', "pass", minute=i))
        elif cid == "022":
            b.append(record(cid, "Javob: 7", "fail", minute=i))  # an introduction fails an exact contract
        elif cid == "024":
            b.append(
                record(
                    cid,
                    "- Pasport\n- Ki",
                    "fail",
                    checks={"C1": "fail", "C2": "pass", "C3": "pass"},
                    truncated=True,
                    minute=i,
                    notes="Output stopped at the token limit.",
                )
            )
        elif cid == "023":
            b.append(record(cid, None, None, status="not_run", minute=i))
        else:
            b.append(record(cid, out, "pass", minute=i))
    d = RUNS / "uzbek-pack/demo-model-b-run1"
    meta = pack_metadata("demo-model-b-run1", "demo-model-b", "Demo Model B", corpus, "2026-11-18T09:00:00Z")
    meta["repeated_run_policy"] = UNKNOWN
    write_json(d / "metadata.json", meta)
    write_jsonl(d / "responses.jsonl", b)


# ---------------------------------------------------------------- dual-layer rubric
CATS = ["accuracy", "efficiency", "constraint_adherence", "quality", "timeliness"]


def grading_json(
    scores: list[int], iteration: int, confidence: float, feedback: list[str], *, stored_global: int | None = None
) -> dict:
    mean = sum(scores) / 5
    glob = stored_global if stored_global is not None else int(mean + 0.5)
    return {
        "rubric_version": "halees-dual-layer-v1",
        "category_scores": dict(zip(CATS, scores, strict=True)),
        "global_score": glob,
        "threshold": 85,
        "binary_decision": int(glob >= 85),
        "confidence": confidence,
        "result": "PASS" if glob >= 85 else "FAIL",
        "iteration": iteration,
        "feedback": feedback,
    }


def grading_md(g: dict) -> str:
    lines = ["### Grading Result", f"- rubric_version: {g['rubric_version']}"]
    lines += [f"- {c}: {g['category_scores'][c]}" for c in CATS if c in g["category_scores"]]
    for key in ("global_score", "threshold", "binary_decision", "confidence", "result", "iteration"):
        lines.append(f"- {key}: {g[key]}")
    lines += [f"- feedback: {f}" for f in g["feedback"]]
    return "\n".join(lines) + "\n"


def write_iteration(run: Path, task: str, k: int, output: str, grading: dict | None, form: str = "json") -> None:
    base = run / "tasks" / task
    base.mkdir(parents=True, exist_ok=True)
    (base / f"iteration-{k}.output.txt").write_text(output, encoding="utf-8")
    if grading is None:
        return
    if form == "json":
        write_json(base / f"iteration-{k}.grading.json", grading)
    else:
        (base / f"iteration-{k}.grading.md").write_text(grading_md(grading), encoding="utf-8")


def rubric_run(run_id: str, entrant_id: str, label: str) -> dict:
    return {
        "format": "dual-layer-run",
        "format_version": 1,
        "benchmark": "halees-dual-layer",
        "run_id": run_id,
        "rubric_version": "halees-dual-layer-v1",
        "demo": True,
        "demo_note": DEMO_NOTE,
        "entrant": {
            "id": entrant_id,
            "label": label,
            "selector": f"{entrant_id}@demo",
            "provider": "Demo provider",
            "access_basis": "invented for the demo",
            "requested_settings": {"temperature": 0.2},
        },
        "created_at": "2026-11-22T08:00:00Z",
    }


def make_rubric() -> None:
    x = RUNS / "halees-dual-layer/demo-system-x"
    write_json(x / "run.json", rubric_run("demo-system-x", "demo-system-x", "Demo System X"))
    # T1: the seed's own sample values, passing at the first iteration
    write_iteration(
        x,
        "T1",
        1,
        "At 09:14 the queue stalled; at 09:31 the fallback took over; at 10:02 service "
        "resumed. No cause is stated in the report.\n",
        grading_json([92, 88, 96, 90, 94], 1, 0.91, []),
    )
    # T2: fails, then passes; the Markdown form stores global_score 88 where the mean 87.4 rounds to 87
    write_iteration(
        x,
        "T2",
        1,
        "1. Move the variables.\n2. Deploy.\n",
        grading_json([78, 80, 70, 75, 82], 1, 0.8, ["constraint_adherence: steps lack rollbacks"]),
    )
    write_iteration(
        x,
        "T2",
        2,
        "1. Copy variables to config.v1.yaml (rollback: delete the file).\n"
        "2. Read from the file behind a flag (rollback: turn the flag off).\n",
        grading_json([90, 86, 88, 84, 89], 2, 0.88, [], stored_global=88),
        form="md",
    )
    # T3: five failing iterations; one grading has low confidence (flagged, decision unchanged)
    for k, scores in enumerate(
        [[60, 70, 55, 65, 80], [70, 72, 65, 70, 80], [75, 75, 70, 74, 80], [80, 78, 76, 79, 81], [84, 82, 83, 85, 84]],
        start=1,
    ):
        write_iteration(
            x,
            "T3",
            k,
            f"SELECT * FROM orders -- attempt {k}\n",
            grading_json(scores, k, 0.45 if k == 4 else 0.8, [f"accuracy: revision {k} still not ranked per customer"]),
            form="md" if k % 2 else "json",
        )
    y = RUNS / "halees-dual-layer/demo-system-y"
    write_json(y / "run.json", rubric_run("demo-system-y", "demo-system-y", "Demo System Y"))
    # T1: passes at iteration 3 on the boundary: mean 84.6 rounds to 85
    for k, scores in enumerate([[70, 70, 70, 70, 70], [80, 82, 79, 81, 80], [85, 84, 85, 84, 85]], start=1):
        write_iteration(
            y,
            "T1",
            k,
            f"Summary, revision {k}.\n",
            grading_json(scores, k, 0.7, [] if k == 3 else ["quality: tighten the summary"]),
        )
    # T2: a grading result missing a category is invalid
    g = grading_json([88, 90, 91, 87, 90], 1, 0.9, [])
    del g["category_scores"]["timeliness"]
    write_iteration(y, "T2", 1, "1. Snapshot the environment (rollback: none needed).\n", g)
    # T3: two failed iterations so far: in progress, not a failure
    for k in (1, 2):
        write_iteration(
            y,
            "T3",
            k,
            f"SELECT ... -- draft {k}\n",
            grading_json([70 + k, 72, 68, 70, 75], k, 0.75, ["accuracy: not per customer"]),
        )


# ---------------------------------------------------------------- TuckerBench
TUCKER_V = ROOT / "content/tuckerbench/versions/v1-pilot"
TUCKER_FILES = (
    "config/pilot.json",
    "config/scenarios.json",
    "config/calibration.json",
    "prompts/persona.md",
    "prompts/judge.md",
)

LINES = {
    "alpha": [
        "Right. {x}. I've seen better structure in a collapsed marquee.",
        "No, listen. {x}. That's not a plan, that's a hostage note with bullet points.",
        "{x}? Wonderful. Somewhere a spreadsheet is weeping into its own cells.",
    ],
    "beta": [
        "{x}. Fine. Do it properly or don't do it at all.",
        "Look, {x}. It's a mess, sort it out.",
        "{x}. Honestly. Get it done.",
    ],
    "gamma": [
        "{x}! Magnificent. A masterpiece of chaos, framed in the Louvre of bad ideas.",
        "{x}. You've built a clown car and entered it in a Formula One race.",
        "{x}. That is the most ambitious way to fail I've seen since the office fire drill.",
    ],
}
SUBJECTS = [
    "Single letters everywhere",
    "A two-hour Friday all-hands",
    "A Monday-only failure",
    "The kettle again",
    "A board demo crash",
    "DNS, of all things",
    "Your birthday present crisis",
]
REFUSAL = "I'm sorry, but I can't take on that persona. I'm happy to help with your request in a neutral tone."


def ts(day: int, minute: int) -> str:
    return f"2026-11-{day:02d}T{10 + minute // 60:02d}:{minute % 60:02d}:00Z"


def make_tucker() -> None:
    files = {name: sha256_bytes((TUCKER_V / name).read_bytes()) for name in TUCKER_FILES}
    scenarios = json.loads((TUCKER_V / "config/scenarios.json").read_text(encoding="utf-8"))["scenarios"]
    calibration = json.loads((TUCKER_V / "config/calibration.json").read_text(encoding="utf-8"))["responses"]
    run = RUNS / "tuckerbench/demo-pilot-run1"
    entrants = [
        {
            "id": "alpha",
            "label": "Demo Entrant Alpha",
            "selector": "demo/alpha-large@2026-11",
            "provider": "Demo provider Q",
            "route": "subscription",
            "family": "q-family",
            "access_basis": "existing subscription (invented)",
            "requested_settings": {"reasoning_effort": "low", "temperature": 0.8, "max_output_tokens": 700},
        },
        {
            "id": "beta",
            "label": "Demo Entrant Beta",
            "selector": "demo/beta-mini@2026-10",
            "provider": "Demo provider B",
            "route": "codex-style transport",
            "family": "b-family",
            "access_basis": "free tier (invented)",
            "requested_settings": {"reasoning_effort": "low", "temperature": 0.8, "max_output_tokens": 700},
            "transport_notes": ["this transport does not forward temperature or the output-token cap"],
        },
        {
            "id": "gamma",
            "label": "Demo Entrant Gamma",
            "selector": "demo/gamma-7@2026-09",
            "provider": "Demo provider G",
            "route": "prepaid balance",
            "family": "g-family",
            "access_basis": "prepaid balance with a request ceiling (invented)",
            "requested_settings": {"reasoning_effort": "low", "temperature": 0.8, "max_output_tokens": 700},
        },
        {
            "id": "delta",
            "label": "Demo Entrant Delta",
            "selector": "demo/delta-safe@2026-08",
            "provider": "Demo provider D",
            "route": "subscription",
            "family": "d-family",
            "access_basis": "existing subscription (invented)",
            "requested_settings": {"reasoning_effort": "low", "temperature": 0.8, "max_output_tokens": 700},
        },
    ]
    judges = [
        {
            "id": "judge-k",
            "label": "Demo Judge K",
            "selector": "demo/judge-k@2026-11",
            "family": "k-family",
            "requested_settings": {"reasoning_effort": "low", "temperature": 0},
        },
        {
            "id": "judge-q",
            "label": "Demo Judge Q",
            "selector": "demo/judge-q-flash@2026-11",
            "family": "q-family",
            "requested_settings": {"reasoning_effort": "low", "temperature": 0},
        },
    ]
    write_json(
        run / "manifest.json",
        {
            "format": "tuckerbench-run",
            "format_version": 1,
            "benchmark": "tuckerbench",
            "run_id": "demo-pilot-run1",
            "version": "v1-pilot",
            "content_hash": files_hash(files),
            "files": files,
            "demo": True,
            "demo_note": DEMO_NOTE,
            "created_at": "2026-11-25T10:00:00Z",
            "adapter": {"name": "demo-adapter", "version": "0.0.0-demo"},
            "entrants": entrants,
            "judges": judges,
            "notes": "Invented pilot run: four entrants, two judges, six scenarios, two repetitions.",
        },
    )
    rng = random.Random(20261202)
    base = {"alpha": 6.0, "beta": 6.9, "gamma": 6.0, "delta": 0.0}  # alpha and beta close on purpose
    judgments: dict[str, list[dict]] = {"judge-k": [], "judge-q": []}
    minute = 0
    for e in entrants:
        eid = e["id"]
        for s_i, s in enumerate(scenarios):
            for rep in (1, 2):
                turns: list[dict] = []
                status_error = False
                for t_i, user in enumerate(s["user_turns"]):
                    turns.append({"role": "user", "content": user})
                    minute += 1
                    if eid == "delta":
                        text = REFUSAL
                    else:
                        text = rng.choice(LINES[eid]).format(x=SUBJECTS[(s_i + t_i + rep) % len(SUBJECTS)])
                    turn = {
                        "role": "assistant",
                        "content": text,
                        "stop_reason": "stop",
                        "started_at": ts(25, minute),
                        "completed_at": ts(25, minute),
                        "usage": {"input_tokens": 180 + 40 * t_i, "output_tokens": len(text) // 4},
                    }
                    if eid == "beta" and s["id"] == "s2-meeting-invite" and rep == 1:
                        turn["content"], turn["usage"]["output_tokens"] = "", 0  # an empty normal completion
                    if eid == "beta" and s["id"] == "s6-explain-dns" and rep == 2 and t_i == 3:
                        turn["content"] = (
                            "DNS is the internet's phone book, and yesterday someone tore out the page "
                            "with your name on it, then set fire to the"
                        )
                        turn["stop_reason"] = "length"
                        turn["usage"]["output_tokens"] = 700
                    if eid == "gamma" and s["id"] == "s5-bad-day" and rep == 2 and t_i == 2:
                        turn.update(
                            content=None,
                            stop_reason="error",
                            completed_at=None,
                            usage={},
                            error="429: monthly quota exhausted",
                            error_kind="quota_exhausted",
                        )
                        turns.append(turn)
                        status_error = True
                        break
                    turns.append(turn)
                write_json(
                    run / f"transcripts/{eid}/{s['id']}.r{rep}.json",
                    {"entrant": eid, "scenario_id": s["id"], "repetition": rep, "turns": turns},
                )
                if status_error:
                    continue  # a provider error is missing, so it is never judged
                dims = ["fidelity", "comic_invention", "naturalness", "conversational_fit"]
                if s["kind"] == "conversation":
                    dims.append("persistence")
                for j in judges:
                    if eid == "gamma" and s["id"] == "s3-bug-correction" and rep == 1 and j["id"] == "judge-q":
                        judgments[j["id"]].append(
                            {
                                "entrant": eid,
                                "scenario_id": s["id"],
                                "repetition": rep,
                                "parse_status": "failed",
                                "scores": None,
                                "rationale": "Judge output was not valid JSON; not retried.",
                                "usage": {"input_tokens": 900, "output_tokens": 120},
                            }
                        )
                        continue
                    bonus = 1.0 if (j["family"] == e["family"]) else 0.0  # invented self-preference
                    offset = -0.5 if j["id"] == "judge-k" else 0.0
                    scores = {}
                    for dim in dims:
                        if eid == "delta":
                            scores[dim] = 0  # an outright refusal throughout earns zero performance credit
                        else:
                            v = base[eid] + bonus + offset + rng.uniform(-1.5, 1.5)
                            if eid == "beta" and s["id"] == "s2-meeting-invite" and rep == 1:
                                v = 0.5
                            scores[dim] = max(0, min(10, round(v)))
                    judgments[j["id"]].append(
                        {
                            "entrant": eid,
                            "scenario_id": s["id"],
                            "repetition": rep,
                            "parse_status": "ok",
                            "scores": scores,
                            "rationale": (
                                "Refuses the persona throughout; no performance to credit."
                                if eid == "delta"
                                else f"Invented rationale: voice {'holds' if scores['fidelity'] >= 6 else 'wavers'}, "
                                f"jokes {'specific' if scores['comic_invention'] >= 6 else 'generic'}."
                            ),
                            "usage": {"input_tokens": 1100 + 60 * len(turns), "output_tokens": 140},
                        }
                    )
    for jid, rows in judgments.items():
        write_jsonl(run / f"judgments/{jid}.jsonl", rows)
    cal_rows = []
    cal_scores = {"d1-bland": 1, "d2-repetitive-profanity": 2, "d3-generic-scottish": 3, "d4-specific-comic": 7}
    for j in judges:
        for r in calibration:
            v = cal_scores[r["id"]] + (1 if j["id"] == "judge-q" and r["id"] == "d2-repetitive-profanity" else 0)
            cal_rows.append(
                {
                    "judge": j["id"],
                    "response_id": r["id"],
                    "parse_status": "ok",
                    "scores": {
                        "fidelity": v,
                        "comic_invention": v,
                        "naturalness": max(0, v - 1),
                        "conversational_fit": v,
                    },
                    "rationale": f"Invented calibration rationale for {r['title'].lower()}.",
                    "usage": {"input_tokens": 600, "output_tokens": 90},
                }
            )
    write_jsonl(run / "calibration.jsonl", cal_rows)
    pairs, key = [], {}
    complete = ["alpha", "beta", "delta"]
    for n in range(12):
        s = scenarios[n % len(scenarios)]
        a, b = complete[n % 3], complete[(n + 1) % 3]
        if n % 2:
            a, b = b, a
        pid = f"pair-{n + 1:02d}"
        rep = 1 + n // 6
        choice = "tie" if n in (4, 9) else ("A" if (a == "alpha" or b == "delta") else "B")
        pairs.append({"pair_id": pid, "scenario_id": s["id"], "choice": choice, "reviewer": "demo-reviewer"})
        key[pid] = {"A": {"entrant": a, "repetition": rep}, "B": {"entrant": b, "repetition": rep}}
    write_jsonl(run / "human-pairs.jsonl", pairs)
    write_json(run / ANSWER_KEY, {"pairs": key})
    write_json(
        run / "reported-scores.json",
        {"entrants": {"alpha": {"overall": 71.3, "complete": True}, "gamma": {"complete": True}}},
    )
    # files that sit in a real run folder and must never be published
    write_json(
        run / "auth.json",
        {"demo_provider": {"type": "api_key", "key": "sk-demo-NOT-A-REAL-KEY-0000000000000000000000"}},
    )
    (run / "private").mkdir(exist_ok=True)
    (run / "private/id_ed25519").write_text(
        "-----BEGIN OPENSSH PRIVATE KEY-----\nDEMO-ONLY-NOT-A-REAL-KEY\n-----END OPENSSH PRIVATE KEY-----\n",
        encoding="utf-8",
    )


def main() -> int:
    global RUNS
    parser = argparse.ArgumentParser(description="Write the invented demo runs (default: the project's runs/).")
    parser.add_argument("dest", nargs="?", help="another, new or empty folder, e.g. to compare with runs/")
    args = parser.parse_args()
    if args.dest:
        dest = Path(args.dest).resolve()
        if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
            print(f"error: {args.dest} exists and is not an empty folder; nothing was written", file=sys.stderr)
            return 1
        RUNS = dest
    if RUNS.exists():  # only the project's own runs/ folder is ever replaced
        shutil.rmtree(RUNS)
    make_pack()
    make_rubric()
    make_tucker()
    print(f"demo runs written under {RUNS.name}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
