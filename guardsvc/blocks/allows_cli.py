"""``flask allows ...``."""
import click

from guardsvc.storage import clock
from guardsvc.blocks import allows
from guardsvc.blocks.allow_schemas import AllowCreateSchema
from guardsvc.cli.support import ROW_ID, echo_rows, json_option, run_or_exit
from guardsvc.storage.clock import isoformat
from guardsvc.web.schema_fields import load_or_raise
from guardsvc.storage.transaction import CommandGroup

allows_cli = CommandGroup("allows", help="Allow entries: IPs, CIDR ranges and devices that are never blocked.")


ALLOW_COLUMNS = ("id", "state", "target", "created_at", "expires_at", "reason")


@allows_cli.command("add")
@click.option("--ip", default=None, help="IP address or CIDR range, IPv4 or IPv6.")
@click.option("--device-id", default=None, help="Device id (as sent in X-Device-Id).")
@click.option("--reason", default=None, help="Why (shown to administrators).")
@click.option("--minutes", default=None, help="Expire after this many minutes (default: never).")
def add(ip, device_id, reason, minutes):
    """Create an allow entry; its id is printed alone on the last line."""
    raw = {"ip": ip, "device_id": device_id, "reason": reason, "minutes": minutes}
    data = run_or_exit(load_or_raise, AllowCreateSchema(),
                       {key: value for key, value in raw.items() if value is not None})
    entry = run_or_exit(allows.add_allow_entry, network=data.pop("ip"), **data)
    click.echo(f"allowed {entry.target} until {isoformat(entry.expires_at) or 'removed'}:")
    click.echo(entry.id)


@allows_cli.command("remove")
@click.argument("entry_id", type=ROW_ID)
def remove(entry_id):
    """Remove an allow entry by its id."""
    entry = run_or_exit(allows.remove_allow_entry, entry_id)
    click.echo(f"removed allow entry {entry.id} ({entry.target})")


@allows_cli.command("list")
@click.option("--all", "show_all", is_flag=True, help="Include removed and expired entries.")
@click.option("--limit", type=click.IntRange(1, 100), default=100, show_default=True)
@json_option
def list_entries(show_all, limit, as_json):
    """List active allow entries (or all), newest first."""
    page = allows.search_allow_entries(active=None if show_all else True, per_page=limit)
    now = clock.utcnow()
    rows = [{"id": e.id, "state": e.state_at(now), "target": e.target, "created_at": isoformat(e.created_at),
             "expires_at": isoformat(e.expires_at), "reason": e.reason} for e in page.items]
    echo_rows(ALLOW_COLUMNS, rows, as_json=as_json, empty="no allow entries", more=page.total - len(page.items))

