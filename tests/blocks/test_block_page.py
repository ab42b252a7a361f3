"""The block page /terblokir and the in-app block page show the same facts."""
from datetime import timedelta

import pytest

from guardsvc.storage import clock
from tests.support.blocks_helpers import BLOCKED_IP, FREE_IP, from_ip


def page(client, ref=None, ip=BLOCKED_IP):
    path = "/terblokir" if ref is None else f"/terblokir?ref={ref}"
    response = client.get(path, **from_ip(ip))
    assert response.status_code == 200
    return response.get_data(as_text=True)


def test_shows_reference_ip_time_and_appeal_button(client, make_block):
    reference = make_block(network="203.0.113.0/24")
    html = page(client, reference)
    assert reference in html
    assert BLOCKED_IP in html
    assert f'href="/banding?ref={reference}"' in html
    assert "Tidak ada batas waktu" in html
    assert 'id="fakta-waktu"' in html


def test_reachable_for_the_blocked_client_without_a_sign_in_link(client, make_block):
    reference = make_block(network=BLOCKED_IP)
    html = page(client, reference.lower())
    assert reference in html
    assert ">Masuk<" not in html


def test_shows_when_the_block_ends(client, make_block):
    reference = make_block(device_id="dev-1", expires_at=clock.utcnow() + timedelta(days=2, hours=1))
    html = page(client, reference)
    assert "Tidak ada batas waktu" not in html
    assert str((clock.utcnow() + timedelta(days=2, hours=1)).year) in html.split('id="fakta-berakhir"')[1]


def test_a_lifted_block_says_it_no_longer_applies(client, make_block, app):
    from guardsvc.blocks.service import lift_block
    from guardsvc.extensions import db

    reference = make_block(network=BLOCKED_IP)
    with app.app_context():
        lift_block(reference)
        db.session.commit()
    assert "sudah tidak berlaku" in page(client, reference)


@pytest.mark.parametrize("ref", ["BLK-00000000", "bukan-referensi", "%3Cscript%3Ealert(1)%3C/script%3E"])
def test_unknown_or_malformed_reference_still_gets_a_page(client, ref):
    html = page(client, ref, ip=FREE_IP)
    assert "Akses Anda diblokir" in html
    assert "Nomor referensi blokir" not in html
    assert "<script>alert" not in html
    assert 'href="/banding"' in html


def test_site_name_and_contact_when_set(client, app, make_block):
    reference = make_block(network=BLOCKED_IP)
    assert "Butuh bantuan" not in page(client, reference)
    app.config.update(SITE_NAME="Portal <Contoh>", CONTACT="helpdesk@example.com")
    try:
        html = page(client, reference)
    finally:
        app.config.update(SITE_NAME=None, CONTACT=None)
    assert "Portal &lt;Contoh&gt;" in html
    assert "helpdesk@example.com" in html


def test_in_app_block_page_shows_the_same_facts(client, make_block):
    reference = make_block(network=BLOCKED_IP)
    response = client.get("/akun", **from_ip(BLOCKED_IP))
    assert response.status_code == 403
    html = response.get_data(as_text=True)
    assert reference in html and BLOCKED_IP in html and "Tidak ada batas waktu" in html
    assert f'href="/banding?ref={reference}"' in html
    assert ">Masuk<" not in html


def test_does_not_say_a_person_blocked_the_visitor(client, make_block):
    """Blocks come from people, imported lists and CrowdSec alike: the page says what is blocked, not who did it."""
    html = page(client, make_block(network=BLOCKED_IP))
    assert "Akses dari alamat IP atau perangkat yang sedang Anda pakai diblokir" in html
    assert "Administrator memblokir" not in html
