"""A small MaxMind-format City database, written by the tests themselves (mmdb-writer).

Its places (documentation address ranges; coordinates of the real cities, accuracy radius 20 km):

- 203.0.113.0/24: Jakarta, Indonesia           - 198.51.100.0/24: Amsterdam, Netherlands
- 192.0.2.0/25:   Bandung, Indonesia (120 km from Jakarta)
- 192.0.2.128/25: Jayapura, Indonesia (3,700 km from Jakarta)
- 2001:db8:1::/48: Tokyo, Japan (with an Indonesian city name, as a database may carry)
- 100.64.0.0/24: somewhere in Singapore (a country-level entry: no city, no coordinates)

Any other address is not in it (like a private address in a real database).
"""
import pytest
from mmdb_writer import MMDBWriter, MmdbF64, MmdbU16
from netaddr import IPSet

JAKARTA, BANDUNG, JAYAPURA, AMSTERDAM = "203.0.113.9", "192.0.2.9", "192.0.2.200", "198.51.100.9"
TOKYO, SINGAPORE, NOWHERE = "2001:db8:1::9", "100.64.0.9", "10.1.2.3"

PLACES = {
    "203.0.113.0/24": ("ID", {"en": "Jakarta"}, -6.2088, 106.8456),
    "192.0.2.0/25": ("ID", {"en": "Bandung"}, -6.9175, 107.6191),
    "192.0.2.128/25": ("ID", {"en": "Jayapura"}, -2.5337, 140.7181),
    "198.51.100.0/24": ("NL", {"en": "Amsterdam"}, 52.3676, 4.9041),
    "2001:db8:1::/48": ("JP", {"en": "Tokyo", "id": "Tokio"}, 35.6762, 139.6503),
    "100.64.0.0/24": ("SG", None, None, None),
}


def write_city_database(path, places=PLACES):
    """Write a GeoLite2-City-shaped database of ``places`` to ``path``; returns ``path``."""
    writer = MMDBWriter(ip_version=6, ipv4_compatible=True, database_type="GeoLite2-City",
                        languages=["en", "id"], description="guardsvc test places")
    for network, (country, city, latitude, longitude) in places.items():
        record = {"country": {"iso_code": country, "names": {"en": country}}}
        if city:
            record["city"] = {"names": city}
        if latitude is not None:
            record["location"] = {"latitude": MmdbF64(latitude), "longitude": MmdbF64(longitude),
                                  "accuracy_radius": MmdbU16(20)}
        writer.insert_network(IPSet([network]), record)
    writer.to_db_file(str(path))
    return path


@pytest.fixture(scope="session")
def geoip_database(tmp_path_factory):
    """The test places as a database file (written once per run)."""
    return write_city_database(tmp_path_factory.mktemp("geoip") / "test-city.mmdb")


@pytest.fixture()
def located(app, geoip_database, monkeypatch):
    """The test app locates addresses with the test database for this test."""
    monkeypatch.setitem(app.config, "GEOIP_DATABASE", str(geoip_database))
    return geoip_database
