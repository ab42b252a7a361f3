"""A real nginx in front of a tiny application, guarded by a live guardsvc through forward auth.

Clients are told apart by their loopback source address (127.0.0.x), which
is what nginx forwards; the configuration is deploy/nginx/guardsvc.conf.
"""
import re
import shutil
import subprocess
import sys
import time
from urllib.parse import urlencode

import pytest

from tests.support.guarded_site import UPSTREAM, fetch, guarded_site
from tests.support.nginx_support import NGINX, missing, nginx_conf
from tests.support.live import free_port, wait_for_port as _wait_for_port

pytestmark = [pytest.mark.proxy, pytest.mark.database_agnostic]
SECRET = "nginx-test-secret-0123456789abcdefghij"
FREE, BLOCKED, IN_RANGE, ALLOWED = "127.0.0.2", "127.0.0.3", "127.0.9.4", "127.0.9.5"



def _nginx_conf(prefix, port, guardsvc_port, app_port, **options):
    return nginx_conf(prefix, port=port, guardsvc=f"127.0.0.1:{guardsvc_port}", app=f"127.0.0.1:{app_port}",
                      secret=SECRET, **options)


@pytest.fixture(scope="module")
def stack(app, tmp_path_factory):
    """nginx (port), the upstream application and guardsvc, each a child process of the test."""
    prefix = tmp_path_factory.mktemp("nginx")
    with guarded_site(prefix, SECRET, {"GUARDSVC_FORWARD_AUTH_SECRET": SECRET}) as site:
        yield {"port": site.port, "guardsvc": site.guardsvc, "access_log": prefix / "access.log",
               "error_log": prefix / "error.log"}
    shutil.rmtree(prefix, ignore_errors=True)


def post(port, path, source, form, headers=None):
    """POST a form through nginx from ``source``: (status, headers, text)."""
    return fetch(port, path, source, {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})},
                 method="POST", body=urlencode(form))


def test_an_unblocked_client_reaches_the_application_and_gets_a_device_id(stack):
    status, headers, body = fetch(stack["port"], "/", FREE)
    assert (status, body) == (200, "upstream ok")
    assert headers["Set-Cookie"].startswith("guardsvc_device=")


@pytest.mark.parametrize("target,source", [
    ({"network": BLOCKED}, BLOCKED),
    ({"network": "127.0.9.0/24"}, IN_RANGE),
])
def test_ip_and_range_blocks_get_the_block_page(stack, make_block, target, source):
    reference = make_block(**target)
    status, _, body = fetch(stack["port"], "/halaman/apa-saja", source)
    assert status == 403
    assert "Akses Anda diblokir" in body and reference in body and source in body
    # The appeal link carries the page the visitor wanted: "back to it" once approved.
    assert f'href="/guardsvc/banding?ref={reference}&amp;kembali=/halaman/apa-saja"' in body
    assert fetch(stack["port"], "/", FREE)[0] == 200


def logged(stack, text):
    """The access log once it holds ``text`` (nginx writes a line just after the answer has gone)."""
    return eventually(lambda: text in (log := stack["access_log"].read_text()) and log) or ""


def judged_where(stack, path):
    """How nginx judged the last request for ``path``: "edge" (its copy of the list) or "asked"."""
    lines = [line for line in logged(stack, f'"GET {path} ').splitlines() if f'"GET {path} ' in line]
    return lines[-1].rsplit(" ", 1)[1]


def eventually(check, within=5.0):
    """The first true value of ``check()`` within ``within`` seconds (nginx pulls the list every second)."""
    deadline = time.monotonic() + within
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def test_a_returning_visitor_passes_on_the_edge_until_its_device_is_blocked(stack, make_block):
    cookie = fetch(stack["port"], "/pertama", FREE)[1]["Set-Cookie"].split(";", 1)[0]
    assert judged_where(stack, "/pertama") == "asked"  # a new browser: forward auth gave the cookie
    assert fetch(stack["port"], "/kembali", FREE, {"Cookie": cookie})[:3:2] == (200, "upstream ok")
    assert judged_where(stack, "/kembali") == "edge"
    reference = make_block(device_id=cookie.split("=", 1)[1])
    blocked = eventually(lambda: (answer := fetch(stack["port"], "/kembali", FREE, {"Cookie": cookie}))[0] == 403
                         and answer)
    assert blocked and reference in blocked[2]
    assert fetch(stack["port"], "/", FREE)[0] == 200  # the same IP with another device


def test_an_allow_entry_lets_its_client_through_a_blocked_range(stack, make_block, app):
    from guardsvc.blocks.allows import add_allow_entry
    from guardsvc.extensions import db

    make_block(network="127.0.9.0/24")
    with app.app_context():
        add_allow_entry(network=ALLOWED, reason="Mitra")
        db.session.commit()
    assert fetch(stack["port"], "/", ALLOWED)[:3:2] == (200, "upstream ok")
    assert fetch(stack["port"], "/", IN_RANGE)[0] == 403


