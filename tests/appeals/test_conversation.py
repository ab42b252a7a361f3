"""The ticket conversation, end to end over the outbox and a real SMTP server.

Submit -> confirmation e-mail with a private link -> the appellant opens it (the
administrator sees the address verified) -> the administrator asks -> the
question arrives by e-mail -> the appellant answers -> the queue marks the
ticket "dijawab". Internal notes never reach the appellant.
"""
import hashlib

from sqlalchemy import select

from guardsvc.appeals import conversation
from guardsvc.appeals.conversation_models import TicketMessage, TicketSecret
from guardsvc.appeals.models import UnblockTicket
from guardsvc.extensions import db
from tests.support.conversation_support import admin_browser, deliver, private_link  # noqa: F401
from tests.support.factories import submit_ticket
from tests.support.pages_support import csrf_token, post_form, text_of
from tests.support.smtp import html_body, smtp_server, text_body  # noqa: F401

NOTE = "CATATAN-INTERNAL: pemohon mirip akun spam lama"
QUESTION = "Apakah Anda memakai VPN saat diblokir?\nMohon jelaskan."
ANSWER = "Tidak, saya memakai jaringan kantor."


def _admin_ticket_page(browser, number):
    return text_of(browser.get(f"/admin/tiket/{number}"))


def test_conversation_end_to_end(app, client, runner, smtp_server, admin_browser):
    response = submit_ticket(client, email="budi@example.com", name="Budi <b>S</b>")
    assert response.status_code == 201
    number = response.get_json()["ticket_number"]
    assert "/banding/tiket/" not in response.get_data(as_text=True)
    assert set(response.get_json()["data"]) == {"id", "ticket_number", "ip_address", "name", "email",
                                                "status", "created_at"}

    assert "sent 1" in deliver(runner)
    [confirmation] = smtp_server.inbox.to("budi@example.com")
    assert confirmation["Subject"] == f"Permohonan {number} diterima"
    assert number in text_body(confirmation)
    path, secret = private_link(confirmation)
    assert len(secret) >= 22  # at least 128 bits in URL-safe base64
    assert f'href="http://localhost:8000{path}"' in html_body(confirmation)
    assert "Budi" not in html_body(confirmation)  # nothing the submitter wrote, until the address is verified

    with app.app_context():
        ticket = db.session.scalar(select(UnblockTicket).where(UnblockTicket.ticket_number == number))
        hashes = db.session.scalars(select(TicketSecret.secret_hash)).all()
        assert hashes == [hashlib.sha256(secret.encode()).hexdigest()]
        stored = " ".join(str(value) for value in vars(ticket).values())
        assert secret not in stored and ticket.email_verified_at is None

    admin, desk = admin_browser()
    assert "belum terverifikasi" in _admin_ticket_page(desk, number)

    page = client.get(path)
    assert page.status_code == 200
    assert page.headers["Cache-Control"] == "no-store" and page.headers["Referrer-Policy"] == "no-referrer"
    html = text_of(page)
    assert number in html and "Saya tidak merasa melakukan pelanggaran" in html and "Menunggu peninjauan" in html
    assert "Budi &lt;b&gt;S&lt;/b&gt;" in html and "Belum ada pesan." in html
    assert 'id="email-terverifikasi"' in _admin_ticket_page(desk, number)

    assert post_form(desk, f"/admin/tiket/{number}/pesan", {"body": NOTE, "kind": "note"}).status_code == 303
    assert post_form(desk, f"/admin/tiket/{number}/pesan", {"body": QUESTION, "kind": "admin"}).status_code == 303
    assert "sent 1" in deliver(runner)
    [question] = smtp_server.inbox.to("budi@example.com", "Pesan administrator")
    assert "Apakah Anda memakai VPN" in text_body(question)
    second_path, second_secret = private_link(question)
    assert second_secret != secret

    # Both links lead to the same conversation; the question is there, the note is not.
    for link in (path, second_path):
        html = text_of(client.get(link))
        assert "Apakah Anda memakai VPN" in html and "CATATAN-INTERNAL" not in html
    response = post_form(client, second_path, {"body": ANSWER}, page=second_path)
    assert response.status_code == 303 and response.headers["Location"].startswith(second_path)
    html = text_of(client.get(second_path))
    assert "Jawaban Anda terkirim." in html
    assert html.index("Apakah Anda memakai VPN") < html.index(ANSWER)

    queue = text_of(desk.get("/admin"))
    assert number in queue and ">dijawab</span>" in queue
    ticket_page = _admin_ticket_page(desk, number)
    assert 'id="tanda-dijawab"' in ticket_page and ANSWER in ticket_page and "CATATAN-INTERNAL" in ticket_page

    # Another question clears the marker until the appellant answers again.
    post_form(desk, f"/admin/tiket/{number}/pesan", {"body": "Terima kasih, kami cek.", "kind": "admin"})
    assert ">dijawab</span>" not in text_of(desk.get("/admin"))

    deliver(runner)
    every_mail = " ".join(text_body(m) + html_body(m) for m in smtp_server.inbox.messages)
    assert "CATATAN-INTERNAL" not in every_mail
    check = client.get(f"/api/guard/unblock-tickets/check/{number}").get_data(as_text=True)
    assert "CATATAN-INTERNAL" not in check and "VPN" not in check and "budi@example.com" not in check


