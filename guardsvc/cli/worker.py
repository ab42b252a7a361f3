"""``flask worker``: every round of background work the features register, in one process.

Each feature says what it does in the background (``Feature.worker_rounds``:
deliver mail, send webhooks, apply the retention rules, pull CrowdSec's
decisions, ...); the worker runs each at start and then whenever its interval
has passed, waking as often as the shortest interval asks. It imports no
feature: it reads the rounds the app's features registered.
"""
import logging
import time

import click
from flask import current_app
from flask.cli import with_appcontext

from guardsvc.cli.background import run_round, stop_on_signals
from guardsvc.features import each

log = logging.getLogger("guardsvc.worker")


@click.command("worker")
@with_appcontext
def worker_command():
    """Run the features' background rounds until stopped: deliver queued e-mail and webhooks, run unbans,
    apply the retention rules, see which self-released clients were blocked again and, when configured,
    pull CrowdSec's decisions."""
    stop = stop_on_signals()
    rounds = [(round_, round_.interval(current_app.config)) for round_ in each("worker_rounds")]
    if not rounds:
        raise click.ClickException("no feature registers a round of background work")
    for start in each("worker_starts"):
        start(current_app._get_current_object())
    poll = min(interval for _, interval in rounds)
    log.info("worker started (%s)", ", ".join(f"{round_.name} every {interval}s" for round_, interval in rounds))
    due = {round_.name: time.monotonic() for round_, _ in rounds}
    while not stop.is_set():
        for round_, interval in rounds:
            if time.monotonic() >= due[round_.name]:
                run_round(round_.name, round_.work)
                due[round_.name] = time.monotonic() + interval
        stop.wait(poll)
    log.info("worker stopped")
