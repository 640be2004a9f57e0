"""One Flask app for local preview and for freezing: the two can never disagree.

Every link is relative (computed from the page's own path), so the frozen site works from a domain root and from
a sub-path. Pages look things up in the Release computed before the app starts; none renders the whole data set.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from flask import Flask, Response, abort, render_template, request, url_for
from jinja2 import BaseLoader, ChoiceLoader, FileSystemLoader, PrefixLoader
from werkzeug.routing import BaseConverter

from .. import GENERATOR
from ..changes import LEVEL as CHANGES_LEVEL
from ..paths import TEMPLATES
from ..release import PAGE_SIZE, Release, VersionView, pages_linked, paginate
from ..systems import system_part, systems
from . import downloads, search_index
from .charts import charts_for
from .drawing import svg_for
from .feed import anchor as change_anchor
from .feed import entries as feed_entries
from .feed import feed_id
from .headtohead import PAIR_PAGES_UP_TO, head_to_head, pair_keys
from .text import breakable_path, count_markers, markdown, show_text
from .urls import FOLDED, LAYOUT, fold

CARDS_PER_PAGE = 24  # responses side by side per item page (the order: release._item_order)
CSP = (
    "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'self'; form-action 'none'; object-src 'none'"
)


FILTERS = {
    "text": show_text,
    "path": breakable_path,
    "change_anchor": change_anchor,
    "markdown": markdown,
    "markers": count_markers,
    "ord": ord,
    "pages_linked": pages_linked,
    "json_text": lambda v: json.dumps(v, ensure_ascii=False, indent=1),
}


@lru_cache(maxsize=1 << 16)
def relative(target: str, current: str) -> str:
    """The link from the page at `current` to `target`, both site-absolute paths ("/a/b/" or "/a/b.json").

    Done on path segments rather than with posixpath.relpath, which consults the working directory: every link of
    every page comes through here."""
    here = current.split("/")[1:-1]  # the folders of the page's own folder
    parts = target.split("/")[1:]  # the target's folders, then its file name ("" for a folder's index)
    common = 0
    while common < min(len(here), len(parts) - 1) and here[common] == parts[common]:
        common += 1
    rel = "../" * (len(here) - common) + "/".join(parts[common:])
    return rel or "./"


def create_app(release: Release, *, base_path: str = "/", build_date: str | None = None) -> Flask:
    """The app: every page and download of the release, each route a function named for its page."""
    app = Flask(__name__, template_folder=str(TEMPLATES), static_folder="static", static_url_path="/static")
    app.jinja_loader = template_loader()
    app.config.update(FREEZER_IGNORE_MIMETYPE_WARNINGS=False, JSON_AS_ASCII=False)
    app.jinja_env.autoescape = True
    app.jinja_env.filters.update(FILTERS)
    _add_folds(app)
    _add_links(app, release, base_path, build_date)
    _add_site_pages(app, release)
    _add_version_pages(app, release)
    _add_item_and_transcript_pages(app, release)
    _add_downloads(app, release)
    _add_charts(app, release)
    return app


def template_loader() -> BaseLoader:
    """The project's templates, and each plugin system's partials as templates/systems/<id>/ would hold them."""
    own = FileSystemLoader(TEMPLATES)
    parts = {s.id: FileSystemLoader(s.templates) for s in systems() if s.templates}
    return ChoiceLoader([own, PrefixLoader({"systems": PrefixLoader(parts)})]) if parts else own


def _view_or_404(release: Release, bench: str, version: str) -> VersionView:
    view = release.view(bench, version)
    if view is None:
        abort(404)
    return view


def _charts(view: VersionView) -> list[Any]:
    return view.once(charts_for)


class FoldConverter(BaseConverter):
    """The folder of 256 a transcript's or an item's pages lie in (urls.fold)."""

    regex = "[0-9a-f]{2}"


def _add_folds(app: Flask) -> None:
    """A transcript's or an item's URL holds the folder its id falls in: links are made with it, and a URL with
    another folder than its id's is not a page."""
    app.url_map.converters["fold"] = FoldConverter

    @app.url_defaults
    def fold_in(endpoint: str, values: dict[str, Any]) -> None:
        key = FOLDED.get(endpoint)
        if key and key in values:
            values.setdefault("fold", fold(values[key]))

    @app.url_value_preprocessor
    def fold_out(endpoint: str | None, values: dict[str, Any] | None) -> None:
        key = FOLDED.get(endpoint or "")
        if key and values is not None and values.pop("fold", None) != fold(values[key]):
            abort(404)


