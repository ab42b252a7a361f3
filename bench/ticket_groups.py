"""A wave of appeals about one block: deciding 1,000 tickets at once, and the desk's group list.

Migrates a fresh database, then:

1. For each way of deciding a group (approve: each client gets its allow entry; approve and lift the
   block; reject), a block on a /16 and 1,000 pending tickets under it (each its own address and
   device, half written in English), decided by one ``POST /api/admin/ticket-groups/<ref>/decide``
   through the Flask test client (the request's deadline applies, as in production). Prints the
   time, the statements it ran, and checks that every ticket was decided and has its e-mail.
   For comparison, 200 tickets of such a wave decided one at a time (as a loop of ``tickets decide``).
2. 10,000 pending tickets in 2,002 groups (one of 1,500, 2,000 of 4, 500 without a block): the
   time of ``GET /api/admin/ticket-groups`` and of the desk (``/admin`` and ``/admin/kelompok``),
   and how many statements each ran (the group list is one, whatever the number of groups).

    .venv/bin/python bench/ticket_groups.py [--database-url postgresql://...] [--runs N]

Default: a temporary SQLite file. With --database-url (PostgreSQL) everything goes into the schema
guardsvc_bench_groups of that database, created for the run and dropped at the end.
"""
import argparse
import statistics
import sys
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from blocks_lookup import scratch_app  # noqa: E402

SCHEMA = "guardsvc_bench_groups"
WAVE = 1_000
LIST_TICKETS = 10_000


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="PostgreSQL URL; default: temporary SQLite file")
    parser.add_argument("--runs", type=int, default=5, help="runs of each list request (median)")
    parser.add_argument("--keep", action="store_true", help="keep the PostgreSQL schema afterwards")
    return parser.parse_args()


@contextmanager
def counted_statements(engine, into):
    """Count the statements ``engine`` runs inside the block into ``into[0]``."""
    from sqlalchemy import event

    def count(*_):
        into[0] += 1

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", count)


def insert_tickets(rows):
    """Pending tickets (dicts of columns) in one executemany."""
    from sqlalchemy import insert

    from guardsvc.appeals.models import UnblockTicket
    from guardsvc.extensions import db

    if rows:
        db.session.execute(insert(UnblockTicket), rows)


def ticket_row(number, ip, device, block_id, created_at):
    return {"ticket_number": f"TKT-{number:08X}", "name": f"Pemohon {number}", "email": f"p{number}@example.com",
            "reason": "Saya memakai jaringan kampus.", "ip_address": ip, "device_id": device, "block_id": block_id,
            "status": "pending", "created_at": created_at, "language": "en" if number % 2 else "id"}


def wave(app, second_octet, first_number):
    """A block on 10.<second_octet>.0.0/16 and WAVE pending tickets under it; the block's reference."""
    from guardsvc.blocks.service import create_block
    from guardsvc.extensions import db
    from guardsvc.storage import clock

    with app.app_context():
        block = create_block(network=f"10.{second_octet}.0.0/16", reason="Daftar komunitas")
        now = clock.utcnow()
        insert_tickets([ticket_row(first_number + i, f"10.{second_octet}.{i >> 8}.{i & 255}",
                                   f"bench-{first_number + i}", block.id, now - timedelta(minutes=WAVE - i))
                        for i in range(WAVE)])
        db.session.commit()
        return block.reference


