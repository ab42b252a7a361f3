"""Passkey ceremonies in the service, answered by a software authenticator (tests/support/soft_authenticator.py)."""
from datetime import timedelta

import pytest
from sqlalchemy import select

from guardsvc.accounts.models import User
from guardsvc.audit.models import AuditEvent
from guardsvc.extensions import db
from guardsvc.outbox.models import OutboxMessage
from guardsvc.passkeys import service as passkeys
from guardsvc.passkeys.ceremony import PasskeyRefused
from guardsvc.passkeys.models import Passkey, PasskeyChallenge
from guardsvc.storage import clock
from guardsvc.web.identity import Client
from tests.support.soft_authenticator import SoftAuthenticator

ORIGIN = "http://localhost:8000"  # the test settings' BASE_URL
CLIENT = Client("198.51.100.30", None, None, "pytest")


@pytest.fixture()
def accounts(app, make_user, ctx):
    """Two accounts, made before the test writes anything in its own session."""
    return [db.session.get(User, make_user().id) for _ in range(2)]


@pytest.fixture()
def owner(accounts):
    return accounts[0]


def register(user, authenticator=None, name="Laptop"):
    authenticator = authenticator or SoftAuthenticator(ORIGIN)
    response = authenticator.create(passkeys.begin_registration(user))
    return authenticator, passkeys.add_passkey(user, response, name, client=CLIENT)


def kinds_sent(user):
    return set(db.session.scalars(select(OutboxMessage.kind).where(OutboxMessage.recipient == user.email)))


def actions(user):
    return [event.action for event in db.session.scalars(select(AuditEvent).order_by(AuditEvent.id))]


def test_a_registered_passkey_is_stored_told_and_audited(owner):
    _, passkey = register(owner)
    stored = db.session.scalars(select(Passkey)).one()
    assert (stored.user_id, stored.name, stored.backed_up, stored.sign_count) == (owner.id, "Laptop", True, 0)
    assert stored.transport_list == ["internal", "hybrid"] and stored.last_used_at is None
    assert "notice_passkey_added" in kinds_sent(owner)
    assert actions(owner) == ["passkey.added"]


def test_passwordless_use_finds_the_account_and_counts_up(owner):
    authenticator, _ = register(owner)
    options = passkeys.begin_authentication(passkeys.PASSWORDLESS)
    assert options["allowCredentials"] == [] and options["userVerification"] == "required"
    used = passkeys.use_passkey(authenticator.get(options), passkeys.PASSWORDLESS, client=CLIENT)
    assert used.user_id == owner.id and used.sign_count == 1 and used.last_used_at is not None
    assert actions(owner)[-1] == "passkey.used"


def test_passwordless_needs_user_verification(owner):
    authenticator, _ = register(owner)
    authenticator.user_verified = False
    options = passkeys.begin_authentication(passkeys.PASSWORDLESS)
    with pytest.raises(PasskeyRefused):
        passkeys.use_passkey(authenticator.get(options), passkeys.PASSWORDLESS, client=CLIENT)


def test_a_response_from_another_origin_is_refused(owner):
    authenticator = SoftAuthenticator(ORIGIN)
    with pytest.raises(PasskeyRefused):
        passkeys.add_passkey(owner, authenticator.create(passkeys.begin_registration(owner),
                                                         origin="https://evil.example"), client=CLIENT)
    _, _ = register(owner, authenticator)
    options = passkeys.begin_authentication(passkeys.SECOND_FACTOR, owner)
    with pytest.raises(PasskeyRefused):
        passkeys.use_passkey(authenticator.get(options, origin="http://127.0.0.1:9999"), passkeys.SECOND_FACTOR,
                             user=owner, client=CLIENT)


