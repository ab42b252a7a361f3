"""``flask blocks add | lift | list``."""
import json
import re

import pytest

from guardsvc.blocks.service import find_active_block, get_block


def test_add_prints_reference_alone_on_last_line_and_blocks(runner, app):
    result = runner.invoke(args=["blocks", "add", "--ip", "203.0.113.0/24", "--reason", "Spam", "--minutes", "30"])
    assert result.exit_code == 0, result.output
    reference = result.output.strip().splitlines()[-1]
    assert re.fullmatch(r"BLK-[0-9A-F]{8}", reference)
    with app.app_context():
        block = find_active_block("203.0.113.77")
        assert block.reference == reference and block.reason == "Spam" and block.expires_at is not None


def test_add_device_with_local_ip(runner, app):
    result = runner.invoke(args=["blocks", "add", "--device-id", "dev-1", "--local-ip", "10.0.0.1"])
    reference = result.output.strip().splitlines()[-1]
    with app.app_context():
        assert find_active_block(None, "dev-1") is None
        assert find_active_block(None, "dev-1", "10.0.0.1").reference == reference


@pytest.mark.parametrize("args", [
    [], ["--ip", "1.2.3.4", "--device-id", "d"], ["--ip", "bukan-ip"], ["--ip", "10.0.0.1/8"],
    ["--device-id", "bad id"], ["--ip", "1.2.3.4", "--minutes", "abc"], ["--ip", "1.2.3.4", "--minutes", "-5"],
    ["--ip", "1.2.3.4", "--local-ip", "x"],
])
def test_add_refuses_bad_input_cleanly(runner, app, args):
    result = runner.invoke(args=["blocks", "add", *args])
    assert result.exit_code != 0
    assert "Traceback" not in result.output and "Error" in result.output
    with app.app_context():
        from guardsvc.blocks.models import Block
        from guardsvc.extensions import db

        assert db.session.query(Block).count() == 0


def test_lift_and_list(runner, app, make_block):
    reference = make_block(network="203.0.113.9", reason="Uji")
    listing = runner.invoke(args=["blocks", "list"])
    assert reference in listing.output and "active" in listing.output
    result = runner.invoke(args=["blocks", "lift", reference.lower(), "--reason", "Sudah aman"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        assert get_block(reference).lift_reason == "Sudah aman"
    assert reference not in runner.invoke(args=["blocks", "list"]).output
    assert re.search(rf"{reference}\tlifted", runner.invoke(args=["blocks", "list", "--all"]).output)
    lifted, = json.loads(runner.invoke(args=["blocks", "list", "--all", "--json"]).output)
    assert (lifted["reference"], lifted["state"], lifted["target"]) == (reference, "lifted", "203.0.113.9/32")
    again = runner.invoke(args=["blocks", "lift", reference])
    assert again.exit_code != 0 and "sudah tidak aktif" in again.output
    missing = runner.invoke(args=["blocks", "lift", "BLK-00000000"])
    assert missing.exit_code != 0 and "tidak ditemukan" in missing.output
