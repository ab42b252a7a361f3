"""What people receive: appeal decision e-mails and new-device alerts, over real SMTP."""
import pytest

from tests.support.signin_support import PHONE_UA, rate_limits_off, request_token  # noqa: F401
from tests.support.smtp import html_body, smtp_server, text_body  # noqa: F401

APPELLANT = "Budi <b>Santoso</b>"  # markup that must arrive escaped
DECISION = "Keputusan banding"  # appellants also get a confirmation when they submit


def decide(client, headers, ticket, action, notes=None):
    body = {"action": action}
    if notes:
        body["admin_notes"] = notes
    return client.post(f"/api/guard/unblock-tickets/{ticket}/respond", json=body, headers=headers)


def alerts(inbox, address):
    """New-device alerts to ``address`` (a token request also sends its own notice)."""
    return [m for m in inbox.to(address) if m["Subject"].startswith("Peringatan keamanan")]


def deliver(runner):
    result = runner.invoke(args=["mail", "deliver", "--once"])
    assert result.exit_code == 0, result.output


def test_approval_mail_reaches_the_appellant(client, runner, bearer, make_block, make_ticket, smtp_server):
    _, admin = bearer(role="admin")
    make_block(network="198.51.100.7")
    ticket = make_ticket("198.51.100.7", email="budi@example.com", name=APPELLANT).ticket_number
    assert decide(client, admin, ticket, "approve", "Maaf, <i>salah blokir</i>.").status_code == 200
    deliver(runner)
    [message] = smtp_server.inbox.to("budi@example.com", DECISION)
    assert message["Subject"] == f"Keputusan banding {ticket}: disetujui"
    text = text_body(message)
    assert "Keputusan : Disetujui" in text
    assert "Catatan   : Maaf, <i>salah blokir</i>." in text
    assert f"http://localhost:8000/banding/cek?tiket={ticket}" in text
    assert "WIB" in text and "telah dibuka" in text
    html = html_body(message)
    assert "Maaf, &lt;i&gt;salah blokir&lt;/i&gt;." in html  # escaped, never markup
    assert "Budi &lt;b&gt;Santoso&lt;/b&gt;" in html
    assert f'href="http://localhost:8000/banding/cek?tiket={ticket}"' in html


def test_approval_that_opened_nothing_does_not_claim_it_did(client, runner, bearer, make_ticket, smtp_server):
    _, admin = bearer(role="admin")
    ticket = make_ticket(email="kosong@example.com").ticket_number
    assert decide(client, admin, ticket, "approve").status_code == 200
    deliver(runner)
    [message] = smtp_server.inbox.to("kosong@example.com", DECISION)
    for body in (text_body(message), html_body(message)):
        assert "tidak ada yang perlu dibuka" in body and "telah dibuka" not in body


def test_rejection_mail_has_default_notes(client, runner, bearer, make_ticket, smtp_server):
    _, admin = bearer(role="admin")
    ticket = make_ticket(email="sari@example.com", name=APPELLANT).ticket_number
    decide(client, admin, ticket, "reject")
    deliver(runner)
    [message] = smtp_server.inbox.to("sari@example.com", DECISION)
    assert message["Subject"] == f"Keputusan banding {ticket}: ditolak"
    assert "Catatan   : Permohonan ditolak." in text_body(message)
    assert "Blokir tetap berlaku" in text_body(message)


def test_cli_decision_queues_mail_too(runner, make_ticket, smtp_server):
    ticket = make_ticket(email="cli@example.com", name=APPELLANT).ticket_number
    result = runner.invoke(args=["tickets", "decide", ticket, "--approve", "--notes", "Dibuka."])
    assert result.exit_code == 0, result.output
    deliver(runner)
    assert "Catatan   : Dibuka." in text_body(smtp_server.inbox.to("cli@example.com", DECISION)[0])


def test_a_refused_second_decision_sends_nothing_more(client, runner, bearer, make_ticket, smtp_server):
    _, admin = bearer(role="admin")
    ticket = make_ticket(email="dua@example.com", name=APPELLANT).ticket_number
    decide(client, admin, ticket, "approve")
    assert decide(client, admin, ticket, "reject").status_code == 409
    deliver(runner)
    assert len(smtp_server.inbox.to("dua@example.com", DECISION)) == 1


@pytest.mark.usefixtures("rate_limits_off")
def test_new_device_alert_content(client, runner, make_user, smtp_server):
    user = make_user(email="rina@example.com", name="Rina")
    request_token(client, user.email)
    request_token(client, user.email, ip="203.0.113.50", device="phone-9", user_agent=PHONE_UA)
    deliver(runner)
    [message] = alerts(smtp_server.inbox, "rina@example.com")
    assert message["Subject"] == "Peringatan keamanan: akun guardsvc Anda dimasuki dari perangkat baru"
    text = text_body(message)
    assert "Halo Rina," in text
    assert "Alamat IP    : 203.0.113.50" in text
    assert "Perangkat    : Chrome di Android" in text
    assert "Pixel 8" not in text  # the readable name only; the raw User-Agent is for administrators
    assert " WIB" in text
    assert "BUKAN ANDA?" in text
    assert "http://localhost:8000/akun/kata-sandi" in text
    assert "Keluar dari semua perangkat" in text
    html = html_body(message)
    assert "Bukan Anda?" in html and 'href="http://localhost:8000/akun"' in html


@pytest.mark.usefixtures("rate_limits_off")
def test_each_case_of_alert_over_smtp(app, client, runner, make_user, smtp_server):
    user = make_user()
    client.set_cookie(app.config["DEVICE_COOKIE_NAME"], "laptop-cookie-1")
    request_token(client, user.email, device=None)         # first sign-in: none
    request_token(client, user.email, device=None)         # same browser (its device cookie): none
    deliver(runner)
    assert alerts(smtp_server.inbox, user.email) == []
    request_token(app.test_client(), user.email, device="tablet-1")  # a browser without it: one
    deliver(runner)
    assert len(alerts(smtp_server.inbox, user.email)) == 1
