"""Turn domain failures into clean CLI errors (non-zero exit, no traceback)."""
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
