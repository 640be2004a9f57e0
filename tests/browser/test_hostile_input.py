"""Runs are written by models: markup in them must stay text, and every character must survive."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import urlparse

import pytest
from helpers import RUNS, edit_json, edit_jsonl, load

from site_src.build import build_site
from site_src.site.serve_static import serve

PAYLOADS = [
    "<script>alert('script-tag')</script>",
    "<img src=x onerror=\"alert('img-onerror')\">",
    "<a href=\"javascript:alert('js-link')\">click me</a>",
    "<svg onload=\"alert('svg-onload')\"><circle r=5></circle></svg>",
    "<svg><script>alert('svg-script')</script></svg>",
    "<math><mtext><table><mglyph><style><img src=x onerror=\"alert('mathml')\">"
    "</style></mglyph></table></mtext></math>",
    "\\href{javascript:alert('tex')}{tex link} $\\unicode{<img src=x onerror=alert('tex2')>}$",
    "{{ 7*7 }} {% raw %}x{% endraw %} ${7*7} #{7*7}",
    "\"><script>alert('attr-breakout')</script>",
    '<iframe src="http://198.51.100.7/frame"></iframe><link rel=stylesheet href="http://198.51.100.7/x.css">',
    "[md link](javascript:alert('md')) <details open ontoggle=\"alert('details')\">",
]
PAYLOAD = " ".join(PAYLOADS)
EXACT = (
    "NFD: e\u0301 NFC: \u00e9 | O\u02bbzbek ma\u02bclumot | zw:[\u200b\u200c\u200d\u2060\ufeff] | "
    "bidi: \u202eevil\u202c \u2067iso\u2069 | crlf:\r\nnext line | trailing spaces:   \n| nbsp:\u00a0| tab:\t|"
)
MARKED = sum(1 for ch in EXACT if ch in "\u200b\u200c\u200d\u2060\ufeff\u202e\u202c\u2067\u2069\r\u00a0")

TUCKER = "tuckerbench/demo-pilot-run1"
PACK = "uzbek-pack/demo-model-b-run1"
T_PAGE = "tuckerbench/v1-pilot/t/9d/demo-pilot-run1--beta--s4-kettle--r1/"
EXACT_PAGE = "tuckerbench/v1-pilot/t/38/demo-pilot-run1--delta--s3-bug-correction--r2/"


def plant(runs: Path) -> None:
    edit_jsonl(runs / PACK / "responses.jsonl", 10, lambda r: r.update(raw_output=PAYLOAD))  # checklist case 010
    edit_jsonl(runs / PACK / "responses.jsonl", 11, lambda r: r["grading"].update(notes=PAYLOAD))
    edit_json(
        runs / PACK / "metadata.json",
        lambda m: (m["model"].update(name="Model " + PAYLOADS[8]), m.update(notes=PAYLOAD)),
    )
    edit_json(runs / TUCKER / "transcripts/beta/s4-kettle.r1.json", lambda t: t["turns"][1].update(content=PAYLOAD))
    edit_json(
        runs / TUCKER / "transcripts/delta/s3-bug-correction.r2.json", lambda t: t["turns"][3].update(content=EXACT)
    )
    edit_jsonl(runs / TUCKER / "judgments/judge-q.jsonl", 1, lambda r: r.update(rationale=PAYLOAD))
    edit_json(
        runs / TUCKER / "manifest.json",
        lambda m: (
            m["entrants"][1].update(label="Beta " + PAYLOADS[0]),
            m["entrants"][1].update(family=PAYLOADS[1]),
            m["judges"][0].update(label="Judge " + PAYLOADS[4]),
        ),
    )
    rubric = runs / "halees-dual-layer/demo-system-x/tasks/T1/iteration-1.output.txt"
    rubric.write_text(PAYLOAD, encoding="utf-8")
    edit_json(
        runs / "halees-dual-layer/demo-system-x/tasks/T1/iteration-1.grading.json",
        lambda g: g.update(feedback=[PAYLOAD]),
    )


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    shutil.copytree(RUNS, root / "runs")
    plant(root / "runs")
    project = load(root / "runs")
    assert not project.problems.errors, project.problems.errors
    assert build_site(project, root / "site") == 0
    server, url = serve(root / "site", "/repo/")
    yield root / "site", url
    server.shutdown()


PAGES = [
    "uzbek-pack/0.1.0/",
    "uzbek-pack/0.1.0/breakdown/",
    "uzbek-pack/0.1.0/t/c6/demo-model-b-run1--010--a1/",
    "uzbek-pack/0.1.0/t/5f/demo-model-b-run1--011--a1/",
    "uzbek-pack/0.1.0/items/13/010/",
    "uzbek-pack/0.1.0/entrants/demo-model-b/",
    "uzbek-pack/0.1.0/limitations/",
    "tuckerbench/v1-pilot/",
    "tuckerbench/v1-pilot/breakdown/",
    T_PAGE,
    "tuckerbench/v1-pilot/t/30/demo-pilot-run1--alpha--s1-code-review--r1/",
    "tuckerbench/v1-pilot/items/db/s4-kettle/",
    "tuckerbench/v1-pilot/entrants/beta/",
    "tuckerbench/v1-pilot/limitations/",
    "halees-dual-layer/halees-dual-layer-v1/t/3f/demo-system-x--T1/",
    "halees-dual-layer/halees-dual-layer-v1/items/1f/T1/",
]


def test_no_payload_runs_or_fetches_anything_and_each_stays_visible_as_text(page, hostile_site):
    _, url = hostile_site
    origin = urlparse(url).netloc
    dialogs: list[str] = []
    foreign: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("request", lambda r: foreign.append(r.url) if urlparse(r.url).netloc not in (origin, "") else None)
    for path in PAGES:
        page.goto(url + path)
        page.wait_for_load_state("load")
        for link in page.locator("a[href^='javascript:']").all():
            pytest.fail(f"{path}: live javascript: link {link.get_attribute('href')}")
        assert page.locator("iframe, script:not([src]), img[src='x'], details[open]").count() == 0, path
    assert not dialogs
    assert not foreign
    page.goto(url + T_PAGE)
    text = page.locator(".turn-assistant .turn-text").first.inner_text()
    for payload in PAYLOADS:
        assert payload in text
    assert "49" not in text  # template syntax was not evaluated


def test_search_results_show_payloads_as_text(page, hostile_site):
    _, url = hostile_site
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(url + "search/")
    page.fill("#q", "onerror")
    page.click("button[type=submit]")
    page.wait_for_selector("[data-search-results] li")
    assert page.locator("[data-search-results] img, [data-search-results] script").count() == 0
    assert not dialogs


def test_downloads_keep_every_code_point(hostile_site):
    site, _ = hostile_site
    data = json.loads(
        (site / "tuckerbench/v1-pilot/data/t/38/demo-pilot-run1--delta--s3-bug-correction--r2.json").read_text(
            encoding="utf-8"
        )
    )
    assert data["transcript"]["turns"][3]["content"] == EXACT
    board = (site / "uzbek-pack/0.1.0/data/t/c6/demo-model-b-run1--010--a1.json").read_text(encoding="utf-8")
    assert json.loads(board)["transcript"]["turns"][1]["content"] == PAYLOAD


def test_transcript_page_keeps_every_character_and_marks_the_invisible_ones(page, hostile_site):
    _, url = hostile_site
    page.goto(url + EXACT_PAGE)
    turn = page.locator("#turn-4 .turn-text")
    assert turn.locator(".cp").count() == MARKED
    names = turn.locator(".cp").evaluate_all("els => els.map(e => e.title)")
    assert "U+200B ZERO WIDTH SPACE" in names and "U+202E RIGHT-TO-LEFT OVERRIDE" in names
    shown = turn.evaluate("""el => { const c = el.cloneNode(true);
        c.querySelectorAll('.cp-mark, .visually-hidden').forEach(n => n.remove()); return c.textContent; }""")
    assert shown == EXACT.replace("\r", "\n")  # HTML parsing turns a lone CR into LF; the download keeps it
    assert "e\u0301" in shown and "\u02bb" in shown and "\u02bc" in shown
