"""The public side in English: appeal pages, block pages, error pages and the e-mails.

The language comes from the ``guardsvc_lang`` cookie (the switch) or from
``Accept-Language``; without either, everything stays Indonesian.
"""
import re
from datetime import datetime, timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from guardsvc.appeals import conversation, digest
from guardsvc.appeals import service as appeals
from guardsvc.appeals.models import UnblockTicket
from guardsvc.extensions import db
from guardsvc.outbox.service import messages_to
from guardsvc.pages import views as landing_views
from guardsvc.storage import clock
from guardsvc.web.errors import Blocked, render_failure
from tests.support.blocks_helpers import BLOCKED_IP, from_ip
from tests.support.pages_support import post_form, text_of

FORM = {"name": "Budi Santoso", "email": "budi@example.com", "phone": "0812-3456-7890",
        "reason": "I was on the office wifi when this happened."}
TICKET = re.compile(r"TKT-[0-9A-F]{8}")


def english(client):
    client.set_cookie("guardsvc_lang", "en")
    return client


def assert_english(html, present, absent):
    for text in present:
        assert text in html, text
    for text in absent:
        assert text not in html, text


def submit(client, **overrides):
    response = post_form(client, "/banding", {**FORM, **overrides}, page="/banding", follow_redirects=True)
    assert response.status_code == 200, text_of(response)
    return response


def ticket_number_of(response):
    return TICKET.search(text_of(response)).group(0)


def decide(app, number, action, notes=None):
    with app.app_context():
        appeals.decide_ticket(number, action, notes=notes)
        db.session.commit()


# --- pages -------------------------------------------------------------------------------------

def test_appeal_form_in_english(client):
    html = text_of(english(client).get("/banding"))
    assert_english(html, [
        "<h1>Appeal a block</h1>", '<label for="name">Full name</label>', "Email address", "Phone number",
        '<span class="optional">(optional)</span>', "Reason for your appeal",
        "If your access is blocked and you think that is a mistake, explain it here.",
        "Once it is sent, you get a <strong>ticket number</strong> to check its status.",
        "Up to 1000 characters.", ">Submit appeal</button>", "Leave this field empty",
        'Already have a ticket number? <a href="/banding/cek">Check appeal status</a>.',
        # the character counter's words, for site.js
        'data-count-left-one="{n} character left"', 'data-count-left-other="{n} characters left"',
        'data-count-over-one="{n} character too many"', 'data-count-over-other="{n} characters too many"',
    ], ["Nama lengkap", "Kirim permohonan", "Maks.", "(opsional)", "Sisa", "Kelebihan", "Jangan isi kolom ini",
        "Sudah punya nomor tiket?"])


def test_accept_language_english_is_enough(client):
    html = text_of(client.get("/banding", headers={"Accept-Language": "en-GB,en;q=0.9"}))
    assert "<h1>Appeal a block</h1>" in html and "Nama lengkap" not in html


def test_indonesian_stays_the_default(client):
    html = text_of(client.get("/banding"))
    assert_english(html, [
        "<h1>Ajukan banding pembukaan blokir</h1>", '<label for="name">Nama lengkap</label>', "Maks. 1000 karakter.",
        'data-count-left-one="Sisa {n} karakter"', 'data-count-over-other="Kelebihan {n} karakter"',
        ">Kirim permohonan</button>",
    ], ["Full name", "Submit appeal", "characters"])
    assert "Permohonan Anda terkirim" in text_of(submit(client))


def test_appeal_form_with_errors_and_a_block_reference_in_english(client, make_block):
    reference = make_block(network="203.0.113.0/24")
    html = text_of(english(client).get(f"/banding?ref={reference}"))
    assert f'Your block reference: <strong class="code">{reference}</strong>. We have already added it' in html
    response = post_form(client, "/banding", {**FORM, "name": "", "reason": "x" * 1001}, page="/banding")
    html = text_of(response)
    assert response.status_code == 422
    assert_english(html, ["<title>Error: Appeal a block · guardsvc</title>", "Some answers need fixing",
                          '<span class="visually-hidden">Error: </span>'],
                   ["Kesalahan:", "Ada isian yang perlu diperbaiki"])


