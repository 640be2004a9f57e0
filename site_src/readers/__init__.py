"""Readers: files in content/ and runs/ -> the typed model in site_src.model, with every problem reported."""