def decide_waves(app, headers):
    """Decide a wave of WAVE tickets in each of the three ways; print what each took."""
    from sqlalchemy import func, select

    from guardsvc.extensions import db
    from guardsvc.outbox.models import OutboxMessage

    client = app.test_client()
    for index, (label, body) in enumerate((
            ("approve (each client allowed)", {"decision": "approved"}),
            ("approve and lift the block", {"decision": "approved", "lift_block": True}),
            ("reject", {"decision": "rejected", "notes": "Daftar itu benar."}))):
        reference = wave(app, 10 + index, 1_000_000 + index * WAVE)
        with app.app_context():
            mails_before = db.session.scalar(select(func.count()).select_from(OutboxMessage))
            engine = db.engine
        statements = [0]
        with counted_statements(engine, statements):
            started = time.perf_counter()
            response = client.post(f"/api/admin/ticket-groups/{reference}/decide", json=body, headers=headers)
            took = time.perf_counter() - started
        assert response.status_code == 200, (response.status_code, response.get_data(as_text=True)[:500])
        data = response.get_json()["data"]
        assert data["decided"] == WAVE, data["decided"]
        with app.app_context():
            mails = db.session.scalar(select(func.count()).select_from(OutboxMessage)) - mails_before
        assert mails == WAVE, mails
        again = client.post(f"/api/admin/ticket-groups/{reference}/decide", json=body, headers=headers)
        assert again.status_code == 409 and again.get_json()["decided"] == 0
        print(f"  decide {WAVE:,} tickets, {label:30} {took:6.2f} s  {statements[0]:6,} statements  "
              f"{data['allow_entries']:5,} allow entries, {mails:,} e-mails queued")


def one_by_one(app, count=200):
    """For comparison: ``count`` tickets of a wave decided one at a time (``decide_ticket``, one commit each,
    as ``tickets decide`` in a loop would); seconds per ticket."""
    from sqlalchemy import select

    from guardsvc.appeals import groups, service as appeals
    from guardsvc.appeals.models import UnblockTicket
    from guardsvc.blocks.models import Block
    from guardsvc.extensions import db

    reference = wave(app, 20, 3_000_000)
    with app.app_context():
        numbers = db.session.scalars(select(UnblockTicket.ticket_number).join(Block, Block.id == UnblockTicket.block_id)
                                     .where(Block.reference == reference).limit(count)).all()
        db.session.remove()
    started = time.perf_counter()
    for number in numbers:
        with app.app_context():
            appeals.decide_ticket(number, "approve")
            db.session.commit()
    took = (time.perf_counter() - started) / len(numbers)
    with app.app_context():  # the rest of that wave, so the list below holds only its own tickets
        groups.decide_group(reference, "approved")
        db.session.commit()
    return took


def fill_groups(app):
    """LIST_TICKETS pending tickets: one group of 1,500, 2,000 groups of 4, 500 tickets under no block."""
    from sqlalchemy import insert

    from guardsvc.blocks.models import Block
    from guardsvc.extensions import db
    from guardsvc.storage import clock

    with app.app_context():
        now = clock.utcnow()
        db.session.execute(insert(Block), [
            {"reference": f"BLK-{i:08X}", "network": f"172.{16 + (i >> 16)}.{i >> 8 & 255}.{i & 255}/32",
             "reason": "Daftar blokir bench.netset", "created_at": now, "imported_from": "bench.netset"}
            for i in range(2_001)])
        ids = db.session.scalars(db.select(Block.id).where(Block.imported_from == "bench.netset")
                                 .order_by(Block.reference)).all()
        rows, number = [], 2_000_000
        for i in range(1_500):  # the wave
            rows.append(ticket_row(number, f"100.64.{i >> 8}.{i & 255}", f"wave-{number}", ids[0],
                                   now - timedelta(seconds=i)))
            number += 1
        for group in range(2_000):
            for i in range(4):
                rows.append(ticket_row(number, f"100.{65 + (number >> 16 & 31)}.{number >> 8 & 255}.{number & 255}",
                                       f"small-{number}", ids[1 + group], now - timedelta(seconds=group * 4 + i)))
                number += 1
        for i in range(500):
            rows.append(ticket_row(number, f"100.100.{i >> 8}.{i & 255}", f"none-{number}", None,
                                   now - timedelta(seconds=i)))
            number += 1
        assert len(rows) == LIST_TICKETS
        insert_tickets(rows)
        db.session.commit()
        if db.engine.dialect.name == "postgresql":
            with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.exec_driver_sql("VACUUM ANALYZE unblock_tickets")
                conn.exec_driver_sql("VACUUM ANALYZE blocks")
        else:
            with db.engine.begin() as conn:
                conn.exec_driver_sql("ANALYZE")