def test_unknown_or_malformed_secret_is_404(client):
    for path in ("/banding/tiket/" + "A" * 32, "/banding/tiket/pendek", "/banding/tiket/" + "x" * 300):
        response = client.get(path)
        assert response.status_code == 404 and "Tautan tiket tidak ditemukan" in text_of(response)


def _ticket_with_link(app, client, ip="198.51.100.7"):
    """A submitted ticket and its private link (read from the outbox, as the e-mail would carry it)."""
    number = submit_ticket(client, ip=ip).get_json()["ticket_number"]
    with app.app_context():
        ticket = db.session.scalar(select(UnblockTicket).where(UnblockTicket.ticket_number == number))
        path = "/banding/tiket/" + _secret_of(ticket)
    return number, path


def _secret_of(ticket):
    # The test reads the secret from the queued e-mail, the only place outside the appellant's inbox.
    from guardsvc.outbox.service import messages_to

    mail = messages_to(ticket.email, "appeal_received")[-1]
    return mail.body_text.split("/banding/tiket/")[1].split()[0]


def test_reply_needs_csrf_a_body_and_at_most_2000_characters(app, client):
    _, path = _ticket_with_link(app, client)
    assert client.post(path, data={"body": "tanpa token"}).status_code == 400
    empty = post_form(client, path, {"body": "   "}, page=path)
    assert empty.status_code == 422 and 'aria-invalid="true"' in text_of(empty)
    long = post_form(client, path, {"body": "a" * 2001}, page=path)
    assert long.status_code == 422 and "a" * 2001 in text_of(long)  # the typed text is kept
    with app.app_context():
        assert db.session.scalars(select(TicketMessage)).all() == []


def test_a_decided_ticket_shows_the_thread_but_takes_no_reply(app, client, runner, admin_browser):
    number, path = _ticket_with_link(app, client)
    _, desk = admin_browser()
    post_form(client, path, {"body": "Jawaban pertama."}, page=path)
    assert post_form(desk, f"/admin/tiket/{number}/putuskan", {"action": "reject"}).status_code == 303
    html = text_of(client.get(path))
    assert "Jawaban pertama." in html and "percakapan ditutup" in html and 'id="jawaban"' not in html
    refused = post_form(client, path, {"body": "Masih ada lagi."}, page=path)
    assert refused.status_code == 303
    assert "percakapan ditutup" in text_of(client.get(path))
    # Administrators can no longer write to the appellant either, only add notes.
    assert post_form(desk, f"/admin/tiket/{number}/pesan", {"body": "Halo?", "kind": "admin"}).status_code == 303
    assert post_form(desk, f"/admin/tiket/{number}/pesan", {"body": "Catatan.", "kind": "note"}).status_code == 303
    with app.app_context():
        kinds = [m.author_kind for m in db.session.scalars(select(TicketMessage).order_by(TicketMessage.id))]
    assert kinds == ["appellant", "note"]


