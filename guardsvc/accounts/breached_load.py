"""Building the breached-password filter from a Pwned Passwords list, streamed.

The list has one SHA-1 a line, upper- or lower-case hex, optionally followed by
``:COUNT`` (how often it was seen): the format of Have I Been Pwned's
downloads. The file is read twice, once to count its lines (the filter is
sized for them) and once to fill the filter in chunks, so memory stays at the
filter's own size however long the list is. The new filter is written beside
the old one and moved into place in one step: every process keeps answering
from a complete list while a load runs, and reads the new one when it is there.

The filter is public data (hashes anyone can download), written readable by
all (0644) and, when the command runs as root, given to the owner of its
folder (the instance folder belongs to the user the service runs as): a list
loaded by root must never be one the service cannot read.
"""
import json
import os
import pwd
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import rbloom

from guardsvc.accounts.breached import (FALSE_POSITIVE_RATE, _FILTER, facts_path, filter_bytes, filter_path,
                                        keep_key)
from guardsvc.storage.clock import isoformat, utcnow

_LINE = re.compile(rb"\A\s*([0-9A-Fa-f]{40})(?::([0-9]{1,12}))?\s*\Z")
# Each well-formed line of a whole chunk, found in one pass of the regular expression engine (the
# common case: when every line is one, no line needs a match object of its own); the group is the
# key's hex (the first 128 bits).
_ENTRY_LINE = re.compile(rb"^([0-9A-Fa-f]{32})[0-9A-Fa-f]{8}(?::[0-9]{1,12})?\r?$", re.MULTILINE)
_OFFSET = 1 << 127
CHUNK_BYTES = 1 << 22
SHOWN_BAD_LINES = 5


class BadList(ValueError):
    """Lines that are not ``SHA1-HEX[:COUNT]``: nothing was loaded."""

    def __init__(self, shown, total):
        self.shown, self.total = shown, total
        more = total - len(shown)
        super().__init__("; ".join(f"line {number}: {text!r}" for number, text in shown)
                         + (f" (and {more} more in the same part of the file)" if more > 0 else ""))


@dataclass
class LoadReport:
    entries: int = 0
    lines: int = 0
    skipped_rare: int = 0
    bad_lines: int = 0
    min_count: int = 1
    file_bytes: int = 0
    seconds: float = 0.0
    source: str = ""
    loaded_at: str = ""
    false_positive_rate: float = FALSE_POSITIVE_RATE
    fingerprint: str = ""
    owner: str = ""
    shown_bad: list = field(default_factory=list)


def count_lines(path):
    """Lines in ``path`` (a last line without a newline counts), read in large blocks."""
    lines, last = 0, b"\n"
    with open(path, "rb") as source:
        for block in iter(lambda: source.read(CHUNK_BYTES), b""):
            lines += block.count(b"\n")
            last = block[-1:]
    return lines + (last != b"\n")


def _keys(path, report, skip_bad):
    """The filter keys of ``path``'s entries, chunk by chunk; counts what was skipped in ``report``."""
    number = 0
    with open(path, "rb") as source:
        while chunk := source.readlines(CHUNK_BYTES):
            found = _ENTRY_LINE.findall(b"".join(chunk)) if report.min_count == 1 else ()
            if len(found) == len(chunk):
                number += len(chunk)
                report.entries += len(chunk)
                yield [int(key, 16) - _OFFSET for key in found]
                continue
            keys = []
            for line in chunk:
                number += 1
                match = _LINE.match(line)
                if match is None:
                    if line.strip():
                        report.bad_lines += 1
                        if len(report.shown_bad) < SHOWN_BAD_LINES:
                            report.shown_bad.append((number, line.strip()[:60].decode("utf-8", "replace")))
                    continue
                if report.min_count > 1 and match.group(2) and int(match.group(2)) < report.min_count:
                    report.skipped_rare += 1
                    continue
                keys.append(int(match.group(1)[:32], 16) - _OFFSET)
            if report.bad_lines and not skip_bad:
                raise BadList(report.shown_bad, report.bad_lines)
            report.entries += len(keys)
            yield keys
    report.lines = number


def load_breached(source, app, *, min_count=1, skip_bad=False):
    """Replace the instance's breached-password filter with the entries of ``source``; a LoadReport.

    ``min_count``: leave out entries seen fewer times (a line without a count
    is kept). A line that is not an entry fails the load (BadList, nothing
    changes) unless ``skip_bad``.
    """
    started = time.perf_counter()
    source = Path(source)
    report = LoadReport(min_count=min_count, source=source.name)
    bloom = rbloom.Bloom(max(1, count_lines(source)), FALSE_POSITIVE_RATE, keep_key)
    for keys in _keys(source, report, skip_bad):
        bloom.update(keys)
    target = filter_path(app)
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    data, report.fingerprint = filter_bytes(bloom)
    _write_readable(target, data)
    report.file_bytes = target.stat().st_size
    report.owner = _owner_name(target)
    report.loaded_at = isoformat(utcnow())
    report.seconds = time.perf_counter() - started
    facts = {key: value for key, value in asdict(report).items() if key != "shown_bad"}
    _write_readable(facts_path(app), (json.dumps(facts, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    _FILTER.forget()  # this process reads the new filter at its next check
    return report


def _write_readable(target, data):
    """Write ``data`` to ``target`` in one step, readable by the service's user (see the module's docstring)."""
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    try:
        partial.write_bytes(data)
        os.chmod(partial, 0o644)
        folder = target.parent.stat()
        if os.geteuid() == 0 and folder.st_uid != 0:
            os.chown(partial, folder.st_uid, folder.st_gid)
        os.replace(partial, target)  # readers see the old file or the new one, never half of one
    finally:
        partial.unlink(missing_ok=True)


def _owner_name(path):
    uid = path.stat().st_uid
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def loaded_list(app):
    """What the last load wrote about itself (entries, when, from which file), or None."""
    try:
        return json.loads(facts_path(app).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
