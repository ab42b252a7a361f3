"""Service tests of the second step, signing out everywhere and changing the password."""
from dataclasses import replace
import pytest

from guardsvc.accounts import passwords
from guardsvc.accounts.models import User
from guardsvc.web.errors import ValidationFailed
from guardsvc.extensions import db
from guardsvc.web.identity import Client
from guardsvc.signin import account, service
from guardsvc.trust.service import is_trusted
from tests.support.factories import PASSWORD
from tests.support.signin_support import BROWSER_UA, enable_2fa, totp_code  # noqa: F401

CLIENT = Client("198.51.100.20", "laptop-1", None, BROWSER_UA)


def load(user):
    return db.session.get(User, user.id)


def stamp(user):
    return service.account_stamp(load(user))


def test_code_step_signs_in_and_may_trust_the_device(app, ctx, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    first = service.sign_in(user.email, PASSWORD, CLIENT)
    assert first.needs_code and not first.signed_in
    outcome = service.sign_in_with_code(user.id, stamp(user), totp_code(secret), CLIENT, trust_this_device=True)
    assert outcome.signed_in and outcome.result == "2fa_passed" and outcome.trust_secret
    assert is_trusted(user.id, CLIENT.ip_address, CLIENT.device_id)
    # The record and the device id alone skip nothing: the browser's trust secret does, at this IP.
    assert service.sign_in(user.email, PASSWORD, CLIENT).result == "code_required"
    holding = replace(CLIENT, trust_secret=outcome.trust_secret)
    assert service.sign_in(user.email, PASSWORD, holding).result == "2fa_skipped"
    assert service.sign_in(user.email, PASSWORD, replace(holding, ip_address="192.0.2.99")).result == "code_required"


def test_wrong_code_does_not_trust_the_device(app, ctx, make_user):
    user = make_user()
    enable_2fa(app, user)
    outcome = service.sign_in_with_code(user.id, stamp(user), "12", CLIENT, trust_this_device=True)
    assert outcome.result == "wrong_code" and not outcome.restart
    assert not is_trusted(user.id, CLIENT.ip_address, CLIENT.device_id)


@pytest.mark.parametrize("change", ["password_changed", "deactivated", "2fa_off"])
def test_code_step_restarts_when_the_account_changed_meanwhile(app, ctx, make_user, change):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    before = stamp(user)
    record = load(user)
    if change == "password_changed":
        account.change_password(record, "kata sandi baru yang panjang", client=None)
    elif change == "deactivated":
        record.is_active = False
    else:
        record.totp_enabled_at = None
    db.session.commit()
    outcome = service.sign_in_with_code(user.id, before, totp_code(secret), CLIENT)
    assert outcome.restart and not outcome.signed_in


def test_change_password_checks_the_new_one(ctx, make_user):
    record = load(make_user())
    with pytest.raises(ValidationFailed) as failure:
        account.change_password(record, "pendek", confirmation="lain", client=None)
    assert set(failure.value.errors) == {"new_password", "confirmation"}
    with pytest.raises(ValidationFailed) as same:
        account.change_password(record, PASSWORD, client=None)
    assert same.value.errors == {"new_password": ["Kata sandi baru harus berbeda dari kata sandi lama."]}
    account.change_password(record, "kata sandi baru yang panjang", confirmation="kata sandi baru yang panjang",
                            client=None)
    assert passwords.verify_password(record.password_hash, "kata sandi baru yang panjang")
    assert not passwords.verify_password(record.password_hash, PASSWORD)
