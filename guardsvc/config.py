"""Settings. The only module that reads ``os.environ`` (``GUARDSVC_*``).

Every setting is read through one ``_Reader``, which checks it as it reads it
(numbers and their ranges, strict booleans, rate-limit strings, URLs, the time
zone) and collects every problem; ``load_settings`` then refuses to start with
all of them in one ``SettingsError``. A secret may come from a file:
``GUARDSVC_<NAME>_FILE`` names the file holding it (Docker and systemd secrets).
"""
import ipaddress
import logging
import os
import re
import secrets
import shlex
import socket
from pathlib import Path
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

PREFIX = "GUARDSVC_"
TRUE, FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


class SettingsError(ValueError):
    """The settings cannot be used; ``problems`` lists every one, each naming its variable."""

    def __init__(self, problems, heading="guardsvc cannot start, its settings have problems:"):
        self.problems = list(problems)
        super().__init__(heading + "\n" + "\n".join(f"  - {problem}" for problem in self.problems))


class _Reader:
    """Reads ``GUARDSVC_*`` variables, checking each, and collects what is wrong."""

    def __init__(self):
        self.problems = []

    def text(self, name, default=None):
        path = os.environ.get(PREFIX + name + "_FILE")
        if path:
            try:
                return Path(path).read_text(encoding="utf-8").strip() or default
            except OSError as exc:
                self.problems.append(f"{PREFIX}{name}_FILE: cannot read {path!r} ({exc.strerror})")
                return default
        value = os.environ.get(PREFIX + name)
        return default if value is None or value == "" else value

    def choice(self, name, default, choices, meaning):
        """One of ``choices`` (case-blind); anything else is a problem ("... is neither ``meaning``")."""
        value = self.text(name, default).strip().lower()
        if value not in choices:
            self.problems.append(f"{PREFIX}{name}: {value!r} is neither {meaning}")
            return default
        return value

    def flag(self, name, default=False):
        value = self.text(name)
        if value is None:
            return default
        if value.strip().lower() in TRUE:
            return True
        if value.strip().lower() not in FALSE:
            self.problems.append(f"{PREFIX}{name}: {value!r} is not a yes/no value (true/false, 1/0, yes/no, on/off)")
        return False

    def number(self, name, default, *, kind=int, minimum=0, maximum=None):
        value = self.text(name)
        if value is None:
            return default
        try:
            number = kind(value)
        except ValueError:
            self.problems.append(f"{PREFIX}{name}: {value!r} is not a {'whole ' if kind is int else ''}number")
            return default
        if number < minimum:
            self.problems.append(f"{PREFIX}{name}: {value} is below the smallest allowed value, {minimum}")
            return default
        if maximum is not None and number > maximum:
            self.problems.append(f"{PREFIX}{name}: {value} is above the largest allowed value, {maximum}")
            return default
        return number

    def limit(self, name, default):
        from limits import parse_many

        value = self.text(name, default)
        try:
            parse_many(value)
        except ValueError:
            self.problems.append(f"{PREFIX}{name}: {value!r} is not a rate limit (e.g. \"10 per minute;100 per day\")")
            return default
        return value

    def host_name(self, name):
        """A DNS host name (lower case, no scheme, port or path), or None when unset."""
        value = self.text(name)
        if value is None:
            return None
        labels = value.lower().split(".")
        if not all(label and len(label) <= 63 and label.replace("-", "").isalnum() and label.isascii()
                   for label in labels) or len(value) > 253:
            self.problems.append(f"{PREFIX}{name}: {value!r} is not a host name (e.g. \"example.com\")")
            return None
        return value.lower()

    def url(self, name, default):
        value = self.text(name)
        if value is None:
            return default
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            self.problems.append(f"{PREFIX}{name}: {value!r} is not an http:// or https:// address")
            return default
        return value


# The widest range a block may cover (IPv4, IPv6) and the networks no block may touch (contract section 15).
WIDEST_BLOCK_DEFAULT = "/8,/32"
NEVER_BLOCK_DEFAULT = "127.0.0.0/8,::1/128"


