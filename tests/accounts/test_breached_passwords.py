"""Breached passwords, offline: the list is loaded into a Bloom filter; setting one is refused, signing in
with one asks for a change."""
import hashlib

import pytest
from sqlalchemy import select

from guardsvc.accounts import breached, resets
from guardsvc.accounts.models import PasswordReset
from guardsvc.audit.models import AuditEvent
from guardsvc.extensions import db
from guardsvc.storage import clock
from tests.support.factories import PASSWORD
from tests.support.pages_support import post_form, sign_in, text_of
from tests.support.signin_support import rate_limits_off, request_token  # noqa: F401

LEAKED = "kuda-laut-biru-2026"  # long enough and not common: only the list refuses it
ALSO_LEAKED = "Sandi Bocor Sekali!"
RARE = "jarang-sekali-bocor-9"
FINE = "burung-hantu-ungu-77"


def sha1(text):
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def write_list(path, *lines):
    path.write_text("".join(f"{line}\r\n" for line in lines), encoding="ascii")
    return path


@pytest.fixture()
def listed(app, tmp_path, monkeypatch, runner):
    """A Pwned Passwords list loaded by the command, into a filter of this test's own."""
    monkeypatch.setitem(app.config, "BREACHED_PASSWORDS_FILE", str(tmp_path / "breached.bloom"))
    source = write_list(tmp_path / "pwned.txt", f"{sha1(LEAKED).upper()}:2390", "", sha1(ALSO_LEAKED),
                        f"{sha1(RARE).upper()}:1", *(f"{sha1(f'filler-{n}').upper()}:{n}" for n in range(1, 500)))
    result = runner.invoke(args=["passwords", "load-breached", str(source)])
    assert result.exit_code == 0, result.output
    return result


def test_the_command_loads_the_list_and_says_what_it_did(app, listed, runner):
    assert "loaded 502 breached password hashes from pwned.txt (503 lines;" in listed.output
    with app.app_context():
        assert breached.is_breached(LEAKED) and breached.is_breached(ALSO_LEAKED) and breached.is_breached(RARE)
        assert not breached.is_breached(FINE) and not breached.is_breached(LEAKED.upper())
        assert db.session.scalar(select(AuditEvent.action)) == "passwords.breached_loaded"
    status = runner.invoke(args=["passwords", "breached-status"])
    assert "502 breached password hashes from pwned.txt" in status.output


def test_min_count_leaves_rare_entries_out(app, tmp_path, runner, monkeypatch):
    monkeypatch.setitem(app.config, "BREACHED_PASSWORDS_FILE", str(tmp_path / "breached.bloom"))
    source = write_list(tmp_path / "pwned.txt", f"{sha1(LEAKED)}:2390", f"{sha1(RARE)}:1", sha1(ALSO_LEAKED))
    result = runner.invoke(args=["passwords", "load-breached", str(source), "--min-count", "10"])
    assert "loaded 2 " in result.output and "1 seen fewer than 10 times" in result.output
    with app.app_context():
        assert breached.is_breached(LEAKED) and breached.is_breached(ALSO_LEAKED) and not breached.is_breached(RARE)


def test_a_file_with_bad_lines_changes_nothing_unless_they_are_skipped(app, listed, tmp_path, runner):
    source = write_list(tmp_path / "bad.txt", sha1(FINE), "not a hash:12", f"{sha1(FINE)[:32]}:3")  # NTLM-sized
    refused = runner.invoke(args=["passwords", "load-breached", str(source)])
    assert refused.exit_code == 1 and "2 line(s) are not SHA1-HEX[:COUNT]" in refused.output
    assert "line 2: 'not a hash:12'" in refused.output
    with app.app_context():
        assert breached.is_breached(LEAKED) and not breached.is_breached(FINE)  # the old list still applies
    skipped = runner.invoke(args=["passwords", "load-breached", str(source), "--skip-bad"])
    assert skipped.exit_code == 0 and "2 bad lines skipped" in skipped.output
    with app.app_context():
        assert breached.is_breached(FINE) and not breached.is_breached(LEAKED)


def test_every_place_a_password_is_set_refuses_a_listed_one(app, listed, runner, make_user, client):
    created = runner.invoke(args=["users", "create", "baru@example.com", "--name", "Baru", "--password", LEAKED])
    assert created.exit_code == 1 and "bocor" in created.output
    user = make_user(email="lama@example.com")
    assert "bocor" in runner.invoke(args=["users", "set-password", user.email, "--password", ALSO_LEAKED]).output
    sign_in(client, user)
    page = post_form(client, "/akun/kata-sandi", {"new_password": LEAKED, "confirmation": LEAKED},
                     page="/akun/kata-sandi")
    assert page.status_code == 422 and "daftar kata sandi yang bocor" in text_of(page)
    with app.app_context():
        secret = "rahasia-tautan-uji-" + "x" * 30
        db.session.add(PasswordReset(user_id=user.id, secret_hash=resets._hash(secret), created_at=clock.utcnow(),
                                     expires_at=clock.utcnow().replace(year=2100)))
        db.session.commit()
        with pytest.raises(Exception) as refused:
            resets.complete_reset(secret, LEAKED, LEAKED, None)
        assert "bocor" in str(refused.value.errors["password"][0])
        db.session.rollback()
    assert runner.invoke(args=["users", "set-password", user.email, "--password", FINE]).exit_code == 0


def test_the_refusal_in_english(app, listed, make_user, client):
    user = make_user()
    sign_in(client, user)
    client.set_cookie("guardsvc_lang", "en")
    page = post_form(client, "/akun/kata-sandi", {"new_password": LEAKED, "confirmation": LEAKED},
                     page="/akun/kata-sandi")
    assert "on the list of passwords leaked in data breaches" in text_of(page)


@pytest.mark.usefixtures("rate_limits_off")
def test_signing_in_with_a_listed_password_works_and_asks_for_a_change(app, tmp_path, monkeypatch, runner, client,
                                                                        make_user):
    user = make_user(password=LEAKED)  # set before the list was loaded
    monkeypatch.setitem(app.config, "BREACHED_PASSWORDS_FILE", str(tmp_path / "breached.bloom"))
    runner.invoke(args=["passwords", "load-breached", str(write_list(tmp_path / "list.txt", sha1(LEAKED)))])
    answer = request_token(client, user.email, password=LEAKED)
    assert answer.status_code == 201 and answer.get_json()["password_breached"] is True
    page = post_form(client, "/masuk", {"email": user.email, "password": LEAKED}, page="/masuk")
    assert page.status_code == 303 and page.headers["Location"].endswith("/akun/kata-sandi")
    assert "Ganti sekarang, sebelum orang lain memakainya" in text_of(client.get("/akun/kata-sandi"))
    other = make_user(email="aman@example.com")
    assert request_token(client, other.email, password=PASSWORD).get_json()["password_breached"] is False
