"""evalboard: recompute LLM-evaluation scores from raw run directories and publish them as a static site.

The pipeline, one direction only:

    readers/  (files -> typed records, with every problem named by file, record and field)
    scoring/  (pure functions: records -> recomputed tables, coverage, discrepancies)
    site/     (tables and records -> pages, frozen into a static folder)
"""

__version__ = "0.1.0"
GENERATOR = f"evalboard {__version__}"
