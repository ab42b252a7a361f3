"""The catalogues: every marked text has English, placeholders survive, templates leave nothing unmarked."""
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from jinja2 import Environment

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "guardsvc" / "translations" / "en" / "LC_MESSAGES"
TEMPLATES = ROOT / "templates"
PYBABEL = Path(sys.executable).with_name("pybabel")


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    """Every text marked in the code and the templates, extracted afresh (what `make translations` does)."""
    pot = tmp_path_factory.mktemp("pot") / "messages.pot"
    subprocess.run([str(PYBABEL), "-q", "extract", "-F", "babel.cfg", "--no-location", "-o", str(pot), "."],
                   cwd=ROOT, check=True, timeout=120)
    with pot.open("rb") as handle:
        return [message for message in read_po(handle) if message.id]


@pytest.fixture(scope="module")
def english():
    with (CATALOGUE / "messages.po").open("rb") as handle:
        return read_po(handle, locale="en")


def _ids(message):
    return message.id if isinstance(message.id, tuple) else (message.id,)


def _strings(message):
    return message.string if isinstance(message.string, tuple) else (message.string,)


def test_every_marked_text_has_an_english_translation(extracted, english):
    missing = []
    for message in extracted:
        translated = english.get(message.id)
        if translated is None or not all(_strings(translated)) or translated.fuzzy:
            missing.append(_ids(message)[0])
    assert missing == [], f"{len(missing)} texts without English (run `make translations`, then translate): {missing[:20]}"


PLACEHOLDERS = re.compile(r"%\(\w+\)[sd]|\{\w*\}")


@pytest.mark.parametrize("kind", ["brace", "percent"])
def test_translations_keep_every_placeholder(english, kind):
    wrong = []
    for message in english:
        if not message.id:
            continue
        for source in _ids(message):
            wanted = sorted(p for p in PLACEHOLDERS.findall(source) if (p[0] == "{") == (kind == "brace"))
            for text in _strings(message):
                found = sorted(p for p in PLACEHOLDERS.findall(text or "") if (p[0] == "{") == (kind == "brace"))
                # A plural's singular may name the number in words ("one ticket"): the plural keeps it.
                if text and found != wanted and not (set(found) < set(wanted) and len(_ids(message)) > 1):
                    wrong.append((source, text))
    assert wrong == []


def test_the_catalogue_holds_nothing_that_is_no_longer_marked(extracted, english):
    marked = {message.id for message in extracted}
    stale = [message.id for message in english if message.id and message.id not in marked]
    assert stale == [], "run `make translations` to drop texts no longer in the code"


def test_the_compiled_catalogue_the_service_reads_is_the_current_one(english):
    """The .mo files are built by the set-up (scripts/bootstrap), never committed."""
    with (CATALOGUE / "messages.mo").open("rb") as handle:
        compiled = read_mo(handle)
    assert _texts(compiled) == _texts(english), "run `scripts/translations compile`"


def _texts(catalogue):
    """msgid -> msgstr; a plural's ids and strings as tuples (read_mo gives lists, read_po tuples)."""
    def same(value):
        return tuple(value) if isinstance(value, (list, tuple)) else value
    return {same(m.id): same(m.string) for m in catalogue if m.id}


# What a template may show without a translation: names, symbols and codes that read the same
# in every language.
SAME_IN_EVERY_LANGUAGE = {"guardsvc", "IPv", "CrowdSec", "passkey", "Passkey", "otp"}
PERSON_READABLE_ATTRIBUTES = {"alt", "title", "placeholder", "aria-label", "aria-description", "label"}


class _TextFinder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found, self._skipping = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skipping += 1
        for name, value in attrs:
            if name in PERSON_READABLE_ATTRIBUTES and value:
                self.found.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skipping = max(0, self._skipping - 1)

    def handle_data(self, data):
        if not self._skipping:
            self.found.append(data)


def _is_words(text):
    """Words of a language: two letters or more, not all capitals (codes like TKT, WIB, ID are not words)."""
    words = re.findall(r"[^\W\d_]{2,}", text)
    return any(word not in SAME_IN_EVERY_LANGUAGE and not word.isupper() for word in words)


def unmarked_texts(source):
    """Literal text of a template outside ``{{ }}``/``{% %}``/``{# #}`` that a person reads."""
    literal = "".join(value for _, kind, value in Environment(extensions=["jinja2.ext.i18n"]).lex(source)
                      if kind == "data")
    finder = _TextFinder()
    finder.feed(literal)
    return [text.strip() for text in finder.found if _is_words(text)]


def test_the_check_finds_unmarked_text():
    source = ('<p>{{ _("Sudah ditandai.") }}</p><p title="Judul">Belum ditandai {{ x }}</p>'
              '{# catatan #}<script>var a = "kode";</script><b>guardsvc</b> · TKT-1234 {% if x %}·{% endif %}')
    assert unmarked_texts(source) == ["Judul", "Belum ditandai"]


def test_every_template_text_is_marked_for_translation():
    found = {}
    for path in sorted(TEMPLATES.rglob("*")):
        if path.suffix in (".html", ".txt"):
            texts = unmarked_texts(path.read_text(encoding="utf-8"))
            if texts:
                found[path.relative_to(TEMPLATES).as_posix()] = texts
    assert found == {}
