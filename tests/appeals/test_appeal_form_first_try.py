"""The appeal form on a first try: the language switch keeps what was typed; a form sent too fast says so."""
import re
import time

import pytest
from sqlalchemy import select

from guardsvc.appeals import spam
from guardsvc.appeals.models import UnblockTicket
from guardsvc.extensions import db
from tests.support.pages_support import csrf_token, text_of

TYPED = {"name": "Budi <Santoso>", "email": "budi@example.com", "phone": "0812",
         "reason": "Saya tidak melakukan apa-apa.\nMohon dibuka."}


def tickets(app):
    with app.app_context():
        return db.session.scalars(select(UnblockTicket)).all()


def stamp_of(html):
    return re.search(rf'name="{spam.STAMP_FIELD}" value="([^"]+)"', html).group(1)


@pytest.fixture()
def served(client):
    """The appeal form as served: ``(its CSRF token, its stamp)``."""
    html = text_of(client.get("/banding"))
    return csrf_token(client, "/banding"), stamp_of(html)


def test_the_header_switch_sends_the_appeal_form_to_a_switch_of_its_own(client):
    html = text_of(client.get("/banding"))
    assert '<form method="post" action="/banding" class="stack-form" id="form-banding" novalidate>' in html
    assert re.search(r'<button type="submit" name="lang" value="en"[^>]*form="form-banding" '
                     r'formaction="/banding/bahasa">English</button>', html)
    assert 'formaction' not in text_of(client.get("/banding/cek"))  # elsewhere: the plain switch


def test_switching_language_keeps_every_typed_field_and_stores_nothing(client, app, served):
    token, stamp = served
    answer = client.post("/banding/bahasa", data={**TYPED, "csrf_token": token, "lang": "en",
                                                  spam.STAMP_FIELD: stamp, "kembali": "/halaman?x=1"})
    html = text_of(answer)
    assert answer.status_code == 200 and '<html lang="en">' in html and "Appeal a block" in html
    assert 'value="Budi &lt;Santoso&gt;"' in html and 'value="budi@example.com"' in html and 'value="0812"' in html
    assert "Saya tidak melakukan apa-apa.\nMohon dibuka.</textarea>" in html
    assert stamp_of(html) == stamp  # the time already spent on the form still counts
    assert 'name="kembali" value="/halaman?x=1"' in html
    assert "guardsvc_lang=en" in answer.headers["Set-Cookie"]
    assert tickets(app) == []
    assert '<html lang="en">' in text_of(client.get("/banding/cek"))  # the choice is kept
    back = client.post("/banding/bahasa", data={**TYPED, "csrf_token": token, "lang": "id"})
    assert '<html lang="id">' in text_of(back) and 'value="Budi &lt;Santoso&gt;"' in text_of(back)


def test_an_unknown_language_or_a_missing_token_changes_nothing(client, app, served):
    token, _ = served
    assert client.post("/banding/bahasa", data={**TYPED, "csrf_token": token, "lang": "fr"}).status_code == 400
    stale = client.post("/banding/bahasa", data={**TYPED, "lang": "en"})
    assert stale.status_code == 400 and 'value="Budi &lt;Santoso&gt;"' in text_of(stale)  # typed text kept
    assert tickets(app) == []


@pytest.fixture()
def min_fill(app, monkeypatch):
    monkeypatch.setitem(app.config, "APPEAL_MIN_FILL_SECONDS", 3)


def test_a_form_sent_too_fast_says_what_happened_and_goes_through_when_sent_again(client, app, min_fill,
                                                                                  monkeypatch):
    opened = float(int(time.time()))  # the stamp counts whole seconds
    monkeypatch.setattr(spam.time, "time", lambda: opened)
    html = text_of(client.get("/banding"))
    token, stamp = csrf_token(client, "/banding"), stamp_of(html)
    monkeypatch.setattr(spam.time, "time", lambda: opened + 1.5)  # autofilled or pasted
    refused = client.post("/banding", data={**TYPED, "csrf_token": token, spam.STAMP_FIELD: stamp})
    page = text_of(refused)
    assert refused.status_code == 422
    assert "terkirim kurang dari 3 detik setelah dibuka" in page
    assert "Tidak ada yang salah dengan isian Anda" in page and "periksa isian" not in page
    assert 'value="Budi &lt;Santoso&gt;"' in page and stamp_of(page) == stamp
    monkeypatch.setattr(spam.time, "time", lambda: opened + 4)  # pressed again a moment later
    again = client.post("/banding", data={**TYPED, "csrf_token": token, spam.STAMP_FIELD: stamp_of(page)})
    assert again.status_code == 303 and len(tickets(app)) == 1


def test_english_says_it_too(client, app, min_fill):
    html = text_of(client.get("/banding", headers={"Accept-Language": "en"}))
    refused = client.post("/banding", data={**TYPED, "csrf_token": csrf_token(client, "/banding"),
                                            spam.STAMP_FIELD: stamp_of(html)}, headers={"Accept-Language": "en"})
    assert "This form was sent less than 3 seconds after it was opened" in text_of(refused)
