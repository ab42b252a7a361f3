"""Solving self-release challenges in a test, as a browser would (ALTCHA PoW v2, the altcha library's solver)."""
import http.client
import json

import altcha

CHALLENGE = "/api/guard/self-release/challenge"
RELEASE = "/api/guard/self-release"


def solve(challenge):
    """The base64 payload of a solved challenge (``data.challenge`` of the challenge answer)."""
    parsed = altcha.Challenge.from_dict(challenge)
    solution = altcha.solve_challenge(parsed, timeout=30)
    assert solution is not None, "the challenge could not be solved"
    return altcha.Payload(parsed, solution).to_base64()


def challenge_and_solve(get, **kwargs):
    """GET a challenge with ``get`` (a requests/test-client method) and solve it: the payload."""
    answer = get(CHALLENGE, **kwargs)
    assert answer.status_code == 200, answer.text if hasattr(answer, "text") else answer.data
    body = answer.json() if callable(getattr(answer, "json", None)) else answer.json
    return solve(body["data"]["challenge"])


def call(port, method, path, source, device, body=None, forwarded_for=None):
    """(status, JSON body) of one request to the server on ``port`` from address ``source`` naming ``device``
    (and, as a proxy sends it, ``X-Forwarded-For: forwarded_for``)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    headers = {"X-Device-Id": device, **({"X-Forwarded-For": forwarded_for} if forwarded_for else {}),
               **({"Content-Type": "application/json"} if body is not None else {})}
    try:
        connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()
