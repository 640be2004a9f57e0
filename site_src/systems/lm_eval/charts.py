"""lm-eval charts: none of its own (the shared overall chart shows the recomputed score on its declared range)."""

from __future__ import annotations

from ...release import VersionView


def charts(view: VersionView) -> list:
    return []
