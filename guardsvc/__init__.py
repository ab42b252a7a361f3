"""guardsvc: who is trusted, and a fair way back in for blocked clients."""
import logging
import sys
from pathlib import Path

from werkzeug.middleware.proxy_fix import ProxyFix

from guardsvc import packaged
from guardsvc.config import SettingsError, instance_path, load_settings
from guardsvc.web.application import GuardsvcFlask


def create_app(config=None):
    """Build the application: settings, extensions, doors, error handling, commands."""
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
        refuse_unreadable_breached_list(app)
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
    register_blueprints(app)
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


def refuse_unreadable_breached_list(app):
    """Served by gunicorn: a configured breached-password list this process cannot read stops the start.

    The workers then report what they answer from (``post_worker_init`` in guardsvc.gunicorn_conf).
    """
    if "gunicorn.arbiter" not in sys.modules:
        return
    from guardsvc.accounts.breached import breached_list_problem

    problem = breached_list_problem(app)
    if problem is not None:
        raise SettingsError([problem])


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
    from guardsvc.accounts.auth import init_auth
    from guardsvc.web.cookies import init_cookie_session
    from guardsvc.storage.database import init_database
    from guardsvc.extensions import babel, csrf, db, login_manager, mail, migrate
    from guardsvc.ratelimits.limits import init_ratelimits
    from guardsvc.outbox.service import init_mail_templates
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
    mail.init_app(app)
    babel.init_app(app, locale_selector=select_locale)
    install_translations(app)
    init_mail_templates(app)
    init_auth(app)
    init_places(app)
    # Every mapper complete now, in every process (web, worker, each CLI command), not at the first
    # query: code that fills ORM objects itself (storage/inserts.py) needs their attribute machinery.
    configure_mappers()


def init_places(app):
    """Locations of sign-ins (GUARDSVC_GEOIP_DATABASE): say at start when there are none; names in templates."""
    from guardsvc.places.geoip import check_database
    from guardsvc.places.names import init_place_names

    check_database(app)
    init_place_names(app)


def register_request_hooks(app):
    from guardsvc.web.addresses import require_readable_address
    from guardsvc.accounts.breached_readers import recheck as recheck_breached_list
    from guardsvc.blocks.guard import init_guard
    from guardsvc.web.errors import render_unexpected
    from guardsvc.web.identity import issue_device_cookie
    from guardsvc.web.headers import add_security_headers
    from guardsvc.web.locale import vary_by_language
    from guardsvc.web.request_logs import assign_request_id, echo_request_id
    from guardsvc.web.static_files import init_static_files
    from guardsvc.storage.transaction import init_transactions

    app.before_request(assign_request_id)
    app.before_request(recheck_breached_list)
    app.before_request(require_readable_address)
    init_guard(app)
    app.after_request(issue_device_cookie)
    app.after_request(add_security_headers)
    app.after_request(vary_by_language)
    app.after_request(echo_request_id)
    init_static_files(app)
    init_transactions(app, render_unexpected)  # last registered: runs first


