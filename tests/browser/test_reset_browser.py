"""A forgotten password, in a real browser: ask for a link, follow it, sign in with the new password."""
import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from guardsvc.extensions import db
from guardsvc.outbox.models import OutboxMessage
from tests.browser.conftest import fill_sign_in, shoot

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]


def reset_path(app, email):
    with app.app_context():
        body = db.session.scalar(select(OutboxMessage.body_text).where(
            OutboxMessage.recipient == email, OutboxMessage.kind == "password_reset"))
    return re.search(r"/masuk/atur-ulang/[A-Za-z0-9_-]+", body).group(0)


def test_forgotten_password(page, app, make_user):
    user = make_user()
    page.goto("/masuk")
    page.get_by_role("link", name="Lupa kata sandi?").click()
    expect(page).to_have_url(re.compile(r"/masuk/lupa$"))
    shoot(page, "lupa-kata-sandi")
    page.get_by_label("Alamat e-mail").fill(user.email)
    page.get_by_role("button", name="Kirim tautan").click()
    expect(page.get_by_role("status").first).to_contain_text("Periksa kotak masuk Anda")
    shoot(page, "lupa-kata-sandi-terkirim")

    page.goto(reset_path(app, user.email))
    page.get_by_label("Kata sandi baru", exact=True).fill("qwertyuiop")
    page.get_by_label("Ulangi kata sandi baru").fill("qwertyuiop")
    page.get_by_role("button", name="Simpan kata sandi baru").click()
    expect(page.get_by_role("alert")).to_contain_text("paling sering dipakai")
    shoot(page, "atur-ulang-gagal")
    new = "kuda-baterai-staples-benar"
    page.get_by_label("Kata sandi baru", exact=True).fill(new)
    page.get_by_label("Ulangi kata sandi baru").fill(new)
    page.get_by_role("button", name="Simpan kata sandi baru").click()
    expect(page).to_have_url(re.compile(r"/masuk$"))
    expect(page.get_by_role("status").first).to_contain_text("Kata sandi baru sudah disimpan")
    fill_sign_in(page, user.email, new)
    expect(page).to_have_url(re.compile(r"/akun$"))