def _add_links(app: Flask, release: Release, base_path: str, build_date: str | None) -> None:
    """What every template is given: link(), which makes each link relative to the page, and the release."""
    urls: dict[tuple[str, str, tuple[tuple[str, Any], ...]], str] = {}  # url_for is pure here, and pages call it often

    @app.url_defaults
    def log_link(endpoint: str, values: dict[str, Any]) -> None:
        """While freezing, every url_for is noted, so a page linked but not listed is built too."""
        log = app.config.get("LINK_LOG")
        if log is not None:
            log.append((endpoint, dict(values)))

    @app.context_processor
    def helpers() -> dict[str, Any]:
        current = "/" if request.endpoint == "not_found" else request.path

        def link(endpoint: str, **values: Any) -> str:
            if endpoint == "transcript":  # at the address its version's layout gives it
                view = release.view(values["bench"], values["version"])
                endpoint = downloads.transcript_endpoint(view) if view else endpoint
            key = (request.script_root, endpoint, tuple(sorted(values.items())))
            if key not in urls:
                urls[key] = url_for(endpoint, **values)
            return relative(urls[key], current)

        return {
            "link": link,
            "release": release,
            "generator": GENERATOR,
            "csp": CSP,
            "build_date": build_date,
            "base_path": base_path if request.endpoint == "not_found" else None,
        }


def _add_site_pages(app: Flask, release: Release) -> None:
    """The home page, each benchmark's page, search, the release index and the 404 page."""

    @app.route("/")
    def index() -> str:
        return render_template("index.html", benchmarks=release.benchmarks())

    @app.route("/<bench>/")
    def benchmark(bench: str) -> str:
        latest = release.latest(bench)
        if latest is None:
            abort(404)
        views = next(vs for b, vs in release.benchmarks() if b.id == bench)
        return render_template("benchmark.html", bench=latest.bench, views=views, latest=latest)

    benchmarks = [b for b, _ in release.benchmarks()]
    if feed_entries(benchmarks):  # a route only where a benchmark keeps a changelog: the freezer lists every route

        @app.route("/feed.xml")
        def feed() -> Response:
            """The changelogs as an Atom feed."""
            atom = render_template("feed.xml", entries=feed_entries(benchmarks), feed_id=feed_id(benchmarks))
            return Response(atom, mimetype="application/atom+xml")

    if release.changes:  # a route only where the build was given an earlier site (build.py --changes-since)

        @app.route("/<bench>/changes/")
        def changes(bench: str) -> str:
            """What changed in the benchmark's versions since the earlier build."""
            latest = release.latest(bench)
            if latest is None:
                abort(404)
            level = int(CHANGES_LEVEL * 100)
            return render_template("changes.html", bench=latest.bench, changes=release.changes_of(bench), level=level)

    @app.route("/index.json")
    def index_json() -> Response:
        return Response(downloads.release_index(release, _release_entries(release)), mimetype="application/json")

    @app.route("/search/")
    def search() -> str:
        found = search_index.bundle_sizes(release)  # one Pagefind bundle per run, merged by the page's script
        return render_template("search.html", bundles=[relative(f"/{name}/", request.path) for name in found])

    @app.route("/404.html")
    def not_found() -> str:
        lean = sorted({view.bench.id for view in release.views if downloads.is_lean(view)})
        return render_template("404.html", site_layout=LAYOUT, lean=lean)

    @app.errorhandler(404)
    def missing(_: Exception) -> tuple[str, int]:
        return not_found(), 404


def _release_entries(release: Release) -> list[dict[str, Any]]:
    """index.json's benchmarks: each version's runs, leaderboard, downloads and transcript list (whose parts give
    each transcript's page and download): the index stays small at any size. A run is named with the count of its
    public files, not their list (TuckerBench's runs hold a file per transcript): publish-manifest.json lists them
    in version_sources."""
    return [
        {
            "id": bench.id,
            "title": bench.title,
            "system": bench.system,
            "layout": bench.layout,  # where its transcripts' downloads lie (docs/site-layout.md)
            "versions": [
                {
                    "id": v.version.id,
                    "content_hash": v.version.content_hash,
                    "demo": v.version.demo,
                    "runs": [
                        {"id": r.id, "format": r.format, "file_count": len(r.public_files)} for r in v.runs.values()
                    ],
                    "leaderboard": relative(url_for("leaderboard", bench=bench.id, version=v.version.id), "/"),
                    "downloads": [
                        relative(url_for(e, bench=bench.id, version=v.version.id), "/")
                        for e in ("leaderboard_json", "leaderboard_csv")
                    ],
                    "transcripts": relative(url_for("transcripts_json", bench=bench.id, version=v.version.id), "/"),
                }
                for v in views
            ],
        }
        for bench, views in release.benchmarks()
    ]


