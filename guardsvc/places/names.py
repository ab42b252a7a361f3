"""Places as people read them: "Amsterdam, Belanda" / "Amsterdam, Netherlands".

Country names come from Babel's locale data (CLDR) in the reader's language;
city names are the database's own (its English name, or the reader's language
when the database has that: ``Place.city_in``).
"""
from babel import Locale
from flask_babel import get_locale

from guardsvc.translation import LOCALES


def country_name(code, language=None):
    """The name of the country ``code`` (ISO 3166-1) in ``language`` (default: the reader's); the code when unknown."""
    if not code:
        return None
    locale = LOCALES.get(language) if language else get_locale()
    return (locale or Locale.parse("id")).territories.get(code.upper(), code.upper())


def place_label(country, city=None, language=None):
    """``Amsterdam, Belanda``; only the country without a city; None without a country."""
    name = country_name(country, language)
    if name is None:
        return None
    return f"{city}, {name}" if city else name


def label_of(place):
    """A located ``Place`` as the reader reads it (its city in their language when the database has it)."""
    if place is None:
        return None
    language = get_locale().language
    return place_label(place.country, place.city_in(language), language)


def init_place_names(app):
    """``{{ event.country|place(event.city) }}`` in templates."""
    app.jinja_env.filters["place"] = lambda country, city=None: place_label(country, city) or ""
