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
import time
from dataclasses import dataclass

import maxminddb
from flask import current_app

from guardsvc.storage.watched_file import WatchedFile

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


def _report(path, reader, error):
    if error is not None:
        log.warning("GUARDSVC_GEOIP_DATABASE: cannot read %r (%s); sign-ins are not located", path, error)
        return
    log.info("GeoIP database %s opened (%s, built %s)", path, reader.metadata().database_type,
             time.strftime("%Y-%m-%d", time.gmtime(reader.metadata().build_epoch)))


_DATABASE = WatchedFile(lambda path: maxminddb.open_database(path, maxminddb.MODE_AUTO), _report,
                        errors=(maxminddb.InvalidDatabaseError,), recheck_seconds=RECHECK_SECONDS)


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
