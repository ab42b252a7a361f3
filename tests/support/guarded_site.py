"""A guarded site as operators build it: nginx from deploy/nginx in front of a small application and a
live guardsvc, each a child process of the test."""
import http.client
import subprocess
import sys
import textwrap
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from tests.support.live import LiveServer, free_port, wait_for_port
from tests.support.nginx_support import NGINX, missing, nginx_conf

# The guarded application: "upstream ok" for every GET; started with a second argument "echo", the
# headers it was sent as JSON, so a test sees what reached it.
UPSTREAM = textwrap.dedent("""
    import json, sys
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Application(BaseHTTPRequestHandler):
        def do_GET(self):
            if sys.argv[2:] == ["echo"]:
                body, kind = json.dumps({"app": True, "headers": dict(self.headers)}).encode(), "application/json"
            else:
                body, kind = b"upstream ok", "text/plain"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Application).serve_forever()
""")


def fetch(port, path, source="127.0.0.1", headers=None, method="GET", body=None):
    """A request to the proxy on ``port`` from the loopback source address ``source``: (status, headers, text)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15, source_address=(source, 0))
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, response.read().decode("utf-8")
    finally:
        connection.close()


@contextmanager
def guarded_site(prefix, secret, guardsvc_env=None, workers=0):
    """nginx (``port``) with ``workers`` worker processes (0: one, no master) under ``prefix``, given
    ``secret`` for @SECRET@, and guardsvc (``guardsvc``: two workers behind one proxy, plus
    ``guardsvc_env``); the test is skipped where nginx with Lua cannot run."""
    if missing():
        pytest.skip(missing())
    app_port, port = free_port(), free_port()
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM, str(app_port)])
    guardsvc = LiveServer(workers=2, env={"GUARDSVC_PROXY_COUNT": "1", **(guardsvc_env or {})})
    (prefix / "nginx.conf").write_text(nginx_conf(prefix, port=port, guardsvc=f"127.0.0.1:{guardsvc.port}",
                                                  app=f"127.0.0.1:{app_port}", secret=secret, workers=workers))
    nginx = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf")])
    try:
        wait_for_port(app_port, upstream, "upstream")
        wait_for_port(port, nginx, "nginx")
        yield SimpleNamespace(port=port, guardsvc=guardsvc)
    finally:
        for process in (nginx, upstream):
            process.terminate()
            process.wait(timeout=10)
        guardsvc.stop()