def test_submitted_page_and_cooldown_in_english(client):
    english(client)
    response = submit(client)
    html = text_of(response)
    number = ticket_number_of(response)
    assert_english(html, [
        "<h1>Your appeal has been sent</h1>", "Keep this ticket number.", "Your ticket number",
        f">{number}</output>", ">Copy ticket number</button>", 'data-copied="Copied."',
        'data-copy-failed="Could not copy; select the text and copy it yourself."',
        "<strong>Check your email.</strong>", "no new appeal can be submitted from the same device or IP address",
        ">View ticket status</a>",
    ], ["Permohonan Anda terkirim", "Salin nomor tiket", "Tersalin", "Tidak dapat menyalin", "Lihat status tiket"])
    again = post_form(client, "/banding", {**FORM, "name": "Budi again"}, page="/banding")
    assert again.status_code == 429
    assert_english(text_of(again), ["<h1>Your appeal is still being reviewed</h1>", "You already have an appeal in progress.",
                                    f">{number}</output>"], ["masih diproses"])


def test_status_of_a_pending_ticket_in_english(client, app, monkeypatch):
    english(client)
    monkeypatch.setattr(clock, "utcnow", lambda: datetime(2026, 11, 22, 8, 50))
    number = ticket_number_of(submit(client))
    html = text_of(client.get("/banding/cek", query_string={"tiket": number.lower()}))
    assert_english(html, [
        f"<title>Status of {number} · guardsvc</title>", "<h1>Check appeal status</h1>",
        f'Ticket <span class="code">{number}</span>', "Status: <strong>", "<dt>Submitted</dt>", "<dt>Decided</dt>",
        "Not decided yet", "<dt>Administrator's notes</dt>", "No notes yet.", "Check another ticket",
        "For example: TKT-1A2B3C4D. Capital or small letters both work.",
    ], ["Belum diputuskan", "Catatan administrator", "Belum ada catatan", "Cek tiket lain", "Diajukan"])


@pytest.mark.parametrize("action", ["approve", "reject"])
def test_status_of_a_decided_ticket_in_english(client, app, action):
    english(client)
    number = ticket_number_of(submit(client))
    decide(app, number, action, notes="Checked by hand")
    html = text_of(client.get("/banding/cek", query_string={"tiket": number}))
    assert "<dd class=\"notes\">Checked by hand</dd>" in html and "Not decided yet" not in html
    assert ("Submit a new appeal" in html) == (action == "reject")
    assert "Ajukan permohonan baru" not in html and "Diputuskan" not in html


def test_unknown_ticket_in_english(client):
    response = english(client).get("/banding/cek", query_string={"tiket": "TKT-00000000"})
    html = text_of(response)
    assert response.status_code == 404
    assert_english(html, ["<title>Ticket not found · guardsvc</title>", "<strong>Ticket number not found.</strong>",
                          'Check the number: it is <span class="code">TKT-</span> followed by 8 letters or digits'],
                   ["Periksa kembali nomornya", "Tiket tidak ditemukan"])


def test_conversation_page_in_english(client, app):
    english(client)
    number = ticket_number_of(submit(client))
    with app.app_context():
        [mail] = messages_to("budi@example.com", "appeal_received")
        path = re.search(r"/banding/tiket/[A-Za-z0-9_-]+", mail.body_text).group(0)
    html = text_of(client.get(path))
    assert_english(html, [
        f'<h1>Ticket <span class="code">{number}</span></h1>', "Your email address is verified.",
        "<h2 id=\"judul-permohonan\">Your appeal</h2>", "<dt>Name</dt>", "<dt>Phone</dt>", "<h3>Reason</h3>",
        "Conversation with the administrator", "No messages yet.", '<label for="jawaban">Your reply</label>',
        "The administrator reads your reply here. Up to 2000 characters.", ">Send reply</button>",
    ], [">Permohonan Anda</h2>", "Percakapan dengan administrator", "Belum ada pesan", "Kirim jawaban"])
    decide(app, number, "reject")
    html = text_of(client.get(path))
    assert "This ticket has been decided; the conversation is closed." in html
    assert '<a href="/banding">Submit a new appeal</a> if you have new information.' in html


def test_landing_page_in_english(client):
    html = text_of(english(client).get("/"))
    assert_english(html, ["<title>Home · guardsvc</title>", "<h1>Safe access, and a fair way back</h1>",
                          "guardsvc protects access to this service.", "Explain why your block should be lifted.",
                          "For account holders: manage trusted devices and access tokens."],
                   ["Beranda", "Akses aman", "Jelaskan mengapa"])


