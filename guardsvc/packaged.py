"""The files the service needs at run time, however it was installed.

In a checkout (and an editable install) ``templates/``, ``static/`` and
``migrations/`` sit at the top level beside the package; a wheel or an sdist
build copies them into the package (``setup.py``), since nothing outside it
travels with an installed package. The compiled catalogues (``.mo``) are built
from the ``.po`` files by the set-up and by every package build; a missing one
would show English readers Indonesian under ``<html lang="en">``, so it stops
the start instead.
"""
from pathlib import Path

from guardsvc.translation import LANGUAGES

PACKAGE = Path(__file__).resolve().parent
FOLDERS = ("templates", "static", "migrations")
CATALOGUES = PACKAGE / "translations"
# The languages translated from the source language (Indonesian, the message ids themselves).
TRANSLATED = LANGUAGES[1:]


def folder(name):
    """The folder ``name`` (one of FOLDERS): the package's copy when installed, else the checkout's."""
    packaged = PACKAGE / name
    return packaged if packaged.is_dir() else PACKAGE.parent / name


def catalogue(language):
    return CATALOGUES / language / "LC_MESSAGES" / "messages.mo"


def missing():
    """What the service cannot serve without, each named with its fix; empty when all is there."""
    problems = [f"the folder {name}/ is missing (looked in {PACKAGE} and {PACKAGE.parent}): install "
                "guardsvc from a wheel or an sdist built from the project, or run it from a full checkout"
                for name in FOLDERS if not folder(name).is_dir()]
    problems += [f"the compiled catalogue {catalogue(language)} is missing, so pages could not be shown "
                 f"in {language!r}: run `scripts/translations compile` in a checkout (the set-up does), "
                 "or install a wheel (its build compiles them)"
                 for language in TRANSLATED if not catalogue(language).is_file()]
    return problems
