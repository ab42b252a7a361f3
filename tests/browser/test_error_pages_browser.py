"""Error and block pages as a person sees them (screenshots at phone and desktop width)."""
import pytest
from playwright.sync_api import expect

from guardsvc.web.errors import Blocked, render_failure
from guardsvc import messages
from tests.browser.conftest import shoot

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.one_database]


class _Block:
    reference = "BLK-00AB12CD"
    expires_at = None

    def is_active_at(self, _moment):
        return True


def rendered(app, status, message, error=None):
    """The page ``render_failure`` gives, for failures no route can be made to produce on demand."""
    with app.test_request_context("/halaman"):
        extra = getattr(error, "extra", None)
        return render_failure(status, message, extra=extra, error=error).get_data(as_text=True)


def show(page, live_server, path, status, html):
    page.route(live_server.browser_url + path, lambda route: route.fulfill(
        status=status, content_type="text/html; charset=utf-8", body=html))
    page.goto(path)


def test_not_found_and_method_pages(page):
    response = page.goto("/tidak-ada")
    assert response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Halaman tidak ditemukan")
    shoot(page, "galat-404")


def test_block_page_leads_to_prefilled_appeal(page, app, live_server):
    blocked = Blocked(_Block(), appeal_url="/banding?ref=BLK-00AB12CD")
    show(page, live_server, "/pratinjau/blokir", 403, rendered(app, 403, messages.BLOCKED, blocked))
    expect(page.get_by_role("heading", level=1)).to_have_text("Akses Anda diblokir")
    expect(page.locator("#referensi-blokir")).to_have_text("BLK-00AB12CD")
    shoot(page, "blokir")
    page.get_by_role("link", name="Ajukan banding pembukaan blokir").click()
    expect(page.get_by_label("Alasan permohonan")).to_have_value("Nomor referensi blokir: BLK-00AB12CD\n\n")


@pytest.mark.parametrize("status,message,name", [(503, messages.UNAVAILABLE, "galat-503"),
                                                 (500, messages.INTERNAL_ERROR, "galat-500")])
def test_server_error_pages(page, app, live_server, status, message, name):
    show(page, live_server, f"/pratinjau/{status}", status, rendered(app, status, message))
    expect(page.locator(".status-code")).to_have_text(f"Kode kesalahan untuk petugas bantuan: {status}")
    shoot(page, name)
