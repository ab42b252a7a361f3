"""``flask blocks ...``."""
from pathlib import Path

import click
from flask import current_app

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.blocks import coverage, service
from guardsvc.blocks.bulk_import import BadBlocklist, import_blocklist
from guardsvc.blocks.schemas import MAX_MINUTES, BlockCreateSchema
from guardsvc.cli.support import echo_rows, json_option, run_or_exit
from guardsvc.storage.clock import isoformat
from guardsvc.web.schema_fields import load_or_raise
from guardsvc.storage.transaction import CommandGroup

blocks_cli = CommandGroup("blocks", help="Block and unblock IPs, CIDR ranges and devices.")


BLOCK_COLUMNS = ("reference", "state", "target", "local_ip", "created_at", "expires_at", "reason")


@blocks_cli.command("add")
@click.option("--ip", default=None, help="IP address or CIDR range, IPv4 or IPv6.")
@click.option("--device-id", default=None, help="Device id (as sent in X-Device-Id).")
@click.option("--local-ip", default=None, help="Only when the client reports this local IP.")
@click.option("--reason", default=None, help="Why (shown to administrators).")
@click.option("--minutes", default=None, help="Expire after this many minutes (default: never).")
@click.option("--self-release", is_flag=True, help="The visitor may release it by a proof of work.")
def add(ip, device_id, local_ip, reason, minutes, self_release):
    """Create a block; its reference is printed alone on the last line."""
    raw = {"ip": ip, "device_id": device_id, "local_ip": local_ip, "reason": reason, "minutes": minutes,
           "self_release": self_release}
    data = run_or_exit(load_or_raise, BlockCreateSchema(),
                       {key: value for key, value in raw.items() if value is not None})
    block = run_or_exit(service.create_block, network=data.pop("ip"), **data)
    click.echo(f"blocked {block.target} until {isoformat(block.expires_at) or 'lifted'}:")
    click.echo(block.reference)


@blocks_cli.command("import")
@click.argument("file", type=click.File("r", encoding="utf-8-sig", errors="replace"))
@click.option("--reason", default=None, help="Why (shown to administrators); default: the list's file name.")
@click.option("--minutes", type=click.IntRange(1, MAX_MINUTES), default=None,
              help="Expire after this many minutes (default: never).")
@click.option("--self-release", is_flag=True, help="The visitors under them may release them by a proof of work.")
@click.option("--skip-bad", is_flag=True, help="Skip bad lines instead of importing nothing.")
def import_command(file, reason, minutes, self_release, skip_bad):
    """Block every address and CIDR range of a blocklist FILE ("-": standard input).

    One entry a line, IPv4 or IPv6; "#" and ";" start comments (FireHOL, Spamhaus DROP, CrowdSec exports).
    """
    name = getattr(file, "name", "<stdin>")
    source = "stdin" if name == "<stdin>" else Path(name).name
    try:
        report = run_or_exit(import_blocklist, file, source=source, reason=reason, minutes=minutes,
                             self_release=self_release, skip_bad=skip_bad)
    except BadBlocklist as refused:
        _echo_bad_lines(refused.report)
        raise click.ClickException(str(refused.summary)) from None
    _echo_bad_lines(report)
    click.echo(messages.BLOCKLIST_IMPORTED.format(
        added=report.added, skipped=report.skipped, existing=report.existing, duplicates=report.duplicates,
        bad=report.bad, lines=report.lines))


def _echo_bad_lines(report):
    """The first bad lines, by number and why, on stderr; how many more there were."""
    for bad in report.bad_lines:
        click.echo(messages.BLOCKLIST_BAD_LINE.format(number=bad.number, text=bad.text, why=bad.why), err=True)
    if report.bad > len(report.bad_lines):
        click.echo(messages.BLOCKLIST_MORE_BAD.format(count=report.bad - len(report.bad_lines)), err=True)


@blocks_cli.command("lift")
@click.argument("reference")
@click.option("--reason", default=None, help="Why the block is lifted.")
def lift(reference, reason):
    """Lift a block by its reference."""
    block = run_or_exit(service.lift_block, reference, reason=reason)
    click.echo(f"lifted {block.reference} ({block.target})")


@blocks_cli.command("list")
@click.option("--all", "show_all", is_flag=True, help="Include lifted and expired blocks.")
@click.option("--limit", type=click.IntRange(1, 100), default=100, show_default=True)
@json_option
def list_blocks(show_all, limit, as_json):
    """List active blocks (or all), newest first."""
    page = service.search_blocks(active=None if show_all else True, per_page=limit)
    now = clock.utcnow()
    rows = [{"reference": b.reference, "state": b.state_at(now), "target": b.target, "local_ip": b.local_ip,
             "created_at": isoformat(b.created_at), "expires_at": isoformat(b.expires_at), "reason": b.reason}
            for b in page.items]
    echo_rows(BLOCK_COLUMNS, rows, as_json=as_json, empty="no blocks", more=page.total - len(page.items))



@blocks_cli.command("coverage")
@click.option("--recount", is_flag=True, help="Count again from the active blocks (after blocks were written by a "
                                              "node of the previous release, or by hand in SQL).")
def coverage_command(recount):
    """What all active blocks cover of the public IPv4 space, and the cap (GUARDSVC_MAX_COVERAGE)."""
    if recount:
        covered = coverage.recount()
    else:
        coverage.pass_block_gate()  # counted from the blocks if it never was
        covered = coverage.covered()
    cap = coverage.cap_addresses()
    click.echo(f"covered: {covered} of {coverage.PUBLIC_IPV4} public IPv4 addresses "
               f"({100 * covered / coverage.PUBLIC_IPV4:.4f}%)")
    click.echo("cap: none" if cap is None else
               f"cap: {cap} ({100 * current_app.config['MAX_COVERAGE']:.4f}%, GUARDSVC_MAX_COVERAGE)")
