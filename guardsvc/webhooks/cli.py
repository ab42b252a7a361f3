"""``flask webhooks ...``: endpoints and their secrets; sending what is due now. The worker's round."""
import logging

import click

from guardsvc.cli.support import ROW_ID, Checked, echo_rows, json_option, run_or_exit
from guardsvc.storage.clock import isoformat
from guardsvc.storage.transaction import CommandGroup
from guardsvc.webhooks import delivery, service
from guardsvc.webhooks.models import EVENTS

log = logging.getLogger("guardsvc.webhooks")
webhooks_cli = CommandGroup("webhooks", help="Signed webhooks: endpoints, their secrets, delivery.")
COLUMNS = ("id", "url", "events", "state", "created_at", "pending", "failed")


def webhooks_round():
    """Send the due webhooks and unbans, log what happened (a round of the worker)."""
    report = delivery.deliver_due()
    if report.handled:
        log.info("webhooks: %s", report.summary("delivered"))
    return report


@webhooks_cli.command("add")
@click.argument("url", type=Checked("url", service.checked_url))
@click.option("--events", type=Checked("events", service.checked_events), default="",
              help=f"Comma-separated event types (default: all of {', '.join(EVENTS)}).")
def add(url, events):
    """Add an endpoint; its signing secret (whsec_...) is printed once, alone on the last line.

    Its host must be public unless GUARDSVC_WEBHOOK_ALLOW_PRIVATE_TARGETS=true.
    """
    endpoint, secret = run_or_exit(service.add_endpoint, url, events)
    click.echo(f"webhook {endpoint.id} added for {', '.join(endpoint.event_list)}; its secret (shown only now):")
    click.echo(secret)


@webhooks_cli.command("list")
@json_option
def list_endpoints(as_json):
    """List endpoints (never their secrets) with what waits for each and what was given up on."""
    counts = service.undelivered_counts()
    rows = [{"id": e.id, "url": e.url, "events": ",".join(e.event_list),
             "state": "disabled" if e.disabled else "enabled", "created_at": isoformat(e.created_at),
             "pending": counts.get((e.id, "pending"), 0) + counts.get((e.id, "sending"), 0),
             "failed": counts.get((e.id, "failed"), 0)}
            for e in service.list_endpoints()]
    echo_rows(COLUMNS, rows, as_json=as_json, empty="no webhooks")


@webhooks_cli.command("remove")
@click.argument("endpoint_id", type=ROW_ID)
def remove(endpoint_id):
    """Remove an endpoint; what was still queued for it is dropped."""
    endpoint = run_or_exit(service.remove_endpoint, endpoint_id)
    click.echo(f"removed webhook {endpoint.id} ({endpoint.url})")


@webhooks_cli.command("disable")
@click.argument("endpoint_id", type=ROW_ID)
def disable(endpoint_id):
    """Stop sending to an endpoint (new events skip it; queued ones are given up on)."""
    endpoint = run_or_exit(service.set_disabled, endpoint_id, True)
    click.echo(f"webhook {endpoint.id} disabled")


@webhooks_cli.command("enable")
@click.argument("endpoint_id", type=ROW_ID)
def enable(endpoint_id):
    """Send to an endpoint again (events from now on)."""
    endpoint = run_or_exit(service.set_disabled, endpoint_id, False)
    click.echo(f"webhook {endpoint.id} enabled")


@webhooks_cli.command("deliver")
def deliver():
    """Send the webhooks and unbans that are due now (the worker does this on its own)."""
    click.echo(webhooks_round().summary("delivered"))


@webhooks_cli.command("reseal")
def reseal():
    """Encrypt every endpoint's secret again under the current SECRET_KEY (then drop the old key)."""
    click.echo(f"resealed {service.reseal_secrets()} webhook secret(s)")
