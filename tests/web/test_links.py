"""Links in e-mails are built from the routes on GUARDSVC_BASE_URL, never from the request's host."""
import pytest

from guardsvc import create_app
from guardsvc.appeals.notify import status_url
from guardsvc.web.links import external_url
from guardsvc.outbox.models import OutboxMessage
from guardsvc.extensions import db
from tests.support.factories import submit_body

BASE = "https://jaga.example.org/layanan"


@pytest.fixture()
def hosted(app):
    """An app served under a path on another host, as a reverse proxy would publish it."""
    return create_app({"TESTING": True, "BASE_URL": BASE})


def test_links_outside_a_request_use_the_base_url(hosted):
    with hosted.app_context():
        assert status_url("TKT-0000000A") == f"{BASE}/banding/cek?tiket=TKT-0000000A"
        assert external_url("account_pages.account", _anchor="perangkat") == f"{BASE}/akun#perangkat"


def test_links_inside_a_request_ignore_the_host_header(hosted):
    with hosted.test_request_context("/", headers={"Host": "penyerang.example"}):
        assert external_url("security_pages.password_form") == f"{BASE}/akun/kata-sandi"


def test_a_decision_made_on_the_command_line_mails_the_status_link(hosted):
    client = hosted.test_client()
    response = client.post("/api/guard/unblock-tickets/submit", json=submit_body(email="tautan@example.com"),
                           environ_base={"REMOTE_ADDR": "198.51.100.77"})
    ticket = response.get_json()["ticket_number"]
    result = hosted.test_cli_runner().invoke(args=["tickets", "decide", ticket, "--reject"])
    assert result.exit_code == 0, result.output
    with hosted.app_context():
        confirmation, decision = db.session.scalars(db.select(OutboxMessage).where(
            OutboxMessage.recipient == "tautan@example.com").order_by(OutboxMessage.id)).all()
    assert f"{BASE}/banding/cek?tiket={ticket}" in decision.body_text
    assert f"{BASE}/banding/tiket/" in confirmation.body_text
