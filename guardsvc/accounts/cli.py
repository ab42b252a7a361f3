"""``flask users ...`` and ``flask tokens ...``."""
import click

from guardsvc.accounts import service
from guardsvc.accounts.models import ROLES
from guardsvc.cli_support import run_or_exit
from guardsvc.transaction import CommandGroup

users_cli = CommandGroup("users", help="Manage accounts.")
tokens_cli = CommandGroup("tokens", help="Manage personal access tokens.")


@users_cli.command("create")
@click.argument("email")
@click.option("--name", required=True, help="Display name.")
@click.option("--password", required=True, help="Initial password.")
@click.option("--role", type=click.Choice(ROLES), default="user", show_default=True)
def create_user(email, name, password, role):
    """Create an account."""
    user = run_or_exit(service.create_user, email, name, password, role)
    click.echo(f"created {user.role} {user.email} (id {user.id})")


@tokens_cli.command("create")
@click.argument("email")
@click.option("--name", default=None, help="Name shown in token lists.")
def create_token(email, name):
    """Create a token; it is printed alone on the last line, and never again."""
    user = service.find_user_by_email(email)
    if user is None:
        raise click.ClickException(f"no account with e-mail {email}")
    plain, record = service.create_token(user, name)
    click.echo(f"token {record.name!r} (id {record.id}) for {user.email}:")
    click.echo(plain)
