"""``flask nodes``: the nodes seen in the last five minutes, and the shared settings they disagree on."""
import click
from flask.cli import with_appcontext

from guardsvc.cli.support import echo_json, json_option
from guardsvc.extensions import db
from guardsvc.nodes import service
from guardsvc.nodes.schemas import FleetSchema
from guardsvc.storage import clock


def node_line(node, now):
    """One node as a line: name, version, its code's and the database's revisions, start, last report."""
    seen = max(0, round((now - node.last_seen_at).total_seconds()))
    return "\t".join((node.name, f"version {node.version}", f"code {node.code_revision}",
                      f"schema {node.schema_revision or '-'}", f"started {clock.isoformat(node.started_at)}",
                      f"seen {seen} s ago"))


@click.command("nodes")
@json_option
@with_appcontext
def nodes_command(as_json):
    """List the nodes seen in the last 5 minutes, then each shared setting a node holds otherwise than the
    rest (and each name two nodes share); exit status 1 when any disagree."""
    now = clock.utcnow()
    fleet = service.fleet(now)
    db.session.rollback()  # read only
    if as_json:
        echo_json(FleetSchema().dump(fleet))
    else:
        if not fleet.nodes:
            click.echo("No node reported in the last 5 minutes.")
        for node in fleet.nodes:
            click.echo(node_line(node, now))
        for disagreement in fleet.disagreements:
            click.echo(disagreement.line)
    if fleet.disagreements:
        raise SystemExit(1)
