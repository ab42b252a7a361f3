"""A botnet against self-release: many addresses, many devices, proofs solved as fast as this machine can.

One gunicorn (guardsvc's own settings, defaults for self-release: the cost, 200
releases an hour, 7 days a device or address, the per-address rate limit) on a
scratch SQLite database, with a self-releasable block on 127.77.0.0/16. Two
bot processes each take a fresh address of the range (a loopback source address)
and a fresh device id for every try, ask for a challenge, solve it with the
altcha library (OpenSSL's PBKDF2 through hashlib: native speed, no browser
overhead) and send the release, for ``--seconds``. Prints what they got, the
releases an hour that rate gives under the cap, and what the server spent:
CPU per verification (in process, ``proof.check_payload``), per challenge
handed out, and per whole challenge and release request (in process). Asserts nothing.

Run: .venv/bin/python bench/self_release_botnet.py [--seconds 60] [--bots 2]
"""
import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TMP = Path(tempfile.mkdtemp(prefix="guardsvc-bench-"))
os.environ.update({"GUARDSVC_DATABASE_URL": f"sqlite:///{TMP / 'bench.db'}", "GUARDSVC_SECRET_KEY": "bench",
                   "GUARDSVC_LOG_LEVEL": "WARNING",
                   "GUARDSVC_NEVER_BLOCK": "none"})  # the bots are loopback addresses, blocked on purpose
for name in list(os.environ):  # the defaults, whatever the shell says
    if name.startswith(("GUARDSVC_SELF_RELEASE_", "GUARDSVC_RATELIMIT_")):
        del os.environ[name]

import altcha  # noqa: E402
from flask_migrate import upgrade  # noqa: E402

from guardsvc import create_app  # noqa: E402
from guardsvc.blocks.service import create_block  # noqa: E402
from guardsvc.extensions import db  # noqa: E402
from guardsvc.selfrelease import proof  # noqa: E402
from tests.support.live import LiveServer  # noqa: E402
from tests.support.self_release_support import CHALLENGE, RELEASE, call  # noqa: E402



def bot(number, bots, port, seconds, results):
    """Fresh address and device every try; solve at native speed; count the answers."""
    counts, solving, until, n = Counter(), 0.0, time.monotonic() + seconds, 0
    while time.monotonic() < until:
        index = number + n * bots
        n += 1
        source, device = f"127.77.{index // 250 % 250 + 1}.{index % 250 + 1}", f"bot-{number}-{n}"
        status, body = call(port, "GET", CHALLENGE, source, device)
        if status != 200:
            counts[f"challenge {status}"] += 1
            continue
        started = time.monotonic()
        challenge = altcha.Challenge.from_dict(body["data"]["challenge"])
        payload = altcha.Payload(challenge, altcha.solve_challenge(challenge)).to_base64()
        solving += time.monotonic() - started
        status, _ = call(port, "POST", RELEASE, source, device, {"altcha": payload})
        counts[f"release {status}"] += 1
    results.put((counts, solving))


def request_costs(app, rounds=100):
    """(CPU ms per challenge request, CPU ms per release request) in process (Flask test client, SQLite):
    every step of the doors, the database and the audit, for clients each releasing once."""
    client = app.test_client()
    challenge_cpu = release_cpu = 0.0
    for n in range(rounds):
        who = {"headers": {"X-Device-Id": f"inproc-{n}"}, "environ_base": {"REMOTE_ADDR": f"127.77.200.{n + 1}"}}
        started = time.process_time()
        answer = client.get(CHALLENGE, **who)
        challenge_cpu += time.process_time() - started
        parsed = altcha.Challenge.from_dict(answer.get_json()["data"]["challenge"])
        payload = altcha.Payload(parsed, altcha.solve_challenge(parsed)).to_base64()
        started = time.process_time()
        assert client.post(RELEASE, json={"altcha": payload}, **who).status_code == 201
        release_cpu += time.process_time() - started
    return challenge_cpu * 1000 / rounds, release_cpu * 1000 / rounds


def server_costs(app, rounds=2000):
    """(CPU ms per verification, CPU ms per challenge) in process, at the configured cost."""
    with app.test_request_context():
        expires = int(time.time()) + 300
        challenges = [proof.new_challenge("127.77.1.1", "bench-device", ["BLK-00000000"], expires)
                      for _ in range(20)]
        started = time.process_time()
        for _ in range(rounds // 20):
            proof.new_challenge("127.77.1.1", "bench-device", ["BLK-00000000"], expires)
        issue_ms = (time.process_time() - started) * 1000 / (rounds // 20)
        payloads = []
        for issued in challenges:
            parsed = altcha.Challenge.from_dict(issued)
            payloads.append(altcha.Payload(parsed, altcha.solve_challenge(parsed)).to_base64())
        started = time.process_time()
        for n in range(rounds):
            assert proof.check_payload(payloads[n % len(payloads)], "127.77.1.1", "bench-device").problem is None
        verify_ms = (time.process_time() - started) * 1000 / rounds
    return verify_ms, issue_ms


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--bots", type=int, default=2)
    args = parser.parse_args()
    app = create_app()
    with app.app_context():
        upgrade()
        create_block(network="127.77.0.0/16", self_release=True, reason="bench: a community list")
        db.session.commit()
    config = app.config
    verify_ms, issue_ms = server_costs(app)
    server = LiveServer(workers=1)
    try:
        results = multiprocessing.Queue()
        bots = [multiprocessing.Process(target=bot, args=(n, args.bots, server.port, args.seconds, results))
                for n in range(args.bots)]
        for process in bots:
            process.start()
        counts, solving = Counter(), 0.0
        for _ in bots:
            more, spent = results.get()
            counts, solving = counts + more, solving + spent
        for process in bots:
            process.join()
    finally:
        server.stop()
    app.config["RATELIMIT_ENABLED"] = False  # the in-process clients below are many addresses of one test
    challenge_ms, release_ms = request_costs(app)
    released = counts["release 201"]
    tries = sum(value for key, value in counts.items() if key.startswith("release"))
    print(f"defaults: cost {config['SELF_RELEASE_COST']} x ~{proof.ATTEMPTS} attempts, "
          f"{config['SELF_RELEASE_PER_HOUR']} releases/hour, cooldown {config['SELF_RELEASE_COOLDOWN_DAYS']} days, "
          f"rate limit {config['RATELIMIT_SELF_RELEASE']!r} per address")
    print(f"{args.bots} bots, {args.seconds} s, fresh address and device every try: {dict(sorted(counts.items()))}")
    rate = tries / args.seconds * 3600
    print(f"proofs solved: {tries} ({solving / max(tries, 1):.2f} s of one core each); at that pace "
          f"{rate:,.0f} an hour, of which the cap lets through {min(rate, config['SELF_RELEASE_PER_HOUR']):,.0f}")
    print(f"releases got: {released} in {args.seconds} s")
    print(f"server CPU (in process): {verify_ms * 1000:.0f} us a verification, {issue_ms:.2f} ms a challenge made "
          f"(one derivation at the cost); whole requests: {challenge_ms:.2f} ms a challenge, {release_ms:.2f} ms "
          f"a release")


if __name__ == "__main__":
    main()
