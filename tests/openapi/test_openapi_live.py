"""Schemathesis against a live gunicorn: every answer must match the published document.

The server runs with rate limiting on (so the X-RateLimit-* and Retry-After
headers are exercised) and holds seeded tickets, blocks, tokens, trusted IPs,
sign-ins and audit entries, so authorised operations answer 200 with real
bodies, not only 404. Every check schemathesis has runs (``--checks all``), in
three runs with a fixed seed, one per identity: an administrator (a service
token on the host checks, and a third account's token where tokens are revoked,
so the administrator's own token survives the run), a plain user, and no one.
Path parameters often take the seeded values. A fourth run, as the
administrator, with a seed drawn anew each time (printed), asks only whether
every request the document calls valid is taken (positive data acceptance).

Self-release answers success only to a blocked client that solved a proof of
work, which no fuzzer does by construction: the run's server holds two device
blocks that allow it, one device asks for challenges, and for the other the
seeder solves one (as a browser would) and hands the payload to the run.
"""
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from sqlalchemy import select

from guardsvc.accounts.models import ApiToken
from guardsvc.appeals.service import submit_ticket
from guardsvc.extensions import db
from guardsvc.web.identity import Client
from tests.support.blocks_helpers import PROXY_SECRET
from tests.support.factories import PASSWORD, submit_body
from tests.support.live import LiveServer
from tests.support.self_release_support import CHALLENGE, solve

pytestmark = [pytest.mark.live, pytest.mark.one_database]

# Examples per operation: the administrator reaches every operation's own logic; the other two
# identities are mostly refused at the door, so fewer cases tell as much.
MAX_EXAMPLES = {"admin": 10, "user": 4, "anonymous": 3}
# Operations with rules the document says in words only (each with its documented 422): a request of the
# right shape may still be refused with the field error, so positive_data_acceptance expects 422 there too.
# Everything else a request's shape must hold - one of several fields or parameters, an address's grammar,
# a payload's encoding - the document says in JSON Schema, and a refusal of what it admits fails the run.
CONTENT_RULES = {
    "createBlock": "a range without host bits (a pattern saying it runs to 67 kB and stalls generators); an "
                   "expiry in the future (no schema knows now); within GUARDSVC_WIDEST_BLOCK and away from "
                   "GUARDSVC_NEVER_BLOCK (the operator's settings)",
    "createAllowEntry": "a range without host bits; an expiry in the future",
    "decideTicketGroup": "only an approval lifts the block (lift_block with a rejection is refused)",
}
CHALLENGE_DEVICE = "seed-self-release-asks"  # blocked, may release itself: asks for challenges
RELEASE_DEVICE = "seed-self-release-solves"  # blocked, may release itself: releases by a solved proof


@pytest.fixture()
def limited_server(app):
    # Limits on, so their headers and 429 are checked too: submit and sign-in get room for their
    # own answers (201, 401, 422, the cooldown 429); the status check keeps a tight limit.
    server = LiveServer(workers=1, threads=8, env={"GUARDSVC_RATELIMIT_ENABLED": "true",
                                        "GUARDSVC_RATELIMIT_SUBMIT": "1000 per minute",
                                        "GUARDSVC_RATELIMIT_AUTH": "60 per minute",
                                        "GUARDSVC_RATELIMIT_CHECK": "15 per minute",
                                        "GUARDSVC_RATELIMIT_SELF_RELEASE": "1000 per minute"})
    yield server
    server.stop()


