"""Times people read are local (WIB/WITA/WIT, Indonesian month names); JSON stays UTC."""
from datetime import datetime

import pytest

from guardsvc import create_app
from guardsvc.storage import clock
from guardsvc.config import load_settings
from guardsvc.web.humantime import human_number, human_time
from tests.support.factories import submit_body
from tests.support.smtp import smtp_server, text_body  # noqa: F401  (fixture)

MOMENT = datetime(2026, 11, 22, 10, 52)


@pytest.mark.parametrize("zone,expected", [
    ("Asia/Jakarta", "22 November 2026, 17.52 WIB"),
    ("Asia/Makassar", "22 November 2026, 18.52 WITA"),
    ("Asia/Jayapura", "22 November 2026, 19.52 WIT"),
])
def test_each_indonesian_zone_is_named(app, zone, expected):
    other = create_app({"TESTING": True, "BABEL_DEFAULT_TIMEZONE": zone})
    with other.app_context():
        assert human_time(MOMENT) == expected


def test_setting_picks_the_zone_and_refuses_unknown_names(monkeypatch, tmp_path):
    monkeypatch.setenv("GUARDSVC_SECRET_KEY", "x")
    assert load_settings(str(tmp_path))["BABEL_DEFAULT_TIMEZONE"] == "Asia/Jakarta"
    monkeypatch.setenv("GUARDSVC_TIMEZONE", "Asia/Makassar")
    assert load_settings(str(tmp_path))["BABEL_DEFAULT_TIMEZONE"] == "Asia/Makassar"
    monkeypatch.setenv("GUARDSVC_TIMEZONE", "Mars/Olympus")
    with pytest.raises(ValueError, match="GUARDSVC_TIMEZONE"):
        load_settings(str(tmp_path))


def test_base_url_follows_the_bind_address_unless_set(monkeypatch, tmp_path):
    monkeypatch.setenv("GUARDSVC_SECRET_KEY", "x")
    monkeypatch.delenv("GUARDSVC_BASE_URL", raising=False)
    monkeypatch.setenv("GUARDSVC_BIND", "0.0.0.0:9000")
    assert load_settings(str(tmp_path))["BASE_URL"] == "http://localhost:9000"  # a browser's address for it
    monkeypatch.setenv("GUARDSVC_BIND", "192.0.2.10:8000")
    assert load_settings(str(tmp_path))["BASE_URL"] == "http://192.0.2.10:8000"
    monkeypatch.delenv("GUARDSVC_BIND")
    assert load_settings(str(tmp_path))["BASE_URL"] == "http://localhost:8000"
    monkeypatch.setenv("GUARDSVC_BASE_URL", "https://guard.example.id/")
    assert load_settings(str(tmp_path))["BASE_URL"] == "https://guard.example.id"


def test_numbers_use_indonesian_grouping(app):
    with app.app_context():
        assert human_number(1234567) == "1.234.567"


def test_page_shows_local_time_while_json_keeps_utc(client, monkeypatch):
    monkeypatch.setattr(clock, "utcnow", lambda: MOMENT)
    number = client.post("/api/guard/unblock-tickets/submit", json=submit_body()).get_json()["ticket_number"]
    page = client.get("/banding/cek", query_string={"tiket": number}).get_data(as_text=True)
    assert "22 November 2026, 17.52 WIB" in page and "UTC" not in page
    data = client.get(f"/api/guard/unblock-tickets/check/{number}").get_json()["data"]
    assert data["created_at"].startswith("2026-11-22T10:52:00") and data["created_at"].endswith("Z")


def test_mail_queued_from_the_cli_is_in_local_time(client, runner, monkeypatch, smtp_server):
    number = client.post("/api/guard/unblock-tickets/submit",
                         json=submit_body(email="waktu@example.com")).get_json()["ticket_number"]
    monkeypatch.setattr(clock, "utcnow", lambda: MOMENT)
    assert runner.invoke(args=["tickets", "decide", number, "--approve"]).exit_code == 0
    assert runner.invoke(args=["mail", "deliver", "--once"]).exit_code == 0
    [message] = smtp_server.inbox.to("waktu@example.com")
    assert "22 November 2026, 17.52 WIB" in text_body(message)
