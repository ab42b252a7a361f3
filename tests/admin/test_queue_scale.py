"""The ticket queue stays flat as tickets pile up: counts stop at a cap, pages too, statements stay few.

``bench/admin_queue.py`` times the queue with a million tickets; here a cap of
3 shows the behaviour with a handful.
"""
import pytest
from sqlalchemy import event

from guardsvc.web import listing
from guardsvc.admin import views as admin_views
from guardsvc.appeals import service as appeals
from guardsvc.extensions import db
from tests.support.pages_support import sign_in_session, text_of

CAP = 3


@pytest.fixture()
def small_cap(monkeypatch):
    for module in (listing, appeals, admin_views):
        monkeypatch.setattr(module, "COUNT_CAP", CAP)


@pytest.fixture()
def tickets(make_ticket):
    return [make_ticket(ip=f"198.51.100.{i}") for i in range(1, 6)]


def test_api_counts_and_pages_stop_at_the_cap(client, bearer, tickets, small_cap):
    _, admin = bearer(role="admin")
    body = client.get("/api/admin/tickets?per_page=2", headers=admin).get_json()
    assert body["counts"] == {"pending": CAP, "approved": 0, "rejected": 0}
    assert body["pagination"] == {"page": 1, "per_page": 2, "total": CAP, "pages": 2, "total_capped": True}
    assert [t["ticket_number"] for t in body["data"]] == [t.ticket_number for t in tickets[:-3:-1]]
    second = client.get("/api/admin/tickets?per_page=2&page=2", headers=admin).get_json()
    assert len(second["data"]) == 2
    past_the_cap = client.get("/api/admin/tickets?per_page=2&page=3", headers=admin).get_json()
    assert past_the_cap["data"] == [] and past_the_cap["pagination"]["total_capped"] is True
    # A filter narrower than the cap counts exactly.
    search = client.get(f"/api/admin/tickets?q={tickets[0].ticket_number}", headers=admin).get_json()
    assert search["pagination"]["total"] == 1 and search["pagination"]["total_capped"] is False


def test_queue_page_says_at_least(client, make_user, tickets, small_cap):
    sign_in_session(client, make_user(role="admin"))
    html = text_of(client.get("/admin?per_page=2"))
    assert "<strong>3+</strong> Menunggu" in html
    assert "(3+ entri)" in html


def test_exact_counts_under_the_cap(client, bearer, tickets):
    _, admin = bearer(role="admin")
    body = client.get("/api/admin/tickets", headers=admin).get_json()
    assert body["counts"]["pending"] == 5
    assert body["pagination"]["total"] == 5 and body["pagination"]["total_capped"] is False


def statements_of(app, call):
    seen = []

    def record(*_args):
        seen.append(1)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        call()
    finally:
        event.remove(engine, "before_cursor_execute", record)
    return len(seen)


def test_queue_statements_do_not_grow_with_tickets(app, client, bearer, make_ticket):
    _, admin = bearer(role="admin")
    make_ticket(ip="198.51.100.1")

    def queue():
        assert client.get("/api/admin/tickets", headers=admin).status_code == 200

    queue()  # the token's first use is recorded once
    few = statements_of(app, queue)
    for i in range(2, 40):
        make_ticket(ip=f"198.51.100.{i}")
    assert statements_of(app, queue) == few
