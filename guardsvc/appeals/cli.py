"""``flask tickets ...``."""
import click

from guardsvc.appeals import groups, service
from guardsvc.appeals.schemas import GroupDecisionSchema
from guardsvc.appeals.statuses import APPROVED, REJECTED, STATUSES
from guardsvc.cli.support import echo_rows, json_option, run_or_exit
from guardsvc.storage.clock import isoformat
from guardsvc.storage.transaction import CommandGroup
from guardsvc.web.schema_fields import load_or_raise

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


@tickets_cli.command("decide-block")
@click.argument("reference")
@click.option("--approve", "decision", flag_value=APPROVED, help="Grant every pending appeal of the block.")
@click.option("--reject", "decision", flag_value=REJECTED, help="Refuse every pending appeal of the block.")
@click.option("--notes", default=None, help="Notes every appellant will read (default: each in their language).")
@click.option("--lift", is_flag=True, help="On approval, lift the block itself (a range too) instead of allowing "
                                          "each client.")
def decide_block(reference, decision, notes, lift):
    """Approve or reject every pending ticket made under block REFERENCE at once; prints how many."""
    if decision is None:
        raise click.UsageError("say --approve or --reject")
    data = run_or_exit(load_or_raise, GroupDecisionSchema(), {"decision": decision, "notes": notes, "lift_block": lift})
    result = run_or_exit(groups.decide_group, reference, data["decision"], notes=data["notes"],
                         lift_block=data["lift_block"])
    click.echo(groups.decision_message(result))
    for block in sorted(set(result.lifted_blocks), key=lambda block: block.reference):
        click.echo(f"lifted {block.reference} ({block.target})")
    if result.allow_entries:
        click.echo(f"allowed {result.allow_entries} client(s) past the block (exact, temporary allow entries)")
