"""Settings. The only module that reads ``os.environ`` (``GUARDSVC_*``)."""
import logging
import os
import secrets
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

PREFIX = "GUARDSVC_"


def _env(name, default=None):
    value = os.environ.get(PREFIX + name)
    return default if value is None or value == "" else value


def _env_bool(name, default=False):
    value = _env(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _env_int(name, default):
    value = _env(name)
    return default if value is None else int(value)


def _env_float(name, default):
    value = _env(name)
    return default if value is None else float(value)


def shared_secret_key(instance_path):
    """Return the secret key kept in the instance folder, creating it once.

    Every gunicorn worker must sign sessions with the same key, so a fresh
    random key per process would sign users out at random. The file is created
    atomically (write a temporary file, then hard-link it into place) so that
    concurrent workers agree on one value.
    """
    path = Path(instance_path) / "secret_key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".secret_key.{os.getpid()}.{secrets.token_hex(4)}")
        # Created owner-only (no moment in which others could read it).
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
            file.write(secrets.token_urlsafe(48))
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    return path.read_text().strip()


def _cheap_password_hashes_for_tests():
    """The test suite's switch to the smallest Argon2id costs; loud, so it is never on unnoticed."""
    on = _env_bool("TESTING_CHEAP_PASSWORD_HASHES", False)
    if on:
        logging.getLogger(__name__).warning(
            "GUARDSVC_TESTING_CHEAP_PASSWORD_HASHES is on: passwords are hashed with test-only costs "
            "that are easy to crack. Never set it outside a test suite.")
    return on


def local_timezone():
    """The IANA zone people read times in (``Asia/Jakarta`` = WIB); refuses an unknown name."""
    name = _env("TIMEZONE", "Asia/Jakarta")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"GUARDSVC_TIMEZONE: unknown time zone {name!r}") from exc
    return name


