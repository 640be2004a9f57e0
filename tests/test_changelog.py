"""A benchmark's changelog (content/<benchmark>/changelog.yaml, written by its author) on its page and as one Atom
feed, /feed.xml, with stable ids: valid Atom (RFC 4287's required elements), the author's text rendered without
raw HTML, and a bad file refused with its name."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from helpers import copy_project
from test_importers import build

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    project = copy_project(tmp_path_factory.mktemp("changelog") / "p")
    path = project / "content/uzbek-pack/changelog.yaml"
    path.write_text(
        path.read_text(encoding="utf-8")
        + '  - date: "2026-12-01"\n    title: A <script>alert(1)</script> note\n'
        + "    summary: Raw <script>alert(2)</script> HTML stays *text*.\n",
        encoding="utf-8",
    )
    for out in ("_a", "_b"):
        done = build(project, "--out", out, "--no-search", "-q")
        assert done.returncode == 0, done.stdout + done.stderr
    return project


def test_the_feed_is_atom_with_every_required_element_and_the_newest_entry_first(site):
    root = ET.parse(site / "_a/feed.xml").getroot()
    assert root.tag == ATOM + "feed"
    for name in ("id", "title", "updated", "author"):
        assert root.find(ATOM + name) is not None, name
    entries = root.findall(ATOM + "entry")
    assert len(entries) == 2
    for e in entries:
        for name in ("id", "title", "updated", "link", "content"):
            assert e.find(ATOM + name) is not None, name
    assert [e.find(ATOM + "updated").text for e in entries] == ["2026-12-01T00:00:00Z", "2026-11-25T00:00:00Z"]
    assert root.find(ATOM + "updated").text == "2026-12-01T00:00:00Z"
    assert entries[1].find(ATOM + "link").get("href") == "uzbek-pack/#change-2026-11-25-first-release-of-the-demo-pack"
    content = entries[0].find(ATOM + "content").text
    assert "&lt;script&gt;" in content and "<script>" not in content and "<em>text</em>" in content


def test_feed_ids_are_stable_from_one_build_to_the_next(site):
    assert (site / "_a/feed.xml").read_bytes() == (site / "_b/feed.xml").read_bytes()
    ids = [e.find(ATOM + "id").text for e in ET.parse(site / "_a/feed.xml").getroot().findall(ATOM + "entry")]
    assert ids[1] == "urn:evalboard:uzbek-pack:change-2026-11-25-first-release-of-the-demo-pack"


def test_the_benchmark_page_shows_its_changelog_and_stays_a_page(site):
    page = (site / "_a/uzbek-pack/index.html").read_text(encoding="utf-8")
    assert 'id="change-2026-11-25-first-release-of-the-demo-pack"' in page and 'href="0.1.0/">0.1.0</a>' in page
    assert 'http-equiv="refresh"' not in page and 'href="../feed.xml">Atom feed</a>' in page
    assert "<script>alert" not in page
    tucker = (site / "_a/tuckerbench/index.html").read_text(encoding="utf-8")
    assert 'http-equiv="refresh"' in tucker  # no changelog: it forwards to the latest version, as before


def test_a_bad_changelog_is_refused_naming_its_file_and_an_unknown_version_is_said(tmp_path):
    project = copy_project(tmp_path / "p")
    path = project / "content/uzbek-pack/changelog.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("version: 0.1.0", "version: 9.9.9"), encoding="utf-8")
    done = build(project, "check")
    assert "content/uzbek-pack/changelog.yaml" in done.stdout + done.stderr and "'9.9.9'" in done.stdout + done.stderr
    path.write_text(text.replace('"2026-11-25"', '"25 November"'), encoding="utf-8")
    done = build(project, "check")
    assert done.returncode == 1 and "content/uzbek-pack/changelog.yaml" in done.stdout + done.stderr
