"""Which language a person reads (contract section 12): the switch, Accept-Language, the default,
and the language of the e-mails that follow."""
from datetime import datetime

import pytest
from flask_babel import force_locale

from guardsvc import messages
from guardsvc.config import SettingsError, load_settings
from guardsvc.extensions import db
from guardsvc.outbox.service import messages_to
from guardsvc.web.humantime import human_number, human_time
from tests.support.factories import submit_ticket
from tests.support.pages_support import csrf_token, post_form, sign_in, text_of

ENGLISH = {"Accept-Language": "en-GB,en;q=0.9"}


def lang_of(response):
    html = text_of(response)
    return html[html.index("<html lang=\"") + 12:].split("\"", 1)[0]


def test_indonesian_is_the_default(client):
    response = client.get("/")
    assert lang_of(response) == "id"
    assert "Ajukan banding" in text_of(response) and "Appeal a block" not in text_of(response)
    assert "Accept-Language" in response.headers["Vary"]


@pytest.mark.parametrize("header, expected", [
    ("en-GB,en;q=0.9", "en"), ("fr-FR, en;q=0.5", "en"), ("id-ID,id;q=0.9,en;q=0.8", "id"),
    ("fr-FR", "id"), ("*", "id"), ("", "id"), ("xx;q=bogus,,;", "id"),
])
def test_accept_language_picks_a_language_we_have(client, header, expected):
    response = client.get("/", headers={"Accept-Language": header})
    assert response.status_code == 200
    assert lang_of(response) == expected
    assert ("Appeal a block" in text_of(response)) == (expected == "en")


def test_the_switch_is_on_every_page_and_its_choice_beats_the_browser(client):
    page = text_of(client.get("/banding"))
    assert 'action="/bahasa"' in page and 'lang="en"' in page and ">English</button>" in page
    response = post_form(client, "/bahasa", {"lang": "en", "back": "/banding/cek?tiket=TKT-0000ABCD"},
                         page="/banding")
    assert response.status_code == 303
    assert response.headers["Location"] == "/banding/cek?tiket=TKT-0000ABCD"
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith("guardsvc_lang=en;") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    english = client.get("/banding/cek", headers={"Accept-Language": "id"})
    assert lang_of(english) == "en" and ">Bahasa Indonesia</button>" in text_of(english)
    post_form(client, "/bahasa", {"lang": "id", "back": "/"}, page="/")
    assert lang_of(client.get("/", headers=ENGLISH)) == "id"