def test_a_blocked_appellant_still_reaches_the_page(app, client, make_block):
    _, path = _ticket_with_link(app, client)
    make_block(network="198.51.100.7")
    blocked = {"REMOTE_ADDR": "198.51.100.7"}
    assert client.get("/akun", environ_base=blocked).status_code == 403
    assert client.get(path, environ_base=blocked).status_code == 200
    token = csrf_token(client, path)
    response = client.post(path, data={"csrf_token": token, "body": "Saya diblokir."}, environ_base=blocked)
    assert response.status_code == 303


def test_the_html_form_sends_the_confirmation_too(app, client, smtp_server, runner):
    form = {"csrf_token": csrf_token(client, "/banding"), "name": "Rina", "email": "rina@example.com",
            "reason": "Alasan saya."}
    response = client.post("/banding", data=form, follow_redirects=True)
    assert "Cek e-mail Anda" in text_of(response)
    deliver(runner)
    [mail] = smtp_server.inbox.to("rina@example.com")
    path, _ = private_link(mail)
    assert client.get(path).status_code == 200


def test_erase_conversation_removes_messages_and_links(app, client):
    number, path = _ticket_with_link(app, client)
    post_form(client, path, {"body": "Pesan yang akan dihapus."}, page=path)
    with app.app_context():
        ticket = db.session.scalar(select(UnblockTicket).where(UnblockTicket.ticket_number == number))
        conversation.erase_conversations([ticket.id])
        db.session.commit()
        assert db.session.scalars(select(TicketMessage)).all() == []
        assert db.session.scalars(select(TicketSecret)).all() == []
    assert client.get(path).status_code == 404


def test_replies_share_one_quota_across_tickets(app, client):
    from guardsvc import create_app

    _, first = _ticket_with_link(app, client)
    _, second = _ticket_with_link(app, app.test_client(), ip="198.51.100.8")
    limited = create_app({"TESTING": True, "RATELIMIT_ENABLED": True, "RATELIMIT_REPLY": "2 per minute"}).test_client()
    assert post_form(limited, first, {"body": "Satu."}, page=first).status_code == 303
    assert post_form(limited, second, {"body": "Dua."}, page=second).status_code == 303
    refused = post_form(limited, first, {"body": "Tiga."}, page=first)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert limited.get(first).status_code == 200  # reading is not an answer


def test_a_post_without_csrf_to_an_unknown_ticket_link_is_a_400_never_a_500(app):
    client = app.test_client()
    for secret in ("abc", "a" * 43):
        answer = client.post(f"/banding/tiket/{secret}", data={"body": "halo"})
        assert answer.status_code == 400 and "<html" in answer.get_data(as_text=True).lower()


def test_the_confirmation_carries_nothing_the_submitter_wrote(client):
    from tests.support.factories import submit_body

    body = {**submit_body(), "name": "Kunjungi promo-murah.example sekarang",
            "reason": "Teks iklan yang dikirim ke kotak masuk orang lain."}
    answer = client.post("/api/guard/unblock-tickets/submit", json={**body, "email": "orang-lain@example.com"})
    assert answer.status_code == 201
    from guardsvc.outbox.service import messages_to

    with client.application.app_context():
        mail = messages_to("orang-lain@example.com", "appeal_received")[-1]
    for text in (mail.body_text, mail.body_html):
        assert answer.get_json()["ticket_number"] in text and "/banding/tiket/" in text
        assert "promo-murah" not in text and "Teks iklan" not in text


def test_the_language_switch_keeps_a_reply_being_written_and_sends_nothing(app, client):
    _, path = _ticket_with_link(app, client)
    html = text_of(client.get(path))
    assert 'id="form-jawaban"' in html and f'form="form-jawaban" formaction="{path}/bahasa"' in html
    typed = "Saya <sudah> menjelaskan.\nMohon dicek lagi."
    answer = post_form(client, path + "/bahasa", {"body": typed, "lang": "en"}, page=path)
    switched = text_of(answer)
    assert answer.status_code == 200 and '<html lang="en">' in switched and "Your reply" in switched
    assert "Saya &lt;sudah&gt; menjelaskan.\nMohon dicek lagi.</textarea>" in switched
    assert "guardsvc_lang=en" in answer.headers["Set-Cookie"] and answer.headers["Cache-Control"] == "no-store"
    assert post_form(client, path + "/bahasa", {"body": typed, "lang": "fr"}, page=path).status_code == 400
    with app.app_context():
        assert db.session.scalars(select(TicketMessage)).all() == []