def _add_version_pages(app: Flask, release: Release) -> None:
    """A version's leaderboard, breakdown, entrants, methodology, limitations, judges and calibration."""

    @app.route("/<bench>/<version>/")
    def leaderboard(bench: str, version: str) -> str:
        view = _view_or_404(release, bench, version)
        first = next(iter(_charts(view)), None)  # a system may draw no chart at all
        board, svg = view.scored.leaderboard, svg_for(first) if first else ""
        labels = {r.key: r.label for r in board.rows}
        pairs = set(view.once(pair_keys))
        return render_template(
            "leaderboard.html", view=view, board=board, chart=first, svg=svg, labels=labels, pairs=pairs
        )

    @app.route("/<bench>/<version>/pairs/")
    def pairs(bench: str, version: str) -> str:
        """Every paired comparison, where the benchmark declares rank separation: at 20 entrants, 190 rows."""
        view = _view_or_404(release, bench, version)
        if not (view.stats and view.stats.separation):
            abort(404)
        labels = {r.key: r.label for r in view.scored.leaderboard.rows}
        return render_template("pairs.html", view=view, labels=labels)

    @app.route("/<bench>/<version>/vs/<a>/<b>/")
    def versus(bench: str, version: str, a: str, b: str) -> str:
        """Two rows head to head; only the pairs freeze lists (each once, in the leaderboard's order)."""
        view = _view_or_404(release, bench, version)
        if (a, b) not in view.once(pair_keys):
            abort(404)
        return render_template("versus.html", view=view, h=head_to_head(view, a, b))

    @app.route("/<bench>/<version>/breakdown/")
    def breakdown(bench: str, version: str) -> str:
        view = _view_or_404(release, bench, version)
        charts = [(c, svg_for(c)) for c in _charts(view)]
        return render_template("breakdown.html", view=view, board=view.scored.leaderboard, charts=charts)

    @app.route("/<bench>/<version>/entrants/<entrant_id>/", defaults={"number": 1})
    @app.route("/<bench>/<version>/entrants/<entrant_id>/page/<int:number>/")
    def entrant(bench: str, version: str, entrant_id: str, number: int) -> str:
        return _entrant_page(_view_or_404(release, bench, version), entrant_id, number)

    @app.route("/<bench>/<version>/methodology/")
    def methodology(bench: str, version: str) -> str:
        return render_template("methodology.html", view=_view_or_404(release, bench, version))

    @app.route("/<bench>/<version>/limitations/")
    def limitations(bench: str, version: str) -> str:
        view = _view_or_404(release, bench, version)
        return render_template("limitations.html", view=view, caveats=caveats(view))

    def judge_page(bench: str, version: str, name: str) -> str:
        """The judges and calibration pages exist only where the benchmark declares them and judges were run."""
        view = _view_or_404(release, bench, version)
        if not view.declares(name) or not view.judge_reports:
            abort(404)
        return render_template(f"{name}.html", view=view)

    @app.route("/<bench>/<version>/judges/")
    def judges(bench: str, version: str) -> str:
        return judge_page(bench, version, "judges")

    @app.route("/<bench>/<version>/calibration/")
    def calibration(bench: str, version: str) -> str:
        return judge_page(bench, version, "calibration")


def _entrant_page(view: VersionView, entrant_id: str, number: int) -> str:
    if entrant_id not in view.entrants:
        abort(404)
    listed = view.by_entrant.get(entrant_id, [])
    shown, pages = paginate(listed, number)
    if number > pages:
        abort(404)
    first = number == 1  # the standing, profile, runs and diagnostics: on the first page, which the others link to
    return render_template(
        "entrant.html",
        view=view,
        entrant=view.entrants[entrant_id],
        runs=view.runs_of(entrant_id) if first else [],
        rows=view.rows_for(entrant_id) if first else [],
        profile=entrant_profile(view, entrant_id) if first else None,
        transcripts=shown,
        total=len(listed),
        number=number,
        pages=pages,
        diagnostics=view.diagnostics[entrant_id],
        versus=_versus_links(view, entrant_id) if first else [],
        pair_pages_up_to=PAIR_PAGES_UP_TO,
    )


