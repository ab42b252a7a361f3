"""``flask twofactor ...``."""
import click

from guardsvc.transaction import CommandGroup
from guardsvc.twofactor import service

twofactor_cli = CommandGroup("twofactor", help="Two-step verification upkeep.")


@twofactor_cli.command("reseal")
def reseal():
    """Encrypt every TOTP secret again under the current SECRET_KEY (then drop the old key)."""
    click.echo(f"resealed {service.reseal_secrets()} TOTP secret(s)")