def test_block_page_in_english(client, make_block):
    reference = make_block(network="203.0.113.0/24")
    response = english(client).get(f"/terblokir?ref={reference}", **from_ip(BLOCKED_IP))
    html = text_of(response)
    assert response.status_code == 200
    assert_english(html, [
        "<title>Access blocked · guardsvc</title>", "Your access is blocked", "What does this mean for you?",
        "You do not need an account.", "<dt>Your IP address</dt>", "<dt>Block ends</dt>",
        "No end date; the block stays until an administrator lifts it.", "Block reference",
        ">Copy block reference</button>", f'href="/banding?ref={reference}">Appeal a block</a>',
        'Already appealed? <a href="/banding/cek">Check appeal status</a>.',
    ], ["Akses Anda diblokir", "Apa artinya", "Tidak ada batas waktu", "Nomor referensi blokir", "Sudah mengajukan"])


def test_in_app_block_page_in_english(app):
    block = SimpleNamespace(reference="BLK-00AB12CD", expires_at=None, is_active_at=lambda moment: True)
    with app.test_request_context("/halaman-apa-saja", headers={"Cookie": "guardsvc_lang=en"}):
        error = Blocked(block, appeal_url="http://localhost:8000/banding?ref=BLK-00AB12CD")
        response = render_failure(error.status, error.message, extra=error.extra, error=error)
    html = response.get_data(as_text=True)
    assert response.status_code == 403
    assert_english(html, ["Your access is blocked", "so this page cannot be opened", ">BLK-00AB12CD</output>"],
                   ["Kode 403", "Akses Anda diblokir"])
    assert "Code 403" not in html  # no status code on a page people read


# --- error pages -------------------------------------------------------------------------------

def test_404_page_in_english(client):
    response = english(client).get("/tidak-ada")
    html = text_of(response)
    assert response.status_code == 404
    assert_english(html, ['<h1 id="judul-kesalahan">Page not found</h1>', "Check the address you typed",
                          ">Back to the home page</a>", ">Check appeal status</a>", "Error code for support staff: 404"],
                   ["Halaman tidak ditemukan", "Kembali ke beranda", "Kode kesalahan"])


def test_405_page_in_english(client):
    response = english(client).get("/keluar")
    assert response.status_code == 405
    assert_english(text_of(response), ["Method not allowed", "This address cannot be opened that way."],
                   ["Metode tidak diizinkan"])