def _versus_links(view: VersionView, entrant_id: str) -> list[tuple[str, str, str]]:
    """(the other row's label, a, b) for each head-to-head page this entrant's rows take part in."""
    mine = {r.key for r in view.rows_for(entrant_id)}
    labels = {r.key: r.label for r in view.rows}
    return [(labels[b if a in mine else a], a, b) for a, b in view.once(pair_keys) if a in mine or b in mine]


def _add_item_and_transcript_pages(app: Flask, release: Release) -> None:
    """The items list, each item's pages, the transcripts list and each transcript's page."""

    @app.route("/<bench>/<version>/items/", defaults={"number": 1})
    @app.route("/<bench>/<version>/items/page/<int:number>/")
    def items(bench: str, version: str, number: int) -> str:
        view = _view_or_404(release, bench, version)
        shown, pages = paginate(view.version.items, number)
        if number > pages:
            abort(404)
        analysis = view.once(item_analysis)
        return render_template("items.html", view=view, analysis=analysis, shown=shown, number=number, pages=pages)

    @app.route("/<bench>/<version>/items/<fold:fold>/<item_id>/", defaults={"number": 1})
    @app.route("/<bench>/<version>/items/<fold:fold>/<item_id>/page/<int:number>/")
    def item(bench: str, version: str, item_id: str, number: int) -> str:
        return _item_page(_view_or_404(release, bench, version), item_id, number)

    @app.route("/<bench>/<version>/transcripts/", defaults={"number": 1})
    @app.route("/<bench>/<version>/transcripts/page/<int:number>/")
    def transcripts(bench: str, version: str, number: int) -> str:
        view = _view_or_404(release, bench, version)
        rows, pages = paginate(list(view.transcripts.values()), number)
        if number > pages:
            abort(404)
        present = view.once(result_states)  # the result filter offers only the states that occur
        return render_template("transcripts.html", view=view, rows=rows, number=number, pages=pages, present=present,
                               list_part=downloads.LIST_PART)  # fmt: skip

    @app.route("/<bench>/<version>/t/<fold:fold>/<tid>/")
    def transcript(bench: str, version: str, tid: str) -> str:
        return _transcript_page(release, bench, version, tid, "transcript")

    @app.route("/<bench>/<version>/t/<fold:fold>/<tid>.html")
    def lean_transcript(bench: str, version: str, tid: str) -> str:
        return _transcript_page(release, bench, version, tid, "lean_transcript")


def _transcript_page(release: Release, bench: str, version: str, tid: str, endpoint: str) -> str:
    """A transcript's page, at the one address its version's layout gives it (downloads.transcript_endpoint)."""
    view = _view_or_404(release, bench, version)
    if tid not in view.transcripts or downloads.transcript_endpoint(view) != endpoint:
        abort(404)
    return render_template("transcript.html", **transcript_context(view, tid))


def responses_per_page(view: VersionView) -> int:
    """How many responses an item's page shows: 24 side by side with their texts, or in the lean layout a table of
    PAGE_SIZE rows without them (an item of 166,667 responses has 6,945 pages of 24, 1,667 of 100)."""
    return PAGE_SIZE if downloads.is_lean(view) else CARDS_PER_PAGE


def _item_page(view: VersionView, item_id: str, number: int) -> str:
    if item_id not in view.by_item:
        abort(404)
    ordered = view.item_transcripts(item_id)
    cards, pages = paginate(ordered, number, responses_per_page(view))
    if number > pages:
        abort(404)
    return render_template(
        "item.html",
        view=view,
        item=view.version.item(item_id),
        analysis=view.once(item_analysis)[item_id] if number == 1 else None,  # later pages link to the first
        judge_labels=view.judge_labels,
        transcripts=cards,
        total=len(ordered),
        entrant_count=view.once(item_entrants)[item_id],
        number=number,
        pages=pages,
        lean=downloads.is_lean(view),
    )