def widest_block(read):
    """``GUARDSVC_WIDEST_BLOCK``: ``"/8,/32"`` -> ``(8, 32)``, the shortest prefix a block may have for
    IPv4 and for IPv6 (the slash is optional; ``/0`` lets any range through)."""
    value = read.text("WIDEST_BLOCK", WIDEST_BLOCK_DEFAULT)
    parts = [part.strip().lstrip("/") for part in value.replace(" ", ",").split(",") if part.strip()]
    try:
        ipv4, ipv6 = (int(part) for part in parts)
        if not (0 <= ipv4 <= 32 and 0 <= ipv6 <= 128):
            raise ValueError(value)
    except ValueError:
        read.problems.append(f"GUARDSVC_WIDEST_BLOCK: {value!r} is not two prefix lengths, IPv4 (0-32) then "
                             f"IPv6 (0-128), e.g. \"{WIDEST_BLOCK_DEFAULT}\"")
        return 8, 32
    return ipv4, ipv6


# What all active IP blocks together may cover of the public IPv4 space, in percent (contract section 15):
# the public part of FireHOL level 1 and Spamhaus DROP is about 0.5 % (docs/operations.md).
MAX_COVERAGE_DEFAULT = "5%"


def max_coverage(read):
    """``GUARDSVC_MAX_COVERAGE``: ``"5%"`` (or ``"5"``) -> ``0.05``, the share of the public IPv4 space all
    active blocks together may cover; ``none`` for no such limit."""
    value = read.text("MAX_COVERAGE", MAX_COVERAGE_DEFAULT).strip()
    if value.lower() == "none":
        return None
    try:
        percent = float(value.removesuffix("%").strip())
        if not 0 < percent <= 100:
            raise ValueError(value)
    except ValueError:
        read.problems.append(f"GUARDSVC_MAX_COVERAGE: {value!r} is not a percentage above 0 and at most 100 "
                             f"(e.g. \"{MAX_COVERAGE_DEFAULT}\"), or \"none\"")
        return float(MAX_COVERAGE_DEFAULT.rstrip("%")) / 100
    return percent / 100


def never_block(read):
    """``GUARDSVC_NEVER_BLOCK``: the networks no block may cover any part of, as canonical CIDR text;
    ``none`` for no such network."""
    value = read.text("NEVER_BLOCK", NEVER_BLOCK_DEFAULT)
    if value.strip().lower() == "none":
        return ()
    networks = []
    for part in (part.strip() for part in value.replace(" ", ",").split(",")):
        if not part:
            continue
        try:
            network = ipaddress.ip_network(part, strict=False)
        except ValueError:
            read.problems.append(f"GUARDSVC_NEVER_BLOCK: {part!r} is not an IP address or CIDR range "
                                 f"(a comma-separated list, e.g. \"{NEVER_BLOCK_DEFAULT}\", or \"none\")")
            continue
        mapped = network.network_address.ipv4_mapped if network.version == 6 and network.prefixlen >= 96 else None
        # An IPv4-mapped range means its IPv4 range, as blocks and client addresses are normalized.
        networks.append(f"{mapped}/{network.prefixlen - 96}" if mapped else network.with_prefixlen)
    return tuple(networks)


def check_webauthn_rp_id(settings, read):
    """``GUARDSVC_WEBAUTHN_RP_ID``, when set, must be the host of BASE_URL or a domain it belongs to.

    A browser accepts a relying party id only when it is the page's host or a registrable suffix of it.
    """
    host = urlsplit(settings["BASE_URL"]).hostname or ""
    rp_id = settings["WEBAUTHN_RP_ID"]
    if rp_id and rp_id != host and not host.endswith("." + rp_id):
        read.problems.append(f"GUARDSVC_WEBAUTHN_RP_ID: {rp_id!r} is neither the host of GUARDSVC_BASE_URL "
                             f"({host!r}) nor a domain it belongs to; browsers would refuse every passkey")
    return rp_id


def default_base_url(bind):
    """The address a browser should open for a ``GUARDSVC_BIND`` of ``host:port``.

    A loopback or any-address bind reads ``localhost``: browsers accept passkeys
    there (a secure context, a domain as relying party id), never at an IP address.
    """
    host, colon, port = bind.rpartition(":")
    if bind.startswith("unix:") or not colon or not port.isdigit():
        return "http://localhost"
    if host.strip("[]") in ("127.0.0.1", "::1", "0.0.0.0", "::", "", "localhost"):
        return f"http://localhost:{port}"
    return f"http://{bind}"


