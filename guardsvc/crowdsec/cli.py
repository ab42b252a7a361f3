"""``flask bouncers ...`` (keys for bouncers that enforce guardsvc's blocks) and ``flask crowdsec ...`` (the source)."""
import click

from guardsvc.cli.support import echo_rows, json_option, run_or_exit
from guardsvc.crowdsec import bouncers, worker
from guardsvc.storage.clock import isoformat
from guardsvc.storage.transaction import CommandGroup

bouncers_cli = CommandGroup("bouncers", help="API keys of CrowdSec bouncers pulling guardsvc's decisions.")

BOUNCER_COLUMNS = ("name", "created_at", "last_pull_at")


@bouncers_cli.command("add")
@click.argument("name")
def add(name):
    """Register a bouncer; its API key is printed once, alone on the last line."""
    bouncer, key = run_or_exit(bouncers.add_bouncer, name)
    click.echo(f"bouncer {bouncer.name} added; its API key (shown only now):")
    click.echo(key)


@bouncers_cli.command("list")
@json_option
def list_bouncers(as_json):
    """List bouncers and when each last pulled."""
    rows = [{"name": b.name, "created_at": isoformat(b.created_at), "last_pull_at": isoformat(b.last_pull_at)}
            for b in bouncers.list_bouncers()]
    echo_rows(BOUNCER_COLUMNS, rows, as_json=as_json, empty="no bouncers")


@bouncers_cli.command("remove")
@click.argument("name")
def remove(name):
    """Remove a bouncer; its key stops working at once."""
    bouncer = run_or_exit(bouncers.remove_bouncer, name)
    click.echo(f"removed bouncer {bouncer.name}")


crowdsec_cli = CommandGroup("crowdsec", help="CrowdSec as a source of blocks (GUARDSVC_CROWDSEC_* settings).")


@crowdsec_cli.command("pull")
def pull():
    """Pull every active decision from the LAPI now and apply it (the worker does this on its own)."""
    if not worker.source_enabled():
        raise click.ClickException("GUARDSVC_CROWDSEC_LAPI_URL and GUARDSVC_CROWDSEC_BOUNCER_KEY are not set")
    created, lifted = worker.pull_round(full=True)
    click.echo(f"created {len(created)}, lifted {len(lifted)}")


@crowdsec_cli.command("delete-decisions")
def delete_decisions():
    """Send the queued decision deletions that are due now (the worker does this on its own)."""
    click.echo(f"confirmed {worker.deletion_round()}")