def test_the_switch_is_a_checked_post(client):
    assert client.get("/bahasa").status_code == 405
    assert client.post("/bahasa", data={"lang": "en", "back": "/"}).status_code == 400  # no CSRF token
    refused = post_form(client, "/bahasa", {"lang": "fr", "back": "/"})
    assert refused.status_code == 400 and str(messages.LANGUAGE_UNKNOWN) in text_of(refused)
    assert "guardsvc_lang" not in refused.headers.get("Set-Cookie", "")
    for elsewhere in ("//evil.example/", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"):
        response = post_form(client, "/bahasa", {"lang": "en", "back": elsewhere})
        assert response.status_code == 303 and response.headers["Location"] == "/", elsewhere


def test_a_blocked_visitor_can_switch_and_read_the_block_page_in_english(client, make_block):
    make_block(network="127.0.0.1")
    blocked = client.get("/akun", headers=ENGLISH)
    assert blocked.status_code == 403 and lang_of(blocked) == "en"
    token = csrf_token(client, "/banding")
    response = client.post("/bahasa", data={"csrf_token": token, "lang": "en", "back": "/banding"})
    assert response.status_code == 303
    assert lang_of(client.get("/banding")) == "en"


def test_json_messages_follow_accept_language_and_nothing_else_changes(client):
    answers = {}
    for language in ("id", "en"):
        response = client.post("/api/guard/unblock-tickets/submit", json={"email": "bukan-email"},
                               headers={"Accept-Language": language})
        answers[language] = (response.status_code, response.get_json())
    (id_status, indonesian), (en_status, english) = answers["id"], answers["en"]
    assert id_status == en_status == 422
    assert indonesian.keys() == english.keys() and indonesian["errors"].keys() == english["errors"].keys()
    assert indonesian["message"] == "Data yang dikirim tidak valid. Periksa kembali isian Anda."
    assert english["message"] == "Some of the data sent is not valid. Please check what you entered."
    assert english["errors"]["name"] == ["Required."] and indonesian["errors"]["name"] == ["Wajib diisi."]


def test_a_formatted_json_message_keeps_its_values_in_english(client, bearer):
    _, headers = bearer()
    response = client.post("/api/security/trusted-ips/save-my-ip", json={},
                           headers={**headers, **ENGLISH}, environ_base={"REMOTE_ADDR": "203.0.113.7"})
    assert response.status_code == 201
    assert response.get_json()["message"] == "IP 203.0.113.7 on this device is now trusted."


def test_the_default_language_is_a_setting(app, monkeypatch, tmp_path):
    monkeypatch.setenv("GUARDSVC_DEFAULT_LOCALE", "en")
    assert load_settings(str(tmp_path))["BABEL_DEFAULT_LOCALE"] == "en"
    monkeypatch.setenv("GUARDSVC_DEFAULT_LOCALE", "de")
    with pytest.raises(SettingsError, match="GUARDSVC_DEFAULT_LOCALE"):
        load_settings(str(tmp_path))


def test_english_by_default_when_the_operator_says_so(app, monkeypatch):
    monkeypatch.setitem(app.config, "BABEL_DEFAULT_LOCALE", "en")  # GUARDSVC_DEFAULT_LOCALE=en
    client = app.test_client()
    assert lang_of(client.get("/")) == "en"
    assert lang_of(client.get("/", headers={"Accept-Language": "id"})) == "id"


def test_times_and_numbers_in_each_languages_format_and_wib_stays(app):
    moment = datetime(2026, 11, 22, 10, 52, 30)
    with app.test_request_context("/"):
        assert human_time(moment) == "22 November 2026, 17.52 WIB"
        assert human_number(1234567) == "1.234.567"
        with force_locale("en"):
            assert human_time(moment) == "22 November 2026, 17:52 WIB"
            assert human_number(1234567) == "1,234,567"


def test_an_appeal_written_in_english_is_answered_in_english(app, client, bearer):
    response = submit_ticket(client, headers=ENGLISH, email="traveller@example.com")
    assert response.status_code == 201
    assert response.get_json()["message"] == "Your appeal has been submitted."
    ticket = response.get_json()["ticket_number"]
    _, admin = bearer(role="admin")  # the administrator reads Indonesian
    decided = client.post(f"/api/guard/unblock-tickets/{ticket}/respond", json={"action": "reject"},
                          headers={**admin, "Accept-Language": "id"})
    assert decided.status_code == 200
    assert decided.get_json()["message"] == f"Tiket {ticket} ditolak."
    with app.app_context():
        confirmation, decision = messages_to("traveller@example.com")
    assert confirmation.subject == f"Appeal {ticket} received"
    assert decision.subject == f"Decision on appeal {ticket}: rejected"
    assert "Appeal rejected." in decision.body_text and "Keputusan" not in decision.body_text


def test_an_appeal_written_in_indonesian_stays_indonesian_whoever_decides(app, client, bearer):
    ticket = submit_ticket(client, email="budi@example.com").get_json()["ticket_number"]
    _, admin = bearer(role="admin")
    client.post(f"/api/guard/unblock-tickets/{ticket}/respond", json={"action": "reject"},
                headers={**admin, **ENGLISH})
    with app.app_context():
        _, decision = messages_to("budi@example.com")
    assert decision.subject == f"Keputusan banding {ticket}: ditolak"


def test_an_account_notice_goes_out_in_the_holders_language(app, client, runner, make_user):
    user = make_user(email="holder@example.com")
    browser = app.test_client()
    browser.get("/", headers=ENGLISH)
    post_form(browser, "/bahasa", {"lang": "en", "back": "/"})
    sign_in(browser, user)  # signing in notes the language the holder reads
    from guardsvc.accounts.models import User
    with app.app_context():
        assert db.session.get(User, user.id).language == "en"
    # An administrator on the command line (no request, default Indonesian) disables the account.
    result = runner.invoke(args=["users", "disable", user.email])
    assert result.exit_code == 0, result.output
    with app.app_context():
        notice = messages_to("holder@example.com", "notice_account_disabled")[-1]
    assert notice.subject == "Security notice: your guardsvc account was disabled"
    assert "An administrator, on the command line" in notice.body_text
