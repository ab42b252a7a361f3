"""Service tests of TOTP enrolment, verification, recovery codes and disabling."""
from datetime import timedelta

import pytest

from guardsvc.storage import clock
from guardsvc.accounts.models import User
from guardsvc.web.errors import InvalidState, ValidationFailed
from guardsvc.extensions import db
from guardsvc.twofactor import service as twofactor
from guardsvc.twofactor.models import RecoveryCode
from tests.support.factories import PASSWORD
from tests.support.signin_support import enable_2fa, totp_code  # noqa: F401


def load(user):
    return db.session.get(User, user.id)


def test_enrolment_gives_secret_uri_and_inline_svg(ctx, make_user):
    user = load(make_user(email="tika@example.com"))
    enrolment = twofactor.begin_enrolment(user)
    assert len(enrolment.secret) == 32
    assert enrolment.uri.startswith("otpauth://totp/guardsvc:tika%40example.com?secret=" + enrolment.secret)
    assert "issuer=guardsvc" in enrolment.uri
    assert enrolment.qr_svg.startswith("<svg") and "<?xml" not in enrolment.qr_svg
    assert not user.has_2fa
    # Continuing keeps the pending secret; restarting replaces it.
    assert twofactor.begin_enrolment(user).secret == enrolment.secret
    assert twofactor.begin_enrolment(user, restart=True).secret != enrolment.secret


def test_confirm_needs_a_right_code_and_returns_ten_recovery_codes(ctx, make_user):
    user = load(make_user())
    secret = twofactor.begin_enrolment(user).secret
    with pytest.raises(ValidationFailed) as wrong:
        twofactor.confirm_enrolment(user, "000000" if totp_code(secret) != "000000" else "111111", client=None)
    assert wrong.value.errors == {"code": ["Kode verifikasi salah atau sudah pernah dipakai."]}
    assert not user.has_2fa
    codes = twofactor.confirm_enrolment(user, totp_code(secret), client=None)
    assert user.has_2fa
    assert len(codes) == 10 and len(set(codes)) == 10
    stored = db.session.scalars(db.select(RecoveryCode.code_hash).where(RecoveryCode.user_id == user.id)).all()
    assert len(stored) == 10
    assert not set(codes) & set(stored)  # only hashes are kept
    with pytest.raises(InvalidState):
        twofactor.begin_enrolment(user)


def test_confirm_without_enrolment_is_invalid_state(ctx, make_user):
    with pytest.raises(InvalidState):
        twofactor.confirm_enrolment(load(make_user()), "123456", client=None)


@pytest.mark.parametrize("steps", [-1, 0, 1])
def test_codes_within_one_step_either_side_are_accepted(app, ctx, make_user, steps):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    assert twofactor.verify_second_factor(load(user), totp_code(secret, steps)) == "totp"


@pytest.mark.parametrize("steps", [-3, -2, 2, 3])
def test_codes_outside_the_window_are_refused(app, ctx, make_user, steps):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    code = totp_code(secret, steps)
    if code in {totp_code(secret, s) for s in (-1, 0, 1)}:
        pytest.skip("rare collision of codes across steps")
    assert twofactor.verify_second_factor(load(user), code) is None


def test_a_code_is_accepted_only_once(app, ctx, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    code = totp_code(secret)
    assert twofactor.verify_second_factor(load(user), code) == "totp"
    db.session.commit()
    assert twofactor.verify_second_factor(load(user), code) is None
    # An older step than the last accepted one is refused too.
    assert twofactor.verify_second_factor(load(user), totp_code(secret, -1)) is None


def test_next_step_code_works_after_time_moves(app, ctx, make_user, monkeypatch):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    assert twofactor.verify_second_factor(load(user), totp_code(secret)) == "totp"
    later = clock.utcnow() + timedelta(seconds=60)
    monkeypatch.setattr(clock, "utcnow", lambda: later)
    assert twofactor.verify_second_factor(load(user), totp_code(secret)) == "totp"


def test_recovery_codes_are_single_use_and_forgiving_about_format(app, ctx, make_user):
    user = make_user()
    _, codes = enable_2fa(app, user)
    typed = " " + codes[0].upper().replace("-", " ") + " "
    assert twofactor.verify_second_factor(load(user), typed) == "recovery"
    assert twofactor.verify_second_factor(load(user), codes[0]) is None
    assert twofactor.verify_second_factor(load(user), codes[1]) == "recovery"
    assert twofactor.remaining_recovery_codes(load(user)) == 8
    assert twofactor.verify_second_factor(load(user), "abcde-fghjk") is None


def test_another_users_recovery_code_is_refused(app, ctx, make_user):
    alice, bob = make_user(), make_user()
    _, alice_codes = enable_2fa(app, alice)
    enable_2fa(app, bob)
    assert twofactor.verify_second_factor(load(bob), alice_codes[0]) is None
    assert twofactor.verify_second_factor(load(alice), alice_codes[0]) == "recovery"


def test_regenerating_recovery_codes_invalidates_old_ones(app, ctx, make_user):
    user = make_user()
    _, old = enable_2fa(app, user)
    with pytest.raises(ValidationFailed):
        twofactor.regenerate_recovery_codes(load(user), "salah", client=None)
    new = twofactor.regenerate_recovery_codes(load(user), PASSWORD, client=None)
    assert twofactor.verify_second_factor(load(user), old[0]) is None
    assert twofactor.verify_second_factor(load(user), new[0]) == "recovery"


def test_disable_needs_the_password_and_removes_everything(app, ctx, make_user):
    user = make_user()
    secret, codes = enable_2fa(app, user)
    with pytest.raises(ValidationFailed) as wrong:
        twofactor.disable(load(user), "bukan-kata-sandinya", client=None)
    assert wrong.value.errors == {"password": ["Kata sandi salah."]}
    assert load(user).has_2fa
    twofactor.disable(load(user), PASSWORD, client=None)
    db.session.commit()
    record = load(user)
    assert not record.has_2fa and record.totp_secret is None
    assert twofactor.remaining_recovery_codes(record) == 0
    assert twofactor.verify_second_factor(record, totp_code(secret)) is None
    with pytest.raises(InvalidState):
        twofactor.disable(record, PASSWORD, client=None)