def unban_command(read=None):
    """``GUARDSVC_FAIL2BAN_UNBAN_COMMAND`` split into argv (never run through a shell), or None when unset.

    The address goes into the arguments that hold ``{ip}``, so the command must name it.
    """
    read = read or _Reader()
    value = read.text("FAIL2BAN_UNBAN_COMMAND")
    if value is None:
        return None
    try:
        argv = shlex.split(value)
    except ValueError as exc:
        read.problems.append(f"GUARDSVC_FAIL2BAN_UNBAN_COMMAND: {value!r} cannot be split into words ({exc})")
        return None
    if not argv or not any("{ip}" in word for word in argv[1:]):
        read.problems.append(f"GUARDSVC_FAIL2BAN_UNBAN_COMMAND: {value!r} has no {{ip}} argument "
                             "(e.g. \"sudo fail2ban-client unban {ip}\")")
        return None
    return tuple(argv)


def instance_secret(instance_path, name):
    """Return the random secret kept in the instance folder's file ``name``, creating it once.

    Every gunicorn worker must use the same value (a fresh random one per process
    would sign users out, or refuse the proxy, at random). The file is created
    atomically (write a temporary file, then hard-link it into place) so that
    concurrent workers agree on one value. The value is URL-safe base64 (A-Z a-z
    0-9 - _), so it may be pasted into a proxy's configuration as it is.
    """
    path = Path(instance_path) / name
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{name}.{os.getpid()}.{secrets.token_hex(4)}")
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


def shared_secret_key(instance_path):
    """The secret key kept in the instance folder (``instance/secret_key``), created once."""
    return instance_secret(instance_path, "secret_key")


FORWARD_AUTH_SECRET_FILE = "forward_auth_secret"
# A proxy secret set by hand is at least this long (the generated one has 64 characters): it is the
# only thing between anyone who can reach guardsvc and the whole block list.
FORWARD_AUTH_SECRET_MIN = 32


def forward_auth_secret(read, instance_path):
    """What the proxy presents in ``X-Guardsvc-Secret`` to ask forward auth and pull the edge list.

    ``GUARDSVC_FORWARD_AUTH_SECRET``, else one generated at the first start into the instance folder
    (``flask edge secret`` prints it for the proxy's configuration). There is always one: behind a
    proxy on the same host every visitor's request arrives from loopback, so no caller is trusted
    for its address alone. One set by hand shorter than ``FORWARD_AUTH_SECRET_MIN`` is a settings error.
    """
    given = read.text("FORWARD_AUTH_SECRET")
    if given is not None and len(given) < FORWARD_AUTH_SECRET_MIN:
        # The value itself is never repeated: a settings error is printed and logged.
        read.problems.append(f"{PREFIX}FORWARD_AUTH_SECRET: {len(given)} characters, at least "
                             f"{FORWARD_AUTH_SECRET_MIN} needed (e.g. `python3 -c 'import secrets; "
                             f"print(secrets.token_urlsafe(48))'`), or unset it for a generated one")
    return given or instance_secret(instance_path, FORWARD_AUTH_SECRET_FILE)


NODE_NAME_MAX = 100
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f]")


def node_name(read, instance_path):
    """``GUARDSVC_NODE_NAME``: how ``flask nodes`` and the desk name this node (contract section 17).

    Unset: the host name and the instance folder (``web-1:/srv/guardsvc/instance``), its end kept when
    longer than ``NODE_NAME_MAX``. Given but empty, too long or holding control characters: a problem.
    """
    given = os.environ.get(PREFIX + "NODE_NAME")
    if given is None:
        name = f"{socket.gethostname()}:{Path(instance_path).resolve()}"
        return name if len(name) <= NODE_NAME_MAX else "\u2026" + name[-(NODE_NAME_MAX - 1):]
    name = given.strip()
    if not name:
        read.problems.append(f"{PREFIX}NODE_NAME: is empty; unset it for the default (the host name and the "
                             "instance folder), or give each node a name of its own")
    elif len(name) > NODE_NAME_MAX:
        read.problems.append(f"{PREFIX}NODE_NAME: {len(name)} characters, more than {NODE_NAME_MAX}")
    elif _UNPRINTABLE.search(name):
        read.problems.append(f"{PREFIX}NODE_NAME: {name!r} holds control characters")
    else:
        return name
    return None


def _cheap_password_hashes_for_tests(read):
    """The test suite's switch to the smallest Argon2id costs; loud, so it is never on unnoticed."""
    on = read.flag("TESTING_CHEAP_PASSWORD_HASHES", False)
    if on:
        logging.getLogger(__name__).warning(
            "GUARDSVC_TESTING_CHEAP_PASSWORD_HASHES is on: passwords are hashed with test-only costs "
            "that are easy to crack. Never set it outside a test suite.")
    return on


