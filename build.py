#!/usr/bin/env python3
"""evalboard command line.

python build.py                 build the site into _site/
python build.py check [PATHS]   validate definitions and runs; exit 1 on any error
python build.py scores [PATHS]  print the recomputed tables as plain text
python build.py serve           preview the site locally
"""

from site_src.cli import console

if __name__ == "__main__":
    console()
