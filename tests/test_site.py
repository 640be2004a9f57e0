"""The site's views and templates through the Flask test client, and the frozen output on disk."""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_src.scoring.release import build_release
from site_src.site.app import create_app, relative
from site_src.site.text import show_text


@pytest.fixture(scope="module")
def client(demo):
    return create_app(build_release(demo)).test_client()


def html(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_data(as_text=True)


PAGE_TYPES = [
    "/",
    "/uzbek-pack/0.1.0/",
    "/uzbek-pack/0.1.0/breakdown/",
    "/uzbek-pack/0.1.0/entrants/demo-model-b/",
    "/uzbek-pack/0.1.0/items/93/017/",
    "/uzbek-pack/0.1.0/t/4c/demo-model-a-run1--004--a1/",
    "/uzbek-pack/0.1.0/methodology/",
    "/uzbek-pack/0.1.0/limitations/",
    "/uzbek-pack/0.1.0/transcripts/",
    "/uzbek-pack/0.1.0/items/",
    "/halees-dual-layer/halees-dual-layer-v1/t/69/demo-system-x--T2/",
    "/tuckerbench/v1-pilot/",
    "/tuckerbench/v1-pilot/t/ca/demo-pilot-run1--gamma--s5-bad-day--r2/",
    "/tuckerbench/v1-pilot/items/2e/s3-bug-correction/",
    "/tuckerbench/v1-pilot/methodology/",
    "/tuckerbench/v1-pilot/judges/",
    "/tuckerbench/v1-pilot/calibration/",
    "/search/",
    "/404.html",
]


@pytest.mark.parametrize("url", PAGE_TYPES)
def test_every_page_type_carries_the_demo_banner_and_generator(client, url):
    page = html(client, url)
    assert "Demo data." in page and "No model was run" in page
    assert "Built with evalboard" in page


@pytest.mark.parametrize("url", [u for u in PAGE_TYPES if u.count("/") > 2 and "search" not in u and "404" not in u])
def test_every_benchmark_page_names_its_version(client, url):
    page = html(client, url)
    version = url.split("/")[2]
    assert f"version {version}" in page


def test_relative_links_work_from_any_depth():
    assert relative("/uzbek-pack/0.1.0/", "/uzbek-pack/0.1.0/t/x/") == "../../"
    assert relative("/static/style.css", "/uzbek-pack/0.1.0/t/x/") == "../../../../static/style.css"
    assert relative("/", "/") == "./"
    assert relative("/index.json", "/") == "index.json"
    assert relative("/a/b/", "/a/") == "b/"


def test_no_absolute_internal_links_in_pages(client):
    for url in PAGE_TYPES[:-1]:
        for target in re.findall(r'(?:href|src)="([^"]+)"', html(client, url)):
            assert not target.startswith("/"), (url, target)
            assert not target.startswith("http"), (url, target)


def test_leaderboard_never_ranks_or_fully_scores_an_incomplete_entrant(client):
    page = html(client, "/tuckerbench/v1-pilot/")
    gamma = next(row for row in page.split("<tr") if "Demo Entrant Gamma" in row)
    assert "not ranked: incomplete" in gamma and "partial 57.1" in gamma
    assert "/ 100 from" not in gamma


def test_leaderboard_shows_counts_coverage_flags_and_discrepancies(client):
    page = html(client, "/uzbek-pack/0.1.0/")
    assert "21 / 24 · 88%" in page
    assert "12 passes / 20 graded completed cases; 22 of 24 responses collected; 1 case under review" in page
    assert "1 missing; 1 errored; 1 ungraded; 1 under review" in page
    b = next(r for r in page.split("<tr") if "demo-model-b-run1" in r)
    assert "Russian fragments to Uzbek: 1 errored" in b and "Protected names and literals: 1 under review" in b
    assert 'href="limitations/#truncated"' in page
    assert "grading.outcome" in page and "Discrepancies with stored figures" in page
    assert "This benchmark makes no ranking claims" in page


def test_flags_link_to_generated_caveats(client):
    page = html(client, "/tuckerbench/v1-pilot/limitations/")
    for anchor in ("incomplete", "same_family_judge", "transport", "discrepancy", "truncated", "empty", "sample-size"):
        assert f'id="{anchor}"' in page
    assert "Demo Judge Q is of the entrant&#39;s own family" in page


def test_item_page_shows_every_response_side_by_side(client):
    page = html(client, "/tuckerbench/v1-pilot/items/aa/s1-code-review/")
    assert page.count('class="response-card"') == 8  # 4 entrants x 2 repetitions
    page = html(client, "/uzbek-pack/0.1.0/items/9c/004/")
    assert page.count('class="response-card"') == 3
    assert "expected U+02BC, got U+2019" in page


def test_transcript_page_shows_states_usage_judges_and_permalinks(client):
    page = html(client, "/tuckerbench/v1-pilot/t/35/demo-pilot-run1--beta--s6-explain-dns--r2/")
    assert "truncated at the token limit" in page and "stop reason: length" in page
    assert "output tokens 700" in page and 'id="turn-8"' in page and 'href="#turn-8"' in page
    assert page.count('class="judgment"') == 2 and "Rationale" in page
    page = html(client, "/tuckerbench/v1-pilot/t/ca/demo-pilot-run1--gamma--s5-bad-day--r2/")
    assert "quota_exhausted: 429: monthly quota exhausted" in page and "missing, never as zero" in page


def test_pack_transcript_shows_checks_reviewer_and_revision_history(client):
    page = html(client, "/uzbek-pack/0.1.0/t/55/demo-model-a-run1--020--a1/")
    assert "Grading history" in page and "Adjudication" in page and "demo-reviewer-1" in page
    page = html(client, "/uzbek-pack/0.1.0/t/db/demo-model-a-run1--001--a1/")
    assert "Reviewer" in page and "comparator" in page


def test_methodology_renders_frozen_inputs(client):
    page = html(client, "/tuckerbench/v1-pilot/methodology/").replace("<wbr>", "")  # paths may wrap at "/"
    for text in (
        "Persona prompt",
        "Judge instructions",
        "Diagnostic calibration responses",
        "config/pilot.json",
        "Fidelity",
        "40.0%",
    ):
        assert text in page
    assert "U+02BB" in html(client, "/uzbek-pack/0.1.0/methodology/")


def test_unknown_pages_answer_404(client):
    assert client.get("/uzbek-pack/9.9.9/").status_code == 404
    assert client.get("/uzbek-pack/0.1.0/t/ca/nope/").status_code == 404


def test_show_text_escapes_and_marks_invisible_characters():
    out = str(show_text("a\u200bb<i>\u202e"))
    assert "&lt;i&gt;" in out and "<i>" not in out
    assert "[U+200B]" in out and "[U+202E]" in out
    assert "\u200b" in out and "\u202e" in out  # marked, not removed


# ---- the frozen output
def test_build_writes_every_page_type(built_site: Path):
    for url in PAGE_TYPES:
        path = built_site / url.strip("/") / ("" if url.endswith(".html") else "index.html")
        assert path.is_file(), url
    # one search bundle per run, without Pagefind's unused ready-made interfaces
    bundle = built_site / "tuckerbench/v1-pilot/search/demo-pilot-run1"
    assert (bundle / "pagefind.js").is_file() and (bundle / "pagefind-entry.json").is_file()
    assert not (bundle / "pagefind-ui.js").exists() and not (built_site / "pagefind").exists()
    assert (built_site / "static" / "style.css").is_file()


def test_release_index_lists_versions_runs_and_transcript_downloads(built_site: Path):
    index = json.loads((built_site / "index.json").read_text(encoding="utf-8"))
    assert index["demo"] is True
    tucker = next(b for b in index["benchmarks"] if b["id"] == "tuckerbench")
    listed = json.loads((built_site / tucker["versions"][0]["transcripts"]).read_text(encoding="utf-8"))
    rows = [r for part in listed["parts"] for r in json.loads((built_site / part).read_text("utf-8"))["transcripts"]]
    assert listed["count"] == len(rows) == 48 and listed["demo"] is True
    for row in rows:
        assert (built_site / row["download"]).is_file() and (built_site / row["path"] / "index.html").is_file()


def test_downloads_are_machine_readable(built_site: Path):
    board = json.loads((built_site / "uzbek-pack/0.1.0/data/leaderboard.json").read_text(encoding="utf-8"))
    assert board["demo"] and {r["label"] for r in board["rows"]} >= {"Demo Model A · demo-model-a-run1"}
    csv_text = (built_site / "tuckerbench/v1-pilot/data/leaderboard.csv").read_text(encoding="utf-8")
    assert csv_text.splitlines()[0].startswith("rank,entrant,label")
    spec = json.loads((built_site / "tuckerbench/v1-pilot/charts/dimensions.vl.json").read_text(encoding="utf-8"))
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
    assert "<svg" in (built_site / "tuckerbench/v1-pilot/charts/dimensions.svg").read_text(encoding="utf-8")


def test_transcript_page_stays_small(built_site: Path):
    sizes = sorted(p.stat().st_size for p in built_site.glob("tuckerbench/v1-pilot/t/*/*/index.html"))
    six_turn = built_site / "tuckerbench/v1-pilot/t/c8/demo-pilot-run1--alpha--s4-kettle--r1/index.html"
    assert six_turn.stat().st_size < 40_000
    assert sizes[-1] < 60_000


def test_a_turn_prints_no_blank_line_and_little_markup(built_site: Path):
    """What a turn does not show (a badge, reasoning, a tool call, a missing stop reason) prints nothing, not a line
    of spaces, and a turn of plain text wraps it in under 230 bytes of markup: a transcript page repeats its turns'
    markup once a turn, and a million pages repeat it again."""
    pages = [*built_site.glob("*/*/t/*/*/index.html")]
    assert len(pages) > 100
    plain_turns = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        turns = r'<section class="turn [^>]*>\s*<h3[^>]*><span class="role">[^\n]*<a class="turn-n".*?</section>'
        for turn in re.findall(turns, text, re.S):
            markup = re.sub(r'(<div class="turn-text"|<pre )[^>]*>[^<]*<', "<", turn)  # the texts themselves aside
            assert not re.search(r"\n[ \t]*\n", markup), (page, turn)
            plain = re.sub(r'<p class="turn-meta"[^>]*>[^<]*</p>', "", markup)  # a turn with nothing but its text
            if not re.search(r'class="(badge|tool-|reasoning|left-out|markers-note|no-output|turn-image)', plain):
                assert len(plain) < 230, (page, turn)  # about 210 bytes (320 before a turn's number was its link)
                plain_turns += 1
    assert plain_turns > 100


def test_statistics_and_judge_tables_are_downloadable(built_site: Path):
    stats = json.loads((built_site / "tuckerbench/v1-pilot/data/statistics.json").read_text(encoding="utf-8"))
    assert stats["parameters"]["resamples"] == 2000 and stats["parameters"]["seed"] == 20261202
    assert any(not d["resolved"] for d in stats["differences"])
    judges = json.loads((built_site / "tuckerbench/v1-pilot/data/judges.json").read_text(encoding="utf-8"))
    run = judges["runs"][0]
    assert {a["dimension"] for a in run["agreement"]} >= {"fidelity", "persistence", "weighted"}
    assert run["pair_count"] == 12 and "pair-01" not in json.dumps(judges)
    pack = json.loads((built_site / "uzbek-pack/0.1.0/data/statistics.json").read_text(encoding="utf-8"))
    assert "differences" not in pack and pack["declared"]["rank_separation"] is False
    assert not (built_site / "uzbek-pack/0.1.0/data/judges.json").exists()


def test_a_benchmark_address_leads_to_its_latest_version(built_site):
    page = (built_site / "tuckerbench/index.html").read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh" content="0; url=v1-pilot/">' in page
    assert '<a href="v1-pilot/">v1-pilot</a>' in page  # works without following the refresh, too


def test_latest_version_is_chosen_in_natural_order():
    from site_src.release import _natural

    assert sorted(["0.10.0", "0.9.0", "0.2.1"], key=_natural) == ["0.2.1", "0.9.0", "0.10.0"]
    assert max(["v2-pilot", "v10"], key=_natural) == "v10"


def test_the_subnav_marks_the_current_page_and_section(built_site):
    import re

    def current(path: str) -> list[tuple[str, str]]:
        html = (built_site / path).read_text(encoding="utf-8")
        return re.findall(r'aria-current="([a-z]+)">([A-Za-z]+)</a>', html)

    assert current("tuckerbench/v1-pilot/index.html") == [("page", "Leaderboard")]
    assert current("tuckerbench/v1-pilot/breakdown/index.html") == [("page", "Breakdown")]
    assert current("tuckerbench/v1-pilot/items/aa/s1-code-review/index.html") == [("true", "Items")]
    assert current("tuckerbench/v1-pilot/t/30/demo-pilot-run1--alpha--s1-code-review--r1/index.html") == [
        ("true", "Transcripts")
    ]


def test_a_benchmark_may_not_take_the_name_of_a_site_folder(tmp_path):
    import shutil

    from helpers import CONTENT, RUNS, load, messages

    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    shutil.move(content / "uzbek-pack", content / "search")
    path = content / "search/benchmark.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("id: uzbek-pack", "id: search"), encoding="utf-8")
    assert any(
        "content/search/benchmark.yaml, field id: id 'search' is a folder of the site itself" in m
        for m in messages(load(RUNS, content))
    )


def test_seed004_judges_side_by_side_with_their_gap_and_large_gaps_marked(built_site):
    import re

    page = (built_site / "tuckerbench/v1-pilot/t/5a/demo-pilot-run1--alpha--s1-code-review--r2/index.html").read_text(
        encoding="utf-8"
    )
    table = re.search(r'<table class="judges-side">.*?</table>', page, re.S).group(0)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", table))
    assert "Demo Judge K Demo Judge Q Gap" in text
    assert "Comic invention 25.0 4 8 4 large" in text  # 8 - 4 = 4, at least the declared 3: marked
    assert "Fidelity 40.0 6 6 0 " in text
    assert page.count('class="judgment"') == 2  # both rationales, next to each other


def test_seed004_a_judge_that_failed_to_parse_shows_a_dash_not_a_zero(built_site):
    import re

    page = (
        built_site / "tuckerbench/v1-pilot/t/78/demo-pilot-run1--gamma--s3-bug-correction--r1/index.html"
    ).read_text(encoding="utf-8")
    text = re.sub(
        r"\s+",
        " ",
        re.sub(r"<[^>]+>", " ", re.search(r"<table class=\"judges-side\">.*?</table>", page, re.S).group(0)),
    )
    assert "Fidelity 40.0 6 – " in text and "Gap" not in text


def test_transcript_pages_link_their_neighbours_by_entrant_and_by_item(built_site):
    import re

    base = built_site / "tuckerbench/v1-pilot/t/5a/demo-pilot-run1--alpha--s1-code-review--r2"
    nav = re.search(r'<nav class="nearby".*?</nav>', (base / "index.html").read_text(encoding="utf-8"), re.S).group(0)
    links = re.findall(r'href="(\.\./\.\./[0-9a-f]{2}/[^"/]+)/"', nav)  # to a transcript in another folder of 256
    names = [link.rsplit("/", 1)[1] for link in links]
    assert names[:2] == ["demo-pilot-run1--alpha--s1-code-review--r1", "demo-pilot-run1--alpha--s2-meeting-invite--r1"]
    assert all((base / link / "index.html").is_file() for link in links)
    assert len(links) == 4


def test_build_ends_with_totals_per_phase_and_quiet_prints_nothing(tmp_path):
    import subprocess
    import sys

    from helpers import ROOT

    cmd = [sys.executable, str(ROOT / "build.py"), "--no-search", "--out"]
    loud = subprocess.run([*cmd, str(tmp_path / "a")], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert loud.returncode == 0, loud.stderr
    lines = loud.stdout.splitlines()
    assert lines[0].startswith("built a/: ") and " pages, " in lines[0]
    files = sum(1 for f in (tmp_path / "a").rglob("*") if f.is_file())
    assert f" pages, {files} files from " in lines[0]  # every file of the site
    phases = [line.split()[0] for line in lines[1:] if line.startswith("  ") and line.rstrip().endswith(" s")]
    assert phases == ["read", "score", "secret", "render", "backstop", "manifest", "put", "total"]
    assert "rendering" not in loud.stderr  # no progress bar when the output is not a terminal
    quiet = subprocess.run(
        [*cmd, str(tmp_path / "b"), "--quiet"], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == ""
    assert (tmp_path / "b/index.html").is_file()


# ---- reading the results: who leads, how sure, and where each item stands
def test_home_page_names_each_benchmarks_leaders_with_intervals_and_separation(client):
    page = html(client, "/")
    assert "Leaders in version v1-pilot" in page
    alpha = page.index("Demo Entrant Alpha")
    assert "95% interval [58.3, 65.6] (t, 3.6 df)" in page[alpha : alpha + 600]
    assert "not separated from Demo Entrant Beta" in page[alpha : alpha + 900]
    assert "Top of the listing (not ranked) in version 0.1.0" in page  # the pack makes no ranking claims
    assert "Demo Entrant Gamma" not in page  # incomplete: never shown as a leader


def test_overall_chart_is_sorted_by_rank_and_never_draws_a_missing_score_as_zero(demo):
    from site_src.site.charts import charts_for

    view = build_release(demo).view("tuckerbench", "v1-pilot")
    chart = charts_for(view)[0]
    assert chart.name == "overall"
    by_label = {r["entrant"]: r for r in chart.rows}
    assert by_label["Demo Entrant Gamma"]["score"] is None
    assert by_label["Demo Entrant Gamma"]["note"] == "incomplete: no full score"
    assert by_label["Demo Entrant Alpha"]["interval_low"] < by_label["Demo Entrant Alpha"]["score"]
    sort = chart.spec["layer"][0]["encoding"]["y"]["sort"]
    assert sort == ["Demo Entrant Alpha", "Demo Entrant Beta", "Demo Entrant Delta", "Demo Entrant Gamma"]
    assert chart.spec["config"]["axis"]["labelFontSize"] >= 11


def test_entrant_page_shows_rank_profile_and_flag_details(client):
    page = html(client, "/tuckerbench/v1-pilot/entrants/alpha/")
    assert "Rank 1</span> of 3 ranked" in page
    assert "rank interval 1–2; not separated from Demo Entrant Beta" in page
    assert "<h2>Profile</h2>" in page and "Fidelity (40%)" in page
    assert "stored overall 71.3 differs from the recomputed 62.0" in page  # the flag's detail, in words
    gamma = html(client, "/tuckerbench/v1-pilot/entrants/gamma/")
    assert "Not ranked</span> (incomplete rows are never ranked)" in gamma


def test_items_page_gives_each_items_result_and_judge_gap_from_the_transcripts(demo, client):
    release = build_release(demo)
    view = release.view("uzbek-pack", "0.1.0")
    page = html(client, "/uzbek-pack/0.1.0/items/")
    for item in view.version.items[:5]:
        states = [view.summaries[t.id].state for t in view.by_item[item.id]]
        passes, graded = states.count("pass"), states.count("pass") + states.count("fail")
        row = page[page.index(f">{item.title}</a>") :][:700]
        assert f"{passes} / {graded} pass" in row
    tucker = html(client, "/tuckerbench/v1-pilot/items/")
    assert "Judge gap" in tucker and "largest" in tucker
    item = html(client, "/tuckerbench/v1-pilot/items/2e/s3-bug-correction/")
    assert "Demo Judge K: " in item and "Demo Judge Q: " in item and "gap " in item  # per-judge scores on each card


def test_transcripts_download_lists_every_transcript_for_whole_list_filtering(demo, client):
    view = build_release(demo).view("uzbek-pack", "0.1.0")
    data = json.loads(html(client, "/uzbek-pack/0.1.0/data/transcripts/1.json"))
    assert {r["id"] for r in data["transcripts"]} == set(view.transcripts)
    assert all(r["path"].startswith("uzbek-pack/0.1.0/t/") for r in data["transcripts"])


def test_counts_read_in_the_singular_when_there_is_one(client):
    item = html(client, "/tuckerbench/v1-pilot/items/2e/s3-bug-correction/")
    assert "1 response without a result" in item and "1 responses" not in item


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "t", "x-1"]), max_size=4),
    st.sampled_from(["", "x.json", "s.css"]),
    st.lists(st.sampled_from(["a", "b", "t", "x-1"]), max_size=4),
    st.sampled_from(["", "y.html"]),
)
def test_relative_links_agree_with_posix_relpath(target_dirs, target_file, here_dirs, here_file):
    target = "/" + "".join(d + "/" for d in target_dirs) + target_file
    current = "/" + "".join(d + "/" for d in here_dirs) + here_file
    rel = posixpath.relpath(target, current.rsplit("/", 1)[0] + "/")  # the standard library's answer
    if target.endswith("/") and not rel.endswith("/"):
        rel += "/"
    assert relative(target, current) == ("./" if rel in (".", "./") else rel)