def time_lists(app, headers, session_user, runs):
    """Median time and statements of the group list (API) and the desk's pages."""
    from guardsvc.extensions import db

    client = app.test_client()
    with client.session_transaction() as session:
        session["_user_id"] = session_user
        session["_fresh"] = True
    with app.app_context():
        engine = db.engine
    for label, path, extra in (("GET /api/admin/ticket-groups", "/api/admin/ticket-groups", headers),
                               ("GET /admin/kelompok", "/admin/kelompok", {}),
                               ("GET /admin (groups, service levels)", "/admin", {})):
        client.get(path, headers=extra)  # warm-up
        samples, statements = [], [0]
        for _ in range(runs):
            statements[0] = 0
            with counted_statements(engine, statements):
                started = time.perf_counter()
                response = client.get(path, headers=extra)
                samples.append(time.perf_counter() - started)
            assert response.status_code == 200, (path, response.status_code)
        if path == "/api/admin/ticket-groups":
            body = response.get_json()
            assert body["pagination"]["total"] == 2_002, body["pagination"]
            first = body["data"][0]
            assert first["pending"] == 1_500 and first["source"] == "import", first
        print(f"  {label:38} {statistics.median(samples) * 1000:7.1f} ms  {statements[0]:3} statements "
              f"(of which session and user loads)")


def time_parts(app, runs):
    """Median time of what the queue page adds: the service levels and the five largest groups."""
    from guardsvc.appeals.groups import list_groups
    from guardsvc.appeals.service_levels import desk_levels
    from guardsvc.extensions import db

    for label, call in (("service levels (oldest, median, by age)", desk_levels),
                        ("the five largest groups", lambda: list_groups(per_page=5))):
        samples = []
        for _ in range(runs + 1):
            with app.app_context():
                started = time.perf_counter()
                call()
                samples.append(time.perf_counter() - started)
                db.session.remove()
        print(f"  {label:38} {statistics.median(samples[1:]) * 1000:7.1f} ms  (in-process)")


def group_list_statements(app):
    """Statements the group list itself runs (the service function, no request around it)."""
    from guardsvc.appeals.groups import list_groups
    from guardsvc.extensions import db

    with app.app_context():
        statements = [0]
        with counted_statements(db.engine, statements):
            page = list_groups()
        db.session.remove()
    return statements[0], page.total


def main():
    args = parse_args()
    with scratch_app(args.database_url, SCHEMA, "groups.db", keep=args.keep) as app:
        measure(app, args.runs)


def measure(app, runs):
    from guardsvc.accounts import service as accounts
    from guardsvc.extensions import db
    from guardsvc.sessions import service as sessions
    from guardsvc.web.identity import Client

    with app.app_context():
        admin = accounts.create_user("bench-admin@example.com", "Admin", "bench-password-123", "admin")
        token, _ = accounts.create_token(admin, "bench", client=None)
        session_user, _ = sessions.start_session(admin, Client("127.0.0.1", None, None, "bench"), second_factor=True)
        db.session.commit()
    headers = {"Authorization": f"Bearer {token}"}
    print(f"{app.config['SQLALCHEMY_DATABASE_URI'].split(':')[0]} "
          f"(request deadline {app.config['REQUEST_DEADLINE_SECONDS']} s):")
    decide_waves(app, headers)
    each = one_by_one(app)
    print(f"  for comparison, one ticket at a time (approve, each committed): {each * 1000:.1f} ms a ticket, "
          f"{each * WAVE:.1f} s for {WAVE:,}")
    fill_groups(app)
    statements, total = group_list_statements(app)
    print(f"  group list with {LIST_TICKETS:,} pending tickets in {total:,} groups: {statements} statement(s)")
    time_lists(app, headers, session_user, runs)
    time_parts(app, runs)


if __name__ == "__main__":
    main()
