"""Passkeys at an address no browser accepts (an IP address, plain http): said at start and on the pages."""
import logging

import pytest

from guardsvc import create_app
from guardsvc.passkeys.availability import IP_ADDRESS, NOT_SECURE, find_obstacle
from tests.support.pages_support import sign_in_session, text_of


@pytest.mark.parametrize(("base_url", "rp_id", "kind", "suggested"), [
    ("http://127.0.0.1:8000", None, IP_ADDRESS, "http://localhost:8000"),
    ("http://[::1]:8000/guardsvc", None, IP_ADDRESS, "http://localhost:8000/guardsvc"),
    ("https://203.0.113.5", None, IP_ADDRESS, None),
    ("https://guard.example.id", "10.0.0.1", IP_ADDRESS, None),
    ("http://guard.example.id", None, NOT_SECURE, None),
    ("http://localhost:8000", None, None, None),
    ("http://app.localhost:8000", None, None, None),
    ("https://guard.example.id", "example.id", None, None),
])
def test_which_addresses_keep_every_browser_from_passkeys(base_url, rp_id, kind, suggested):
    obstacle = find_obstacle(base_url, rp_id)
    assert (obstacle.kind if obstacle else None) == kind
    assert (obstacle.suggested_base_url if obstacle else None) == suggested


def warnings_at_start(caplog, base_url):
    """What building an app for ``base_url`` says about passkeys in the log."""
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="guardsvc.passkeys.availability"):
        create_app({"TESTING": True, "BASE_URL": base_url})
    return " ".join(record.getMessage() for record in caplog.records
                    if record.name == "guardsvc.passkeys.availability")


def test_an_ip_address_is_reported_at_start_with_the_fix(app, caplog):
    said = warnings_at_start(caplog, "http://127.0.0.1:8000")
    assert "GUARDSVC_BASE_URL http://127.0.0.1:8000 names an IP address" in said
    assert "set GUARDSVC_BASE_URL=http://localhost:8000 and open that address" in said
    assert "is not https" in warnings_at_start(caplog, "http://guard.example.id")
    assert warnings_at_start(caplog, "http://localhost:8000") == ""


@pytest.fixture()
def at_an_ip_address(app):
    return create_app({"TESTING": True, "BASE_URL": "http://127.0.0.1:8000"})


def test_the_pages_explain_instead_of_offering_a_button_that_cannot_work(at_an_ip_address, make_user):
    browser = at_an_ip_address.test_client()
    page = text_of(browser.get("/masuk"))
    assert 'data-passkey="get"' not in page and 'id="masuk-passkey-unavailable"' in page
    assert "bukan di alamat IP seperti 127.0.0.1" in page and "bukan kesalahan Anda" in page
    assert 'href="http://localhost:8000"' in page
    assert "dibatalkan" not in page  # nothing that blames the person
    user = make_user()
    sign_in_session(browser, user)
    account = text_of(browser.get("/akun"))
    assert 'id="tambah-passkey-unavailable"' in account
    assert 'id="mulai-passkey"' not in account and 'data-passkey="create"' not in account


def test_english_explains_it_too(at_an_ip_address):
    page = text_of(at_an_ip_address.test_client().get("/masuk", headers={"Accept-Language": "en"}))
    assert "not at an IP address such as 127.0.0.1" in page and "not your mistake" in page


def test_at_a_name_the_buttons_are_offered_with_the_address_they_work_at(client, make_user):
    page = text_of(client.get("/masuk"))
    assert 'data-passkey="get"' in page and 'data-origin="http://localhost:8000"' in page
    assert "unavailable" not in page
    sign_in_session(client, make_user())
    account = text_of(client.get("/akun"))
    assert 'data-passkey="create"' in account and "unavailable" not in account
