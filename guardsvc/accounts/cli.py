"""``flask users ...`` and ``flask tokens ...``: operators' account care (English output).

The command line acts as an administrator without an account: ``actor`` and
``client`` are None, which the audit log and the security notices say.
"""
import click

from guardsvc.accounts import care, service
from guardsvc.accounts.breached import breached_list_problem
from guardsvc.accounts.roles import ROLES, USER
from guardsvc.accounts.schemas import AccountSchema, NewAccountSchema, TokenSchema
from guardsvc.cli.support import ROW_ID, echo_json, echo_table, json_option, run_or_exit
from guardsvc.storage.clock import isoformat
from guardsvc.web.schema_fields import load_or_raise
from guardsvc.storage.transaction import CommandGroup

users_cli = CommandGroup("users", help="Manage accounts.")
tokens_cli = CommandGroup("tokens", help="Manage personal access tokens.")
CLI = {"actor": None, "client": None}


def account(email):
    """The account with this e-mail, or a one-line error (exit 1)."""
    user = service.find_user_by_email(email)
    if user is None:
        raise click.ClickException(f"no account with e-mail {email}")
    return user


def refuse_unreadable_breached_list():
    """A command that sets a password first reads the breached-password list: one it cannot read is an error."""
    problem = breached_list_problem()
    if problem is not None:
        raise click.ClickException(f"no password was set: {problem}")


@users_cli.command("create")
@click.argument("email")
@click.option("--name", required=True, help="Display name.")
@click.option("--password", required=True, help="Initial password (at least 10 characters, not common).")
@click.option("--role", type=click.Choice(ROLES), default=USER, show_default=True)
def create_user(email, name, password, role):
    """Create an account."""
    refuse_unreadable_breached_list()
    data = run_or_exit(load_or_raise, NewAccountSchema(), {"email": email, "name": name})
    user = run_or_exit(care.create_account, data["email"], data["name"], password, role, **CLI)
    click.echo(f"created {user.role} {user.email} (id {user.id})")


@users_cli.command("list")
@json_option
def list_users(as_json):
    """List every account."""
    users = care.list_users()
    if as_json:
        echo_json(AccountSchema().dump(users, many=True))
        return
    echo_table(("id", "email", "role", "active", "2fa", "created_at", "name"),
               ((u.id, u.email, u.role, "yes" if u.is_active else "no", "on" if u.has_2fa else "off",
                 isoformat(u.created_at), u.name) for u in users), missing="")


@users_cli.command("show")
@click.argument("email")
def show_user(email):
    """Show one account and how many tokens it has in force."""
    user = account(email)
    active_tokens = sum(1 for token in service.list_tokens(user) if token.is_active)
    for label, value in (("id", user.id), ("email", user.email), ("name", user.name), ("role", user.role),
                         ("active", "yes" if user.is_active else "no"),
                         ("2fa", "on" if user.has_2fa else "off"), ("tokens", active_tokens),
                         ("created_at", isoformat(user.created_at))):
        click.echo(f"{label}: {value}")


@users_cli.command("set-password")
@click.argument("email")
@click.option("--password", default=None, help="New password; without it you are asked twice (hidden).")
def set_password(email, password):
    """Set an account's password (same rule as the web); its sessions end and the owner is told."""
    refuse_unreadable_breached_list()
    user = account(email)
    if password is None:
        password = click.prompt("New password", hide_input=True, confirmation_prompt=True)
    run_or_exit(service.set_password, user, password, **CLI)
    click.echo(f"password set for {user.email}; every session of the account ended")


@users_cli.command("set-role")
@click.argument("email")
@click.argument("role", type=click.Choice(ROLES))
def set_role(email, role):
    """Give an account another role."""
    user = run_or_exit(care.set_role, account(email), role, **CLI)
    click.echo(f"{user.email} is now {user.role}")


@users_cli.command("disable")
@click.argument("email")
def disable_user(email):
    """Disable an account: no sign-in, sessions ended, tokens revoked; the owner is told."""
    user = care.disable_account(account(email), **CLI)
    click.echo(f"disabled {user.email}")


@users_cli.command("enable")
@click.argument("email")
def enable_user(email):
    """Let a disabled account sign in again (its old tokens stay revoked)."""
    user = care.enable_account(account(email), **CLI)
    click.echo(f"enabled {user.email}")


@tokens_cli.command("create")
@click.argument("email")
@click.option("--name", default=None, help="Name shown in token lists.")
def create_token(email, name):
    """Create a token; it is printed alone on the last line, and never again."""
    user = account(email)
    plain, record = service.create_token(user, name, client=None)
    click.echo(f"token {record.name!r} (id {record.id}) for {user.email}:")
    click.echo(plain)


@tokens_cli.command("list")
@click.argument("email")
@json_option
def list_tokens(email, as_json):
    """List an account's tokens, newest first (never their secret values)."""
    tokens = service.list_tokens(account(email))
    if as_json:
        echo_json(TokenSchema().dump(tokens, many=True))
        return
    echo_table(("id", "name", "prefix", "created_at", "last_used_at", "revoked_at"),
               ((t.id, t.name, t.prefix, isoformat(t.created_at), isoformat(t.last_used_at),
                 isoformat(t.revoked_at)) for t in tokens), missing="")


@tokens_cli.command("revoke")
@click.argument("token_id", type=ROW_ID)
def revoke_token(token_id):
    """Revoke a token by its id (see ``tokens list``)."""
    record = care.revoke_any_token(token_id, **CLI)
    if record is None:
        raise click.ClickException(f"no token with id {token_id}")
    click.echo(f"revoked token {record.id} ({record.name!r}) of {record.user.email}")
