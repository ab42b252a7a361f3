"""How pages and e-mails show values to people: Indonesian formats in the configured local zone.

Everything goes through Flask-Babel, so the locale (``id``) and the zone
(``GUARDSVC_TIMEZONE``) are chosen in one place. It needs an application
context, not a request: e-mails queued from the CLI are formatted the same way.
Stored datetimes are naive UTC; JSON keeps them in UTC (guardsvc/clock.py).
"""
from flask_babel import format_date, format_datetime, format_decimal, format_timedelta

# "22 November 2026, 17.52 WIB": the zone's own abbreviation (WIB/WITA/WIT) always shown.
TIME_PATTERN = "d MMMM y, HH.mm zzz"


def human_time(value):
    """``22 November 2026, 17.52 WIB`` for a naive-UTC datetime; '' for None."""
    if value is None:
        return ""
    return format_datetime(value, TIME_PATTERN)


def human_number(value):
    """``1.234`` (Indonesian digit grouping) for a count."""
    return format_decimal(value)


def human_date(value):
    """``22 November 2026`` for a date; '' for None."""
    return "" if value is None else format_date(value, "d MMMM y")


def human_age(delta):
    """How long ago, in words: ``3 jam``, ``2 hari``, ``5 menit`` (one unit, rounded)."""
    return format_timedelta(delta, threshold=1, add_direction=False)
