"""``flask sessions ...``."""
import click

from guardsvc.sessions import service
from guardsvc.storage.transaction import CommandGroup

sessions_cli = CommandGroup("sessions", help="Manage signed-in browser sessions.")


@sessions_cli.command("purge")
def purge():
    """Delete sessions idle longer than GUARDSVC_SESSION_IDLE_DAYS (run it daily, e.g. from cron)."""
    click.echo(f"deleted {service.purge_expired_sessions()} expired session(s)")
