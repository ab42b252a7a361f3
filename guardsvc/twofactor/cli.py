"""``flask twofactor ...`` and ``flask users reset-2fa`` (part of the accounts group, kept here
because accounts never imports 2FA)."""
import click

from guardsvc.accounts.cli import account, users_cli
from guardsvc.cli.support import run_or_exit
from guardsvc.storage.transaction import CommandGroup
from guardsvc.twofactor import service

twofactor_cli = CommandGroup("twofactor", help="Two-step verification upkeep.")


@users_cli.command("reset-2fa")
@click.argument("email")
def reset_two_factor(email):
    """Turn two-step verification off for an account that lost its device and codes (owner told)."""
    user = run_or_exit(service.reset_two_factor, account(email), actor=None, client=None)
    click.echo(f"two-step verification is off for {user.email}; they may set it up again from their account page")


@twofactor_cli.command("reseal")
def reseal():
    """Encrypt every TOTP secret again under the current SECRET_KEY (then drop the old key)."""
    click.echo(f"resealed {service.reseal_secrets()} TOTP secret(s)")