def test_the_block_page_at_the_guarded_address_reads_in_the_visitors_language(stack, make_block):
    make_block(network=BLOCKED)
    status, _, body = fetch(stack["port"], "/halaman/apa-saja", BLOCKED, {"Accept-Language": "en"})
    assert status == 403 and '<html lang="en">' in body and "Your access is blocked" in body
    # The switch on guardsvc's pages (under /guardsvc/) keeps a choice the guarded pages see too.
    _, headers, page = fetch(stack["port"], "/guardsvc/banding", BLOCKED)
    token = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
    cookies = "; ".join(cookie.split(";", 1)[0] for cookie in headers.get_all("Set-Cookie"))
    status, headers, _ = post(stack["port"], "/guardsvc/bahasa", BLOCKED, {"csrf_token": token, "lang": "en"},
                              {"Cookie": cookies})
    assert status == 303
    [language] = [cookie for cookie in headers.get_all("Set-Cookie") if cookie.startswith("guardsvc_lang=")]
    assert "Path=/;" in language
    status, _, body = fetch(stack["port"], "/halaman/lain", BLOCKED,
                            {"Accept-Language": "id", "Cookie": language.split(";", 1)[0]})
    assert status == 403 and "Your access is blocked" in body


def test_appeal_pages_stay_reachable_for_a_blocked_client(stack, make_block):
    reference = make_block(network=BLOCKED)
    status, _, body = fetch(stack["port"], f"/guardsvc/banding?ref={reference}", BLOCKED)
    assert status == 200 and reference in body
    assert fetch(stack["port"], "/guardsvc/banding/cek", BLOCKED)[0] == 200
    assert fetch(stack["port"], "/guardsvc/static/css/site.css", BLOCKED)[0] == 200


def test_lifting_a_block_lets_the_client_through_at_once(stack, make_block, app):
    from guardsvc.blocks.service import lift_block
    from guardsvc.extensions import db

    reference = make_block(network=BLOCKED)
    assert fetch(stack["port"], "/", BLOCKED)[0] == 403
    with app.app_context():
        lift_block(reference)
        db.session.commit()
    assert fetch(stack["port"], "/", BLOCKED)[:3:2] == (200, "upstream ok")


def test_a_forged_forwarded_for_unblocks_nobody(stack, make_block):
    make_block(network=BLOCKED)
    forged = {"X-Forwarded-For": FREE}
    assert fetch(stack["port"], "/", BLOCKED, forged)[0] == 403
    # Skipping nginx: the forward-auth endpoint wants the proxy's secret.
    guardsvc = stack["guardsvc"]
    status = fetch(guardsvc.port, "/api/guard/forward-auth", BLOCKED, forged)[0]
    assert status == 401



def test_one_time_links_reach_guardsvc_but_never_the_access_log(stack):
    secret = "rahasia-tautan-sekali-pakai-0123456789abcdef"
    for path in (f"/guardsvc/banding/tiket/{secret}", f"/guardsvc/masuk/atur-ulang/{secret}"):
        status, _, text = fetch(stack["port"], path, "127.0.0.1")
        assert status == 404 and 'href="/guardsvc/banding' in text  # guardsvc answered: an unknown link
    assert fetch(stack["port"], "/guardsvc/banding", "127.0.0.1")[0] == 200
    log = logged(stack, "GET /guardsvc/banding ")
    assert "GET /guardsvc/banding " in log and secret not in log


@pytest.mark.parametrize("fail_open, expected", [(0, 503), (1, 200)], ids=["fail closed", "fail open"])
def test_the_switch_decides_what_visitors_get_while_guardsvc_is_unreachable(tmp_path, fail_open, expected):
    if missing():
        pytest.skip(missing())
    app_port, port, nobody_there = free_port(), free_port(), free_port()
    # The shipped default is closed (site_changes asserts the line is there).
    (tmp_path / "nginx.conf").write_text(_nginx_conf(tmp_path, port, nobody_there, app_port, site_changes=[
        ("set $guardsvc_fail_open 0;", f"set $guardsvc_fail_open {fail_open};")]))
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM, str(app_port)])
    nginx = subprocess.Popen([NGINX, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")])
    try:
        _wait_for_port(app_port, upstream, "upstream")
        _wait_for_port(port, nginx, "nginx")
        status, _, text = fetch(port, "/halaman", "127.0.0.1")
        assert status == expected
        assert (text == "upstream ok") == bool(fail_open)  # open: the application's page, unjudged
    finally:
        for process in (nginx, upstream):
            process.terminate()
            process.wait(timeout=10)
