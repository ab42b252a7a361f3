"""``flask edge ...``: what the reverse proxy in front needs from guardsvc."""
from pathlib import Path

import click
from flask import current_app
from flask.cli import AppGroup

from guardsvc.config import FORWARD_AUTH_SECRET_FILE

edge_cli = AppGroup("edge", help="The reverse proxy's doors: forward auth and the edge list.")


@edge_cli.command("secret")
def secret():
    """Print the secret the proxy sends as X-Guardsvc-Secret (alone on stdout, for its configuration)."""
    value = current_app.config["FORWARD_AUTH_SECRET"]
    generated = Path(current_app.instance_path) / FORWARD_AUTH_SECRET_FILE
    if generated.exists() and generated.read_text().strip() == value:
        click.echo(f"generated at the first start, kept in {generated}", err=True)
    else:
        click.echo("set by GUARDSVC_FORWARD_AUTH_SECRET", err=True)
    click.echo(value)
