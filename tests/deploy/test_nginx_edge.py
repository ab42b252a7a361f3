"""nginx's copy of the block list (deploy/nginx/guardsvc_edge.lua) in a real nginx.

The Lua side must never let through a client that forward auth would block:
its network matching is compared with Python's ``ipaddress`` over random
addresses, IPv4 and IPv6, on prefix lengths that do and do not end on a hex
digit. Then: every worker of a multi-worker nginx enforces a new block, and a
list that guardsvc stopped refreshing hands the decision back to the switch.
"""
import ipaddress
import random
import subprocess
import sys
import time

import pytest

from tests.support.live import LiveServer, free_port, wait_for_port
from tests.support.nginx_support import NGINX, missing, nginx_conf
from tests.deploy.test_nginx_forward_auth import UPSTREAM, eventually, fetch

pytestmark = pytest.mark.proxy
SECRET = "edge-test-secret-0123456789abcdefghij"
NETWORKS = ["203.0.113.7/32", "10.20.0.0/14", "192.168.77.0/24", "172.16.0.0/12", "100.64.3.128/25",
            "2001:db8:abcd::/48", "2001:db8:1234:5678::/61", "2001:db8:ffff::1/128", "fc00::/7"]
PROBE = """
    server {{
        listen 127.0.0.1:{port};
        location /listed {{
            content_by_lua_block {{
                local listed = require("guardsvc_edge").address_listed(ngx.var.arg_address)
                ngx.say(tostring(listed))
            }}
        }}
        location /device {{
            content_by_lua_block {{
                ngx.say(tostring(require("guardsvc_edge").device_listed(ngx.var.arg_id)))
            }}
        }}
    }}
"""


class Stack:
    """nginx (with a probe server), the upstream application and guardsvc, started by ``start``."""

    def __init__(self, prefix, workers=0, http_changes=(), edge_module=True):
        self.prefix, self.workers, self.http_changes = prefix, workers, http_changes
        self.edge_module = edge_module
        self.port, self.probe, self.app_port = free_port(), free_port(), free_port()
        self.processes = []
        self.guardsvc = None

    def start(self):
        self.upstream = self._spawn([sys.executable, "-c", UPSTREAM, str(self.app_port)])
        self.guardsvc = LiveServer(workers=1, env={"GUARDSVC_PROXY_COUNT": "1",
                                                   "GUARDSVC_FORWARD_AUTH_SECRET": SECRET})
        (self.prefix / "nginx.conf").write_text(nginx_conf(
            self.prefix, port=self.port, guardsvc=f"127.0.0.1:{self.guardsvc.port}",
            app=f"127.0.0.1:{self.app_port}", secret=SECRET, workers=self.workers,
            http_changes=self.http_changes, http_extra=PROBE.format(port=self.probe), edge_module=self.edge_module))
        self.nginx = self._spawn([NGINX, "-p", str(self.prefix), "-c", str(self.prefix / "nginx.conf")])
        wait_for_port(self.app_port, self.upstream, "upstream")
        wait_for_port(self.port, self.nginx, "nginx")
        return self

    def _spawn(self, command):
        process = subprocess.Popen(command)
        self.processes.append(process)
        return process

    def listed(self, address):
        return fetch(self.probe, f"/listed?address={address}", "127.0.0.1")[2].strip()

    def device_listed(self, device_id):
        return fetch(self.probe, f"/device?id={device_id}", "127.0.0.1")[2].strip()

    def stop(self):
        for process in reversed(self.processes):
            process.terminate()
            process.wait(timeout=10)
        if self.guardsvc:
            self.guardsvc.stop()


@pytest.fixture()
def stack_factory(app, tmp_path):
    if missing():
        pytest.skip(missing())
    stacks = []

    def make(**options):
        folder = tmp_path / f"nginx{len(stacks)}"
        folder.mkdir()
        stacks.append(Stack(folder, **options))
        return stacks[-1].start()
    yield make
    for stack in stacks:
        stack.stop()


def _addresses(network, rng):
    """Addresses in ``network``, just outside it, and anywhere, in several spellings."""
    first, last = int(network.network_address), int(network.broadcast_address)
    top = 2 ** network.max_prefixlen - 1
    values = {first, last, max(first - 1, 0), min(last + 1, top), rng.randint(first, last)}
    values |= {rng.randint(0, top) for _ in range(3)}
    kind = ipaddress.IPv4Address if network.version == 4 else ipaddress.IPv6Address
    addresses = [kind(value) for value in values]
    if network.version == 4:  # as an IPv4-mapped IPv6 address, the way a dual-stack socket shows it
        addresses.append(f"::ffff:{addresses[0]}")
    else:  # the exploded spelling too
        addresses.append(addresses[0].exploded)
    return addresses


