"""guardsvc's gunicorn configuration: the one place its server settings live.

``gunicorn wsgi:app`` in the project directory reads it through ``gunicorn.conf.py``
(gunicorn's own convention); an installed package is started with
``gunicorn -c python:guardsvc.gunicorn_conf wsgi:app``, or from a directory whose
``gunicorn.conf.py`` says ``from guardsvc.gunicorn_conf import *``. ``make run``, the
image, compose and the systemd units all start it so; nothing is repeated on their
command lines. What it sets, and why:

- gthread workers with threads: a password hash (slow on purpose) occupies one thread,
  so the hash cap (GUARDSVC_HASH_CONCURRENCY) answers a flood at once and pages that
  hash nothing stay fast. A sync worker would queue every page behind every hash.
- one worker per core: rate limits are counted in a store every process of the machine
  shares (by default an LMDB file in the instance folder, checked here before a worker
  starts: an unwritable, full or damaged file stops the start with the fix), or in Redis.
  ``memory://`` counts per process: one worker, and several are refused at start, however
  they were asked for (GUARDSVC_WORKERS, WEB_CONCURRENCY, ``-w``, a TTIN signal).
- the access log through guardsvc.web.access_log.RedactingLogger: one-time links and
  tokens masked, JSON lines with the request id when GUARDSVC_LOG_FORMAT=json.
- PROMETHEUS_MULTIPROC_DIR (default: ``metrics/`` in the instance folder), so /metrics
  adds up every worker's counts, and each dead worker's live gauges are let go.
- no control socket unless GUARDSVC_CONTROL_SOCKET names one: its default lives in the
  home folder, which the shipped unit hides (ProtectHome=true).
- each worker reports the node to the database (guardsvc.nodes): one row per node, with the
  server's start, however many workers it has.
- each worker, once started, reports which breached-password list it answers from
  (``post_worker_init``; ``flask passwords breached-status`` reads the reports).

GUARDSVC_BIND, GUARDSVC_WORKERS and GUARDSVC_THREADS set the address and the sizes; a
flag on gunicorn's command line still wins over this file, as gunicorn documents.
"""
import logging
import sys
import time
from pathlib import Path

from guardsvc.config import (SettingsError, instance_path, load_settings, mark_server_configured,
                             memory_limits_problem, process_alive, server_settings)
from guardsvc.ratelimits import lmdb_store

try:
    _server = server_settings()
except SettingsError as problems:
    sys.stderr.write(f"{problems}\n")
    raise SystemExit(2) from None

# Read in the master, before it forks: every worker reports the server's start as its node's.
_SERVER_STARTED = time.time()

wsgi_app = "wsgi:app"
bind = [_server["bind"]]
workers = _server["workers"]
worker_class = "gthread"
threads = _server["threads"]
accesslog = "-"
logger_class = "guardsvc.web.access_log.RedactingLogger"
if _server["control_socket"]:
    control_socket = _server["control_socket"]
else:
    control_socket_disable = True


def _instance_folder():
    from flask import Flask

    return instance_path() or Flask("guardsvc", instance_relative_config=True).instance_path


# Before any process imports prometheus_client: it picks its storage when first imported.
_metrics_dir = _server["metrics_dir"] or str(Path(_instance_folder()) / "metrics")
mark_server_configured(_metrics_dir)


def on_starting(server):
    """Refuse settings that cannot work, before a worker starts; ready the metrics folder."""
    problems = []
    if _server["memory_limits"] and server.cfg.workers > 1:
        problems.append(memory_limits_problem(server.cfg.workers))
    try:
        settings = load_settings(_instance_folder())
    except SettingsError as error:
        problems += error.problems
    else:
        problems += _store_problems(settings)
    if problems:
        # gunicorn prints a RuntimeError raised here as "Error: ..." and exits with status 1.
        raise RuntimeError(str(SettingsError(problems)))
    _forget_dead_processes(Path(_metrics_dir))


def _store_problems(settings):
    """The machine's rate-limit store (an LMDB file) must open and take a write, or nothing starts.

    Opened and closed here, in the master: each worker opens its own after the fork.
    """
    uri = settings["RATELIMIT_STORAGE_URI"]
    if not settings["RATELIMIT_ENABLED"] or not uri.startswith(lmdb_store.SCHEME + "://"):
        return []
    try:
        lmdb_store.check_store(uri)
    except lmdb_store.StoreProblem as problem:
        return [f"GUARDSVC_RATELIMIT_STORAGE_URI: {problem}"]
    return []


def _forget_dead_processes(folder):
    """Keep the counts of live processes (a background worker started first), drop earlier runs'."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in folder.glob("*.db"):
        pid = path.stem.rpartition("_")[2]
        if not pid.isdigit() or not process_alive(int(pid)):
            path.unlink(missing_ok=True)


def nworkers_changed(server, new_value, old_value):
    """A TTIN signal may not take the memory store past one worker."""
    if _server["memory_limits"] and new_value > 1:
        logging.getLogger("gunicorn.error").error(memory_limits_problem(new_value))
        server.num_workers = 1


def child_exit(server, worker):
    """A worker's live gauges leave the sums with it (its counters stay counted)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def post_worker_init(worker):
    """Each worker reports its node to the database (a thread; one write per node per interval), and which
    breached-password list it answers from (``passwords breached-status``)."""
    from guardsvc.accounts.breached_readers import serve
    from guardsvc.nodes.heartbeat import WEB, start_reporting

    if hasattr(worker.wsgi, "app_context"):  # guardsvc's application (wsgi:app), not another one
        start_reporting(worker.wsgi, WEB, started=_SERVER_STARTED)
        serve(worker.wsgi)
