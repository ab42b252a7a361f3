""""Forgot password" for an address with an account vs one without: how far apart the answers are.

The page answers the same words either way; this measures whether its timing
tells the two apart. Each address is asked once (as someone probing would),
alternating known and unknown, in-process (Flask test client, SQLite).
Prints the medians and their difference. Asserts nothing.

Run: .venv/bin/python bench/forgot_timing.py [--rounds 300]
"""
import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

TMP = Path(tempfile.mkdtemp(prefix="guardsvc-bench-"))
os.environ.update({"GUARDSVC_DATABASE_URL": f"sqlite:///{TMP / 'bench.db'}", "GUARDSVC_SECRET_KEY": "bench",
                   "GUARDSVC_RATELIMIT_ENABLED": "false", "GUARDSVC_LOG_LEVEL": "WARNING",
                   "GUARDSVC_TESTING_CHEAP_PASSWORD_HASHES": "true"})

from flask_migrate import upgrade  # noqa: E402

from guardsvc import create_app  # noqa: E402
from guardsvc.accounts import service as accounts  # noqa: E402
from guardsvc.extensions import db  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    app = create_app()
    with app.app_context():
        upgrade()
        for n in range(args.rounds):
            accounts.create_user(f"ada{n}@example.com", "Ada", "kata-sandi-bench-1")
        db.session.commit()
    client = app.test_client()
    page = client.get("/masuk/lupa").get_data(as_text=True)
    token = page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
    timings = {"account": [], "no account": []}
    for n in range(args.rounds):
        for label, email in (("account", f"ada{n}@example.com"), ("no account", f"tidak-ada{n}@example.com")):
            started = time.perf_counter()
            answer = client.post("/masuk/lupa", data={"csrf_token": token, "email": email})
            timings[label].append((time.perf_counter() - started) * 1000)
            assert answer.status_code in (200, 303), answer.status_code
    known, unknown = (statistics.median(timings[label]) for label in ("account", "no account"))
    print(f"median: account {known:.2f} ms, no account {unknown:.2f} ms, difference {known - unknown:+.2f} ms "
          f"({args.rounds} addresses each)")


if __name__ == "__main__":
    main()
