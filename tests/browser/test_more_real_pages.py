"""The browser checks on pages built from the MT-Bench (plugin) and lm-evaluation-harness fixtures, imported as a user
imports them and served from a sub-path: no WCAG AA violation, and no sideways scrolling at 375 px."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers import MT_BENCH_PLUGIN, ROOT, fold, plugin_installed, wcag_violations

import site_src.cli as cli
from site_src.site.serve_static import serve

LM_EVAL_RUN = "rylanschaeffer-mem-qwen3-93m-minerva-math-rep-0-sbst-1.0000-epch-1-ot-1"
LM_TID = f"{LM_EVAL_RUN}--math_perturbed_full--3"
PAGES = {
    "mt-bench leaderboard": "mt-bench/v1/",
    "mt-bench breakdown": "mt-bench/v1/breakdown/",
    "mt-bench transcript": "mt-bench/v1/t/2a/phi-3-dpo--101/",
    "mt-bench item": "mt-bench/v1/items/16/101/",
    "lm-eval leaderboard": "math/v1/",
    "lm-eval breakdown": "math/v1/breakdown/",
    # a model named by a long unbroken path: its label must wrap on a phone
    "lm-eval transcript": f"math/v1/t/{fold(LM_TID)}/{LM_TID}/",
}


@pytest.fixture(scope="module")
def more_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("more-real")
    argv = ["--content", str(root / "content"), "--runs", str(root / "runs")]
    (root / "content").mkdir()
    lm_eval = ROOT / "tests/fixtures/lm_eval/results_2026-01-21T03-44-18.458309.json"
    with plugin_installed(MT_BENCH_PLUGIN, "mt-bench", "evalboard_mtbench"):
        fastchat = ROOT / "tests/fixtures/mt_bench/mt_bench"
        assert cli.main(["import", "mt-bench", str(fastchat), "--benchmark", "mt-bench", *argv]) == 0
        assert cli.main(["import", "lm-eval", str(lm_eval), "--benchmark", "math", *argv]) == 0
        assert cli.main([*argv, "--out", str(root / "site"), "--base-path", "/repo/", "-q"]) == 0
    server, url = serve(root / "site", "/repo/")
    yield url
    server.shutdown()


@pytest.mark.parametrize("name", list(PAGES))
def test_real_pages_pass_axe_and_fit_a_phone(chromium_browser, more_url, name):
    for width in (375, 1280):
        context = chromium_browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        assert page.goto(more_url + PAGES[name]).status == 200
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        if width == 1280:
            assert not wcag_violations(page)
        context.close()
