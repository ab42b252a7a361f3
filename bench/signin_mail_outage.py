"""Sign-in latency with a new-device alert, mail server up vs. down (prints figures, asserts nothing).

The alert is only a row in the outbox, so an unreachable SMTP server must not
change how long a sign-in takes. Run: .venv/bin/python bench/signin_mail_outage.py
"""
import os
import statistics
import tempfile
import time
from pathlib import Path

TMP = Path(tempfile.mkdtemp(prefix="guardsvc-bench-"))
os.environ.update({"GUARDSVC_DATABASE_URL": f"sqlite:///{TMP / 'bench.db'}",
                   "GUARDSVC_SECRET_KEY": "bench", "GUARDSVC_RATELIMIT_ENABLED": "false",
                   "GUARDSVC_LOG_LEVEL": "WARNING"})

from flask_migrate import upgrade  # noqa: E402

from guardsvc import create_app  # noqa: E402
from guardsvc.accounts import service as accounts  # noqa: E402
from guardsvc.extensions import db  # noqa: E402

ROUNDS = 30


def run(app, label, email):
    client = app.test_client()
    timings = []
    for n in range(ROUNDS):
        start = time.perf_counter()
        response = client.post("/api/auth/tokens", json={"email": email, "password": "kata-sandi-bench-1"},
                               headers={"X-Device-Id": f"{label}-{n}"})  # a new device every time
        timings.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 201, response.get_json()
    print(f"{label:>22}: median {statistics.median(timings):7.1f} ms, max {max(timings):7.1f} ms "
          f"({ROUNDS} sign-ins, each queuing an alert)")


def main():
    app = create_app()
    with app.app_context():
        upgrade()
        for email in ("up@example.com", "down@example.com"):
            accounts.create_user(email, "Bench", "kata-sandi-bench-1")
        db.session.commit()
    app.config.update(MAIL_SERVER=None)
    run(app, "no-mail-server", "up@example.com")
    # 192.0.2.1 (TEST-NET-1) never answers: sending from the request would hang until the timeout.
    app.config.update(MAIL_SERVER="192.0.2.1", MAIL_PORT=25, MAIL_TIMEOUT_SECONDS=15)
    run(app, "unreachable-smtp", "down@example.com")


if __name__ == "__main__":
    main()
