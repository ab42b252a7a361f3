"""``flask users passkeys EMAIL``: list an account's passkeys, or remove one (part of the accounts group,
kept here because accounts never imports passkeys)."""
import click

from guardsvc.accounts.cli import account, users_cli
from guardsvc.cli.support import ROW_ID, echo_rows, json_option, run_or_exit
from guardsvc.passkeys import service
from guardsvc.storage.clock import isoformat


@users_cli.command("passkeys")
@click.argument("email")
@click.option("--remove", "remove_id", type=ROW_ID, default=None, metavar="ID",
              help="Remove the passkey with this id (audited; the owner is told).")
@json_option
def passkeys(email, remove_id, as_json):
    """List the passkeys of an account, or remove one with --remove ID."""
    user = account(email)
    if remove_id is not None:
        name = run_or_exit(service.remove_passkey, user, remove_id, actor=None, client=None)
        click.echo(f"removed passkey {remove_id} ({name}) of {user.email}")
        return
    rows = [{"id": p.id, "name": p.name, "created_at": isoformat(p.created_at),
             "last_used_at": isoformat(p.last_used_at) if p.last_used_at else None,
             "backed_up": p.backed_up, "sign_count": p.sign_count} for p in service.list_passkeys(user)]
    echo_rows(("id", "name", "created_at", "last_used_at", "backed_up", "sign_count"), rows, as_json=as_json,
              empty=f"{user.email} has no passkeys")