def log_format(read=None):
    """``text`` (the default) or ``json``: one JSON object a line (also gunicorn's access lines)."""
    return (read or _Reader()).choice("LOG_FORMAT", "text", ("text", "json"), "text nor json")


def default_locale(read=None):
    """The language of a person who chose none and whose browser names none we have: ``id`` or ``en``."""
    return (read or _Reader()).choice("DEFAULT_LOCALE", "id", ("id", "en"), "id nor en")


def local_timezone(read=None):
    """The IANA zone people read times in (``Asia/Jakarta`` = WIB); an unknown name is a problem."""
    read = read or _Reader()
    name = read.text("TIMEZONE", "Asia/Jakarta")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        read.problems.append(f"GUARDSVC_TIMEZONE: unknown time zone {name!r}")
        return "Asia/Jakarta"
    return name


def load_settings(instance_path):
    """Build the Flask config mapping from ``GUARDSVC_*`` environment variables.

    Raises SettingsError listing every problem at once.
    """
    read = _Reader()
    database_url = read.text("DATABASE_URL") or "sqlite:///" + str(Path(instance_path) / "guardsvc.db")
    if database_url.startswith("postgres://"):
        database_url = "postgresql://" + database_url[len("postgres://"):]
    if database_url.startswith("postgresql://"):
        database_url = "postgresql+psycopg://" + database_url[len("postgresql://"):]
    storage_uri = read.text("RATELIMIT_STORAGE_URI") or machine_store_uri(instance_path)
    storage_timeout = read.number("RATELIMIT_STORAGE_TIMEOUT_SECONDS", kind=float, default=0.5)
    if storage_uri.startswith("memory://"):
        # The same in-process store with a ceiling on its counters (guardsvc.ratelimits.memory).
        storage_uri = f"guardsvc-memory://?max_keys={read.number('RATELIMIT_MEMORY_MAX_KEYS', 50_000)}"
    settings = {
        "SECRET_KEY": read.text("SECRET_KEY") or shared_secret_key(instance_path),
        # Earlier keys still accepted (sessions, sealed secrets, recovery codes): key rotation.
        "SECRET_KEY_FALLBACKS": [key.strip() for key in (read.text("SECRET_KEY_FALLBACKS") or "").split(",")
                                 if key.strip()],
        "SQLALCHEMY_DATABASE_URI": database_url,
        "SQLALCHEMY_ENGINE_OPTIONS": {"pool_pre_ping": True},
        # Every wait on the database is bounded (guardsvc.storage.database): a database
        # that is down or hangs turns into a 503 within seconds, never a stuck worker.
        "DATABASE_CONNECT_TIMEOUT_SECONDS": read.number("DATABASE_CONNECT_TIMEOUT_SECONDS", 3),
        "DATABASE_STATEMENT_TIMEOUT_SECONDS": read.number("DATABASE_STATEMENT_TIMEOUT_SECONDS", kind=float, default=5),
        "DATABASE_POOL_TIMEOUT_SECONDS": read.number("DATABASE_POOL_TIMEOUT_SECONDS", kind=float, default=5),
        # Behind PgBouncer in transaction mode: timeouts set per transaction, no prepared statements.
        "DATABASE_TRANSACTION_POOLING": read.flag("DATABASE_TRANSACTION_POOLING", False),
        # Every request ends within this, teardown included; its waits on the database are cut to it.
        "REQUEST_DEADLINE_SECONDS": read.number("REQUEST_DEADLINE_SECONDS", kind=float, default=5, minimum=0.5),
        "MIGRATION_LOCK_TIMEOUT_SECONDS": read.number("MIGRATION_LOCK_TIMEOUT_SECONDS", kind=float, default=5),
        "SQLITE_BUSY_TIMEOUT_SECONDS": read.number("SQLITE_BUSY_TIMEOUT_SECONDS", kind=float, default=5),
        "PROXY_COUNT": read.number("PROXY_COUNT", 0),
        # Links in e-mails and the passkeys' address: where `make run` serves unless the operator says otherwise.
        "BASE_URL": read.url("BASE_URL", default_base_url(read.text("BIND", "127.0.0.1:8000"))).rstrip("/"),
        "BASE_URL_CONFIGURED": read.text("BASE_URL") is not None,
        # Passkeys (WebAuthn): the relying party id; unset, the host of BASE_URL (passkeys/ceremony.py).
        "WEBAUTHN_RP_ID": read.host_name("WEBAUTHN_RP_ID"),
        "MAX_CONTENT_LENGTH": 64 * 1024,
        # A request body (at most MAX_CONTENT_LENGTH) must arrive whole within this, or 408 (guardsvc.web.bodies).
        "BODY_TIMEOUT_SECONDS": read.number("BODY_TIMEOUT_SECONDS", kind=float, default=10, minimum=0.1),
        "TESTING_CHEAP_PASSWORD_HASHES": _cheap_password_hashes_for_tests(read),
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": read.flag("SESSION_COOKIE_SECURE", False),
        "SESSION_COOKIE_NAME": "guardsvc_session",
        "DEVICE_COOKIE_NAME": "guardsvc_device",
        # The trust secret of "Percayai perangkat ini": HttpOnly, SameSite=Strict, its own cookie.
        "TRUST_COOKIE_NAME": "guardsvc_trust",
        "DEVICE_COOKIE_DAYS": 400,
        # Behind a proxy the cookie may have to reach several hosts or paths of one site.
        "DEVICE_COOKIE_DOMAIN": read.text("DEVICE_COOKIE_DOMAIN"),
        "DEVICE_COOKIE_PATH": read.text("DEVICE_COOKIE_PATH", "/"),
        # Always set: the setting, else a secret generated into the instance folder (flask edge secret).
        "FORWARD_AUTH_SECRET": forward_auth_secret(read, instance_path),
        "SITE_NAME": read.text("SITE_NAME"),
        "CONTACT": read.text("CONTACT"),
        "WTF_CSRF_CHECK_DEFAULT": False,
        "WTF_CSRF_TIME_LIMIT": None,
        "WTF_CSRF_SSL_STRICT": False,
        "RATELIMIT_ENABLED": read.flag("RATELIMIT_ENABLED", True),
        "RATELIMIT_STORAGE_URI": storage_uri,
        # Redis only: a store that is down or hangs costs a request at most this long (then memory).
        "RATELIMIT_STORAGE_OPTIONS": ({"socket_timeout": storage_timeout,
                                       "socket_connect_timeout": storage_timeout}
                                      if storage_uri.startswith(("redis", "rediss")) else {}),
        "RATELIMIT_KEY_PREFIX": read.text("RATELIMIT_KEY_PREFIX", "guardsvc"),
        "RATELIMIT_SUBMIT": read.limit("RATELIMIT_SUBMIT", "20 per minute;200 per day"),
        "RATELIMIT_AUTH": read.limit("RATELIMIT_AUTH", "10 per minute"),
        "RATELIMIT_CHECK": read.limit("RATELIMIT_CHECK", "60 per minute"),
        "RATELIMIT_REPLY": read.limit("RATELIMIT_REPLY", "10 per minute;100 per day"),
        "ADMIN_DIGEST_MINUTES": read.number("ADMIN_DIGEST_MINUTES", 5),
        # The desk's target: the oldest pending ticket waits no longer (the digest says so first when it does).
        "DESK_TARGET_HOURS": read.number("DESK_TARGET_HOURS", 24, minimum=1),
        "PENDING_PER_IP": read.number("PENDING_PER_IP", 5),
        # How long the allow entry an approval makes (address and device together) lasts.
        "APPEAL_ALLOW_DAYS": read.number("APPEAL_ALLOW_DAYS", 30),
        "APPEAL_MIN_FILL_SECONDS": read.number("APPEAL_MIN_FILL_SECONDS", 3),
        "TRUST_LIFETIME_DAYS": read.number("TRUST_LIFETIME_DAYS", 90),
        # A MaxMind-format City or Country database the operator supplies (guardsvc.places); unset: no locations.
        "GEOIP_DATABASE": read.text("GEOIP_DATABASE"),
        # Where `flask passwords load-breached` writes the breached-password filter; unset: the instance folder.
        "BREACHED_PASSWORDS_FILE": read.text("BREACHED_PASSWORDS_FILE"),
        "MAIL_SERVER": read.text("MAIL_SERVER"),
        "MAIL_PORT": read.number("MAIL_PORT", 25),
        "MAIL_USERNAME": read.text("MAIL_USERNAME"),
        "MAIL_PASSWORD": read.text("MAIL_PASSWORD"),
        "MAIL_USE_TLS": read.flag("MAIL_USE_TLS", False),
        "MAIL_USE_SSL": read.flag("MAIL_USE_SSL", False),
        "MAIL_DEFAULT_SENDER": read.text("MAIL_DEFAULT_SENDER", "guardsvc <no-reply@localhost>"),
        # Without a mail server, mail is kept here whole for `flask mail show` (outbox/mailbox.py).
        "MAILBOX_DIR": read.text("MAILBOX_DIR") or str(Path(instance_path) / "mail"),
        "MAIL_TIMEOUT_SECONDS": read.number("MAIL_TIMEOUT_SECONDS", 15),
        "MAIL_MAX_ATTEMPTS": read.number("MAIL_MAX_ATTEMPTS", 10),
        "MAIL_RETRY_SECONDS": read.number("MAIL_RETRY_SECONDS", 30),
        "MAIL_POLL_SECONDS": read.number("MAIL_POLL_SECONDS", 5),
        # A deliverer's claim on a batch of mail or webhooks (guardsvc.storage.queue): what a node that died
        # holding it leaves waiting this long for another node. Longer than a batch can take to send.
        "DELIVERY_LEASE_SECONDS": read.number("DELIVERY_LEASE_SECONDS", kind=float, default=600, minimum=1),
        # Several nodes (contract section 17): each reports itself to the database this often (guardsvc.nodes).
        "NODE_NAME": node_name(read, instance_path),
        "NODE_REPORT_SECONDS": read.number("NODE_REPORT_SECONDS", kind=float, default=15, minimum=0.2,
                                           maximum=20),
        # Retention of personal data (contract section 10), applied by `flask worker` and `flask purge`.
        "RETENTION_DAYS": read.number("RETENTION_DAYS", 30),
        "SIGNIN_HISTORY_DAYS": read.number("SIGNIN_HISTORY_DAYS", 90),
        "PURGE_INTERVAL_SECONDS": read.number("PURGE_INTERVAL_SECONDS", 3600),
        "RATELIMIT_CODE": read.limit("RATELIMIT_CODE", "10 per minute;50 per hour"),
        "ACCOUNT_PASSWORD_FAILURES": read.number("ACCOUNT_PASSWORD_FAILURES", 10),
        "ACCOUNT_CODE_FAILURES": read.number("ACCOUNT_CODE_FAILURES", 5),
        "ACCOUNT_FAILURE_WINDOW_MINUTES": read.number("ACCOUNT_FAILURE_WINDOW_MINUTES", 15),
        # Password hashes a process runs at once; beyond them a request gets 503 at once.
        "HASH_CONCURRENCY": read.number("HASH_CONCURRENCY", 2),
        "SIGNIN_CODE_MINUTES": read.number("SIGNIN_CODE_MINUTES", 5),
        # Server-side sessions end after this many days without a request.
        "SESSION_IDLE_DAYS": read.number("SESSION_IDLE_DAYS", 14),
        # However active, a session ends this many days after its sign-in.
        "SESSION_ABSOLUTE_DAYS": read.number("SESSION_ABSOLUTE_DAYS", 30),
        # Sensitive account changes need the password (and code) entered this recently.
        "REAUTH_MINUTES": read.number("REAUTH_MINUTES", 10),
        "PASSWORD_RESET_MINUTES": read.number("PASSWORD_RESET_MINUTES", 30),
        "RATELIMIT_RESET": read.limit("RATELIMIT_RESET", "5 per minute;20 per hour"),
        # CrowdSec as a source of blocks (opt-in: all unset, nothing is pulled). The worker pulls the
        # LAPI's decision stream with the bouncer key and deletes decisions as the machine.
        "CROWDSEC_LAPI_URL": (read.text("CROWDSEC_LAPI_URL") or "").rstrip("/") or None,
        "CROWDSEC_BOUNCER_KEY": read.text("CROWDSEC_BOUNCER_KEY"),
        "CROWDSEC_MACHINE_ID": read.text("CROWDSEC_MACHINE_ID"),
        "CROWDSEC_MACHINE_PASSWORD": read.text("CROWDSEC_MACHINE_PASSWORD"),
        # Decisions of these origins become blocks (CAPI's community list is tens of thousands).
        "CROWDSEC_ORIGINS": read.text("CROWDSEC_ORIGINS", "crowdsec,cscli"),
        "CROWDSEC_PULL_SECONDS": read.number("CROWDSEC_PULL_SECONDS", 10),
        "CROWDSEC_TIMEOUT_SECONDS": read.number("CROWDSEC_TIMEOUT_SECONDS", kind=float, default=10),
        "CROWDSEC_RETRY_SECONDS": read.number("CROWDSEC_RETRY_SECONDS", 30),
        # Self-release (contract section 14): CrowdSec decisions of these origins may be released by
        # the visitor's own proof of work (community and third-party lists: nobody here judged them).
        "SELF_RELEASE_ORIGINS": _names(read.text("SELF_RELEASE_ORIGINS", "CAPI,lists")),
        "SELF_RELEASE_CHALLENGE_SECONDS": read.number("SELF_RELEASE_CHALLENGE_SECONDS", 300, minimum=10),
        # PBKDF2-SHA-256 iterations per attempt of the proof (about 1,000 attempts): docs/performance.md.
        "SELF_RELEASE_COST": read.number("SELF_RELEASE_COST", 2000, minimum=1),
        "SELF_RELEASE_HOURS": read.number("SELF_RELEASE_HOURS", 24, minimum=1),
        "SELF_RELEASE_COOLDOWN_DAYS": read.number("SELF_RELEASE_COOLDOWN_DAYS", 7),
        # Releases in any 60 minutes, everyone together; 0 turns self-release off.
        "SELF_RELEASE_PER_HOUR": read.number("SELF_RELEASE_PER_HOUR", 200),
        "RATELIMIT_SELF_RELEASE": read.limit("RATELIMIT_SELF_RELEASE", "20 per minute;100 per day"),
        # No list can take the world down (contract section 15): every source of blocks refuses a range
        # wider than these prefix lengths and any block touching these networks.
        "WIDEST_BLOCK": widest_block(read),
        "NEVER_BLOCK": never_block(read),
        # ... and any block that would take what all active IP blocks cover of the public IPv4 space past this.
        "MAX_COVERAGE": max_coverage(read),
        # Webhooks (guardsvc.webhooks): endpoints come from `flask webhooks add`; these shape delivery.
        # One deadline for a whole POST (connect, send, answer).
        "WEBHOOK_TIMEOUT_SECONDS": read.number("WEBHOOK_TIMEOUT_SECONDS", kind=float, default=5, minimum=0.1),
        # First wait after a failed delivery: doubling (with jitter) up to an hour, then given up on.
        "WEBHOOK_RETRY_SECONDS": read.number("WEBHOOK_RETRY_SECONDS", kind=float, default=30),
        "WEBHOOK_MAX_ATTEMPTS": read.number("WEBHOOK_MAX_ATTEMPTS", 15, minimum=1),
        "WEBHOOK_POLL_SECONDS": read.number("WEBHOOK_POLL_SECONDS", kind=float, default=5, minimum=0.1),
        # How long a process trusts its list of subscribed events (an endpoint added elsewhere waits this long).
        "WEBHOOK_REFRESH_SECONDS": read.number("WEBHOOK_REFRESH_SECONDS", kind=float, default=10),
        # Webhooks to loopback, private, link-local or metadata addresses (refused unless true).
        "WEBHOOK_ALLOW_PRIVATE_TARGETS": read.flag("WEBHOOK_ALLOW_PRIVATE_TARGETS"),
        # Opt-in: the command the worker runs when an approval lifts a block on an IP, e.g.
        # "sudo fail2ban-client unban {ip}"; retried with the webhooks' backoff until it exits 0.
        "FAIL2BAN_UNBAN_COMMAND": unban_command(read),
        "FAIL2BAN_TIMEOUT_SECONDS": read.number("FAIL2BAN_TIMEOUT_SECONDS", kind=float, default=10, minimum=0.1),
        "LOG_LEVEL": read.text("LOG_LEVEL", "INFO"),
        # /metrics answers only with "Authorization: Bearer <this>"; unset, it does not exist.
        "METRICS_TOKEN": read.text("METRICS_TOKEN"),
        # prometheus_client's own variable: counters of several gunicorn workers added up at a scrape.
        "METRICS_MULTIPROCESS": bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR")),
        "LOG_FORMAT": log_format(read),
        # Pages and e-mails: Indonesian (or the language a person chose) in local time; JSON stays UTC.
        "BABEL_DEFAULT_LOCALE": default_locale(read),
        "BABEL_DEFAULT_TIMEZONE": local_timezone(read),
    }
    _check_together(settings, read)
    if read.problems:
        raise SettingsError(read.problems)
    return settings