class Seeder:
    """Real data for the run, remembered for schemathesis's dictionaries."""

    def __init__(self, app, url, admin_headers, token_owner_email):
        self.app, self.url, self.admin, self.token_owner_email = app, url, admin_headers, token_owner_email
        self.tickets, self.blocks, self.token_ids, self.trusted_ids = [], [], [], []
        self.release_payload = None

    def call(self, method, path, expected, **kwargs):
        response = requests.request(method, self.url + path, timeout=10, **kwargs)
        assert response.status_code == expected, (method, path, response.status_code, response.text)
        return response.json()

    def ticket(self, ip, device):
        # Through the service: the live server sees every request come from 127.0.0.1.
        with self.app.app_context():
            ticket = submit_ticket(Client(ip, device, None, "Seeder/1.0"), **submit_body())
            db.session.commit()
            self.tickets.append(ticket.ticket_number)

    def block(self, **target):
        body = self.call("POST", "/api/admin/blocks", 201, json={**target, "reason": "Uji dokumen API"},
                         headers=self.admin)
        self.blocks.append(body["data"]["reference"])
        return body["data"]["reference"]

    def everything(self):
        for number in (1, 2, 3):
            self.ticket(f"192.0.2.{number}", f"seed-device-{number}")
        self.call("POST", f"/api/guard/unblock-tickets/{self.tickets[0]}/respond", 200,
                  json={"action": "reject", "admin_notes": "Ditolak untuk uji."}, headers=self.admin)
        self.block(ip="203.0.113.0/24")
        for number in (1, 2):  # a group of appeals under that range, for the group decision
            with self.app.app_context():
                submit_ticket(Client(f"203.0.113.{number}", f"seed-wave-{number}", None, "Seeder/1.0"), **submit_body())
                db.session.commit()
        self.block(device_id="seed-blocked-device")
        self.call("POST", f"/api/admin/blocks/{self.block(ip='198.51.100.9')}/lift", 200,
                  json={"reason": "Selesai"}, headers=self.admin)
        spare = self.call("POST", "/api/auth/tokens", 201,
                          json={"email": self.token_owner_email, "password": PASSWORD, "name": "cadangan"})
        self.token_ids.append(spare["data"]["id"])
        trusted = self.call("POST", "/api/security/trusted-ips/save-my-ip", 201, json={"device_name": "Laptop"},
                            headers={**self.admin, "X-Device-Id": "seed-device-1", "X-Local-Ip": "10.0.0.7"})
        self.trusted_ids.append(trusted["data"]["id"])
        self.block(device_id=CHALLENGE_DEVICE, self_release=True)
        self.block(device_id=RELEASE_DEVICE, self_release=True)
        challenge = self.call("GET", CHALLENGE, 200, headers={"X-Device-Id": RELEASE_DEVICE})
        self.release_payload = solve(challenge["data"]["challenge"])


def _toml(value):
    return json.dumps(value)  # JSON strings and lists of strings or numbers are valid TOML


def _operation(operation_id, token=None, values=None, probability=0.5, max_examples=None, device=None,
               secret=None):
    """Settings of some operations: another token or a fixed device; values often drawn from the seeded ones."""
    lines = ["[[operations]]", f"include-operation-id = {_toml(operation_id)}"]
    if operation_id in CONTENT_RULES:
        lines.append('checks = { positive_data_acceptance = { expected-statuses = '
                     '["2xx", "401", "403", "404", "409", "422", "429"] } }')
    if max_examples:
        # Few examples, and no boundary-value sweep (the coverage phase) either.
        lines.append(f"generation = {{ max-examples = {max_examples} }}")
        lines.append("phases = { coverage = { enabled = false } }")
    headers = {**({"Authorization": "Bearer " + token} if token else {}), **({"X-Device-Id": device} if device else {}),
               **({"X-Guardsvc-Secret": secret} if secret else {})}
    if headers:
        lines.append("headers = { " + ", ".join(f"{_toml(name)} = {_toml(value)}" for name, value in headers.items())
                     + " }")
    if values:
        bindings = ", ".join(f'"{where}" = {{ dictionary = {_toml(dictionary)}, probability = {probability} }}'
                             for where, dictionary in values.items())
        lines.append(f"parameters = {{ {bindings} }}")
    return lines


