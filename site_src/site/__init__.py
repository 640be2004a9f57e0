"""The site: one Flask app, previewed with `build.py serve` and frozen with Frozen-Flask by `build.py`."""
