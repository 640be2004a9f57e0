"""Reader for Inspect AI runs (format inspect-run/1): <run>/inspect-run.json names the log beside it, read in place.

The version's definition is content/<benchmark>/versions/<version>/task.json (format inspect-task/1), written by
`build.py import inspect`. Each sample × epoch of the log becomes a transcript; its messages become turns (system,
user, assistant with its tool calls, tool results); reasoning only when the run opts in; the sample's events (raw
model requests and responses) are never read. See docs/format-inspect.md.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...jsonio import read_bytes, read_json
from ...model import Benchmark, BenchmarkVersion, Entrant, Item, Run, ToolCall, Transcript, Turn
from ...problems import Problems
from ...readers.content import content_rel, definition_file, sha256_bytes, version_named
from ...validate import check
from . import SYSTEM
from .definition import InspectDefinition
from .logfile import MAX_LOG_BYTES, LogError, read_log

_ATTACHMENT = re.compile(r"^attachment://([0-9a-f]{32})$")


def load_version(content_dir: Path, bench_id: str, vdir: Path, problems: Problems) -> BenchmarkVersion | None:
    path = definition_file(content_dir, vdir, "task.json")
    rel = content_rel(content_dir, vdir / "task.json")
    spec = read_json(path, rel, problems)
    if not check(spec, "inspect-task", rel, None, problems):
        return None
    items, seen = [], set()
    for n, s in enumerate(spec["samples"], start=1):
        if s["id"] in seen:
            problems.error(rel, f"sample id {s['id']!r} is given twice", f"samples[{n - 1}]", "id")
            return None
        seen.add(s["id"])
        recorded = s["input"] is not None  # a log written without its samples defines ids only
        prompt = s["input"] if recorded else "(not recorded: the log that defined this version holds no samples)"
        spec_of = {"target": s["target"], "input_recorded": recorded}
        items.append(Item(s["id"], f"Sample {s['sample_id']}", spec["task"], "sample", prompt, spec_of))
    definition = InspectDefinition(
        task=spec["task"],
        task_version=str(spec["task_version"]),
        dataset=dict(spec["dataset"]),
        scorers=list(spec["scorers"]),
        sample_ids={s["id"]: s["sample_id"] for s in spec["samples"]},
        score_ranges={k: (float(v[0]), float(v[1])) for k, v in (spec.get("score_ranges") or {}).items()},
    )
    return BenchmarkVersion(bench_id, vdir.name, sha256_bytes(read_bytes(path, rel)), definition, items)


def item_id(sample_id: Any) -> str:
    """A sample id as a URL-safe item id: Inspect allows any int or string; ours are [A-Za-z0-9._-]."""
    text = re.sub(r"[^A-Za-z0-9._]+", "-", str(sample_id)).strip("-.")
    return text[:80] or "sample"


@dataclass
class Publish:
    """What a run's metadata allows beyond text: reasoning blocks and images (both off by default)."""

    reasoning: bool = False
    images: bool = False


@dataclass
class Parts:
    """A message's content, split into what each kind of part becomes on the page."""

    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # one sentence per part not published, saying why


# Raster images only: an SVG or a remote address is never published (an image can carry script or a tracker)
_IMAGE = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]+$")


def text_of(content: Any, attachments: dict[str, str], reasoning: bool) -> tuple[str, list[str]]:
    """A message's content as plain text, and the kinds of part left out (used for inputs and targets)."""
    parts = parts_of(content, attachments, Publish(reasoning=reasoning))
    return "\n\n".join(parts.reasoning + parts.text), parts.left_out


def parts_of(content: Any, attachments: dict[str, str], publish: Publish) -> Parts:
    out = Parts()
    if isinstance(content, str):
        out.text.append(_resolve(content, attachments))
        return out
    for part in content if isinstance(content, list) else []:
        kind = str(part.get("type") or "unknown") if isinstance(part, dict) else "unknown"
        if kind == "text":
            out.text.append(_resolve(str(part.get("text", "")), attachments))
        elif kind == "reasoning":
            _reasoning_part(part, attachments, publish, out)
        elif kind == "image":
            _image_part(part, attachments, publish, out)
        else:
            out.left_out.append(f"a part of kind {kind!r}: only text, reasoning and images are published")
    return out


def _reasoning_part(part: dict[str, Any], attachments: dict[str, str], publish: Publish, out: Parts) -> None:
    if part.get("redacted"):
        out.left_out.append("a reasoning block: the provider redacted it")
    elif not publish.reasoning:
        out.left_out.append("a reasoning block: this run does not publish reasoning (publish_reasoning)")
    else:
        out.reasoning.append(_resolve(str(part.get("reasoning", "")), attachments))


