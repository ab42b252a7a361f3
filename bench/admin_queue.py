"""How long do the administrator's ticket queue and its counts take with a million tickets?

Migrates a fresh database, bulk-inserts 1,000,000 tickets (0.5 % pending, the
rest decided, opened over the last year), then times in-process, median of
several runs after a warm-up: the first page of the queue, the pending filter,
the counts per status, the 14-day chart, and the whole /admin page and
/api/admin/tickets answer through the Flask test client. Prints the figures.

    .venv/bin/python bench/admin_queue.py [--database-url postgresql://...] [--tickets N]

Default: a temporary SQLite file. With --database-url (PostgreSQL) the tickets
go into the schema guardsvc_bench_queue of that database, created for the run
and dropped at the end.
"""
import argparse
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from blocks_lookup import scratch_app  # noqa: E402

SCHEMA = "guardsvc_bench_queue"
COLUMNS = ("ticket_number", "name", "email", "phone", "reason", "ip_address", "device_id",
           "status", "created_at")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="PostgreSQL URL; default: temporary SQLite file")
    parser.add_argument("--tickets", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="keep the PostgreSQL schema afterwards")
    return parser.parse_args()


def ticket_rows(total, now):
    """Tuples in COLUMNS order; every 200th ticket is pending (each pending one on its own IP)."""
    span = timedelta(days=365).total_seconds()
    for i in range(total):
        status = "pending" if i % 200 == 0 else ("approved" if i % 3 else "rejected")
        yield (f"TKT-{i:08X}", f"Pemohon {i}", f"p{i}@example.com", None, "bench",
               f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}", None, status,
               now - timedelta(seconds=span * (total - i) / total))


def fill(app, total):
    from guardsvc.storage import clock
    from guardsvc.extensions import db

    rows = ticket_rows(total, clock.utcnow())
    with app.app_context():
        if db.engine.dialect.name == "postgresql":
            raw = db.engine.raw_connection()
            try:
                with raw.driver_connection.cursor() as cursor, cursor.copy(
                        f"COPY unblock_tickets ({', '.join(COLUMNS)}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
                raw.commit()
                # What autovacuum does soon after a bulk load: statistics, and the visibility
                # map that lets counts read the index alone.
                raw.driver_connection.autocommit = True
                raw.driver_connection.execute("VACUUM ANALYZE unblock_tickets")
                raw.driver_connection.autocommit = False
            finally:
                raw.close()
            return
        raw = db.engine.raw_connection()
        try:
            placeholders = ", ".join("?" for _ in COLUMNS)
            raw.driver_connection.executemany(
                f"INSERT INTO unblock_tickets ({', '.join(COLUMNS)}) VALUES ({placeholders})",
                (row[:-1] + (row[-1].isoformat(sep=" "),) for row in rows))
            raw.commit()
            raw.driver_connection.execute("ANALYZE")
            raw.commit()
        finally:
            raw.close()


def timed(call, runs):
    call()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def measure(app, runs):
    from guardsvc.accounts import service as accounts
    from guardsvc.appeals import service as appeals
    from guardsvc.extensions import db

    from guardsvc.sessions import service as sessions
    from guardsvc.web.identity import Client

    with app.app_context():
        admin = accounts.create_user("bench-admin@example.com", "Admin", "bench-password-123", "admin")
        token, _ = accounts.create_token(admin, "bench", client=None)
        user_key, _ = sessions.start_session(admin, Client("127.0.0.1", None, None, "bench"), second_factor=True)
        db.session.commit()

    def in_context(call):
        def run():
            with app.app_context():
                call()
                db.session.remove()
        return run

    client = app.test_client()
    with client.session_transaction() as session:
        session["_user_id"] = user_key
        session["_fresh"] = True

    def get(path, **kwargs):
        def run():
            response = client.get(path, **kwargs)
            assert response.status_code == 200, (path, response.status_code)
        return run

    return {
        "first page": timed(in_context(appeals.search_tickets), runs),
        "pending filter": timed(in_context(lambda: appeals.search_tickets(status="pending")), runs),
        "counts per status": timed(in_context(appeals.count_by_status), runs),
        "14-day chart": timed(in_context(lambda: appeals.tickets_per_day(14)), runs),
        "GET /admin": timed(get("/admin"), runs),
        "GET /admin?status=pending": timed(get("/admin?status=pending"), runs),
        "GET /api/admin/tickets": timed(get("/api/admin/tickets",
                                            headers={"Authorization": f"Bearer {token}"}), runs),
    }


def main():
    args = parse_args()
    with scratch_app(args.database_url, SCHEMA, "queue.db", keep=args.keep) as app:
        started = time.perf_counter()
        fill(app, args.tickets)
        print(f"{app.config['SQLALCHEMY_DATABASE_URI'].split(':')[0]}: {args.tickets:,} tickets inserted "
              f"in {time.perf_counter() - started:.0f} s")
        for name, millis in measure(app, args.runs).items():
            print(f"  {name:28} {millis:8.1f} ms")


if __name__ == "__main__":
    main()
