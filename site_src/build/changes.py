"""`build.py --changes-since OLD_SITE`: the release compared with an earlier build's published data, for each
benchmark's Changes page. This build's side is what it publishes (its leaderboard and transcript list downloads, as
redacted), so the page says what `build.py diff OLD_SITE NEW_SITE` says of the two folders."""

from __future__ import annotations

import json

from ..changes import Published, PublishedVersion
from ..jsonio import dumps_canonical
from ..release import Release
from ..scoring.changes import compare
from ..site import downloads


def published(release: Release) -> Published:
    """The data this release publishes, as read_published would read it back from the built site."""
    return Published(
        {
            view.folder: PublishedVersion(
                json.loads(downloads.leaderboard_json(view)),
                json.loads(dumps_canonical(downloads.transcript_rows(view))),  # as its parts are read back
            )
            for view in release.views
        }
    )


def add_changes(release: Release, previous: Published) -> None:
    release.changes[:] = compare(previous, published(release))