def test_the_edge_lists_every_address_a_block_covers_and_no_other(stack_factory, make_block, app, monkeypatch):
    monkeypatch.setitem(app.config, "WIDEST_BLOCK", (0, 0))  # fc00::/7: an operator who allows any width
    for network in NETWORKS:
        make_block(network=network)
    stack = stack_factory()
    assert eventually(lambda: stack.listed("198.51.100.1") != "nil"), "the list never arrived"
    networks = [ipaddress.ip_network(text) for text in NETWORKS]
    rng = random.Random(2026)
    checked = 0
    for network in networks:
        for address in _addresses(network, rng):
            parsed = ipaddress.ip_address(address)
            parsed = parsed.ipv4_mapped or parsed if parsed.version == 6 else parsed
            expected = any(parsed in other for other in networks if other.version == parsed.version)
            assert stack.listed(address) == str(expected).lower(), address
            checked += 1
    assert checked >= 70
    assert stack.listed("not-an-address") == "true"  # unreadable: forward auth judges it


def test_every_nginx_worker_enforces_a_new_block_and_honours_its_lift(stack_factory, make_block, app):
    from guardsvc.blocks.service import lift_block
    from guardsvc.extensions import db

    stack = stack_factory(workers=2)
    cookie = fetch(stack.port, "/", "127.0.0.2")[1]["Set-Cookie"].split(";", 1)[0]
    headers = {"Cookie": cookie}

    def all_answers(status):
        return all(fetch(stack.port, "/", "127.0.0.2", headers)[0] == status for _ in range(20))

    assert eventually(lambda: all_answers(200))
    reference = make_block(device_id=cookie.split("=", 1)[1])
    started = time.monotonic()
    assert eventually(lambda: all_answers(403)), "a worker kept letting the blocked device through"
    enforced_after = time.monotonic() - started
    with app.app_context():
        lift_block(reference)
        db.session.commit()
    assert all_answers(200)  # a lifted block is honoured at once: the list only sends clients to be asked
    log = (stack.prefix / "access.log").read_text().splitlines()
    workers = {line.split()[-2] for line in log if " 403 " in line}
    assert len(workers) == 2, f"only {workers} answered (enforced after {enforced_after:.1f} s)"


def test_a_list_guardsvc_stopped_refreshing_hands_visitors_to_the_switch(stack_factory):
    stack = stack_factory(http_changes=[("stale_after = 5,", "stale_after = 1,")])
    cookie = fetch(stack.port, "/", "127.0.0.2")[1]["Set-Cookie"].split(";", 1)[0]
    assert eventually(lambda: fetch(stack.port, "/kembali", "127.0.0.2", {"Cookie": cookie})[0] == 200
                      and stack.listed("127.0.0.2") == "false")
    stack.guardsvc.stop()
    # Fail closed (the shipped default): once the list is stale, the visitor is asked about; nobody answers.
    assert eventually(lambda: fetch(stack.port, "/kembali", "127.0.0.2", {"Cookie": cookie})[0] == 503)
    assert stack.listed("127.0.0.2") == "nil"


def _timed(check, within=5.0):
    """Seconds until ``check()`` held (None when it never did within ``within``)."""
    started = time.monotonic()
    return time.monotonic() - started if eventually(check, within) else None


def test_after_the_first_pull_blocks_lifts_and_expiries_reach_the_edge_as_deltas(stack_factory, make_block, app):
    from datetime import timedelta

    from guardsvc.blocks.service import lift_block
    from guardsvc.extensions import db
    from guardsvc.storage import clock

    make_block(network="192.0.2.0/24")
    stack = stack_factory(workers=2)
    assert eventually(lambda: stack.listed("192.0.2.9") == "true"), "the whole list never arrived"
    assert stack.listed("203.0.113.9") == "false"
    reference = make_block(network="203.0.113.9")
    make_block(network="2001:db8:77::/64")
    assert _timed(lambda: stack.listed("203.0.113.9") == "true", within=2.5) is not None
    assert stack.listed("2001:db8:77::5") == "true" and stack.listed("2001:db8:78::5") == "false"
    with app.app_context():
        lift_block(reference)
        db.session.commit()
    assert _timed(lambda: stack.listed("203.0.113.9") == "false", within=2.5) is not None
    assert stack.listed("192.0.2.9") == "true"  # the rest of the list stays
    # An expiry needs no delta: the edge forgets the entry at its expiry.
    make_block(network="198.51.100.44", expires_at=clock.utcnow() + timedelta(seconds=3))
    assert eventually(lambda: stack.listed("198.51.100.44") == "true")
    assert eventually(lambda: stack.listed("198.51.100.44") == "false", within=6)
    log = (stack.prefix / "error.log").read_text()
    assert "[error]" not in log and "not refreshed" not in log, log


