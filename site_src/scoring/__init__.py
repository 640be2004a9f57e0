"""Scorers: pure functions from typed records to recomputed results. No file or network I/O here."""
