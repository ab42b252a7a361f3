"""A password sign-in from somewhere new proves the e-mail address first (JSON door and rules)."""
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from guardsvc.accounts.models import User
from guardsvc.audit.models import AuditEvent
from guardsvc.extensions import db
from guardsvc.outbox.models import OutboxMessage
from guardsvc.signin.models import EmailVerification, LoginEvent
from guardsvc.storage import clock
from tests.support.email_code_support import age_history, code_mails, expire_codes, last_code, results, token_from
from tests.support.email_code_support import jakartan  # noqa: F401  (fixture)
from tests.support.geoip_support import (AMSTERDAM, BANDUNG, JAYAPURA, NOWHERE, SINGAPORE, TOKYO,  # noqa: F401
                                 geoip_database, located)
from tests.support.signin_support import enable_2fa, rate_limits_off, request_token, totp_code  # noqa: F401

pytestmark = pytest.mark.usefixtures("located", "rate_limits_off")



def test_the_first_sign_in_is_not_asked_and_records_its_place(app, client, make_user):
    user = make_user()
    answer = token_from(client, user.email, AMSTERDAM)
    assert answer.status_code == 201, answer.get_json()
    with app.app_context():
        event = db.session.scalar(select(LoginEvent).where(LoginEvent.user_id == user.id))
        assert (event.country, event.city) == ("NL", "Amsterdam")
    assert code_mails(app, user.email) == []


def test_a_country_used_within_180_days_is_not_asked(app, client, jakartan):
    age_history(app, jakartan, days=170)
    assert token_from(client, jakartan.email, BANDUNG).status_code == 201
    assert code_mails(app, jakartan.email) == []


def test_a_new_country_asks_for_the_e_mailed_code_which_completes_the_sign_in(app, client, jakartan):
    asked = token_from(client, jakartan.email, AMSTERDAM)
    body = asked.get_json()
    assert asked.status_code == 401 and "token" not in body
    assert body["verification_required"] is True and body["email_delivery"] == "queued"
    assert "kode 8 angka" in body["message"] and body["code_expires_at"].endswith("Z")
    [(subject, text, code)] = code_mails(app, jakartan.email)
    assert "Amsterdam, Belanda" in subject and "Amsterdam, Belanda" in text and AMSTERDAM in text
    assert "belum pernah Anda pakai untuk masuk dalam 180 hari" in text
    done = token_from(client, jakartan.email, AMSTERDAM, email_code=code)
    assert done.status_code == 201 and done.get_json()["token"].startswith("gsv_")
    assert results(app, jakartan) == ["success", "email_code_required", "email_verified"]
    with app.app_context():
        assert db.session.scalars(select(AuditEvent.action).where(AuditEvent.action.like("signin.%"))
                                  .order_by(AuditEvent.id)).all() == ["signin.email_code_sent",
                                                                      "signin.email_code_passed"]
        record = db.session.scalar(select(EmailVerification))
        assert (record.state, record.code_hash != code, len(record.code_hash)) == ("used", True, 64)
    # Used once: the same code again is no code at all (and the Netherlands are known now).
    assert token_from(client, jakartan.email, AMSTERDAM, email_code=code).status_code == 201


def test_the_code_e_mail_and_the_answer_speak_the_holders_and_the_callers_languages(app, client, jakartan):
    with app.app_context():
        db.session.execute(update(User).values(language="en"))
        db.session.commit()
    asked = token_from(client, jakartan.email, TOKYO, language="id")
    assert "kode 8 angka" in asked.get_json()["message"]
    [(subject, text, _code)] = code_mails(app, jakartan.email)
    assert subject == "Code to sign in to guardsvc from Tokyo, Japan"
    assert "Location" in text and "Tokyo, Japan" in text
    english = token_from(client, jakartan.email, TOKYO, email_code="00000000", language="en")
    assert english.get_json()["message"] == "The code from the email is wrong."


def test_the_indonesian_holder_reads_the_databases_indonesian_city_name(app, client, jakartan):
    token_from(client, jakartan.email, TOKYO)
    [(subject, _text, _code)] = code_mails(app, jakartan.email)
    assert subject.endswith("dari Tokio, Jepang")


def test_while_a_code_lives_more_password_attempts_from_there_send_no_second_e_mail(app, client, jakartan):
    for _ in range(3):
        assert token_from(client, jakartan.email, AMSTERDAM).status_code == 401
    assert len(code_mails(app, jakartan.email)) == 1
    with app.app_context():
        assert db.session.scalar(select(EmailVerification.state)) == "pending"


def test_five_wrong_codes_spend_the_code_and_the_next_attempt_brings_a_new_one(app, client, jakartan):
    token_from(client, jakartan.email, AMSTERDAM)
    code = last_code(app, jakartan.email)
    wrong = f"{(int(code) + 1) % 10**8:08d}"
    for _ in range(5):
        answer = token_from(client, jakartan.email, AMSTERDAM, email_code=wrong)
        assert answer.status_code == 401 and answer.get_json()["message"] == "Kode dari e-mail salah."
    spent = token_from(client, jakartan.email, AMSTERDAM, email_code=code)
    assert spent.status_code == 401 and "kode baru" in spent.get_json()["message"]
    assert len(code_mails(app, jakartan.email)) == 2
    assert token_from(client, jakartan.email, AMSTERDAM, email_code=last_code(app, jakartan.email)).status_code == 201