def test_an_edge_whose_cursor_the_log_no_longer_reaches_loads_the_whole_list_again(stack_factory, make_block, app):
    from guardsvc.blocks.models import EdgeChange
    from guardsvc.blocks.service import lift_block
    from guardsvc.extensions import db

    stack = stack_factory()
    reference = make_block(network="203.0.113.10")
    assert eventually(lambda: stack.listed("203.0.113.10") == "true")
    with app.app_context():
        # The lift's change is pruned before the edge saw it, and the log goes on: no delta can tell.
        lift_block(reference)
        db.session.execute(db.delete(EdgeChange))
        db.session.commit()
    make_block(network="203.0.113.11")
    with app.app_context():
        db.session.execute(db.delete(EdgeChange))
        db.session.commit()
    make_block(network="203.0.113.12")
    assert eventually(lambda: stack.listed("203.0.113.12") == "true")
    assert stack.listed("203.0.113.10") == "false" and stack.listed("203.0.113.11") == "true"


def test_allow_entries_are_weighed_by_forward_auth_behind_a_listed_device(stack_factory, make_block, make_allow):
    from guardsvc.blocks.models import APPROVAL

    stack = stack_factory(workers=2)
    cookie = fetch(stack.port, "/", "127.0.0.2")[1]["Set-Cookie"].split(";", 1)[0]
    device = cookie.split("=", 1)[1]
    headers = {"Cookie": cookie}
    make_block(device_id=device)
    make_allow(device_id=device, made_by=APPROVAL)  # an approval: outranks the block before it
    assert eventually(lambda: stack.device_listed(device) == "true")
    # Listed at the edge (the list leaves allow entries out), so forward auth is asked, and lets it through.
    assert all(fetch(stack.port, "/", "127.0.0.2", headers)[0] == 200 for _ in range(10))
    make_block(device_id=device)  # a later block wins over the approval's entry
    assert eventually(lambda: all(fetch(stack.port, "/", "127.0.0.2", headers)[0] == 403 for _ in range(10)))
    log = (stack.prefix / "access.log").read_text().splitlines()
    assert all(line.endswith(" asked") for line in log[-10:])


def test_a_shared_dictionary_too_small_for_the_list_is_logged_with_the_fix_and_nobody_passes_unasked(
        stack_factory, make_block, app):
    from guardsvc.blocks.models import Block
    from guardsvc.extensions import db
    from guardsvc.storage import clock

    with app.app_context():  # more entries than 64 KB of shared memory holds
        db.session.execute(db.insert(Block), [
            {"reference": f"BLK-00{number:06X}", "network": f"198.18.{number // 256}.{number % 256}/32",
             "created_at": clock.utcnow()} for number in range(3000)])
        db.session.commit()
    stack = stack_factory(http_changes=[("lua_shared_dict guardsvc_edge 256m;", "lua_shared_dict guardsvc_edge 64k;")])
    assert eventually(lambda: "is too small" in (stack.prefix / "error.log").read_text(), within=10)
    log = (stack.prefix / "error.log").read_text()
    assert "raise its size in guardsvc-http.conf" in log
    # No half-loaded list is trusted: the listed addresses, and every other one, are asked about.
    assert stack.listed("198.18.11.183") == "nil" and stack.listed("192.0.2.1") == "nil"


def test_without_the_lua_module_the_log_names_the_fix_and_every_request_is_asked(stack_factory, make_block):
    make_block(network="127.0.0.2")
    stack = stack_factory(edge_module=False)
    assert eventually(lambda: fetch(stack.port, "/", "127.0.0.3")[0] == 200), "a free visitor is not served"
    assert fetch(stack.port, "/", "127.0.0.2")[0] == 403
    log = (stack.prefix / "error.log").read_text()
    assert "guardsvc_edge.lua is missing from" in log and "copy deploy/nginx/guardsvc_edge.lua there" in log
    served = (stack.prefix / "access.log").read_text().splitlines()
    assert served and all(line.endswith(" asked") for line in served)  # judged by guardsvc, never waved through