def test_every_chart_spec_is_valid_vega_lite(built_site):
    """The build writes chart specs without Altair's schema check (it took most of the charts' time); every chart of
    the three demo systems is checked here instead (the importers' tests check theirs)."""
    from helpers import vega_lite_problems

    assert vega_lite_problems(built_site) == []
    assert {p.parent.parent.parent.name for p in built_site.rglob("charts/*.vl.json")} == {
        "uzbek-pack",
        "halees-dual-layer",
        "tuckerbench",
    }


_DRAW_IN_A_NEW_PROCESS = """
import json, sys
from site_src.site import drawing
spec = {"data": {"values": [{"a": "Wide label WWWWMMMM", "b": 3}, {"a": "x", "b": 5}]}, "mark": "bar",
        "encoding": {"y": {"field": "a", "type": "nominal"}, "x": {"field": "b", "type": "quantitative"}},
        "config": {"font": sys.argv[2]}}
if sys.argv[1] == "ours":
    print(drawing._draw(json.dumps(spec)))
else:  # vl-convert as it is, with the system's fonts
    print(drawing.vl_convert.vegalite_to_svg(spec))
"""


def _drawn(how: str, font: str) -> str:
    """A chart with text drawn in a new process (vl-convert makes its font database once per process), with the
    font family's name taken out, so that only the layout is compared."""
    import subprocess
    import sys

    from helpers import ROOT

    done = subprocess.run(
        [sys.executable, "-c", _DRAW_IN_A_NEW_PROCESS, how, font],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return done.stdout.replace(font, "FONT")


def test_charts_are_laid_out_with_the_drawing_librarys_own_fonts_whatever_the_system_has():
    """vl-convert measures each chart text to lay the chart out. Drawn by the build, a chart that asks for a font the
    system has (DejaVu Sans, wider than Liberation Sans) is not laid out with it, and the charts' own font family
    is laid out with the Liberation Sans vl-convert bundles: the drawings do not depend on the machine's fonts (and
    no system font file is opened for each text measured)."""
    from site_src.site.charts import CONFIG

    system = _drawn("vl-convert", "DejaVu Sans")
    if system == _drawn("vl-convert", "Liberation Sans"):
        pytest.skip("this machine has no DejaVu Sans for vl-convert to find")
    assert _drawn("ours", "DejaVu Sans") != system  # the system's DejaVu Sans was not used
    assert _drawn("ours", CONFIG["font"]) == _drawn("ours", "Liberation Sans")  # the charts' font: the bundled one


def test_the_font_setting_for_vl_convert_is_undone_after_drawing(monkeypatch):
    """Programs the build starts later (Pagefind, a browser in the tests) must find the system's fonts as before."""
    import os

    from site_src.site.drawing import OWN_FONTS_ONLY, own_fonts_only

    for before in (None, "/etc/fonts/fonts.conf"):
        if before is None:
            monkeypatch.delenv("FONTCONFIG_FILE", raising=False)
        else:
            monkeypatch.setenv("FONTCONFIG_FILE", before)
        with pytest.raises(RuntimeError), own_fonts_only():
            assert os.environ["FONTCONFIG_FILE"] == str(OWN_FONTS_ONLY) and OWN_FONTS_ONLY.is_file()
            raise RuntimeError("a drawing failed")
        assert os.environ.get("FONTCONFIG_FILE") == before


def test_no_page_or_download_writes_a_count_with_an_s_in_brackets(built_site: Path):
    """ "3 figures", never "3 figure(s)": the grep of the issue, over every text file of the built site."""
    found = [
        (str(p.relative_to(built_site)), m.group(0))
        for p in built_site.rglob("*")
        if p.suffix in (".html", ".csv", ".json", ".md", ".txt")
        for m in re.finditer(r"[0-9]+ [a-z]+\(s\)", p.read_text(encoding="utf-8"))
    ]
    assert not found, found[:5]


def _csv(built_site: Path, rel: str) -> list[dict[str, str]]:
    import csv

    with (built_site / rel).open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_leaderboard_csv_gives_each_interval_in_its_figures_unit(built_site: Path):
    """The pack's score is a proportion (21 of 24 = 0.875): its interval is a proportion too, around it."""
    for row in _csv(built_site, "uzbek-pack/0.1.0/data/leaderboard.csv"):
        if row["complete"] == "True":
            assert float(row["score"]) == int(row["score_count"]) / int(row["expected"])
            assert 0 <= float(row["score_low"]) <= float(row["score"]) <= float(row["score_high"]) <= 1
            for key in ("cyrillic_script", "json_extraction"):
                assert float(row[f"{key} low"]) <= float(row[key]) <= float(row[f"{key} high"]) <= 1


def test_leaderboard_csv_says_which_figures_are_not_final(built_site: Path):
    """Seed 001: a task has an outcome only at a pass or after its fifth iteration; the CSV keeps the latest global
    score of an unfinished task and says in its status column that it is not final."""
    rows = {r["entrant"]: r for r in _csv(built_site, "halees-dual-layer/halees-dual-layer-v1/data/leaderboard.csv")}
    assert rows["demo-system-y"]["T3"] == "71.0"
    assert rows["demo-system-y"]["T3 status"] == "not passed after 2 of 5 iterations"
    assert rows["demo-system-x"]["T3 status"] == "FAIL after 5 iterations (84)"


def test_no_csv_cell_holds_python_list_text(built_site: Path):
    found = [
        (str(p.relative_to(built_site)), cell)
        for p in built_site.rglob("*.csv")
        for row in _csv(built_site, str(p.relative_to(built_site)))
        for cell in row.values()
        if cell and cell.startswith(("['", '["'))
    ]
    assert not found, found[:5]


def test_a_turns_facts_on_one_line_are_escaped_once_and_keep_their_values():
    """The stop reason, times and token counts a turn prints on one line come from the log: escaped once, never run,
    and only a token count's name is made readable (input_tokens: input tokens), never its value."""
    from types import SimpleNamespace

    from site_src.release import Release

    app = create_app(Release([], [], False))
    turn = SimpleNamespace(
        role="assistant", state="ok", truncated=False, tool_function=None, reasoning=None, tool_calls=None,
        images=None, left_out=None, content="a <script>x</script>", stop_reason="<b>stop&</b>", started_at=None,
        completed_at="2026-01-01T00:00:00Z", usage={"input_tokens": 5, "odd_name<": "7_<i>"}, error=None,
    )  # fmt: skip
    with app.test_request_context():
        macro = app.jinja_env.from_string("{% from 'macros.html' import turn_block %}{{ turn_block(turn, 2) }}")
        page = macro.render(turn=turn)
    meta = re.search(r'<p class="turn-meta"[^>]*>(.*?)</p>', page).group(1)
    assert meta == (
        "stop reason: &lt;b&gt;stop&amp;&lt;/b&gt; · completed 2026-01-01T00:00:00Z · "
        "tokens: input tokens 5, odd name&lt; 7_&lt;i&gt;"
    )
    assert '<a class="turn-n" href="#turn-2">turn 2</a>' in page and "<script>" not in page
