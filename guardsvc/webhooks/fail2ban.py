"""The fail2ban unban hook: when an approval lifts a block on an address, the worker runs
``GUARDSVC_FAIL2BAN_UNBAN_COMMAND`` for it (e.g. ``sudo fail2ban-client unban {ip}``).

The job is queued in the approval's transaction (the webhooks' queue, no
endpoint) and retried with backoff until the command exits 0. The command is
split into words when the settings are read and run without a shell; the
address, checked to be one, replaces ``{ip}`` inside the words that hold it,
so it is always one argument however it is spelled.
"""
import ipaddress
import subprocess

from flask import current_app

from guardsvc.webhooks.models import UNBAN
from guardsvc.webhooks.service import queue_job

OUTPUT_MAX = 300


class UnbanFailed(Exception):
    """The command could not run, ran too long, or exited non-zero."""


def queue_unbans(addresses):
    """Queue one unban per address (only when the command is configured); the addresses queued."""
    if not current_app.config["FAIL2BAN_UNBAN_COMMAND"]:
        return []
    queued = [str(ipaddress.ip_address(address)) for address in addresses]
    for address in queued:
        queue_job(UNBAN, address)
    return queued


def unban_argv(command, address):
    """``command`` (argv words) with ``{ip}`` replaced by ``address``, which must be an IP address."""
    address = str(ipaddress.ip_address(address))
    return [word.replace("{ip}", address) for word in command]


def run_unban(address):
    """Run the unban command for ``address``; raises UnbanFailed unless it exits 0."""
    config = current_app.config
    command = config["FAIL2BAN_UNBAN_COMMAND"]
    if not command:
        raise UnbanFailed("GUARDSVC_FAIL2BAN_UNBAN_COMMAND is not set in this process")
    timeout = config["FAIL2BAN_TIMEOUT_SECONDS"]
    try:
        done = subprocess.run(unban_argv(command, address), stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise UnbanFailed(f"{command[0]} did not finish within {timeout:g} s") from exc
    except OSError as exc:  # not found, not executable
        raise UnbanFailed(f"{command[0]}: {exc.strerror or exc}") from exc
    if done.returncode != 0:
        output = (done.stderr or done.stdout).decode("utf-8", "replace").strip()[:OUTPUT_MAX]
        raise UnbanFailed(f"{command[0]} exited with status {done.returncode}" + (f": {output}" if output else ""))

