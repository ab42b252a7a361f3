"""Every GUARDSVC_* setting the code reads is in a settings table of docs/, with the code's default, and
every setting a table names is read: the docs cannot drift from guardsvc/config.py.

A table row names its settings in its first cell: ``| `GUARDSVC_MAIL_TIMEOUT_SECONDS` / `_MAX_ATTEMPTS` |``
(a short name continues the first one's group: ``GUARDSVC_MAIL_`` + ``MAX_ATTEMPTS``); the second cell
starts with the defaults in the same order, ``| `15` / `10` |`` (or a sentence: unset, generated, ...).
"""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "guardsvc" / "config.py"
READERS = {"text", "number", "flag", "limit", "url", "host_name", "choice"}
# Read, and deliberately in no table: said where they matter.
NOT_IN_A_TABLE = {
    "TESTING_CHEAP_PASSWORD_HASHES": "the test suite's switch; config.py warns when it is on",
    "SERVED_BY_PROJECT_CONFIG": "set by gunicorn.conf.py for its own workers, never by an operator",
}
ROW = re.compile(r"^\|\s*(`GUARDSVC_[^|]*)\|([^|]*)\|", re.M)


def read_in_code():
    """``{NAME: default or None}`` of every ``read.<kind>("NAME", default)`` in config.py."""
    found = {}
    for node in ast.walk(ast.parse(CONFIG.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in READERS
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            continue
        default = node.args[1] if len(node.args) > 1 else next(
            (keyword.value for keyword in node.keywords if keyword.arg == "default"), None)
        value = default.value if isinstance(default, ast.Constant) else None
        name = node.args[0].value
        if found.get(name) is None:
            found[name] = value
    found.update({"SERVED_BY_PROJECT_CONFIG": None,  # config.SERVER_CONFIGURED
                  "NODE_NAME": None})  # config.node_name: given but empty is a problem, not the default
    return found


def continued(first, short):
    """``_MAX_ATTEMPTS`` after ``MAIL_TIMEOUT_SECONDS``: as many words of the first name replaced, its group kept."""
    words, replaced = first.split("_"), short.split("_")
    return "_".join(words[:max(1, len(words) - len(replaced))] + replaced)


def documented():
    """``{NAME: documented default or None}`` from every settings table row under docs/ and the README."""
    found = {}
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for names_cell, defaults_cell in ROW.findall(page.read_text(encoding="utf-8")):
            names = re.findall(r"`(GUARDSVC_[A-Z0-9_]+|_[A-Z0-9_]+)`", names_cell)
            full = [name.removeprefix("GUARDSVC_") if name.startswith("GUARDSVC_") else
                    continued(names[0].removeprefix("GUARDSVC_"), name[1:]) for name in names]
            defaults = [part.strip() for part in defaults_cell.split(" — ")[0].split(" / ")]
            for index, name in enumerate(full):
                given = defaults[index] if len(defaults) == len(full) else ""
                literal = re.fullmatch(r"`([^`]*)`", given)
                found.setdefault(name, literal[1] if literal else None)
    return found


def test_every_setting_read_is_documented_and_every_documented_one_is_read():
    code, docs = read_in_code(), documented()
    assert sorted(set(code) - set(docs) - set(NOT_IN_A_TABLE)) == []
    assert sorted(set(docs) - set(code)) == []


def test_documented_defaults_are_the_codes():
    code, docs = read_in_code(), documented()
    wrong = {}
    for name, default in code.items():
        written = docs.get(name)
        if default is None or written is None:
            continue
        if isinstance(default, bool):
            default = "true" if default else "false"
        if str(default) != written and not (isinstance(default, float) and str(int(default)) == written):
            wrong[name] = (default, written)
    assert wrong == {}


def test_the_check_reads_shortened_rows():
    row = "| `GUARDSVC_MAIL_TIMEOUT_SECONDS` / `_MAX_ATTEMPTS` | `15` / `10` (see \"E-mail\") |\n"
    names = ROW.findall(row)
    assert names and re.findall(r"`(GUARDSVC_[A-Z0-9_]+|_[A-Z0-9_]+)`", names[0][0]) == [
        "GUARDSVC_MAIL_TIMEOUT_SECONDS", "_MAX_ATTEMPTS"]
    assert [continued(first, short) for first, short in (("MAIL_TIMEOUT_SECONDS", "MAX_ATTEMPTS"),
                                                          ("MAIL_SERVER", "USE_TLS"), ("DEVICE_COOKIE_DOMAIN", "PATH"))] \
        == ["MAIL_MAX_ATTEMPTS", "MAIL_USE_TLS", "DEVICE_COOKIE_PATH"]
    assert documented()["MAIL_MAX_ATTEMPTS"] == "10"
