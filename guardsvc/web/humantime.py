"""How pages and e-mails show values to people: the reader's language, the configured local zone.

Everything goes through Flask-Babel, so the locale (``id`` or ``en``, see
guardsvc.web.locale) and the zone (``GUARDSVC_TIMEZONE``) are chosen in one place. It needs an application
context, not a request: e-mails queued from the CLI are formatted the same way.
Stored datetimes are naive UTC; JSON keeps them in UTC (guardsvc/storage/clock.py).
"""
from datetime import UTC
from functools import lru_cache

from babel.dates import format_datetime as babel_datetime
from flask_babel import (format_date, format_datetime, format_decimal, format_timedelta, get_babel, get_locale,
                         get_timezone)

# "22 November 2026, 17.52 WIB" / "22 November 2026, 17:52 WIB": each language's own way of
# writing the time, and the zone's Indonesian abbreviation (WIB/WITA/WIT) in both.
TIME_PATTERNS = {"id": "d MMMM y, HH.mm", "en": "d MMMM y, HH:mm"}
ZONE_PATTERN = "zzz"
ZONE_NAMES_FROM = "id"


def human_time(value):
    """``22 November 2026, 17.52 WIB`` for a naive-UTC datetime; '' for None."""
    if value is None:
        return ""
    # The text changes once a minute: formatting it (the zone's name above all) costs far more
    # than looking it up, and every submitted appeal formats its own "now" for the e-mail.
    return _minute_text(value.replace(second=0, microsecond=0), *_zone_and_locale())


def _zone_and_locale():
    """The zone (from the settings) and the language (the reader's) dates are shown in."""
    return get_babel().default_timezone, get_locale().language


@lru_cache(maxsize=1024)
def _minute_text(minute, _zone, language):
    # Zone and language are part of the key: another app or reader never reads these texts.
    pattern = TIME_PATTERNS.get(language, TIME_PATTERNS["id"])
    zone = babel_datetime(minute.replace(tzinfo=UTC), ZONE_PATTERN, tzinfo=get_timezone(), locale=ZONE_NAMES_FROM)
    return f"{format_datetime(minute, pattern)} {zone}"


def human_number(value):
    """``1.234`` (Indonesian digit grouping) for a count."""
    return format_decimal(value)


def human_date(value):
    """``22 November 2026`` for a date; '' for None."""
    return "" if value is None else format_date(value, "d MMMM y")


def human_age(delta):
    """How long ago, in words: ``3 jam``, ``2 hari``, ``5 menit`` (one unit, rounded)."""
    return format_timedelta(delta, threshold=1, add_direction=False)
