"""What changed between two builds, as read from their published data (each version's `data/leaderboard.json` and
`data/transcripts.json`): the records a comparison is made from and gives. The comparison is in
scoring/changes.py; `build.py diff` prints it (release_diff.py) and `build.py --changes-since` shows it on each
benchmark's Changes page."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LEVEL = 0.95  # of the paired interval of each move


class DiffError(ValueError):
    pass


@dataclass(frozen=True)
class PublishedVersion:
    board: dict[str, Any]  # data/leaderboard.json
    transcripts: list[dict[str, Any]]  # data/transcripts.json's list


@dataclass(frozen=True)
class Published:
    """A build's published data: benchmark/version -> its leaderboard and transcript list."""

    versions: dict[str, PublishedVersion]
    digest: str = ""  # SHA-256 over the files read (a build given them re-renders when they change)


@dataclass
class RowChange:
    row: str  # the entrant and its runs
    label: str
    old_rank: int | None
    new_rank: int | None
    old_score: float | None
    new_score: float | None
    item_move: float | None = None  # mean item result, new minus old, over the items answered in both
    interval: tuple[float, float] | None = None
    items: int = 0
    entrant: str = ""  # the entrant's id

    @property
    def moved(self) -> bool:
        return (self.old_rank, self.old_score) != (self.new_rank, self.new_score) or bool(self.item_move)

    @property
    def verdict(self) -> str | None:
        """Whether the paired interval of the move excludes zero; None without an interval."""
        if self.interval is None:
            return None
        if self.interval == (0.0, 0.0):
            return "no move"  # every item's result as it was
        return "a real move" if self.interval[0] > 0 or self.interval[1] < 0 else "within the noise"


@dataclass
class VersionChange:
    version: str  # benchmark/version
    status: str  # compared | added | removed | not comparable: different definition
    rows: list[RowChange] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    flipped: list[tuple[str, str, str]] = field(default_factory=list)  # (transcript id, old state, new state)
    discrepancies_new: list[str] = field(default_factory=list)
    discrepancies_resolved: list[str] = field(default_factory=list)

    @property
    def benchmark(self) -> str:
        return self.version.split("/", 1)[0]

    @property
    def version_id(self) -> str:
        return self.version.split("/", 1)[1]

    @property
    def unchanged(self) -> bool:
        moved = any(c.moved for c in self.rows)
        listed = self.added or self.removed or self.flipped or self.discrepancies_new or self.discrepancies_resolved
        return self.status == "compared" and not moved and not listed


def read_published(site: Path) -> Published:
    """Every version a built site published, read whole; a folder that is no built site is refused by name."""
    if not site.is_dir():
        raise DiffError(f"{site}: not a folder (give a built site, e.g. a _site folder)")
    boards = sorted(site.glob("*/*/data/leaderboard.json"))
    if not boards:
        raise DiffError(f"{site}: holds no */*/data/leaderboard.json: not a site built by build.py")
    digest = hashlib.sha256()
    versions = {}
    for board_path in boards:
        folder = board_path.parent
        name = f"{folder.parent.parent.name}/{folder.parent.name}"
        board, listed = _load(board_path, digest), _load(folder / "transcripts.json", digest)
        if not isinstance(board, dict) or not isinstance(listed, dict) or "rows" not in board:
            raise DiffError(f"{folder}: its leaderboard.json or transcripts.json is not what build.py writes")
        versions[name] = PublishedVersion(board, _listed(site, name, listed, digest))
    return Published(versions, digest.hexdigest())


def list_part_paths(name: str, listed: dict[str, Any]) -> list[str]:
    """The parts a version's transcripts.json names (site layout 2), which must be its own numbered parts; none
    for a list of layout 1, which holds its transcripts itself."""
    if not isinstance(listed, dict):
        raise DiffError(f"{name}/data/transcripts.json: not what build.py writes")
    parts = listed.get("parts")
    if parts is None:
        return []
    expected = (
        [f"{name}/data/transcripts/{n}.json" for n in range(1, len(parts) + 1)] if isinstance(parts, list) else []
    )
    if parts != expected:
        raise DiffError(f"{name}/data/transcripts.json: its parts are not {name}/data/transcripts/1.json, 2.json, …")
    return expected


def _listed(site: Path, name: str, listed: dict[str, Any], digest: Any) -> list[dict[str, Any]]:
    """A version's published transcript list, from its parts (layout 2) or as transcripts.json holds it (layout 1)."""
    paths = list_part_paths(name, listed)
    if not paths:
        return listed.get("transcripts", [])
    rows: list[dict[str, Any]] = []
    for rel in paths:
        part = _load(site / rel, digest)
        if not isinstance(part, dict) or not isinstance(part.get("transcripts"), list):
            raise DiffError(f"{site / rel}: not a part of a transcript list as build.py writes it")
        rows.extend(part["transcripts"])
    return rows


def _load(path: Path, digest: Any) -> Any:
    try:
        data = path.read_bytes()
        digest.update(data)
        return json.loads(data)
    except (OSError, ValueError) as exc:
        raise DiffError(f"{path}: cannot be read ({exc})") from None
