"""Looking addresses up in the operator's GeoIP database (``GUARDSVC_GEOIP_DATABASE``), never over a network.

The file is a MaxMind-format City or Country database (GeoLite2, DB-IP City
Lite). It is opened once per process and memory-mapped, so every worker shares
the operating system's copy. At most once a second a look-up asks the file
system whether the file changed (a new inode, size or modification time, as
``geoipupdate`` or a ``mv`` of a fresh download makes it) and then opens the new
one. Unset, missing or unreadable: every look-up answers None and nothing else
changes; the problem is logged once per process at start and once each time it changes.
"""
import logging
import os
import threading
import time
from dataclasses import dataclass

import maxminddb
from flask import current_app

log = logging.getLogger("guardsvc.places")
RECHECK_SECONDS = 1.0
# The languages whose city names are kept: the reader's, when the database has it.
NAME_LANGUAGES = ("id", "en")


@dataclass(frozen=True)
class Place:
    """Where an address is: ``country`` an ISO 3166-1 code; the rest None when the database does not say."""

    country: str
    city: str | None = None  # the English name (or the database's only one)
    city_names: tuple = ()  # ((language, name), ...) for NAME_LANGUAGES the database has
    latitude: float | None = None
    longitude: float | None = None
    accuracy_km: float | None = None

    def city_in(self, language):
        """The city's name in ``language`` when the database has it, else its English name."""
        return dict(self.city_names).get(language) or self.city


class _Database:
    """The open reader of one process, and what the file looked like when it was opened."""

    def __init__(self):
        self.lock = threading.Lock()
        self.path = None
        self.identity = None
        self.reader = None
        self.problem = None
        self.checked_at = float("-inf")

    def current(self, path):
        """The reader of ``path`` as the file is now (None when it cannot be read)."""
        if path == self.path and time.monotonic() - self.checked_at < RECHECK_SECONDS:
            return self.reader
        with self.lock:
            if path != self.path or time.monotonic() - self.checked_at >= RECHECK_SECONDS:
                self._refresh(path)
            return self.reader

    def _refresh(self, path):
        self.checked_at = time.monotonic()
        try:
            stat = os.stat(path)
            identity = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
            if path == self.path and identity == self.identity:
                return
            reader = maxminddb.open_database(path, maxminddb.MODE_AUTO)
        except (OSError, ValueError, maxminddb.InvalidDatabaseError) as exc:
            self._set(path, None, None, f"GUARDSVC_GEOIP_DATABASE: cannot read {path!r} ({exc}); "
                                        "sign-ins are not located")
            return
        self._set(path, identity, reader, None)
        log.info("GeoIP database %s opened (%s, built %s)", path, reader.metadata().database_type,
                 time.strftime("%Y-%m-%d", time.gmtime(reader.metadata().build_epoch)))

    def _set(self, path, identity, reader, problem):
        if problem and problem != self.problem:
            log.warning("%s", problem)
        self.path, self.identity, self.reader, self.problem = path, identity, reader, problem


_DATABASE = _Database()


def database_path():
    return current_app.config.get("GEOIP_DATABASE")


def check_database(app):
    """At start: say once when sign-ins cannot be located (unset, or a file that cannot be read)."""
    path = app.config.get("GEOIP_DATABASE")
    if not path:
        log.warning("GUARDSVC_GEOIP_DATABASE is not set: sign-ins are not located, so no e-mailed code is "
                    "asked for a new country and alerts name no place (docs/operations.md#sign-in-locations)")
        return
    _DATABASE.current(path)


def locate(ip_address):
    """The Place of ``ip_address``, or None (no database, an address it does not know, a private one)."""
    path = database_path()
    if not path or not ip_address:
        return None
    reader = _DATABASE.current(path)
    if reader is None:
        return None
    try:
        record = reader.get(ip_address)
    except ValueError:  # not an address at all
        return None
    return _place(record) if isinstance(record, dict) else None


def _names(part):
    names = (part or {}).get("names") or {}
    return names if isinstance(names, dict) else {}


def _place(record):
    country = (record.get("country") or record.get("registered_country") or {}).get("iso_code")
    if not isinstance(country, str) or len(country) != 2:
        return None
    names = _names(record.get("city"))
    city = names.get("en") or next(iter(names.values()), None)
    location = record.get("location") or {}
    latitude, longitude = location.get("latitude"), location.get("longitude")
    return Place(country=country.upper(), city=city[:100] if city else None,
                 city_names=tuple((lang, names[lang][:100]) for lang in NAME_LANGUAGES if names.get(lang)),
                 latitude=float(latitude) if isinstance(latitude, (int, float)) else None,
                 longitude=float(longitude) if isinstance(longitude, (int, float)) else None,
                 accuracy_km=float(location["accuracy_radius"]) if isinstance(
                     location.get("accuracy_radius"), (int, float)) else None)
