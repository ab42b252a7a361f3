"""guardsvc: who is trusted, and a fair way back in for blocked clients."""
import logging
import sys
from pathlib import Path

from werkzeug.middleware.proxy_fix import ProxyFix

from guardsvc import packaged
from guardsvc.config import SettingsError, instance_path, load_settings
from guardsvc.web.application import GuardsvcFlask


def create_app(config=None):
    """Build the application: settings, extensions, the edge's hooks, every feature (found, never named here),
    the shared doors, error handling, commands."""
    app = GuardsvcFlask(__name__, instance_relative_config=True, instance_path=instance_path(),
                        template_folder=str(packaged.folder("templates")),
                        static_folder=str(packaged.folder("static")))
    # Owner only: it holds the secret key and, by default, the database.
    Path(app.instance_path).mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        refuse_unconfigured_server()
        problems = packaged.missing()
        if problems:
            raise SettingsError(problems, heading="guardsvc cannot start, files it needs are missing:")
        app.config.update(load_settings(app.instance_path))
    except SettingsError as problems:
        if config is not None:  # a caller that builds its own app (tests) handles it
            raise
        # `flask ...` and `gunicorn wsgi:app`: one readable message and a non-zero exit, no traceback.
        sys.stderr.write(f"{problems}\n")
        # In a gunicorn worker, 3 (gunicorn's "worker failed to boot") stops the server instead of
        # starting the same worker again and again.
        raise SystemExit(3 if "gunicorn.arbiter" in sys.modules else 2) from None
    app.config.update(config or {})
    configure_logging(app)
    trust_proxies(app)
    bound_every_request(app)
    read_whole_bodies(app)
    register_extensions(app)
    register_request_hooks(app)
    register_features(app)
    register_shared_doors(app)
    register_error_handlers(app)
    register_commands(app)
    return app


def refuse_unconfigured_server():
    """Served by gunicorn without guardsvc's server settings: refuse, naming the fix.

    Without them gunicorn runs one sync worker (a password hash holds every page), writes
    access lines unredacted, and counts metrics per worker; a quiet start would hide all of it.
    """
    from guardsvc.config import server_configured

    if "gunicorn.arbiter" in sys.modules and not server_configured():
        raise SettingsError([
            "gunicorn runs without guardsvc's server settings (gunicorn.conf.py): start it in the "
            "project directory (`gunicorn wsgi:app`), or with `gunicorn -c python:guardsvc.gunicorn_conf "
            "wsgi:app`, or import them into your own configuration file "
            "(`from guardsvc.gunicorn_conf import *`)"])


def configure_logging(app):
    from guardsvc.web.request_logs import configure_logging as configure

    configure(app.config["LOG_LEVEL"], app.config["LOG_FORMAT"])
    # Alembic announces every plugin it loads on each command; only its warnings matter.
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)


def trust_proxies(app):
    """Honour X-Forwarded-For only for the number of proxies the operator declared.

    X-Forwarded-Prefix too: behind a proxy guardsvc may live under a path of
    the guarded site (``/guardsvc/``), and its links must carry that path.
    """
    count = app.config["PROXY_COUNT"]
    if count > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=count, x_proto=count, x_host=0, x_port=0,
                                x_prefix=count)


def bound_every_request(app):
    """Every request, teardown included, ends within REQUEST_DEADLINE_SECONDS (guardsvc.storage.deadline)."""
    from guardsvc.storage.deadline import RequestDeadline

    app.wsgi_app = RequestDeadline(app.wsgi_app, app.config["REQUEST_DEADLINE_SECONDS"])


def read_whole_bodies(app):
    """Bodies read whole, within a size and a time, before anything parses them (guardsvc.web.bodies)."""
    from guardsvc.web.bodies import read_whole_bodies as install

    install(app)


def register_extensions(app):
    from guardsvc.web.cookies import init_cookie_session
    from guardsvc.storage.database import init_database
    from guardsvc.extensions import babel, csrf, db, login_manager, migrate
    from guardsvc.ratelimits.limits import init_ratelimits
    from guardsvc.translation import install_translations
    from guardsvc.web.locale import select_locale
    import guardsvc.models  # noqa: F401  (registers every table)
    from sqlalchemy.orm import configure_mappers

    init_cookie_session(app)
    init_database(app)
    migrate.init_app(app, db, directory=str(packaged.folder("migrations")), render_as_batch=True,
                     compare_type=True)
    login_manager.init_app(app)
    csrf.init_app(app)
    init_ratelimits(app)
    babel.init_app(app, locale_selector=select_locale)
    install_translations(app)
    # Every mapper complete now, in every process (web, worker, each CLI command), not at the first
    # query: code that fills ORM objects itself (storage/inserts.py) needs their attribute machinery.
    configure_mappers()


def register_request_hooks(app):
    """The edge's hooks; a feature's own (the CSRF check, the block guard) follow in register_features."""
    from guardsvc.web.addresses import require_readable_address
    from guardsvc.web.errors import render_unexpected
    from guardsvc.web.identity import issue_device_cookie
    from guardsvc.web.headers import add_security_headers
    from guardsvc.web.locale import vary_by_language
    from guardsvc.web.request_logs import assign_request_id, echo_request_id
    from guardsvc.web.static_files import init_static_files
    from guardsvc.storage.transaction import init_transactions

    app.before_request(assign_request_id)
    app.before_request(require_readable_address)
    app.after_request(issue_device_cookie)
    app.after_request(add_security_headers)
    app.after_request(vary_by_language)
    app.after_request(echo_request_id)
    init_static_files(app)
    init_transactions(app, render_unexpected)  # last registered of the edge's: runs first of them


def register_features(app):
    """Every feature package's ``feature.py`` (guardsvc.features): its set-up, doors and commands."""
    from guardsvc import features

    features.register(app, features.discover())


def register_shared_doors(app):
    """The probes, the API document of every declared view, and ``/metrics`` (which times every request)."""
    from guardsvc.metrics.door import init_metrics
    from guardsvc.openapi.document import init_openapi
    from guardsvc.web.health import bp as health

    app.register_blueprint(health)
    init_openapi(app)
    init_metrics(app)


def register_error_handlers(app):
    from guardsvc.web.errors import register_error_handlers as register

    register(app)


def register_commands(app):
    """``flask worker``: the features' background rounds (their own commands come with them)."""
    from guardsvc.cli.worker import worker_command

    app.cli.add_command(worker_command)
