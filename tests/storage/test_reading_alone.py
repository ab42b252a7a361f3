"""A request that only reads, without a session: its pooled connection, and what it is given back as."""
import pytest
from sqlalchemy import event

from guardsvc.extensions import db
from tests.conftest import TEST_DATABASE_URL

needs_postgres = pytest.mark.skipif(not TEST_DATABASE_URL.startswith("postgres"),
                                    reason="reads in autocommit on PostgreSQL only")


@needs_postgres
def test_a_status_check_reads_in_autocommit_and_gives_the_connection_back_as_the_pool_hands_it_out(
        app, client, make_ticket):
    from psycopg.pq import TransactionStatus

    ticket = make_ticket()
    with app.app_context():
        engine = db.engine
    returned = []

    def on_reset(dbapi_connection, *_):
        returned.append((dbapi_connection.info.transaction_status, dbapi_connection.autocommit))

    event.listen(engine.pool, "reset", on_reset)
    try:
        answer = client.get(f"/api/guard/unblock-tickets/check/{ticket.ticket_number.lower()}")
    finally:
        event.remove(engine.pool, "reset", on_reset)
    assert answer.status_code == 200
    assert answer.get_json()["data"]["ticket_number"] == ticket.ticket_number
    assert answer.get_json()["data"]["status"] == "pending"
    # No transaction was begun for the read (nothing for the pool to roll back), and the
    # connection goes back beginning transactions as every other holder expects.
    assert returned == [(TransactionStatus.IDLE, False)]
    with app.app_context():
        fairy = engine.raw_connection()
        try:
            assert fairy.driver_connection.autocommit is False
        finally:
            fairy.close()


def test_a_status_check_answers_the_same_after_the_ticket_changes(app, client, make_ticket):
    """Each read sees what is committed when it runs: a decision is seen by the next check."""
    from guardsvc.appeals.models import UnblockTicket
    from guardsvc.storage import clock

    ticket = make_ticket()
    path = f"/api/guard/unblock-tickets/check/{ticket.ticket_number}"
    assert client.get(path).get_json()["data"]["status"] == "pending"
    with app.app_context():
        db.session.get(UnblockTicket, ticket.id).status = "rejected"
        db.session.get(UnblockTicket, ticket.id).resolved_at = clock.utcnow()
        db.session.commit()
    assert client.get(path).get_json()["data"]["status"] == "rejected"
    assert client.get("/api/guard/unblock-tickets/check/TKT-00000000").status_code == 404