def _image_part(part: dict[str, Any], attachments: dict[str, str], publish: Publish, out: Parts) -> None:
    image = _resolve(str(part.get("image", "")), attachments)
    if not publish.images:
        out.left_out.append("an image: this run does not publish images (publish_images)")
    elif not _IMAGE.match(image):
        out.left_out.append("an image: only PNG, JPEG, GIF and WebP images held in the log are published")
    else:
        out.images.append(image)


def _resolve(text: str, attachments: dict[str, str]) -> str:
    m = _ATTACHMENT.match(text)
    return attachments.get(m.group(1), text) if m else text


def turns_of(sample: dict[str, Any], publish: Publish) -> list[Turn]:
    attachments = sample.get("attachments") or {}
    turns = [_turn(m, attachments, publish) for m in sample.get("messages") or [] if isinstance(m, dict)]
    _link_tool_results(sample.get("messages") or [], turns)
    output = sample.get("output") or {}
    choices = output.get("choices") or []
    if turns and turns[-1].role == "assistant" and choices:
        last = turns[-1]
        last.stop_reason = choices[0].get("stop_reason")
        last.truncated = last.stop_reason in ("max_tokens", "model_length")
        last.usage = {k: v for k, v in (output.get("usage") or {}).items() if isinstance(v, int)}
    return turns