def load_settings(instance_path):
    """Build the Flask config mapping from ``GUARDSVC_*`` environment variables."""
    database_url = _env("DATABASE_URL") or "sqlite:///" + str(Path(instance_path) / "guardsvc.db")
    if database_url.startswith("postgres://"):
        database_url = "postgresql://" + database_url[len("postgres://"):]
    if database_url.startswith("postgresql://"):
        database_url = "postgresql+psycopg://" + database_url[len("postgresql://"):]
    storage_uri = _env("RATELIMIT_STORAGE_URI", "memory://")
    storage_timeout = _env_float("RATELIMIT_STORAGE_TIMEOUT_SECONDS", 0.5)
    if storage_uri.startswith("memory://"):
        # The same in-process store with a ceiling on its counters (guardsvc.ratelimits.memory).
        storage_uri = f"guardsvc-memory://?max_keys={_env_int('RATELIMIT_MEMORY_MAX_KEYS', 50_000)}"
    return {
        "SECRET_KEY": _env("SECRET_KEY") or shared_secret_key(instance_path),
        # Earlier keys still accepted (sessions, sealed secrets, recovery codes): key rotation.
        "SECRET_KEY_FALLBACKS": [key.strip() for key in (_env("SECRET_KEY_FALLBACKS") or "").split(",")
                                 if key.strip()],
        "SQLALCHEMY_DATABASE_URI": database_url,
        "SQLALCHEMY_ENGINE_OPTIONS": {"pool_pre_ping": True},
        # Every wait on the database is bounded (guardsvc.storage.database): a database
        # that is down or hangs turns into a 503 within seconds, never a stuck worker.
        "DATABASE_CONNECT_TIMEOUT_SECONDS": _env_int("DATABASE_CONNECT_TIMEOUT_SECONDS", 3),
        "DATABASE_STATEMENT_TIMEOUT_SECONDS": _env_float("DATABASE_STATEMENT_TIMEOUT_SECONDS", 5),
        "DATABASE_POOL_TIMEOUT_SECONDS": _env_float("DATABASE_POOL_TIMEOUT_SECONDS", 5),
        "SQLITE_BUSY_TIMEOUT_SECONDS": _env_float("SQLITE_BUSY_TIMEOUT_SECONDS", 5),
        "PROXY_COUNT": _env_int("PROXY_COUNT", 0),
        # Links in e-mails: where `make run` serves unless the operator says otherwise.
        "BASE_URL": _env("BASE_URL", "http://" + _env("BIND", "127.0.0.1:8000")).rstrip("/"),
        "BASE_URL_CONFIGURED": _env("BASE_URL") is not None,
        "MAX_CONTENT_LENGTH": 64 * 1024,
        "TESTING_CHEAP_PASSWORD_HASHES": _cheap_password_hashes_for_tests(),
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": _env_bool("SESSION_COOKIE_SECURE", False),
        "SESSION_COOKIE_NAME": "guardsvc_session",
        "DEVICE_COOKIE_NAME": "guardsvc_device",
        # The trust secret of "Percayai perangkat ini": HttpOnly, SameSite=Strict, its own cookie.
        "TRUST_COOKIE_NAME": "guardsvc_trust",
        "DEVICE_COOKIE_DAYS": 400,
        # Behind a proxy the cookie may have to reach several hosts or paths of one site.
        "DEVICE_COOKIE_DOMAIN": _env("DEVICE_COOKIE_DOMAIN"),
        "DEVICE_COOKIE_PATH": _env("DEVICE_COOKIE_PATH", "/"),
        "FORWARD_AUTH_SECRET": _env("FORWARD_AUTH_SECRET"),
        "SITE_NAME": _env("SITE_NAME"),
        "CONTACT": _env("CONTACT"),
        "WTF_CSRF_CHECK_DEFAULT": False,
        "WTF_CSRF_TIME_LIMIT": None,
        "WTF_CSRF_SSL_STRICT": False,
        "RATELIMIT_ENABLED": _env_bool("RATELIMIT_ENABLED", True),
        "RATELIMIT_STORAGE_URI": storage_uri,
        # Redis only: a store that is down or hangs costs a request at most this long (then memory).
        "RATELIMIT_STORAGE_OPTIONS": ({"socket_timeout": storage_timeout,
                                       "socket_connect_timeout": storage_timeout}
                                      if storage_uri.startswith(("redis", "rediss")) else {}),
        "RATELIMIT_KEY_PREFIX": _env("RATELIMIT_KEY_PREFIX", "guardsvc"),
        "RATELIMIT_SUBMIT": _env("RATELIMIT_SUBMIT", "20 per minute;200 per day"),
        "RATELIMIT_AUTH": _env("RATELIMIT_AUTH", "10 per minute"),
        "RATELIMIT_CHECK": _env("RATELIMIT_CHECK", "60 per minute"),
        "RATELIMIT_REPLY": _env("RATELIMIT_REPLY", "10 per minute;100 per day"),
        "ADMIN_DIGEST_MINUTES": _env_int("ADMIN_DIGEST_MINUTES", 5),
        "PENDING_PER_IP": _env_int("PENDING_PER_IP", 5),
        # How long the allow entry an approval makes (address and device together) lasts.
        "APPEAL_ALLOW_DAYS": _env_int("APPEAL_ALLOW_DAYS", 30),
        "APPEAL_MIN_FILL_SECONDS": _env_int("APPEAL_MIN_FILL_SECONDS", 3),
        "TRUST_LIFETIME_DAYS": _env_int("TRUST_LIFETIME_DAYS", 90),
        "MAIL_SERVER": _env("MAIL_SERVER"),
        "MAIL_PORT": _env_int("MAIL_PORT", 25),
        "MAIL_USERNAME": _env("MAIL_USERNAME"),
        "MAIL_PASSWORD": _env("MAIL_PASSWORD"),
        "MAIL_USE_TLS": _env_bool("MAIL_USE_TLS", False),
        "MAIL_USE_SSL": _env_bool("MAIL_USE_SSL", False),
        "MAIL_DEFAULT_SENDER": _env("MAIL_DEFAULT_SENDER", "guardsvc <no-reply@localhost>"),
        "MAIL_SUPPRESS_SEND": False,
        "MAIL_TIMEOUT_SECONDS": _env_int("MAIL_TIMEOUT_SECONDS", 15),
        "MAIL_MAX_ATTEMPTS": _env_int("MAIL_MAX_ATTEMPTS", 10),
        "MAIL_RETRY_SECONDS": _env_int("MAIL_RETRY_SECONDS", 30),
        "MAIL_POLL_SECONDS": _env_int("MAIL_POLL_SECONDS", 5),
        # Retention of personal data (contract section 10), applied by `flask worker` and `flask purge`.
        "RETENTION_DAYS": _env_int("RETENTION_DAYS", 30),
        "SIGNIN_HISTORY_DAYS": _env_int("SIGNIN_HISTORY_DAYS", 90),
        "PURGE_INTERVAL_SECONDS": _env_int("PURGE_INTERVAL_SECONDS", 3600),
        "RATELIMIT_CODE": _env("RATELIMIT_CODE", "10 per minute;50 per hour"),
        "ACCOUNT_PASSWORD_FAILURES": _env_int("ACCOUNT_PASSWORD_FAILURES", 10),
        "ACCOUNT_CODE_FAILURES": _env_int("ACCOUNT_CODE_FAILURES", 5),
        "ACCOUNT_FAILURE_WINDOW_MINUTES": _env_int("ACCOUNT_FAILURE_WINDOW_MINUTES", 15),
        # Password hashes a process runs at once; beyond them a request gets 503 at once.
        "HASH_CONCURRENCY": _env_int("HASH_CONCURRENCY", 2),
        "SIGNIN_CODE_MINUTES": _env_int("SIGNIN_CODE_MINUTES", 5),
        # Server-side sessions end after this many days without a request.
        "SESSION_IDLE_DAYS": _env_int("SESSION_IDLE_DAYS", 14),
        # However active, a session ends this many days after its sign-in.
        "SESSION_ABSOLUTE_DAYS": _env_int("SESSION_ABSOLUTE_DAYS", 30),
        # Sensitive account changes need the password (and code) entered this recently.
        "REAUTH_MINUTES": _env_int("REAUTH_MINUTES", 10),
        "PASSWORD_RESET_MINUTES": _env_int("PASSWORD_RESET_MINUTES", 30),
        "RATELIMIT_RESET": _env("RATELIMIT_RESET", "5 per minute;20 per hour"),
        # CrowdSec as a source of blocks (opt-in: all unset, nothing is pulled). The worker pulls the
        # LAPI's decision stream with the bouncer key and deletes decisions as the machine.
        "CROWDSEC_LAPI_URL": (_env("CROWDSEC_LAPI_URL") or "").rstrip("/") or None,
        "CROWDSEC_BOUNCER_KEY": _env("CROWDSEC_BOUNCER_KEY"),
        "CROWDSEC_MACHINE_ID": _env("CROWDSEC_MACHINE_ID"),
        "CROWDSEC_MACHINE_PASSWORD": _env("CROWDSEC_MACHINE_PASSWORD"),
        # Decisions of these origins become blocks (CAPI's community list is tens of thousands).
        "CROWDSEC_ORIGINS": _env("CROWDSEC_ORIGINS", "crowdsec,cscli"),
        "CROWDSEC_PULL_SECONDS": _env_int("CROWDSEC_PULL_SECONDS", 10),
        "CROWDSEC_TIMEOUT_SECONDS": _env_float("CROWDSEC_TIMEOUT_SECONDS", 10),
        "CROWDSEC_RETRY_SECONDS": _env_int("CROWDSEC_RETRY_SECONDS", 30),
        "LOG_LEVEL": _env("LOG_LEVEL", "INFO"),
        # Pages and e-mails: Indonesian formats in local time; JSON stays UTC.
        "BABEL_DEFAULT_LOCALE": "id",
        "BABEL_DEFAULT_TIMEZONE": local_timezone(),
    }
