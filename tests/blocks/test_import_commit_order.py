"""A block import's blocks count from its commit for the allow entries that yield to later blocks.

An approval's or a self-release's allow entry outranks only the blocks that existed when it was made.
The blocks of ``flask blocks import`` carry the import's start; an entry committed while a long import
ran must still yield to the blocks that import commits afterwards. The import runs as its own process
reading the list from a pipe; the entry is committed while the process is reading it.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from guardsvc.blocks.models import AllowEntry, Block
from guardsvc.extensions import db
from tests.support.blocks_helpers import PROXY_SECRET, from_ip
from tests.support.live import ROOT
from tests.support.self_release_support import CHALLENGE, RELEASE, solve

FLASK = str(Path(sys.executable).with_name("flask"))
CLIENT, DEVICE = "192.0.2.10", "ponsel-budi"
# More than a pipe holds (64 KiB): when writing it returns, the command has read most of it, so it is
# inside the import (whose start it took before reading a line).
FILLER = b"# " + b"x" * 97 + b"\n"
FILLER_LINES = 3000


def passes(client):
    answer = client.get("/api/guard/forward-auth", headers={"X-Guardsvc-Secret": PROXY_SECRET,
                                                             "X-Device-Id": DEVICE}, **from_ip(CLIENT))
    return answer.status_code == 204


def approve(runner, make_ticket, client):
    number = make_ticket(ip=CLIENT, device=DEVICE).ticket_number
    result = runner.invoke(args=["tickets", "decide", number, "--approve"])
    assert result.exit_code == 0, result.output


def release_self(runner, make_ticket, client):
    who = {"headers": {"X-Device-Id": DEVICE}, **from_ip(CLIENT)}
    challenge = client.get(CHALLENGE, **who).get_json()["data"]["challenge"]
    assert client.post(RELEASE, json={"altcha": solve(challenge)}, **who).status_code == 201


@pytest.mark.parametrize("let_through", [approve, release_self], ids=["approval", "self-release"])
def test_an_entry_committed_during_an_import_yields_to_its_blocks(app, client, runner, make_block, make_ticket,
                                                                  tmp_path, let_through):
    make_block(network="192.0.2.0/24", reason="daftar komunitas", self_release=True)  # a range: never lifted
    instance = tmp_path / "instance"
    instance.mkdir()
    importing = subprocess.Popen([FLASK, "--app", "guardsvc", "blocks", "import", "-", "--reason", "daftar besar"],
                                 cwd=ROOT, env={**os.environ, "GUARDSVC_INSTANCE_PATH": str(instance)},
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        importing.stdin.write(FILLER * FILLER_LINES)
        importing.stdin.flush()
        let_through(runner, make_ticket, client)  # committed while the import reads its list
        assert passes(client)
        importing.stdin.write(f"{CLIENT}\n".encode())
        importing.stdin.close()
        importing.wait(timeout=120)
        out, err = importing.stdout.read(), importing.stderr.read()
    finally:
        importing.kill()
    assert importing.returncode == 0, err.decode()
    assert out.decode().strip().splitlines()[-1].startswith("1 blokir ditambahkan")
    assert not passes(client)  # the imported block exists from the import's commit: the entry yields to it
    with app.app_context():
        entry = db.session.scalars(select(AllowEntry)).one()
        block = db.session.scalars(select(Block).where(Block.network == f"{CLIENT}/32")).one()
        assert entry.made_by != "manual" and block.created_at > entry.created_at
