"""Locating addresses offline (the operator's GeoIP file), naming places, and how far apart they are."""
import logging
import os
import shutil
from datetime import datetime, timedelta


from guardsvc.places import geoip
from guardsvc.places.geoip import Place, check_database, locate
from guardsvc.places.names import label_of, place_label
from guardsvc.places.travel import distance_km, implied_speed_kmh
from guardsvc.web.locale import in_language
from tests.support.geoip_support import (AMSTERDAM, JAKARTA, NOWHERE, SINGAPORE, TOKYO, geoip_database,  # noqa: F401
                                 located, write_city_database)


def test_the_test_database_locates_its_places(ctx, located):
    jakarta = locate(JAKARTA)
    assert (jakarta.country, jakarta.city, round(jakarta.latitude, 2), jakarta.accuracy_km) == ("ID", "Jakarta",
                                                                                               -6.21, 20.0)
    assert locate(TOKYO).city_in("id") == "Tokio" and locate(TOKYO).city_in("en") == "Tokyo"
    singapore = locate(SINGAPORE)
    assert (singapore.country, singapore.city, singapore.latitude) == ("SG", None, None)
    assert locate(NOWHERE) is None and locate("not an address") is None and locate(None) is None


def test_place_names_follow_the_readers_language(ctx, located):
    with in_language("id"):
        assert label_of(locate(AMSTERDAM)) == "Amsterdam, Belanda"
        assert label_of(locate(TOKYO)) == "Tokio, Jepang"
        assert label_of(locate(SINGAPORE)) == "Singapura"
    with in_language("en"):
        assert label_of(locate(AMSTERDAM)) == "Amsterdam, Netherlands"
        assert label_of(locate(TOKYO)) == "Tokyo, Japan"
    assert place_label(None) is None and place_label("QQ", language="en") == "QQ"


def test_a_replaced_file_is_read_again_without_a_restart(app, tmp_path, monkeypatch):
    path = tmp_path / "city.mmdb"
    write_city_database(path, {"203.0.113.0/24": ("ID", {"en": "Jakarta"}, -6.2, 106.8)})
    monkeypatch.setitem(app.config, "GEOIP_DATABASE", str(path))
    monkeypatch.setattr(geoip._DATABASE, "recheck_seconds", 0)
    with app.app_context():
        assert locate(JAKARTA).city == "Jakarta"
        fresh = tmp_path / "download.mmdb"
        write_city_database(fresh, {"203.0.113.0/24": ("ID", {"en": "Bogor"}, -6.6, 106.8)})
        os.replace(fresh, path)  # as geoipupdate does
        assert locate(JAKARTA).city == "Bogor"


def test_unset_or_unreadable_is_a_warning_at_start_and_nothing_else(app, tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(geoip._DATABASE, "recheck_seconds", 0)
    with caplog.at_level(logging.WARNING, logger="guardsvc.places"):
        monkeypatch.setitem(app.config, "GEOIP_DATABASE", None)
        check_database(app)
        broken = tmp_path / "broken.mmdb"
        broken.write_bytes(b"this is no MaxMind database")
        monkeypatch.setitem(app.config, "GEOIP_DATABASE", str(broken))
        check_database(app)
        with app.app_context():
            assert locate(JAKARTA) is None
            monkeypatch.setitem(app.config, "GEOIP_DATABASE", str(tmp_path / "missing.mmdb"))
            assert locate(JAKARTA) is None
    warnings = [record.getMessage() for record in caplog.records]
    assert any("GUARDSVC_GEOIP_DATABASE is not set" in text for text in warnings)
    assert any("broken.mmdb" in text and "cannot read" in text for text in warnings)
    assert any("missing.mmdb" in text for text in warnings)


def test_a_file_written_in_place_is_read_again_too(app, tmp_path, monkeypatch, geoip_database):
    path = tmp_path / "copy.mmdb"
    shutil.copy(geoip_database, path)
    monkeypatch.setitem(app.config, "GEOIP_DATABASE", str(path))
    monkeypatch.setattr(geoip._DATABASE, "recheck_seconds", 0)
    with app.app_context():
        assert locate(AMSTERDAM).country == "NL"
        write_city_database(path, {"198.51.100.0/24": ("BE", {"en": "Brussels"}, 50.85, 4.35)})
        assert locate(AMSTERDAM).country == "BE"


def place(latitude, longitude, radius=None):
    return Place("XX", latitude=latitude, longitude=longitude, accuracy_km=radius)


def test_great_circle_distances():
    jakarta, amsterdam, jayapura = place(-6.2088, 106.8456), place(52.3676, 4.9041), place(-2.5337, 140.7181)
    assert 11_300 < distance_km(jakarta, amsterdam) < 11_400
    assert 3_700 < distance_km(jakarta, jayapura) < 3_800
    assert distance_km(jakarta, jakarta) == 0
    assert distance_km(jakarta, Place("SG")) is None


def test_the_implied_speed_leaves_out_each_places_uncertainty():
    start = datetime(2026, 11, 26, 8, 0)
    jakarta, bandung = place(-6.2088, 106.8456, 20), place(-6.9175, 107.6191, 20)
    assert 60 < implied_speed_kmh(jakarta, start, bandung, start + timedelta(hours=1)) < 90  # 120 km less 2 x 20
    assert implied_speed_kmh(jakarta, start, place(-6.2, 106.84, 20), start) == 0  # inside each other's circle
    assert implied_speed_kmh(jakarta, start, bandung, start) == float("inf")
    assert implied_speed_kmh(jakarta, start, Place("ID"), start) is None