def test_a_challenge_is_single_use_and_short_lived(owner, monkeypatch):
    authenticator, _ = register(owner)
    options = passkeys.begin_authentication(passkeys.SECOND_FACTOR, owner)
    response = authenticator.get(options)
    passkeys.use_passkey(response, passkeys.SECOND_FACTOR, user=owner, client=CLIENT)
    with pytest.raises(PasskeyRefused) as replayed:
        passkeys.use_passkey(response, passkeys.SECOND_FACTOR, user=owner, client=CLIENT)
    assert "kedaluwarsa atau sudah dipakai" in replayed.value.message
    options = passkeys.begin_authentication(passkeys.SECOND_FACTOR, owner)
    later = clock.utcnow() + timedelta(minutes=6)
    monkeypatch.setattr(clock, "utcnow", lambda: later)
    with pytest.raises(PasskeyRefused):
        passkeys.use_passkey(authenticator.get(options), passkeys.SECOND_FACTOR, user=owner, client=CLIENT)
    # A challenge for one purpose never serves another.
    options = passkeys.begin_authentication(passkeys.SECOND_FACTOR, owner)
    with pytest.raises(PasskeyRefused):
        passkeys.use_passkey(authenticator.get(options), passkeys.PASSWORDLESS, client=CLIENT)
    assert db.session.scalars(select(PasskeyChallenge)).all()  # the unused one, until it is swept


def test_a_sign_count_going_backwards_is_refused_and_the_owner_told(owner):
    authenticator, _ = register(owner)
    options = passkeys.begin_authentication(passkeys.SECOND_FACTOR, owner)
    passkeys.use_passkey(authenticator.get(options, sign_count=7), passkeys.SECOND_FACTOR, user=owner, client=CLIENT)
    options = passkeys.begin_authentication(passkeys.SECOND_FACTOR, owner)
    with pytest.raises(PasskeyRefused) as refused:
        passkeys.use_passkey(authenticator.get(options, sign_count=7), passkeys.SECOND_FACTOR, user=owner,
                             client=CLIENT)
    assert refused.value.user.id == owner.id
    assert "notice_passkey_count" in kinds_sent(owner)
    assert db.session.scalars(select(Passkey)).one().sign_count == 7


def test_another_accounts_passkey_is_unknown_here(accounts):
    owner, other = accounts
    authenticator, _ = register(owner)
    register(other)
    options = passkeys.begin_authentication(passkeys.SECOND_FACTOR, other)
    with pytest.raises(PasskeyRefused) as refused:
        passkeys.use_passkey(authenticator.get(options), passkeys.SECOND_FACTOR, user=other, client=CLIENT)
    assert "tidak dikenal" in refused.value.message


def test_the_same_authenticator_cannot_be_added_twice_and_removal_is_told(owner):
    authenticator, passkey = register(owner)
    options = passkeys.begin_registration(owner)
    assert [item["id"] for item in options["excludeCredentials"]] == [passkey.credential_id]
    with pytest.raises(PasskeyRefused) as refused:
        passkeys.add_passkey(owner, authenticator.create(options, again=authenticator.credentials[0]),
                             client=CLIENT)
    assert refused.value.message == "Passkey ini sudah terdaftar."
    assert passkeys.remove_passkey(owner, passkey.id, actor=owner, client=CLIENT) == "Laptop"
    assert not passkeys.has_passkeys(owner)
    assert "notice_passkey_removed" in kinds_sent(owner)
    assert actions(owner)[-1] == "passkey.removed"


def test_the_relying_party_follows_the_base_url_unless_named(app, owner, monkeypatch):
    monkeypatch.setitem(app.config, "BASE_URL", "https://akun.example.co.id:8443")
    options = passkeys.begin_registration(owner)
    assert options["rp"] == {"id": "akun.example.co.id", "name": "guardsvc"}
    monkeypatch.setitem(app.config, "WEBAUTHN_RP_ID", "example.co.id")
    monkeypatch.setitem(app.config, "SITE_NAME", "Portal Contoh")
    options = passkeys.begin_registration(owner)
    assert options["rp"] == {"id": "example.co.id", "name": "Portal Contoh"}
    # The origin is the base URL's, port included; the relying party id is checked too.
    authenticator = SoftAuthenticator("https://akun.example.co.id:8443")
    with pytest.raises(PasskeyRefused):
        passkeys.add_passkey(owner, authenticator.create(options, rp_id="akun.example.co.id"), client=CLIENT)
    options = passkeys.begin_registration(owner)
    assert passkeys.add_passkey(owner, authenticator.create(options), client=CLIENT).name == "Passkey 1"
