"""``flask tickets ...``."""
import click

from guardsvc.appeals import service
from guardsvc.appeals.models import STATUSES
from guardsvc.cli_support import run_or_exit
from guardsvc.clock import isoformat
from guardsvc.transaction import CommandGroup

tickets_cli = CommandGroup("tickets", help="Review unblock appeal tickets.")


@tickets_cli.command("list")
@click.option("--status", type=click.Choice(STATUSES), default=None)
@click.option("--limit", type=click.IntRange(1, 10000), default=100, show_default=True)
def list_tickets(status, limit):
    """List tickets, newest first."""
    tickets = service.list_tickets(status=status, limit=limit)
    if not tickets:
        click.echo("no tickets")
    for t in tickets:
        click.echo("\t".join([t.ticket_number, t.status, isoformat(t.created_at), t.ip_address,
                              t.device_id or "-", t.email, t.name]))


@tickets_cli.command("decide")
@click.argument("ticket")
@click.option("--approve", "action", flag_value="approve", help="Grant the appeal and lift blocks.")
@click.option("--reject", "action", flag_value="reject", help="Refuse the appeal; blocks stay.")
@click.option("--notes", default=None, help="Notes the appellant will read.")
def decide(ticket, action, notes):
    """Approve or reject a pending ticket."""
    if action is None:
        raise click.UsageError("say --approve or --reject")
    result = run_or_exit(service.decide_ticket, ticket, action, notes=notes)
    click.echo(f"{result.ticket_number} {result.status}: {result.admin_notes}")
