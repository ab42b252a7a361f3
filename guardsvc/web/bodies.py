"""Request bodies are read whole, within a time and a size, before the application sees them.

The WSGI server hands a body over as a stream: a chunked body has no length
to refuse up front, and Werkzeug cuts such a stream at ``MAX_CONTENT_LENGTH``
without a word (the first 64 KiB would be parsed as if they were all); a body
shorter than its Content-Length would hold a worker's thread until the client
gives up. So every body is read here first, at most one byte past the limit,
each read bounded by what is left of ``BODY_TIMEOUT_SECONDS``:

- more than the limit (chunked, or a Content-Length over it, which is not read at all): 413;
- not all there in time, or the client went away: 408;
- otherwise the application reads the same bytes from memory, with their length.

Either refusal is answered before any other hook runs, whatever the route:
nothing of the body is parsed or stored. The request's own deadline
(guardsvc.storage.deadline) starts only once the body is in, so a slow upload
does not eat the time its database work may take.

A refused body was not read whole, so its connection ends with the answer
(``Connection: close``). Kept alive, the server would have to read the rest of
the body before the next request on it (gunicorn does so in a worker thread):
clients declaring big bodies and sending them a byte at a time would hold every
thread and stop the service. The answer tells the server to close (gunicorn's
``force_close``, reached through the ``start_response`` it handed in, after which
gunicorn says ``Connection: close`` itself: it drops that header from an
application; the header for any other server), and once it is written the
socket stops reading and is reset when closed, so neither a drain nor a
lingering close (gunicorn's, on the worker's main thread) waits on the client.
"""
import io
import socket
import struct
import time

from flask import request
from werkzeug.exceptions import RequestEntityTooLarge, RequestTimeout

_PROBLEM = "guardsvc.body_problem"
_PIECE = 16 * 1024


class ReadWholeBodies:
    """WSGI middleware: the body read up front (see the module's docstring)."""

    def __init__(self, wsgi_app, limit, seconds):
        self.wsgi_app, self.limit, self.seconds = wsgi_app, limit, seconds

    def __call__(self, environ, start_response):
        length = _declared_length(environ)
        chunked = "HTTP_TRANSFER_ENCODING" in environ and length is None
        if length is not None and length > self.limit:
            environ[_PROBLEM] = RequestEntityTooLarge
            body = b""
        elif chunked or length:
            wanted = self.limit + 1 if chunked else length
            body = _read(environ, wanted, self.seconds)
            if body is None or (not chunked and len(body) < length):
                environ[_PROBLEM] = RequestTimeout
                body = b""
            elif len(body) > self.limit:
                environ[_PROBLEM] = RequestEntityTooLarge
                body = b""
        else:
            return self.wsgi_app(environ, start_response)
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        if _PROBLEM not in environ:
            return self.wsgi_app(environ, start_response)
        return _closing(self.wsgi_app(environ, _closing_start(start_response)), environ.get("gunicorn.socket"))


def _declared_length(environ):
    try:
        return max(int(environ.get("CONTENT_LENGTH") or ""), 0)
    except ValueError:
        return None


def _read(environ, wanted, seconds):
    """Up to ``wanted`` bytes, or None when they stop coming within ``seconds``."""
    stream = environ["wsgi.input"]
    sock = environ.get("gunicorn.socket")
    before = sock.gettimeout() if sock is not None else None
    deadline = time.monotonic() + seconds
    pieces, got = [], 0
    try:
        while got < wanted:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if sock is not None:
                sock.settimeout(left)
            piece = stream.read(min(_PIECE, wanted - got))
            if not piece:
                break
            pieces.append(piece)
            got += len(piece)
    except OSError:  # a timeout, a reset, or the server's "no more data" (gunicorn's NoMoreData)
        return None
    finally:
        if sock is not None:
            try:
                sock.settimeout(before)
            except OSError:
                pass
    return b"".join(pieces)


def _closing_start(start_response):
    """``start_response`` for an answer after which the connection ends."""
    server_response = getattr(start_response, "__self__", None)
    force_close = getattr(server_response, "force_close", None)

    def start(status, headers, exc_info=None):
        if callable(force_close):  # gunicorn: it says "Connection: close" and reads no further request
            force_close()
        else:
            headers = [*(header for header in headers if header[0].lower() != "connection"), ("Connection", "close")]
        return start_response(status, headers, exc_info)
    return start


def _closing(answer, sock):
    """``answer``, after which ``sock`` reads nothing more (the rest of the body is never waited for)."""
    try:
        yield from answer
    finally:
        close = getattr(answer, "close", None)
        if close is not None:
            close()
        if sock is not None:
            _stop_reading(sock)


def _stop_reading(sock):
    """Read nothing more on ``sock``, and let its closing reset the connection rather than wait for the client.

    Closed the usual way, a connection whose client is still sending lingers
    until the client stops (gunicorn 27 reads on, for up to two
    seconds, on the worker's main thread) or stalls the client on a closed
    window; reset, it ends at once. What was
    already sent (the answer) still reaches the client: clients that read the
    answer when their sending fails (browsers, curl, urllib3) show it.
    """
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RD)
    except OSError:  # the client has gone already
        pass


def refuse_unread_body():
    """before_request (first of all): answer the refusal ``ReadWholeBodies`` noted."""
    problem = request.environ.get(_PROBLEM)
    if problem is not None:
        raise problem()


def read_whole_bodies(app):
    """Install the middleware and its hook on ``app``."""
    app.wsgi_app = ReadWholeBodies(app.wsgi_app, app.config["MAX_CONTENT_LENGTH"], app.config["BODY_TIMEOUT_SECONDS"])
    app.before_request_funcs.setdefault(None, []).insert(0, refuse_unread_body)
