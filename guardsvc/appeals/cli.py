"""``flask tickets ...``."""
import click

from guardsvc.appeals import service
from guardsvc.appeals.statuses import STATUSES
from guardsvc.cli.support import echo_rows, json_option, run_or_exit
from guardsvc.storage.clock import isoformat
from guardsvc.storage.transaction import CommandGroup

tickets_cli = CommandGroup("tickets", help="Review unblock appeal tickets.")


TICKET_COLUMNS = ("ticket_number", "status", "created_at", "resolved_at", "ip_address", "device_id",
                  "email", "name")


@tickets_cli.command("list")
@click.option("--status", type=click.Choice(STATUSES), default=None)
@click.option("--limit", type=click.IntRange(1, 10000), default=100, show_default=True)
@json_option
def list_tickets(status, limit, as_json):
    """List tickets, newest first."""
    tickets = service.list_tickets(status=status, limit=limit)
    echo_rows(TICKET_COLUMNS, [_ticket_row(t) for t in tickets], as_json=as_json, empty="no tickets")



def _ticket_row(ticket):
    return {"ticket_number": ticket.ticket_number, "status": ticket.status,
            "created_at": isoformat(ticket.created_at), "resolved_at": isoformat(ticket.resolved_at),
            "ip_address": ticket.ip_address, "device_id": ticket.device_id, "email": ticket.email,
            "name": ticket.name}


@tickets_cli.command("decide")
@click.argument("ticket")
@click.option("--approve", "action", flag_value="approve", help="Grant the appeal and lift blocks.")
@click.option("--reject", "action", flag_value="reject", help="Refuse the appeal; blocks stay.")
@click.option("--notes", default=None, help="Notes the appellant will read.")
@click.option("--lift-ranges", is_flag=True, help="On approval, also lift CIDR ranges covering the client.")
def decide(ticket, action, notes, lift_ranges):
    """Approve or reject a pending ticket; an approval prints what it lifted and allowed."""
    if action is None:
        raise click.UsageError("say --approve or --reject")
    result = run_or_exit(service.decide_ticket, ticket, action, notes=notes, lift_ranges=lift_ranges)
    click.echo(f"{result.ticket_number} {result.status}: {result.admin_notes}")
    for block in result.lifted_blocks:
        click.echo(f"lifted {block.reference} ({block.target})")
    for entry in result.allow_entries:
        click.echo(f"allowed {entry.target} (allow entry {entry.id})")