def _add_downloads(app: Flask, release: Release) -> None:
    """A version's data downloads: the leaderboard, the statistics, the judges' report, the transcripts."""

    def download(data: str | bytes, mimetype: str = "application/json") -> Response:
        return Response(data, mimetype=mimetype)

    @app.route("/<bench>/<version>/data/leaderboard.json")
    def leaderboard_json(bench: str, version: str) -> Response:
        return download(downloads.leaderboard_json(_view_or_404(release, bench, version)))

    @app.route("/<bench>/<version>/data/leaderboard.csv")
    def leaderboard_csv(bench: str, version: str) -> Response:
        return download(downloads.leaderboard_csv(_view_or_404(release, bench, version)), "text/csv")

    @app.route("/<bench>/<version>/data/statistics.json")
    def statistics_json(bench: str, version: str) -> Response:
        return download(downloads.statistics_json(_view_or_404(release, bench, version)))

    @app.route("/<bench>/<version>/data/judges.json")
    def judges_json(bench: str, version: str) -> Response:
        view = _view_or_404(release, bench, version)
        if not view.judge_reports:
            abort(404)
        return download(downloads.judges_json(view))

    @app.route("/<bench>/<version>/data/items.json")
    def items_json(bench: str, version: str) -> Response:
        view = _view_or_404(release, bench, version)
        return download(downloads.items_list_json(view, view.once(item_analysis)))

    @app.route("/<bench>/<version>/data/transcripts.json")
    def transcripts_json(bench: str, version: str) -> Response:
        return download(downloads.transcripts_list_json(_view_or_404(release, bench, version)))

    @app.route("/<bench>/<version>/data/transcripts/<int:number>.json")
    def transcripts_part_json(bench: str, version: str, number: int) -> Response:
        view = _view_or_404(release, bench, version)
        if not 1 <= number <= downloads.list_parts(view):
            abort(404)
        return download(downloads.transcripts_part_json(view, number))

    @app.route("/<bench>/<version>/data/t/<fold:fold>/<tid>.json")
    def transcript_json(bench: str, version: str, tid: str) -> Response:
        view = _view_or_404(release, bench, version)
        if tid not in view.transcripts or downloads.is_lean(view):
            abort(404)
        return download(downloads.transcript_json(view, tid))

    @app.route("/<bench>/<version>/data/t/<fold:folder>/<run>.jsonl.gz")
    def transcripts_jsonl(bench: str, version: str, folder: str, run: str) -> Response:
        view = _view_or_404(release, bench, version)
        if not downloads.is_lean(view) or (run, folder) not in downloads.run_parts(view):
            abort(404)
        return download(downloads.transcripts_jsonl(view, run, folder), "application/gzip")


def _add_charts(app: Flask, release: Release) -> None:
    """Each chart of a version as SVG, as its Vega-Lite spec and as CSV."""

    def chart_named(bench: str, version: str, name: str) -> Any:
        chart = next((c for c in _charts(_view_or_404(release, bench, version)) if c.name == name), None)
        if chart is None:
            abort(404)
        return chart

    @app.route("/<bench>/<version>/charts/<name>.svg")
    def chart_svg(bench: str, version: str, name: str) -> Response:
        return Response(svg_for(chart_named(bench, version, name)), mimetype="image/svg+xml")

    @app.route("/<bench>/<version>/charts/<name>.vl.json")
    def chart_spec(bench: str, version: str, name: str) -> Response:
        return Response(chart_named(bench, version, name).spec_json(), mimetype="application/json")

    @app.route("/<bench>/<version>/charts/<name>.csv")
    def chart_csv(bench: str, version: str, name: str) -> Response:
        return Response(chart_named(bench, version, name).csv(), mimetype="text/csv")


def result_states(view: VersionView) -> set[str]:
    return {s.state for s in view.summaries.values()}


def item_entrants(view: VersionView) -> dict[str, int]:
    """Per item: how many entrants responded to it."""
    return {item_id: len({t.entrant_id for t in ts}) for item_id, ts in view.by_item.items()}


def item_analysis(view: VersionView) -> dict[str, dict[str, Any]]:
    """Per item: how its responses fared (passes of those graded, or the mean score of those scored, with counts),
    how many have no result yet, and how far the judges' scores of one response lie apart on average."""
    out = {}
    in_words = system_part(view.bench.system, "display").item_result
    for item_id in (i.id for i in view.version.items):
        summaries = [view.summaries[t.id] for t in view.by_item.get(item_id, [])]
        passes = sum(1 for s in summaries if s.state == "pass")
        graded = passes + sum(1 for s in summaries if s.state == "fail")
        values = [s.value for s in summaries if s.state not in ("pass", "fail") and s.value is not None]
        gaps = []
        for t in view.by_item.get(item_id, []):
            by_judge = getattr(view.scored.transcripts.get(t.id), "by_judge", None) or {}
            scored = [v for v in by_judge.values() if v is not None]
            if len(scored) >= 2 and len(scored) == len(by_judge):
                gaps.append(max(scored) - min(scored))
        out[item_id] = {
            "responses": len(summaries),
            "passes": passes,
            "graded": graded,
            "pass_rate": passes / graded if graded else None,
            "mean": sum(values) / len(values) if values else None,
            "scored": len(values),
            "unresolved": len(summaries) - graded - len(values),
            "gap": sum(gaps) / len(gaps) if gaps else None,
            "gap_n": len(gaps),
            "largest_gap": max(gaps, default=None),
            # where a system names its outcomes (a pairwise loss "lost", not "0 / 1 pass"): (text, sort value)
            "words": in_words(summaries) if in_words else None,
        }
    return out


