"""What every command shares: clean errors (non-zero exit, no traceback) and list output."""
import json

import click

from guardsvc import messages
from guardsvc.web.errors import GuardError
from guardsvc.web.row_ids import ROW_ID_MAX, ROW_ID_MIN

# A row id on the command line: the same bounds as in URLs (guardsvc.web.row_ids).
ROW_ID = click.IntRange(ROW_ID_MIN, ROW_ID_MAX)


def run_or_exit(func, *args, **kwargs):
    """Call a service function; a domain failure becomes a ClickException."""
    try:
        return func(*args, **kwargs)
    except GuardError as exc:
        detail = ""
        if exc.errors:
            detail = " " + "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in exc.errors.items())
        raise click.ClickException(exc.message + detail) from exc


def echo_json(data):
    """Print ``data`` as indented JSON (non-ASCII text kept readable)."""
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=messages.as_text))


def echo_table(header, rows, missing="-"):
    """Tab-separated ``rows`` (sequences) under a header line; None prints as ``missing``."""
    click.echo("\t".join(header))
    for row in rows:
        click.echo("\t".join(missing if value is None else str(value) for value in row))


def echo_rows(columns, rows, *, as_json=False, empty="nothing to list", more=0):
    """Print list rows: a header line and tab-separated columns, or a JSON array of objects.

    ``rows`` are dicts keyed by ``columns``; a missing value prints as "-" (null in JSON).
    ``more`` counts rows left out by a limit; it is said on stderr so stdout stays parseable.
    """
    if as_json:
        echo_json([{column: row.get(column) for column in columns} for row in rows])
    elif not rows:
        click.echo(empty)
    else:
        echo_table(columns, ([row.get(column) for column in columns] for row in rows))
    if more:
        click.echo(f"... {more} more (raise --limit to see them)", err=True)


def json_option(command):
    """``--json``: print the list as a JSON array instead of a table."""
    return click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of a table.")(command)


class Checked(click.ParamType):
    """A parameter checked by a service function (``check(value)`` returns it cleaned or raises GuardError).

    Its refusal is a usage error like any other bad parameter: the service's
    words, exit status 2.
    """

    def __init__(self, name, check):
        self.name, self.check = name, check

    def convert(self, value, param, ctx):
        try:
            return self.check(value)
        except GuardError as exc:
            details = [message for messages in (exc.errors or {}).values() for message in messages]
            self.fail("; ".join(map(str, details)) or str(exc.message), param, ctx)
