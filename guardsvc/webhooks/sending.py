"""One signed POST in the Standard Webhooks format, bounded by one deadline from connect to answer.

Headers ``webhook-id`` (the event's id, the same on every retry),
``webhook-timestamp`` (this attempt, Unix seconds) and ``webhook-signature``
(``v1,`` + base64 HMAC-SHA256 of ``id.timestamp.body`` under the endpoint's
secret), made by the ``standardwebhooks`` package, so a receiver verifies with
``Webhook(secret).verify(body, headers)``. Redirects are not followed; only a
2xx answer counts as delivered. Unless private targets are allowed, the host is
resolved first, every address it has must be public (``webhooks.targets``), and
the connection goes to one of exactly those addresses (the name still in ``Host``
and in TLS, whose certificate is checked against it), so a DNS answer that
changes between the check and the connection cannot send it elsewhere.
"""
import http.client
import socket
import ssl
import threading
from datetime import datetime, timezone
from urllib.parse import urlsplit

from standardwebhooks import Webhook

from guardsvc.webhooks.targets import PrivateTarget, default_port, public_addresses

USER_AGENT = "guardsvc-webhooks/1"
ANSWER_MAX = 300  # bytes of a refusal's body kept in last_error


class DeliveryFailed(Exception):
    """The receiver could not be reached in time, or did not answer 2xx."""


def signed_headers(secret, event_id, body, now):
    """The three Standard Webhooks headers for ``body`` sent at ``now`` (an aware or naive-UTC datetime)."""
    moment = datetime.fromtimestamp(int(now.replace(tzinfo=timezone.utc).timestamp()), timezone.utc)
    return {"webhook-id": event_id, "webhook-timestamp": str(int(moment.timestamp())),
            "webhook-signature": Webhook(secret).sign(event_id, moment, body)}


def _connection(url, timeout, allow_private):
    parts = urlsplit(url)
    if parts.scheme == "https":
        connection = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=timeout,
                                                 context=ssl.create_default_context())
    else:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    if not allow_private:
        port = parts.port or default_port(parts.scheme)
        try:
            addresses = public_addresses(parts.hostname, port)
        except PrivateTarget as refused:
            raise DeliveryFailed(f"refused: {refused}") from None
        except OSError as exc:
            raise DeliveryFailed(f"cannot resolve {parts.hostname}: {exc}") from exc
        # http.client's private hook for opening its socket: test_webhook_targets_live.py's
        # test_the_request_goes_to_the_address_that_was_checked fails when http.client stops calling it.
        connection._create_connection = _pinned(addresses, port)
    return connection


def _pinned(addresses, port):
    """What http.client calls to open its socket: a connection to one of ``addresses`` (checked), in order."""
    def create_connection(_address, timeout, source_address=None):
        failure = None
        for address in addresses:
            try:
                return socket.create_connection((address, port), timeout, source_address)
            except OSError as exc:
                failure = exc
        raise failure
    return create_connection


def _target(url):
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _cut(connection, expired):
    """At the deadline: end the exchange in hand (a blocked read returns at once)."""
    expired.set()
    sock = connection.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def post(url, body, headers, timeout, *, allow_private=False):
    """POST ``body`` (text, sent as UTF-8 JSON) to ``url``; returns the status, or raises DeliveryFailed.

    ``timeout`` bounds the whole exchange: connecting, sending and reading
    the answer together, however slowly a receiver trickles its bytes (the
    name's resolution comes before it). ``allow_private``: skip the check of the addresses.
    """
    connection = _connection(url, timeout, allow_private)
    expired = threading.Event()
    watchdog = threading.Timer(timeout, _cut, (connection, expired))
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.request("POST", _target(url), body=body.encode("utf-8"), headers={
            "Content-Type": "application/json", "User-Agent": USER_AGENT, **headers})
        response = connection.getresponse()
        answer = response.read(ANSWER_MAX)
    except (OSError, http.client.HTTPException) as exc:
        if expired.is_set() or isinstance(exc, TimeoutError):  # the deadline, or a socket timeout just before it
            raise DeliveryFailed(f"no answer within {timeout:g} s") from exc
        raise DeliveryFailed(f"{exc.__class__.__name__}: {exc}") from exc
    finally:
        watchdog.cancel()
        connection.close()
    if not 200 <= response.status < 300:
        detail = answer.decode("utf-8", "replace").strip()
        raise DeliveryFailed(f"HTTP {response.status}" + (f": {detail}" if detail else ""))
    return response.status
