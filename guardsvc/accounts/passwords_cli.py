"""``flask passwords ...``: the breached-password list (English output)."""
import click
from flask import current_app

from guardsvc.accounts.breached import filter_path, read_filter, unreadable_text
from guardsvc.accounts.breached_load import BadList, load_breached, loaded_list
from guardsvc.accounts.breached_readers import serving_readers
from guardsvc.audit.service import record_event
from guardsvc.storage.clock import isoformat
from guardsvc.storage.transaction import CommandGroup
from guardsvc.storage.watched_file import KEPT, UNREADABLE

passwords_cli = CommandGroup("passwords", help="The list of breached passwords no one may choose.")
AUDIT_TARGET = "breached-passwords"


@passwords_cli.command("load-breached")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, readable=True))
@click.option("--min-count", type=click.IntRange(1), default=1, show_default=True,
              help="Leave out entries seen fewer times than this (lines without a count are kept).")
@click.option("--skip-bad", is_flag=True, help="Skip lines that are not SHA1-HEX[:COUNT] instead of refusing the file.")
def load_breached_command(file, min_count, skip_bad):
    """Replace the breached-password list with FILE (Pwned Passwords SHA-1 lines, SHA1-HEX:COUNT or SHA1-HEX)."""
    try:
        report = load_breached(file, current_app, min_count=min_count, skip_bad=skip_bad)
    except BadList as bad:
        raise click.ClickException(f"{bad.total} line(s) are not SHA1-HEX[:COUNT], nothing was loaded "
                                   f"(--skip-bad skips them): {bad}") from None
    record_event("passwords.breached_loaded", AUDIT_TARGET, details={
        "entries": report.entries, "source": report.source, "min_count": report.min_count})
    hashes = "hash" if report.entries == 1 else "hashes"
    click.echo(f"loaded {report.entries} breached password {hashes} from {report.source} "
               f"({report.lines} lines; {report.skipped_rare} seen fewer than {min_count} times and "
               f"{report.bad_lines} bad lines skipped) into {filter_path()} "
               f"({report.file_bytes / 1e6:.1f} MB, readable by all, owner {report.owner}; fingerprint "
               f"{report.fingerprint[:16]}) in {report.seconds:.1f} s")
    click.echo("serving processes read it within a second of their next request; "
               "`flask --app guardsvc passwords breached-status` says what each answers from")


def _the_file():
    """(a line about the list file as this command reads it, its fingerprint or None)."""
    path = filter_path()
    if not path.exists():
        return f"the file: none at {path} (no list is loaded; flask --app guardsvc passwords load-breached FILE)", None
    try:
        _, fingerprint = read_filter(path)
    except (OSError, ValueError) as exc:
        return f"the file: {unreadable_text(path, getattr(exc, 'strerror', None) or exc)}", None
    facts = loaded_list(current_app)
    if facts is not None and facts.get("fingerprint") in (None, fingerprint):
        written = (f"{facts['entries']} breached password hashes from {facts['source']}, loaded "
                   f"{facts['loaded_at']}")
    else:
        written = "a list whose loader's notes are missing"
    return f"the file: {written} ({path.stat().st_size / 1e6:.1f} MB, {path}, fingerprint {fingerprint[:16]})", \
        fingerprint


def _reader_line(row, fingerprint):
    answers = (f"answers from the file's list (read {isoformat(row.loaded_at)})" if row.fingerprint == fingerprint
               and row.fingerprint else
               f"answers from another list (fingerprint {row.fingerprint[:16]}, read {isoformat(row.loaded_at)})"
               if row.fingerprint else "answers from no list: no password counts as breached")
    line = f"  {row.process}: {answers}; reported {isoformat(row.reported_at)}"
    if row.problem:
        line += f"\n    ERROR: {row.problem}"
    return line


@passwords_cli.command("breached-status")
def breached_status():
    """Say which breached-password list each serving process answers from, and what the file holds.

    Exits 1 when a serving process cannot read the file (it keeps its last good list, or has none).
    """
    line, fingerprint = _the_file()
    readers, silent = serving_readers()
    if not readers:
        click.echo("serving processes: none has reported (the server reports when it starts)")
    else:
        click.echo(f"serving processes ({len(readers)}):")
        for row in readers:
            click.echo(_reader_line(row, fingerprint))
    if silent:
        click.echo(f"  (left out: {silent} not heard from for over an hour: ended, or no request since)")
    click.echo(line)
    if any(row.state in (KEPT, UNREADABLE) for row in readers):
        raise SystemExit(1)
