"""How people read a moment (pages and e-mails alike): Indonesian dates, always naming the zone."""

MONTHS = ("Januari", "Februari", "Maret", "April", "Mei", "Juni", "Juli", "Agustus",
          "September", "Oktober", "November", "Desember")


def human_time(value):
    """``22 November 2026, 08.50 UTC`` for a naive-UTC datetime; '' for None."""
    if value is None:
        return ""
    return f"{value.day} {MONTHS[value.month - 1]} {value.year}, {value:%H.%M} UTC"