def test_wrong_codes_count_like_wrong_passwords(app, client, jakartan, monkeypatch):
    monkeypatch.setitem(app.config, "ACCOUNT_PASSWORD_FAILURES", 3)
    token_from(client, jakartan.email, AMSTERDAM)
    code = last_code(app, jakartan.email)
    token_from(client, jakartan.email, AMSTERDAM, password="salah-sekali-123")  # one wrong password
    for _ in range(2):
        assert token_from(client, jakartan.email, AMSTERDAM, email_code="12121212").status_code == 401
    locked = token_from(client, jakartan.email, AMSTERDAM, email_code=code)
    assert locked.status_code == 429 and "Retry-After" in locked.headers


def test_an_expired_code_is_refused_and_a_new_one_sent(app, client, jakartan):
    token_from(client, jakartan.email, AMSTERDAM)
    old = last_code(app, jakartan.email)
    expire_codes(app)
    answer = token_from(client, jakartan.email, AMSTERDAM, email_code=old)
    assert answer.status_code == 401 and answer.get_json()["verification_required"] is True
    new = last_code(app, jakartan.email)
    assert len(code_mails(app, jakartan.email)) == 2
    assert token_from(client, jakartan.email, AMSTERDAM, email_code=new).status_code == 201


def test_a_code_works_only_from_the_address_it_was_sent_for(app, client, jakartan):
    token_from(client, jakartan.email, AMSTERDAM)
    code = last_code(app, jakartan.email)
    elsewhere = token_from(client, jakartan.email, "198.51.100.77", email_code=code)
    assert elsewhere.status_code == 401
    assert token_from(client, jakartan.email, AMSTERDAM, email_code=code).status_code == 201


def test_travel_faster_than_1000_km_an_hour_asks_even_within_a_country(app, client, jakartan):
    age_history(app, jakartan, days=-1, minutes=30)  # the Jakarta sign-in was 30 minutes ago
    asked = token_from(client, jakartan.email, JAYAPURA)  # 3,700 km away
    assert asked.status_code == 401 and asked.get_json()["verification_required"] is True
    [(_subject, text, _code)] = code_mails(app, jakartan.email)
    assert "Jayapura, Indonesia" in text and "terlalu jauh" in text
    with app.app_context():
        assert db.session.scalar(select(EmailVerification.reason)) == "fast_travel"


def test_an_hour_to_a_neighbouring_city_is_not_travel_worth_asking_about(app, client, jakartan):
    age_history(app, jakartan, days=-1, hours=1)
    assert token_from(client, jakartan.email, BANDUNG).status_code == 201


def test_addresses_the_database_cannot_place_ask_nothing(app, client, jakartan, monkeypatch):
    assert token_from(client, jakartan.email, NOWHERE).status_code == 201
    assert token_from(client, jakartan.email, SINGAPORE).status_code == 401  # a country, no coordinates: asked
    monkeypatch.setitem(app.config, "GEOIP_DATABASE", None)
    assert token_from(client, jakartan.email, AMSTERDAM).status_code == 201
    with app.app_context():
        assert db.session.scalars(select(LoginEvent.country).order_by(LoginEvent.id)).all()[-1] is None


def test_an_account_with_2fa_is_asked_its_second_factor_and_its_alert_says_new_country(app, client, jakartan):
    secret, _codes = enable_2fa(app, jakartan)
    age_history(app, jakartan, days=1)
    assert request_token(client, jakartan.email, ip=AMSTERDAM).get_json()["otp_required"] is True
    done = request_token(client, jakartan.email, ip=AMSTERDAM, otp=totp_code(secret))
    assert done.status_code == 201
    assert code_mails(app, jakartan.email) == []
    with app.app_context():
        alert = db.session.scalar(select(OutboxMessage).where(OutboxMessage.kind == "signin_alert"))
    assert alert.subject == "Peringatan keamanan: masuk dari negara baru (Amsterdam, Belanda)"
    assert "Negara baru" in alert.body_text and "Amsterdam, Belanda" in alert.body_text


def test_the_new_device_alert_names_the_place(app, client, jakartan):
    assert token_from(client, jakartan.email, BANDUNG, device="phone-2").status_code == 201
    with app.app_context():
        alert = db.session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "signin_alert")).all()[-1]
    assert "Bandung, Indonesia" in alert.body_text and "Negara baru" not in alert.body_text
    assert alert.subject == "Peringatan keamanan: akun guardsvc Anda dimasuki dari perangkat baru"


def test_the_history_api_gives_country_and_city(app, client, jakartan, make_token):
    token_from(client, jakartan.email, NOWHERE)
    rows = client.get("/api/auth/logins", headers={"Authorization": f"Bearer {make_token(jakartan)}"}).get_json()
    assert [(row["country"], row["city"]) for row in rows["data"]] == [(None, None), ("ID", "Jakarta")]


def test_a_wrongly_shaped_code_is_a_validation_failure_not_a_guess(app, client, jakartan):
    token_from(client, jakartan.email, AMSTERDAM)
    answer = token_from(client, jakartan.email, AMSTERDAM, email_code="１２３４５６７８")
    assert answer.status_code == 422 and "email_code" in answer.get_json()["errors"]
    with app.app_context():
        assert db.session.scalar(select(EmailVerification.tries)) == 0


def test_old_codes_leave_with_the_retention_rules(app, client, runner, jakartan):
    token_from(client, jakartan.email, AMSTERDAM)
    with app.app_context():
        db.session.execute(update(EmailVerification).values(expires_at=clock.utcnow() - timedelta(days=2)))
        db.session.commit()
    result = runner.invoke(args=["purge"])
    assert "e-mailed sign-in codes deleted: 1" in result.output, result.output