def entrant_profile(view: VersionView, entrant_id: str) -> list[dict[str, Any]]:
    """Per breakdown column: this entrant's figure per row, its position among complete rows (where the benchmark
    ranks), and the lowest and highest figures of complete rows, each as the system writes it."""
    mine = view.rows_for(entrant_id)
    complete = [r for r in view.rows if r.complete]
    out = []
    for key, title in view.scored.leaderboard.columns:
        field = sorted(
            ((r.cells[key].value, r) for r in complete if key in r.cells and r.cells[key].value is not None),
            key=lambda pair: pair[0],
        )
        entries = []
        for row in mine:
            cell = row.cells.get(key)
            if cell is None:
                continue
            position = None
            if view.scored.leaderboard.ranked and row.complete and cell.value is not None and field:
                position = 1 + sum(1 for value, _ in field if value > cell.value)
            entries.append({"row": row, "text": view.cell_text(key, cell), "position": position})
        if not entries:
            continue
        low = (field[0][1], view.cell_text(key, field[0][1].cells[key])) if field else None
        high = (field[-1][1], view.cell_text(key, field[-1][1].cells[key])) if field else None
        out.append({"title": title, "entries": entries, "of": len(field), "low": low, "high": high})
    return out


def transcript_context(view: VersionView, tid: str) -> dict[str, Any]:
    """What a transcript page shows, apart from the site around it (also rendered alone by the benchmark)."""
    t = view.transcripts[tid]
    run = view.runs[t.run_id]
    return {
        "view": view,
        "t": t,
        "run": run,
        "item": view.version.item(t.item_id),
        "entrant": view.entrants[t.entrant_id],
        "result": view.scored.transcripts.get(tid),
        "summary": view.summaries[tid],
        "judgments": view.judgments_for(tid),
        "judges": {j.id: j for j in run.judges},
        "download": downloads.transcript_download(view, tid),
        "lean": downloads.is_lean(view),
    }


def _unfinished(row: Any) -> str:
    return next((f.detail for f in row.flags if f.code in ("incomplete", "partial")), "unfinished")


def caveats(view: VersionView) -> list[tuple[str, str, str]]:
    """Caveats generated from the data: (flag code, title, text). Flag links on the leaderboard point here."""
    out: list[tuple[str, str, str]] = []
    rows = view.rows
    incomplete = [r for r in rows if not r.complete]
    if incomplete:
        out.append(
            (
                "incomplete",
                "Coverage gaps",
                "; ".join(f"{r.label}: {', '.join(r.coverage.gaps()) or _unfinished(r)}" for r in incomplete)
                + ". These rows are listed with their coverage and are never ranked or given a full score.",
            )
        )
    for code, title in (
        ("same_family_judge", "Same-family judges"),
        ("transport", "Settings a transport did not honour"),
        ("discrepancy", "Stored figures that disagree with the recomputation"),
        ("truncated", "Truncated outputs"),
        ("empty", "Empty outputs"),
        ("needs_review", "Cases under review"),
        ("low_confidence", "Low grader confidence"),
        ("partial", "Logs holding fewer samples than they report"),
        ("subset", "Runs of part of the dataset"),
    ):
        flagged = [(r, f) for r in rows for f in r.flags if f.code == code]
        if flagged:
            out.append((code, title, "; ".join(f"{r.label}: {f.detail}" for r, f in flagged) + "."))
    sizes = {r.coverage.expected for r in rows}
    n_items = len(view.version.items)
    if view.bench.rank_claims:
        out.append(
            (
                "sample-size",
                "Sample size",
                f"{n_items} items per entrant ({', '.join(map(str, sorted(sizes)))} "
                "expected records per row) are too few to separate close scores; ranks are descriptive only.",
            )
        )
    else:
        out.append(
            (
                "sample-size",
                "No ranking",
                f"{n_items} items cannot support claims of significance or "
                "superiority; entrants are listed, not ranked.",
            )
        )
    return out
