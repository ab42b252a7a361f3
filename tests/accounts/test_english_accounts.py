"""The account, sign-in, two-step, password and administrator pages in English (Indonesian stays the default)."""
import re

import pytest

from tests.support.conversation_support import admin_browser  # noqa: F401
from tests.support.factories import PASSWORD, submit_body
from tests.support.blocks_helpers import from_ip
from tests.support.pages_support import post_form, sign_in, sign_in_session, text_of
from tests.support.signin_support import BROWSER_UA, browser_client, enable_2fa, rate_limits_off  # noqa: F401

pytestmark = pytest.mark.usefixtures("rate_limits_off")

LANG_COOKIE = "guardsvc_lang"


def english(client):
    client.set_cookie(LANG_COOKIE, "en")
    return client


def indonesian(client):
    client.set_cookie(LANG_COOKIE, "id")
    return client


def page(client, path, status=200, **kwargs):
    response = client.get(path, **kwargs)
    assert response.status_code == status, (path, response.status_code)
    return text_of(response)


def visible(html):
    """The page as a person reads it: tags gone, whitespace folded (attributes are checked separately)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def check(html, english_texts, indonesian_texts):
    """Every English text is on the page and none of the Indonesian ones is."""
    words = visible(html)
    for text in english_texts:
        assert text in words or text in html, f"missing English: {text!r}"
    for text in indonesian_texts:
        assert text not in words and text not in html, f"Indonesian left: {text!r}"


@pytest.fixture()
def person(app, make_user):
    """A signed-in browser (English) of a person with a token and a trusted device; yields (client, user)."""
    client = english(browser_client(app))
    user = make_user(name="Sari Dewi", email="sari@example.com")
    sign_in(client, user)
    assert post_form(client, "/akun/token", {"name": "Skrip laporan"}, page="/akun").status_code == 303
    assert post_form(client, "/akun/perangkat", {"device_name": "Laptop kantor"}, page="/akun").status_code == 303
    return client, user


@pytest.fixture()
def admin(app, make_user):
    client = app.test_client()
    sign_in_session(client, make_user(role="admin", email="admin@example.com", name="Admin Uji"))
    return english(client)


def a_decided_ticket(client):
    """A ticket submitted from a blocked-nowhere IP, approved by ``client``; returns its number."""
    response = client.post("/api/guard/unblock-tickets/submit", json=submit_body(),
                           headers={"User-Agent": BROWSER_UA}, **from_ip("198.51.100.9"))
    number = response.get_json()["ticket_number"]
    assert post_form(client, f"/admin/tiket/{number}/putuskan", {"action": "approve"},
                     page=f"/admin/tiket/{number}").status_code == 303
    return number


# --- sign-in, two-step code, password pages ---------------------------------------------------------

def test_sign_in_page_in_english_by_cookie_and_by_accept_language(client):
    for html in (page(english(client), "/masuk"),
                 page(client.application.test_client(), "/masuk", headers={"Accept-Language": "en-GB,en;q=0.8"})):
        check(html, ["Forgot your password?", "Email address", "Password", "Sign in with a passkey",
                     "Blocked and have no account? You can still", "<title>Sign in · guardsvc</title>",
                     'data-failed="No passkey was used: the request was cancelled or timed out, or this device holds '
                     'no passkey for this account. Please try again."',
                     "The browser refused passkeys at this site's address. This is a setting of the site"],
             ["Lupa kata sandi?", "Alamat e-mail", "Kata sandi", "Masuk dengan passkey", "Anda tetap dapat",
              "Passkey tidak dapat dipakai", "Ikuti petunjuk browser"])
        assert '<html lang="en">' in html


def test_indonesian_stays_the_default(app, make_user):
    client = browser_client(app)
    html = page(client, "/masuk")
    check(html, ["Lupa kata sandi?", "Alamat e-mail", "Masuk dengan passkey", "Anda tetap dapat"],
          ["Forgot your password?", "Email address", "Sign in with a passkey"])
    assert '<html lang="id">' in html
    sign_in(client, make_user())
    check(page(client, "/akun"), ["Akun saya", "Verifikasi dua langkah", "Perangkat tepercaya", "Sesi aktif",
                                  "Token akses pribadi", "Berhasil masuk"],
          ["My account", "Two-step verification", "Trusted devices", "Active sessions", "Personal access tokens"])


def test_sign_in_failure_title_says_error(client, make_user):
    make_user(email="ada@example.com")
    response = post_form(english(client), "/masuk", {"email": "ada@example.com", "password": "salah-sekali-123"},
                         page="/masuk")
    assert "<title>Error: Sign in · guardsvc</title>" in text_of(response)


def test_two_step_code_page_in_english(app, make_user):
    client = english(browser_client(app))
    user = make_user()
    enable_2fa(app, user)
    response = post_form(client, "/masuk", {"email": user.email, "password": PASSWORD}, page="/masuk")
    assert response.status_code == 303 and response.headers["Location"].startswith("/masuk/kode")
    html = page(client, "/masuk/kode")
    check(html, ["Enter your verification code", "Your account uses two-step verification.",
                 "Trust this device — next time, sign in from this device and network without a code",
                 "Lost your phone?", "Each recovery code works only once.", "Cancel and go back to sign-in",
                 "The 6 digits from your authenticator app, or one of your recovery codes (for example abcde-fghjk)."],
          ["Masukkan kode verifikasi", "Percayai perangkat ini", "Kehilangan ponsel?", "Verifikasi dua langkah",
           "Batal dan kembali"])


def test_password_change_page_in_english(person):
    client, _ = person
    html = page(client, "/akun/kata-sandi")
    check(html, ["Change password", "New password", "Repeat new password",
                 "At least 10 characters, not your email address",
                 "Once your password is changed, every other device signed in to your account is signed out.",
                 "Also revoke all personal access tokens", "Also revoke all trusted devices", "Back to your account"],
          ["Ganti kata sandi", "Kata sandi baru", "Ulangi kata sandi baru", "Minimal 10 karakter",
           "Cabut juga semua", "Kembali ke akun"])


def test_password_reset_pages_in_english(app, client, make_user):
    from sqlalchemy import select

    from guardsvc.extensions import db
    from guardsvc.outbox.models import OutboxMessage

    english(client)
    check(page(client, "/masuk/lupa"),
          ["Forgotten password", "Enter the email address of your account.", "Send link", "Back to sign-in"],
          ["Lupa kata sandi", "Kirim tautan", "Kembali ke halaman masuk"])
    user = make_user(email="lupa@example.com")
    sent = post_form(client, "/masuk/lupa", {"email": user.email}, page="/masuk/lupa", follow_redirects=True)
    check(text_of(sent), ["Check your email", "No email?", "Check your spam folder, or", "ask for another link"],
          ["Periksa e-mail Anda", "Tidak menerima e-mail?", "minta tautan lagi"])
    check(page(client, "/masuk/atur-ulang/bukan-tautan-yang-benar", status=404),
          ["This link cannot be used", "We do not recognise this link.", "Ask for a new link"],
          ["Tautan tidak dapat dipakai", "Tautan ini tidak kami kenal", "Minta tautan baru"])
    with app.app_context():
        message = db.session.scalars(select(OutboxMessage).where(OutboxMessage.recipient == user.email)
                                     .order_by(OutboxMessage.id.desc())).first()
        path = re.search(r"(/masuk/atur-ulang/[A-Za-z0-9_-]+)", message.body_text).group(1)
    check(page(client, path),
          ["Choose a new password", "Two-step verification stays on if it was on before.", "Save new password",
           "Also revoke all trusted devices"],
          ["Buat kata sandi baru", "Simpan kata sandi baru", "Verifikasi dua langkah tetap aktif"])


# --- the account page ---------------------------------------------------------------------------------

def test_account_page_sections_in_english(person):
    client, _ = person
    html = page(client, "/akun")
    check(html, [
        "<title>My account · guardsvc</title>", "Signed in as Sari Dewi (sari@example.com).",
        # security
        "Two-step verification", "Not set up", "Set up two-step verification", "Account security",
        "Sign out of all devices", "Recent sign-in history", "Signed in", "Change password",
        "Access tokens are not revoked; revoke them under Personal access tokens if needed.",
        # trusted devices
        "Trusted devices", "This device is already trusted", "Laptop kantor", "This device",
        "In the list below this device is called",
        "Verified", "Rename", "Save name", 'aria-label="Stop trusting Laptop kantor"',
        # sessions
        "Active sessions", "This session", "Last active",
        # tokens
        "Personal access tokens", "Create a new token", "Create token", "Skrip laporan", "Prefix", "Never",
        'aria-label="Revoke token Skrip laporan"', 'For example "Report script". Up to 100 characters.',
        # passkeys
        "Passkeys", "Add a passkey", "No passkeys yet.",
    ], [
        "Akun saya", "Masuk sebagai", "Verifikasi dua langkah", "Belum aktif", "Keamanan akun",
        "Riwayat masuk terakhir", "Berhasil masuk", "Perangkat tepercaya", "Perangkat ini sudah tepercaya",
        "Sesi aktif", "Sesi ini", "Token akses pribadi", "Buat token", "Belum pernah", "Cabut token",
        "Tambah passkey", "Belum ada passkey", "Ganti nama", "Cabut kepercayaan",
    ])


def test_account_page_with_two_step_on_in_english(app, make_user):
    client = english(browser_client(app))
    user = make_user()
    enable_2fa(app, user)
    sign_in_session(client, user)
    check(page(client, "/akun"),
          ["Active", "Recovery codes left: ", "New recovery codes", "Create new recovery codes",
           "Turn off two-step verification", "Turn off"],
          ["Sisa kode pemulihan", "Kode pemulihan baru", "Nonaktifkan verifikasi dua langkah"])


def test_the_language_follows_each_request_not_the_first_one(person):
    """Imported label sets are macros: a page in English must not leave English behind for the next one."""
    client, _ = person
    assert "Signed in" in visible(page(client, "/akun"))
    indonesian(client)
    words = visible(page(client, "/akun"))
    assert "Berhasil masuk" in words and "Signed in" not in words
    english(client)
    words = visible(page(client, "/akun"))
    assert "Signed in" in words and "Berhasil masuk" not in words


# --- administrator pages ----------------------------------------------------------------------------

def test_admin_queue_in_english(admin, make_ticket):
    make_ticket(ip="198.51.100.31", name="Budi Santoso")
    html = page(admin, "/admin")
    check(html, ["<title>Ticket queue · guardsvc</title>", "Tickets per day, last 14 days",
                 "Stacked bars per day: approved, rejected, awaiting review.", "Figures per day (table)",
                 'placeholder="Ticket number, name, email or IP"', "Search", "Apply", "All",
                 "Passkeys: 0 accounts have a passkey", "Appellant", "Submitted", "Age", "Handled by",
                 'aria-label="Administrator menu"', "Allow list", "Reply templates", "Audit log", "Sign-in history"],
          ["Antrean tiket", "Tiket per hari", "Batang bertumpuk", "Nomor tiket, nama", "Terapkan",
           "akun memiliki passkey", "Pemohon", "Diajukan", "Umur", "Ditangani", "Daftar izin", "Templat balasan",
           "Log audit", "Riwayat masuk"])


def test_admin_ticket_page_in_english(admin, make_block, make_ticket):
    make_block(network="198.51.100.0/24", reason="Rentang uji")
    ticket = make_ticket(ip="198.51.100.32")
    html = page(admin, f"/admin/tiket/{ticket.ticket_number}")
    check(html, [f"<title>Ticket {ticket.ticket_number} · guardsvc</title>", "Back to the queue",
                 "Reason given by the appellant", "Appellant and context", "Phone", "Block when appealing",
                 "Handling", "No administrator is handling this ticket yet.", "Claim this ticket",
                 "Conversation", "Appellant's email:", "Send message to the appellant", "Save internal note",
                 "Decision", "If approved", "These ranges also cover the appellant.", "Also lift",
                 "While any range stays in force, the appellant is added to the allow list",
                 "Approve and lift the block", "Reject", "Earlier tickets from the same IP or device"],
          ["Kembali ke antrean", "Alasan dari pemohon", "Pemohon dan konteks", "Telepon", "Penanganan",
           "Klaim tiket ini", "Percakapan", "Kirim pesan ke pemohon", "Bila disetujui", "Buka juga",
           "Selama ada rentang", "Setujui", "Tolak", "Tiket sebelumnya"])


def test_decided_ticket_and_audit_log_in_english(admin):
    number = a_decided_ticket(admin)
    html = page(admin, f"/admin/tiket/{number}")
    check(html, ["Decided", "by admin@example.com", "Note to the appellant", "Audit entries",
                 "Ticket approved by admin@example.com", "This approval lifted nothing", "Full User-Agent"],
          ["Diputuskan", "Catatan untuk pemohon", "Tiket disetujui", "Persetujuan ini", "User-Agent lengkap"])
    check(page(admin, "/admin/audit"),
          ["<title>Audit log · guardsvc</title>", "Action", "Target", "Details", "Ticket approved",
           'placeholder="Action, target or who did it"', "1 entry"],
          ["Tindakan", "Sasaran", "Rincian", "Tiket disetujui", "1 entri"])


def test_admin_blocks_and_allows_in_english(admin, make_block, make_allow):
    make_block(network="203.0.113.40", reason="Uji blokir")
    make_allow(network="203.0.113.41", reason="Uji izin")
    check(page(admin, "/admin/blokir"),
          ["<title>Blocks · guardsvc</title>", "Add a block", "IP address or CIDR range", "Device ID",
           "Duration (minutes)", "Leave empty to keep it until it is lifted.", ">Block</button>", "Active",
           "Until lifted", "Lift block", 'placeholder="Reason for lifting (optional)"', "State", "Inactive"],
          ["Tambah blokir", "Alamat IP atau rentang CIDR", "Durasi (menit)", "Sampai dibuka", "Buka blokir",
           "Alasan membuka", "Keadaan", "Tidak aktif"])
    check(page(admin, "/admin/izin"),
          ["<title>Allow list · guardsvc</title>", "Add an allow entry", "Allow", "Until removed",
           "Remove from the allow list", "IP addresses, ranges and devices on the allow list are never blocked"],
          ["Tambah daftar izin", "Izinkan", "Sampai dihapus", "Hapus dari daftar izin", "tidak pernah diblokir"])


def test_admin_sign_ins_and_templates_in_english(admin, make_user, client):
    make_user(email="salah@example.com")
    post_form(client, "/masuk", {"email": "salah@example.com", "password": "bukan-sandinya-1"}, page="/masuk")
    html = page(admin, "/admin/masuk")
    check(html, ["Sign-in history of all accounts", "All results", "Filter", "Wrong password",
                 "Account / email tried", "Showing the latest"],
          ["Riwayat masuk semua akun", "Semua hasil", "Saring", "Kata sandi salah", "Menampilkan"])
    check(page(admin, "/admin/templat"),
          ["<title>Reply templates · guardsvc</title>", "No templates yet.", "Add a template", "Title",
           "Up to 100 characters.", "Save template"],
          ["Belum ada templat", "Tambah templat", "Judul", "Maks.", "Simpan templat"])
    # The same imported labels, read in Indonesian right after.
    words = visible(page(indonesian(admin), "/admin/masuk"))
    assert "Kata sandi salah" in words and "Wrong password" not in words
