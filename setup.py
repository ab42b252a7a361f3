"""Package build: the checkout's top-level folders travel inside the package.

The project keeps ``templates/``, ``static/`` and ``migrations/`` at the top level
(where people look for them). An installed package carries nothing outside its own
folder, so every wheel (and every wheel built from the sdist) gets a copy of them
inside ``guardsvc/``, where ``guardsvc.packaged`` looks first, and the compiled
catalogues (``.mo``) built from the ``.po`` files. An editable install reads the
folders in place, so it only compiles the catalogues (they are never committed).
Metadata and dependencies are in setup.cfg.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
FOLDERS = ("templates", "static", "migrations")


def compile_catalogues(translations):
    """Build every ``<language>/LC_MESSAGES/messages.mo`` under ``translations`` from its ``.po``."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po_path in Path(translations).glob("*/LC_MESSAGES/messages.po"):
        with po_path.open("rb") as po_file:
            catalogue = read_po(po_file, locale=po_path.parent.parent.name)
        with po_path.with_suffix(".mo").open("wb") as mo_file:
            write_mo(mo_file, catalogue)


class BuildWithResources(build_py):
    """build_py, plus the top-level folders copied into the package and the catalogues compiled."""

    def run(self):
        super().run()
        if self.editable_mode:
            compile_catalogues(ROOT / "guardsvc" / "translations")
            return
        package = Path(self.build_lib) / "guardsvc"
        for name in FOLDERS:
            target = package / name
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(ROOT / name, target,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        compile_catalogues(package / "translations")


setup(cmdclass={"build_py": BuildWithResources})