def _turn(message: dict[str, Any], attachments: dict[str, str], publish: Publish) -> Turn:
    role = str(message.get("role", "unknown"))
    parts = parts_of(message.get("content", ""), attachments, publish)
    turn = Turn(role, "\n\n".join(parts.text), reasoning=parts.reasoning, images=parts.images)
    turn.left_out = parts.left_out
    calls = [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    turn.tool_calls = [_tool_call(c, n) for n, c in enumerate(calls, 1)]
    error = message.get("error")
    message_of_error = (error.get("message") or error.get("type")) if isinstance(error, dict) else error
    if role == "tool":  # a tool's error is part of the conversation the model saw, not a missing turn
        turn.tool_function = str(message.get("function") or "") or None
        if error:
            kind = error.get("type") if isinstance(error, dict) else None
            turn.tool_error = f"{kind}: {message_of_error}" if kind else str(message_of_error)
    elif error:
        turn.state, turn.error = "error", str(message_of_error)
    return turn


def _tool_call(call: dict[str, Any], n: int) -> ToolCall:
    arguments = call.get("arguments", {})
    return ToolCall(
        id=str(call.get("id") or f"call {n}"),
        function=str(call.get("function") or "?"),
        arguments=json.dumps(arguments, ensure_ascii=False, indent=2),
        parse_error=str(call["parse_error"]) if call.get("parse_error") else None,
    )


def _link_tool_results(messages: list[Any], turns: list[Turn]) -> None:
    """Point each tool call at the turn that holds its result (by the call id the tool message names)."""
    result_at = {
        str(m.get("tool_call_id")): n
        for n, m in enumerate((m for m in messages if isinstance(m, dict)), 1)
        if m.get("role") == "tool" and m.get("tool_call_id") is not None
    }
    for turn in turns:
        for call in turn.tool_calls:
            call.result_turn = result_at.get(call.id)


def _input_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # a list of chat messages
        return "\n\n".join(
            f"[{m.get('role', '?')}] {text_of(m.get('content', ''), {}, False)[0]}"
            for m in value
            if isinstance(m, dict)
        )
    return json.dumps(value, ensure_ascii=False)


def _target_text(value: Any) -> str:
    return value if isinstance(value, str) else " | ".join(map(str, value or []))


def read_run(
    run_dir: Path, rel: str, files: list[str], meta: dict[str, Any], bench: Benchmark, problems: Problems
) -> Run | None:
    meta_rel = f"{rel}/inspect-run.json"
    if not check(meta, "inspect-run", meta_rel, None, problems):
        return None
    version = version_named(bench, meta, SYSTEM.version_field, meta_rel, problems)
    if version is None:
        return None
    if meta["log"] not in files:
        problems.error(meta_rel, f"the log {meta['log']!r} is not in the run directory", None, "log")
        return None
    log_rel = f"{rel}/{meta['log']}"
    data = read_bytes(run_dir / meta["log"], log_rel, MAX_LOG_BYTES)
    if sha256_bytes(data) != meta["log_sha256"]:
        problems.error(log_rel, "the log's bytes differ from log_sha256 in inspect-run.json: it changed after import")
        return None
    try:
        log = read_log(meta["log"], data)
    except LogError as exc:
        problems.error(log_rel, str(exc))
        return None
    d: InspectDefinition = version.definition
    if log.eval.get("task") != d.task:
        problems.error(
            log_rel, f"task {log.eval.get('task')!r} is not this version's task {d.task!r}", None, "eval.task"
        )
        return None
    e = meta["entrant"]
    entrant = Entrant(e["id"], e["label"], selector=log.eval.get("model"), settings=dict(log.plan.get("config") or {}))
    public = {
        "run_id": meta["run_id"],
        "inspect_run_id": log.eval.get("run_id"),
        "task": d.task,
        "task_version": log.eval.get("task_version"),
        "model": log.eval.get("model"),
        "created": log.eval.get("created"),
        "status": log.status,
        "log_format_version": log.version,
        "inspect_version": (log.eval.get("packages") or {}).get("inspect_ai"),
        "config": log.eval.get("config") or {},
        "started_at": log.stats.get("started_at"),
        "completed_at": log.stats.get("completed_at"),
        "source": meta.get("source"),
        **{k: meta[k] for k in ("repeat_of", "rejudge_of") if k in meta},
    }
    run = Run(
        meta["run_id"],
        bench.id,
        version.id,
        rel,
        "inspect-run/1",
        meta["demo"],
        meta.get("demo_note", ""),
        public,
        entrants=[entrant],
        public_files=["inspect-run.json"],
    )
    run.stored_scores = {
        "results": log.results,
        "reductions": log.reductions,
        "error": log.error,
        "model_usage": log.stats.get("model_usage") or {},
        "scorer_specs": log.eval.get("scorers") or [],  # the metrics of each scorer, for a log without results
    }
    run.stored_scores_file = log_rel
    run.read_files = [meta["log"]]
    by_item = {str(v): k for k, v in d.sample_ids.items()}  # 1 and "1" are one sample, whichever a log writes
    seen: set[tuple[str, int]] = set()
    for _n, sample in enumerate(log.samples):
        record = f"sample {sample.get('id')!r}, epoch {sample.get('epoch')}"
        iid = by_item.get(str(sample.get("id")))
        if iid is None:
            problems.error(log_rel, "sample is not in the version's definition (import it into a new version)", record)
            continue
        epoch = sample.get("epoch", 1)
        if not isinstance(epoch, int) or epoch < 1 or (iid, epoch) in seen:
            problems.error(
                log_rel, "epoch is not a positive integer, or the sample and epoch are recorded twice", record
            )
            continue
        seen.add((iid, epoch))
        item = version.item(iid)
        if item.spec.get("input_recorded", True) and _input_text(sample.get("input")) != item.prompt:
            problems.error(log_rel, "the sample's input differs from the version's definition", record, "input")
            continue
        error = sample.get("error")
        t = Transcript(
            f"{run.id}--{iid}--{epoch}",
            run.id,
            entrant.id,
            iid,
            epoch,
            "error" if error else "completed",
            log_rel,
            record,
            turns=turns_of(sample, Publish(bool(meta.get("publish_reasoning")), bool(meta.get("publish_images")))),
            error=(error.get("message") if isinstance(error, dict) else str(error)) if error else None,
            record={"scores": sample.get("scores") or {}},
        )
        t.truncated = any(turn.truncated for turn in t.turns)
        run.transcripts.append(t)
    epochs = int((log.eval.get("config") or {}).get("epochs") or 1)
    expected = (log.eval.get("dataset") or {}).get("sample_ids")
    expected_items = (
        [by_item[str(s)] for s in expected if str(s) in by_item]
        if isinstance(expected, list)
        else list(by_item.values())
    )
    run.metadata["expected_samples"] = len(expected_items)
    run.metadata["epochs"] = epochs
    run.metadata["samples_in_log"] = len(log.samples)
    for iid in expected_items:
        for epoch in range(1, epochs + 1):
            if (iid, epoch) not in seen:
                run.transcripts.append(
                    Transcript(
                        f"{run.id}--{iid}--{epoch}",
                        run.id,
                        entrant.id,
                        iid,
                        epoch,
                        "missing",
                        log_rel,
                        f"sample {d.sample_ids[iid]!r}, epoch {epoch}",
                    )
                )
    return run