def _check_together(settings, read):
    """Rules about several settings at once."""
    check_webauthn_rp_id(settings, read)
    shared = not settings["SQLALCHEMY_DATABASE_URI"].startswith("sqlite")
    if shared and not read.text("SECRET_KEY"):
        read.problems.append("GUARDSVC_SECRET_KEY: must be set when the database is shared (not SQLite): "
                             "every node must sign sessions and seal secrets with the same key")
    workers = _asked_workers(read) or 1
    if memory_limits(read) and workers > 1:
        read.problems.append(memory_limits_problem(workers))


def _names(text):
    """``"CAPI, lists"`` -> ``("CAPI", "lists")``: a comma-separated list, blanks dropped."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def machine_store_uri(instance_path):
    """The default rate-limit store: an LMDB file in the instance folder that every process of the
    machine shares (``guardsvc.ratelimits.lmdb_store``)."""
    return f"guardsvc-lmdb://{Path(instance_path).resolve() / 'ratelimits.lmdb'}"


def memory_limits_problem(workers):
    """Why ``memory://`` rate limits cannot serve ``workers`` processes: each would count on its own."""
    return ("GUARDSVC_RATELIMIT_STORAGE_URI: memory:// counts in each process, so "
            f"{workers} workers would allow {workers} times every limit; leave it unset (a store in "
            "the instance folder that every process of this machine shares), use redis://... with "
            "several machines, or run one worker: GUARDSVC_WORKERS=1")