def test_500_page_in_english(client, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(landing_views, "render_template", broken)
    response = english(client).get("/")
    html = text_of(response)
    assert response.status_code == 500
    assert_english(html, ["Something went wrong", "This is a problem on our side, not yours."],
                   ["Terjadi kesalahan</h1>", "Ini kesalahan di pihak kami", "secret internals"])


def test_503_page_in_english(client, monkeypatch):
    def unreachable(*args, **kwargs):
        raise OperationalError("SELECT 1", {}, Exception("could not connect to server"))

    monkeypatch.setattr(landing_views, "render_template", unreachable)
    response = english(client).get("/")
    assert response.status_code == 503
    assert_english(text_of(response), ["Service unavailable", "We cannot reach our database right now."],
                   ["Layanan sedang terganggu"])


def test_error_pages_stay_indonesian_by_default(client):
    html = text_of(client.get("/tidak-ada"))
    assert "Halaman tidak ditemukan" in html and "Page not found" not in html


# --- e-mails -----------------------------------------------------------------------------------

def only_mail(app, address, kind):
    with app.app_context():
        [mail] = messages_to(address, kind)
        return mail.body_text, mail.body_html


def test_confirmation_mail_in_english(client, app):
    number = ticket_number_of(submit(english(client)))
    text, html = only_mail(app, "budi@example.com", "appeal_received")
    for body in (text, html):
        assert_english(body, ["Hello,", "We have received your appeal.", "This link is for you only",
                              "Anyone who has it can read your appeal and reply in your name.",
                              "If you did not submit this appeal, you can ignore this email.", "Regards,"],
                       ["Halo", "Permohonan pembukaan blokir", "Tautan ini hanya untuk Anda", "Salam,"])
    assert f"Ticket number : {number}\nSubmitted     : " in text
    assert f"Open the conversation for ticket {number}</a>" in html
    assert "This email was sent automatically by guardsvc." in html


def test_confirmation_mail_stays_indonesian_by_default(client, app):
    number = ticket_number_of(submit(client))
    text, html = only_mail(app, "budi@example.com", "appeal_received")
    assert f"Nomor tiket : {number}\nDiajukan    : " in text and "Halo," in text and "Hello" not in text
    assert "Jangan membalas e-mail ini." in html


@pytest.mark.parametrize("action,sentence", [
    ("approve", "no block applied to your IP address or device, so there was nothing to lift"),
    ("reject", "The block stays in place. If you have new information, you can submit a new appeal."),
])
def test_decision_mail_in_english(client, app, action, sentence):
    number = ticket_number_of(submit(english(client)))
    decide(app, number, action, notes="Checked by hand")
    text, html = only_mail(app, "budi@example.com", "appeal_decision")
    for body in (text, html):
        assert_english(body, ["Hello Budi Santoso,", f"Your appeal with ticket number ", " has been decided.", sentence],
                       ["Halo", "telah diputuskan", "Blokir tetap berlaku", "tidak ada yang perlu dibuka"])
    assert "\nDecision : " in text and "\nTime     : " in text and "\nNotes    : Checked by hand" in text
    assert "You can check the status of your ticket at any time at:" in text
    assert f"View the status of ticket {number}</a>" in html


def test_message_mail_in_english(client, app, make_user):
    admin = make_user(role="admin")
    number = ticket_number_of(submit(english(client)))
    with app.app_context():
        ticket = db.session.scalar(select(UnblockTicket).where(UnblockTicket.ticket_number == number))
        conversation.post_as_admin(ticket, "Were you on a VPN?", "admin", actor=db.session.merge(admin))
        db.session.commit()
    text, html = only_mail(app, "budi@example.com", "appeal_message")
    for body in (text, html):
        assert_english(body, ["Hello Budi Santoso,", "The administrator has written to you about your appeal (ticket ",
                              "Were you on a VPN?", "Replies to this email do not reach the administrator."],
                       ["Halo", "Administrator menulis pesan", "Membalas e-mail ini"])
    assert "Read and reply to this message on your ticket's conversation page:" in text
    assert ">Read and reply on the ticket page</a>" in html


@pytest.mark.parametrize("tickets,sentence", [
    (1, "There is 1 new appeal awaiting review:"),
    (2, "There are 2 new appeals awaiting review:"),
])
def test_digest_mail_in_english(app, make_user, make_ticket, monkeypatch, tickets, sentence):
    start = datetime(2026, 11, 22, 8, 0)
    now = {"at": start}
    monkeypatch.setattr(clock, "utcnow", lambda: now["at"])
    admin = make_user(role="admin", email="ani@example.com", name="Ani")
    with app.app_context():
        record = db.session.merge(admin)
        record.language = "en"
        digest.set_digest_opt_in(record, True)
        db.session.commit()
    now["at"] = start + timedelta(minutes=1)
    for index in range(tickets):
        make_ticket(f"198.51.100.{index + 1}")
    now["at"] = start + timedelta(minutes=30)
    with app.app_context():
        assert digest.queue_appeal_digests() == 1
        db.session.commit()
    text, html = only_mail(app, "ani@example.com", "appeal_digest")
    for body in (text, html):
        assert_english(body, ["Hello Ani,", sentence, "You are receiving this email because you turned on notifications"],
                       ["Halo", "yang menunggu peninjauan", "Anda menerima e-mail ini", "diajukan"])
    assert "(submitted " in text and "Ticket queue: http://localhost:8000/admin" in text
    assert ">Open the ticket queue</a>" in html


def test_mail_templates_render_in_english_with_plurals(app):
    """The account e-mails too, rendered straight from their templates."""
    env = app.jinja_env
    context = {"name": "Rina", "email": "rina@example.com", "when": "now", "ip_address": "203.0.113.9",
               "device": "Firefox", "reset_url": "http://r", "forgot_url": "http://f", "minutes": 1,
               "account_url": "http://a", "password_url": "http://p", "what": "Something changed.",
               "by_command_line": None, "details": []}
    with app.test_request_context("/", headers={"Cookie": "guardsvc_lang=en"}):
        reset = env.get_template("mail/password_reset.txt").render(context)
        alert = env.get_template("mail/signin_alert.txt").render(context)
        notice = env.get_template("mail/security_notice.html").render(context)
    assert "Time        : now\nIP address  : 203.0.113.9\nDevice      : Firefox" in reset
    assert "(it works for 1 minute, and only once)" in reset and "Halo" not in reset
    assert 'Sign out of all devices: open http://a and choose "Sign out of all devices".' in alert
    assert "Check your sessions, trusted devices, access tokens and two-step verification on " in notice
    assert "Bukan saya" not in notice