def register_blueprints(app):
    from guardsvc.accounts import openapi_paths as accounts_paths
    from guardsvc.admin import openapi_paths as admin_paths
    from guardsvc.appeals import openapi_paths as appeals_paths
    from guardsvc.blocks import openapi_paths as blocks_paths
    from guardsvc.selfrelease import openapi_paths as self_release_paths
    from guardsvc.metrics.door import init_metrics
    from guardsvc.openapi.document import init_openapi
    from guardsvc.signin import openapi_paths as signin_paths
    from guardsvc.trust import openapi_paths as trust_paths
    from guardsvc.accounts.api import bp as accounts_api
    from guardsvc.admin.api import bp as admin_api
    from guardsvc.admin.allows_api import bp as admin_allows_api
    from guardsvc.appeals.api import bp as appeals_api
    from guardsvc.blocks.api import bp as blocks_api
    from guardsvc.blocks.forward_auth import bp as forward_auth
    from guardsvc.blocks.edge_api import bp as edge_api
    from guardsvc.crowdsec.api import bp as crowdsec_api
    from guardsvc.selfrelease.api import bp as self_release_api
    from guardsvc.selfrelease.views import bp as self_release_pages
    from guardsvc.blocks.views import bp as block_pages
    from guardsvc.web.health import bp as health
    from guardsvc.signin.api import bp as signin_api
    from guardsvc.trust.api import bp as trust_api
    from guardsvc.pages.views import bp as pages
    from guardsvc.appeals.views import bp as appeal_pages
    from guardsvc.appeals.conversation_views import bp as conversation_pages
    from guardsvc.accounts.views import bp as account_pages
    from guardsvc.accounts.session_views import bp as session_pages
    from guardsvc.signin.reauth_views import bp as reauth_pages
    from guardsvc.signin.recovery_views import bp as recovery_pages
    from guardsvc.trust.views import bp as trust_pages
    from guardsvc.signin.views import bp as signin_pages
    from guardsvc.signin.account_views import bp as security_pages
    from guardsvc.signin.passkey_views import bp as passkey_signin_pages
    from guardsvc.passkeys.views import bp as passkey_pages
    from guardsvc.admin.views import bp as admin_pages
    from guardsvc.admin.allows_views import bp as admin_allow_pages
    from guardsvc.admin.desk_views import bp as admin_desk_pages

    init_openapi(app, (appeals_paths, trust_paths, accounts_paths, signin_paths, blocks_paths, self_release_paths,
                       admin_paths))
    init_metrics(app, scrape_time_gauges())
    for blueprint in (health, accounts_api, trust_api, appeals_api, signin_api, blocks_api,
                      admin_api, admin_allows_api, forward_auth, edge_api, crowdsec_api, self_release_api):
        app.register_blueprint(blueprint)
    for blueprint in (pages, appeal_pages, conversation_pages, account_pages, session_pages, recovery_pages,
                      trust_pages, signin_pages, passkey_signin_pages, security_pages, passkey_pages, reauth_pages,
                      admin_pages, admin_allow_pages, admin_desk_pages, block_pages, self_release_pages):
        app.register_blueprint(blueprint)


def scrape_time_gauges():
    """What ``/metrics`` computes at each scrape: ``{name: (help, function)}``."""
    from guardsvc.appeals.service import count_pending
    from guardsvc.blocks.service import count_active
    from guardsvc.outbox.service import backlog

    return {
        "guardsvc_outbox_backlog": ("E-mails waiting to be delivered.", lambda: backlog()[0]),
        "guardsvc_outbox_oldest_age_seconds": ("Age of the oldest e-mail waiting.", lambda: backlog()[1]),
        "guardsvc_pending_tickets": ("Tickets waiting for a decision.", count_pending),
        "guardsvc_active_blocks": ("Blocks that apply now.", count_active),
    }


def register_error_handlers(app):
    from guardsvc.web.errors import register_error_handlers as register

    register(app)


def register_commands(app):
    from guardsvc.accounts.cli import tokens_cli, users_cli
    from guardsvc.accounts.passwords_cli import passwords_cli
    import guardsvc.twofactor.cli  # noqa: F401  (adds users reset-2fa)
    import guardsvc.passkeys.cli  # noqa: F401  (adds users passkeys)
    from guardsvc.appeals.cli import tickets_cli
    from guardsvc.outbox.cli import mail_cli
    from guardsvc.blocks.cli import blocks_cli
    from guardsvc.blocks.allows_cli import allows_cli
    from guardsvc.blocks.proxy_cli import edge_cli
    from guardsvc.crowdsec.cli import bouncers_cli, crowdsec_cli
    from guardsvc.sessions.cli import sessions_cli
    from guardsvc.retention.cli import purge_command, worker_command
    from guardsvc.twofactor.cli import twofactor_cli
    from guardsvc.webhooks.cli import webhooks_cli

    for group in (users_cli, tokens_cli, tickets_cli, mail_cli, blocks_cli, allows_cli, sessions_cli,
                  twofactor_cli, bouncers_cli, crowdsec_cli, webhooks_cli, passwords_cli, edge_cli,
                  purge_command, worker_command):
        app.cli.add_command(group)
