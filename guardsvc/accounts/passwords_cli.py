"""``flask passwords ...``: the breached-password list (English output)."""
import click
from flask import current_app

from guardsvc.accounts.breached import filter_path
from guardsvc.accounts.breached_load import BadList, load_breached, loaded_list
from guardsvc.audit.service import record_event
from guardsvc.storage.transaction import CommandGroup

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
               f"({report.file_bytes / 1e6:.1f} MB) in {report.seconds:.1f} s")


@passwords_cli.command("breached-status")
def breached_status():
    """Say which breached-password list is loaded."""
    facts = loaded_list(current_app) if filter_path().exists() else None
    if facts is None:
        click.echo("no breached-password list is loaded (flask --app guardsvc passwords load-breached FILE)")
        return
    click.echo(f"{facts['entries']} breached password hashes from {facts['source']}, loaded {facts['loaded_at']} "
               f"({facts['file_bytes'] / 1e6:.1f} MB, {filter_path()})")
