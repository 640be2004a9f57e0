"""Diagnostics kept apart from scores: response length, profanity from the benchmark's own small lexicon,
truncation, empty and error states, and token usage. None of these enters any score."""

from __future__ import annotations

import re
from functools import lru_cache

from .. import worked_out
from ..model import BenchmarkVersion, Judgment, Run, Transcript, judgments_by_target
from ..results import Diagnostics


@lru_cache(maxsize=16)
def _any_word(lexicon: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(map(re.escape, lexicon)) + r")\b", flags=re.IGNORECASE)


def count_profanity(text: str, lexicon: list[str]) -> tuple[int, set[str]]:
    """Whole-word, case-insensitive matches of the lexicon's words; deliberately simple, as the seed says."""
    if not lexicon:
        return 0, set()
    if text.isascii() and all(map(str.isascii, lexicon)):
        # an ASCII letter matches, ignoring case, only its own two cases (the regex's other equivalents, such as the
        # Kelvin sign for k, are not ASCII): a substring test settles the usual, clean text several times faster
        lowered = text.lower()
        if not any(word.lower() in lowered for word in lexicon):
            return 0, set()
    elif not _any_word(tuple(lexicon)).search(text):  # one search settles the usual, clean text
        return 0, set()
    found: list[str] = []
    for word in lexicon:
        found += [m.lower() for m in re.findall(rf"\b{re.escape(word)}\b", text, flags=re.IGNORECASE)]
    return len(found), set(found)


def is_refusal(text: str, patterns: list[str]) -> bool:
    """A turn refuses when it contains one of the definition's refusal phrases (case-insensitive): a diagnostic
    heuristic only; the judges decide what a refusal is worth."""
    lowered = text.lower().replace("\u2019", "'")
    return any(p in lowered for p in patterns)


def diagnostics_of(run: Run, version: BenchmarkVersion) -> dict[str, Diagnostics]:
    """A run's diagnostics (run_diagnostics) with its version's lexicon and refusal phrases, where it has them."""
    definition = version.definition
    lexicon = getattr(definition, "profanity_lexicon", [])
    return run_diagnostics(run, lexicon, getattr(definition, "refusal_patterns", []))


def run_diagnostics(run: Run, lexicon: list[str], refusal_patterns: list[str]) -> dict[str, Diagnostics]:
    """Entrant id -> the diagnostics of its transcripts in this run and of their judgments (a judgment targets a
    transcript of its own run), worked out once per run (Run.once): a rebuild diagnoses only the runs that changed,
    and adds up each entrant's runs."""

    def compute() -> dict[str, Diagnostics]:
        mine: dict[str, list[Transcript]] = {}
        for t in run.transcripts:
            mine.setdefault(t.entrant_id, []).append(t)
        judged = judgments_by_target(run)
        return {
            e: diagnose(ts, [j for t in ts for j in judged.get(t.id, [])], lexicon, refusal_patterns)
            for e, ts in mine.items()
        }

    return worked_out.once(run, "diagnostics", compute)


def diagnose(
    transcripts: list[Transcript],
    judgments: list[Judgment],
    lexicon: list[str],
    refusal_patterns: tuple[str, ...] | list[str] = (),
) -> Diagnostics:
    d = Diagnostics()
    for t in transcripts:
        d.transcripts += 1
        turns = list(t.turns)  # decoded once: a stored transcript's turns are decoded from disk on each use
        answers = [x for x in turns if x.role == "assistant" and x.content]
        refusing = sum(is_refusal(x.content or "", list(refusal_patterns)) for x in answers)
        d.refusal_turns += refusing
        d.refusal_transcripts += bool(answers) and refusing == len(answers)
        for turn in turns:
            if turn.role != "assistant":
                continue
            d.assistant_turns += 1
            text = turn.content or ""
            d.characters += len(text)
            d.words += len(text.split())
            n, forms = count_profanity(text, lexicon)
            d.profanity += n
            d.profanity_forms |= forms
            d.truncated += turn.truncated
            d.empty += turn.state == "empty"
            d.errors += turn.state == "error"
            d.input_tokens += turn.usage.get("input_tokens", 0)
            d.output_tokens += turn.usage.get("output_tokens", 0)
    for j in judgments:
        d.judge_input_tokens += j.usage.get("input_tokens", 0)
        d.judge_output_tokens += j.usage.get("output_tokens", 0)
    return d
