"""Who "the client" is for the cooldown on shared addresses, the per-network ceiling, and form spam."""
import time

import pytest
from sqlalchemy import select

from guardsvc.appeals import spam
from guardsvc.appeals.models import UnblockTicket
from guardsvc.extensions import db
from tests.support.factories import submit_ticket
from tests.support.pages_support import csrf_token, text_of

SHARED_IP = "198.51.100.40"  # one carrier NAT address for everybody below


def submit(client, device=None, ip=SHARED_IP, **body):
    return submit_ticket(client, ip, device, **body)


def pending(app):
    with app.app_context():
        return db.session.scalars(select(UnblockTicket).where(UnblockTicket.status == "pending")
                                  .order_by(UnblockTicket.id)).all()


def test_devices_behind_one_address_each_get_their_own_ticket(client, app):
    first = submit(client, device="hp-andi", name="Andi")
    second = submit(client, device="hp-sari", name="Sari")
    assert first.status_code == 201 and second.status_code == 201
    assert first.get_json()["ticket_number"] != second.get_json()["ticket_number"]
    again = submit(client, device="hp-sari")
    assert again.status_code == 429
    assert again.get_json()["ticket_number"] == second.get_json()["ticket_number"]
    assert [t.name for t in pending(app)] == ["Andi", "Sari"]


def test_a_device_is_not_held_back_by_a_device_less_ticket_on_its_address(client):
    assert submit(client).status_code == 201
    assert submit(client, device="laptop-budi").status_code == 201
    cooldown = submit(client)  # the device-less client is still the same client: its own number
    assert cooldown.status_code == 429


def test_the_ceiling_per_address_refuses_new_clients_without_naming_anybody(app, client, monkeypatch):
    monkeypatch.setitem(app.config, "PENDING_PER_IP", 2)
    first = submit(client, device="d1").get_json()["ticket_number"]
    assert submit(client, device="d2").status_code == 201
    refused = submit(client, device="d3")
    assert refused.status_code == 429
    body = refused.get_json()
    assert "ticket_number" not in body and body["success"] is False
    assert body["message"].startswith("Terlalu banyak permohonan dari jaringan Anda")
    own = submit(client, device="d1")  # a client with its own pending ticket still hears its number
    assert own.status_code == 429 and own.get_json()["ticket_number"] == first
    assert submit(client, device="d3", ip="203.0.113.99").status_code == 201  # another network
    assert len(pending(app)) == 3


def browser(app):
    client = app.test_client()
    client.environ_base.update({"REMOTE_ADDR": SHARED_IP})
    return client


def form_post(client, **extra):
    page = client.get("/banding")
    html = text_of(page)
    stamp = html.split(f'name="{spam.STAMP_FIELD}" value="', 1)[1].split('"', 1)[0]
    data = {"csrf_token": csrf_token(client, "/banding"), spam.STAMP_FIELD: stamp,
            "name": "Rina", "email": "rina@example.com", "reason": "Saya tidak melanggar apa pun.", **extra}
    return client.post("/banding", data=data)


def test_two_browsers_behind_one_address_never_see_each_others_ticket(app):
    one, two = browser(app), browser(app)
    assert form_post(one).status_code == 303
    assert form_post(two, name="Dewi").status_code == 303
    numbers = [text_of(c.get("/banding/terkirim")) for c in (one, two)]
    tickets = pending(app)
    assert len(tickets) == 2 and tickets[0].device_id != tickets[1].device_id
    assert tickets[0].ticket_number in numbers[0] and tickets[1].ticket_number not in numbers[0]
    assert tickets[1].ticket_number in numbers[1] and tickets[0].ticket_number not in numbers[1]
    repeat = form_post(two, name="Dewi lagi")
    assert repeat.status_code == 429
    assert tickets[1].ticket_number in text_of(repeat) and tickets[0].ticket_number not in text_of(repeat)


@pytest.fixture()
def min_fill(app, monkeypatch):
    monkeypatch.setitem(app.config, "APPEAL_MIN_FILL_SECONDS", 3)


def test_a_form_sent_faster_than_a_person_types_is_refused_and_keeps_the_text(app, min_fill):
    response = form_post(browser(app), reason="Teks yang diketik orang ini.")
    assert response.status_code == 422
    assert "terkirim kurang dari 3 detik setelah dibuka" in text_of(response)
    assert "Teks yang diketik orang ini." in text_of(response)
    assert pending(app) == []


def test_a_filled_honeypot_stores_nothing(app):
    response = form_post(browser(app), **{spam.HONEYPOT_FIELD: "http://spam.example"})
    assert response.status_code == 422 and pending(app) == []


def test_a_forged_or_missing_stamp_is_refused(app, min_fill):
    client = browser(app)
    data = {"csrf_token": csrf_token(client, "/banding"), "name": "Rina", "email": "rina@example.com",
            "reason": "Alasan.", spam.STAMP_FIELD: "1700000000"}
    assert client.post("/banding", data=data).status_code == 422
    assert pending(app) == []


def test_a_form_filled_at_human_speed_goes_through(app, min_fill, monkeypatch):
    client = browser(app)
    served_at = time.time()
    monkeypatch.setattr(spam.time, "time", lambda: served_at)
    page = text_of(client.get("/banding"))
    stamp = page.split(f'name="{spam.STAMP_FIELD}" value="', 1)[1].split('"', 1)[0]
    monkeypatch.setattr(spam.time, "time", lambda: served_at + 4)
    data = {"csrf_token": csrf_token(client, "/banding"), spam.STAMP_FIELD: stamp,
            "name": "Rina", "email": "rina@example.com", "reason": "Alasan yang ditulis pelan-pelan."}
    assert client.post("/banding", data=data).status_code == 303
    assert len(pending(app)) == 1


def test_a_guessed_device_id_learns_no_ticket_number(client):
    from tests.support.factories import submit_ticket

    first = submit_ticket(client, ip="192.0.2.30", device="laptop-korban").get_json()["ticket_number"]
    own = submit_ticket(client, ip="192.0.2.30", device="laptop-korban")  # the same address: its own number
    assert own.status_code == 429 and own.get_json()["ticket_number"] == first
    guess = submit_ticket(client, ip="198.51.100.99", device="laptop-korban")  # elsewhere, the id alone
    body = guess.get_json()
    assert guess.status_code == 429 and "ticket_number" not in body and body["success"] is False
    assert first not in guess.get_data(as_text=True)


def test_the_device_cookie_that_submitted_shows_the_number_from_anywhere(app):
    from tests.support.factories import submit_body

    browser = app.test_client()
    browser.set_cookie(app.config["DEVICE_COOKIE_NAME"], "cookie-dari-layanan-1")
    url = "/api/guard/unblock-tickets/submit"
    first = browser.post(url, json=submit_body(), environ_base={"REMOTE_ADDR": "192.0.2.31"}).get_json()
    moved = browser.post(url, json=submit_body(), environ_base={"REMOTE_ADDR": "203.0.113.31"})
    assert moved.status_code == 429 and moved.get_json()["ticket_number"] == first["ticket_number"]
