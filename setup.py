"""The one step pyproject.toml cannot say: a wheel carries the repository's templates/ inside the package
(site_src/templates/), where site_src/paths.py finds them once installed. Everything else is in pyproject.toml."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithTemplates(build_py):
    def run(self) -> None:
        super().run()
        if not self.editable_mode:  # an editable install reads templates/ in the checkout
            target = Path(self.build_lib) / "site_src" / "templates"
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(Path(__file__).parent / "templates", target)


setup(cmdclass={"build_py": BuildWithTemplates})
