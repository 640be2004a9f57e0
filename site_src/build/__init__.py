"""The build room: the one place that reads, scores, scans, renders, indexes and publishes a site, and the only one
that knows the build cache and the output folder. pipeline.build() is the whole build, phase by phase:

    read -> score -> scan -> render -> index -> manifest -> put in place

reading.py    the read phase: run directories read in worker processes, unchanged ones taken from the cache
scanning.py   the scan phase: secrets in the release before rendering, and in every written file after
manifest.py   the manifest phase: every published file with its SHA-256 and sources
output.py     the output folder: where a build may write, the new site beside it, putting it in place
merge.py      build.py merge: shards, as untrusted input, checked with no run read (summary.py: each version's
              summary in its shards' manifests; taking.py: their files checked, scanned and linked in)
cache.py      what a rebuild keeps (page_keys.py: what each page shows, as a key), kept sealed (store.py, sealed.py,
              codec.py): data, never code
preview.py    build.py serve: the same app, served while it reads the runs again on change
"""

from .config import BuildConfig
from .pipeline import build, build_site

__all__ = ["BuildConfig", "build", "build_site"]
