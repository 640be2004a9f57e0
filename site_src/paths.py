"""Where evalboard's own files are, in a checkout of its repository and once installed from a wheel.

In a checkout the templates are the repository's `templates/`; a wheel carries them inside the package
(`site_src/templates/`, copied there by setup.py when the wheel is built). Either way the package's own files
(schemas, static files, secret rules) sit beside its code."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent  # the repository, when the package runs from a checkout (an editable install included)
TEMPLATES = PACKAGE / "templates" if (PACKAGE / "templates").is_dir() else CHECKOUT / "templates"
STATIC = PACKAGE / "site" / "static"