def write_config(path, identity, tokens, seeder):
    """schemathesis.toml of one identity: bounds, credentials, the seeded values to draw parameters from."""
    lines = [
        "[generation]", f"max-examples = {MAX_EXAMPLES[identity]}", "deterministic = true", 'database = "none"',
        # Stateful testing follows the document's own links only: schemathesis's inferred links
        # put integer ids into the X-Device-Id header, which its HTTP client then refuses to send.
        "[phases.stateful.inference]", "algorithms = []",
    ]
    if identity != "admin":
        # Refused at the door mostly: the boundary-value sweep of every parameter tells nothing more.
        lines += ["[phases.coverage]", "enabled = false"]
    if identity != "anonymous":
        lines += ["[auth.openapi.bearerAuth]", f"bearer = {_toml(tokens[identity])}"]
    lines += [
        "[dictionaries.tickets]", f"values = {_toml(seeder.tickets)}",
        "[dictionaries.blocks]", f"values = {_toml(seeder.blocks)}",
        "[dictionaries.tokens]", f"values = {_toml(seeder.token_ids)}",
        "[dictionaries.trusted]", f"values = {_toml(seeder.trusted_ids)}",
        "[dictionaries.emails]", f"values = {_toml([seeder.token_owner_email])}",
        "[dictionaries.passwords]", f"values = {_toml([PASSWORD])}",
        "[dictionaries.proofs]", f"values = {_toml([seeder.release_payload])}",
        "[parameters]",
        '"path.ticketNumber" = { dictionary = "tickets", probability = 0.5 }',
        '"path.reference" = { dictionary = "blocks", probability = 0.5 }',
    ]
    operations = {
        **{operation_id: {} for operation_id in CONTENT_RULES},
        "revokeTrustedIp": {"values": {"path.id": "trusted"}},
        # Every well-formed sign-in costs a memory-hard password hash: few cases, mostly real credentials.
        "createToken": {"values": {"body.email": "emails", "body.password": "passwords"}, "probability": 0.9,
                        "max_examples": 4},
        # Forward auth answers its proxy: the proxy's secret, so its 204, 403 and 400 are exercised too.
        "forwardAuth": {"secret": PROXY_SECRET},
        "getSelfReleaseChallenge": {"device": CHALLENGE_DEVICE},
        # A release puts the address in its cooldown (every challenge is 429 after it), so the first
        # run asks for challenges and the second uses the solved proof, before the administrator's
        # run can change the client's blocks. The blocked client's token, if any, plays no part.
        "selfRelease": {"device": RELEASE_DEVICE, "probability": 0.9,
                        "values": {"body.altcha": "proofs"} if identity == "user" else None},
    }
    if identity == "admin":
        operations["checkTrustedIp"] = {"token": tokens["service"]}
        operations["checkBlock"] = {"token": tokens["service"]}
        operations["revokeToken"] = {"token": tokens["owner"], "values": {"path.id": "tokens"}}
    for operation_id, settings in operations.items():
        lines += _operation(operation_id, **settings)
    path.write_text("\n".join(lines) + "\n")


def failures_of(stdout):
    """Schemathesis's failure report and summary, readable in a test failure."""
    start = stdout.find("FAILURES")
    return stdout[start:] if start >= 0 else stdout[-8000:]


# The three runs are reproducible: the same seed draws the same requests, so a submission's CI does not
# pass or fail by chance. A fourth run explores: it asks only whether what the document calls valid is
# taken (positive_data_acceptance), as the administrator, with a seed drawn anew each time and printed;
# GUARDSVC_FUZZ_SEED=N replays it. What it finds becomes a fixed test (as in test_bad_input_live.py).
FIXED_SEED = "20261127"
EXPLORING_SEED = os.environ.get("GUARDSVC_FUZZ_SEED", "").replace("random", "") or str(
    random.SystemRandom().randrange(2 ** 31))


def run_schemathesis(url, config, workdir, name, *, seed=FIXED_SEED, options=("--checks", "all")):
    """Run the CLI; fail with its own failure report (and the seed); return its output and exchanges (HAR)."""
    har = workdir / f"{name}.har"
    command = [str(Path(sys.executable).with_name("schemathesis")), "--config-file", str(config), "--no-color",
               "run", f"{url}/api/openapi.json", *options, "--request-timeout", "10",
               "--report", "har", "--report-har-path", str(har), "--seed", seed]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=workdir)
    (workdir / f"{name}.txt").write_text(result.stdout + result.stderr)
    assert result.returncode == 0, (f"{name}, seed {seed} (GUARDSVC_FUZZ_SEED={seed} replays an exploring run): "
                                    + failures_of(result.stdout) + result.stderr[-2000:])
    return result.stdout, json.loads(har.read_text())["log"]["entries"]