def memory_limits(read=None):
    """True when rate limits are on and counted in this process's memory (``memory://``, never the default)."""
    read = read or _Reader()
    return (read.flag("RATELIMIT_ENABLED", True)
            and (read.text("RATELIMIT_STORAGE_URI") or "").startswith("memory://"))


def machine_cores():
    """The cores this process may run on (its CPU affinity, which containers and taskset narrow)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _asked_workers(read):
    """Worker processes asked for by ``GUARDSVC_WORKERS`` (else gunicorn's ``WEB_CONCURRENCY``); None: unsaid."""
    if read.text("WORKERS") is not None:
        return read.number("WORKERS", 1, minimum=1)
    try:
        return int(os.environ.get("WEB_CONCURRENCY", ""))
    except ValueError:
        return None


def instance_path():
    """``GUARDSVC_INSTANCE_PATH`` (secret key, SQLite file, local files), or None: Flask's own choice.

    Flask's choice is ``instance/`` beside the checkout's package, or ``<venv>/var/guardsvc-instance``
    for an installed package (docs/production.md).
    """
    value = _Reader().text("INSTANCE_PATH")
    return str(Path(value).resolve()) if value else None


def server_settings():
    """gunicorn's settings from ``GUARDSVC_*`` (guardsvc.gunicorn_conf); raises SettingsError.

    Workers: ``GUARDSVC_WORKERS``, else one per core of the machine (the limits are counted in a
    store every process shares: the instance folder's by default, or Redis), and one when they are
    counted in memory (``memory://``, exact only in one process). Threads: eight for one worker,
    four each for several, so a password hash (slow on purpose) never holds a whole process.
    """
    read = _Reader()
    in_memory = memory_limits(read)
    workers = _asked_workers(read) or (1 if in_memory else machine_cores())
    settings = {
        "bind": read.text("BIND", "127.0.0.1:8000"),
        "workers": workers,
        "threads": read.number("THREADS", 8 if workers == 1 else 4, minimum=1),
        "control_socket": read.text("CONTROL_SOCKET"),
        "metrics_dir": os.environ.get("PROMETHEUS_MULTIPROC_DIR"),
        "memory_limits": in_memory,
    }
    if read.problems:
        raise SettingsError(read.problems)
    return settings


def prepare_metrics_folder():
    """Make the folder ``PROMETHEUS_MULTIPROC_DIR`` names when it is missing: prometheus_client writes
    a file there for a counter as soon as it is defined, in every process (a CLI command such as
    ``flask db upgrade`` before the first server start, the worker), and fails when the folder is not
    there yet. A folder that cannot be made is left for prometheus_client to report."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError:
            pass


def process_alive(pid):
    """Whether a process ``pid`` runs on this host (one of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# Set by guardsvc.gunicorn_conf in gunicorn's master, so every worker it forks knows it is served
# with the project's server settings.
SERVER_CONFIGURED = PREFIX + "SERVED_BY_PROJECT_CONFIG"


def mark_server_configured(metrics_dir):
    """Tell the processes this one starts that the server runs with guardsvc's settings and metrics dir."""
    os.environ[SERVER_CONFIGURED] = "1"
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir


def server_configured():
    return os.environ.get(SERVER_CONFIGURED) == "1"
