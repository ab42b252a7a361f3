"""What every command shares: clean errors (non-zero exit, no traceback) and list output."""
import json

import click

from guardsvc.errors import GuardError


def run_or_exit(func, *args, **kwargs):
    """Call a service function; a domain failure becomes a ClickException."""
    try:
        return func(*args, **kwargs)
    except GuardError as exc:
        detail = ""
        if exc.errors:
            detail = " " + "; ".join(f"{k}: {', '.join(v)}" for k, v in exc.errors.items())
        raise click.ClickException(exc.message + detail) from exc


def echo_rows(columns, rows, *, as_json=False, empty="nothing to list", more=0):
    """Print list rows: a header line and tab-separated columns, or a JSON array of objects.

    ``rows`` are dicts keyed by ``columns``; a missing value prints as "-" (null in JSON).
    ``more`` counts rows left out by a limit; it is said on stderr so stdout stays parseable.
    """
    if as_json:
        click.echo(json.dumps([{column: row.get(column) for column in columns} for row in rows],
                              ensure_ascii=False, indent=2))
    elif not rows:
        click.echo(empty)
    else:
        click.echo("\t".join(columns))
        for row in rows:
            click.echo("\t".join("-" if row.get(column) is None else str(row[column]) for column in columns))
    if more:
        click.echo(f"... {more} more (raise --limit to see them)", err=True)


def json_option(command):
    """``--json``: print the list as a JSON array instead of a table."""
    return click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of a table.")(command)