def statuses_per_operation(document, exchanges):
    """``{"GET /path/{x}": {statuses seen}}`` for every documented operation."""
    seen = {}
    matchers = []
    for path, item in document["paths"].items():
        pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$")
        for method in item:
            seen[f"{method.upper()} {path}"] = set()
            matchers.append((method.upper(), pattern, f"{method.upper()} {path}"))
    for exchange in exchanges:
        method, path = exchange["request"]["method"], urlsplit(exchange["request"]["url"]).path
        for wanted, pattern, label in matchers:
            if method == wanted and pattern.match(path):
                seen[label].add(exchange["response"]["status"])
    return seen


def roles_of(operation):
    """The roles an operation admits (its description says so), or None when anyone may call it."""
    if not operation.get("security"):
        return None
    found = re.search(r"Peran yang diizinkan: ([a-z, ]+)\.", operation.get("description", ""))
    return set(found.group(1).split(", ")) if found else None


def test_live_answers_conform_to_the_document(app, limited_server, bearer, tmp_path):
    users = {role: bearer(role) for role in ("admin", "service", "user")}
    owner, owner_headers = bearer("user")
    users["owner"] = (owner, owner_headers)
    tokens = {name: headers["Authorization"].split()[1] for name, (_, headers) in users.items()}
    seeder = Seeder(app, limited_server.url, users["admin"][1], owner.email)
    seeder.everything()

    runs = {}
    for identity in ("anonymous", "user", "admin"):
        config = tmp_path / f"{identity}.toml"
        write_config(config, identity, tokens, seeder)
        runs[identity] = run_schemathesis(limited_server.url, config, tmp_path, identity)
    print(f"exploring seed {EXPLORING_SEED} (GUARDSVC_FUZZ_SEED={EXPLORING_SEED} replays it)")
    run_schemathesis(limited_server.url, tmp_path / "admin.toml", tmp_path, "exploring", seed=EXPLORING_SEED,
                     options=("--checks", "positive_data_acceptance", "--mode", "positive", "--phases", "fuzzing"))

    document = requests.get(limited_server.url + "/api/openapi.json", timeout=10).json()
    operations = {f"{method.upper()} {path}": operation for path, item in document["paths"].items()
                  for method, operation in item.items()}
    seen = {identity: statuses_per_operation(document, exchanges) for identity, (_, exchanges) in runs.items()}
    for statuses in seen.values():
        # The schema's own address is where schemathesis reads it, never a test case.
        del statuses["GET /api/openapi.json"]
    # The runs reached every operation's own logic (a success answer each).
    unreached = {label: sorted(set().union(*(statuses[label] for statuses in seen.values())))
                 for label in seen["admin"]
                 if not any(200 <= status < 300 for statuses in seen.values() for status in statuses[label])}
    assert not unreached, f"operations never answered with success: {unreached}"
    # The self-release success came from the one solved proof, as the seeder intended.
    assert 201 in seen["user"]["POST /api/guard/self-release"]
    assert 200 in seen["anonymous"]["GET /api/guard/self-release/challenge"]
    # No one and a plain user were refused wherever their role is not admitted, and answered where it is.
    for identity, role in (("anonymous", None), ("user", "user")):
        let_in = {label for label, statuses in seen[identity].items()
                  if any(200 <= status < 300 for status in statuses)}
        wrongly = {label for label in let_in
                   if roles_of(operations[label]) is not None and role not in roles_of(operations[label])}
        assert not wrongly, f"{identity} was answered with success by: {sorted(wrongly)}"
        assert let_in, f"{identity} was never answered with success"
    with app.app_context():
        used = {token.user_id for token in db.session.scalars(select(ApiToken)) if token.last_used_at}
    assert {user.id for user, _ in users.values()} <= used, runs["admin"][0][-3000:]
