"""A blocked person clicks "Buka blokir sendiri" and reaches the guarded page, in a real browser through the
shipped nginx files; the pages on the way are looked at (screenshots at 375 and 1280 px) and axe-clean."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shoot
from tests.browser.test_accessibility import violations
from tests.support.guarded_site import guarded_site

pytestmark = [pytest.mark.browser, pytest.mark.live, pytest.mark.proxy, pytest.mark.one_database]
SECRET = "self-release-browser-secret-0123456789"
WORDS = {
    "id": {"release": "Buka blokir sendiri", "back": "Kembali ke halaman yang Anda tuju", "locale": "id-ID"},
    "en": {"release": "Unblock myself", "back": "Back to the page you wanted", "locale": "en-US"},
}


@pytest.fixture(scope="module")
def site(app, tmp_path_factory):
    """The guarded site's address: nginx (deploy/nginx) in front of an application and guardsvc."""
    prefix = tmp_path_factory.mktemp("nginx-self-release")
    with guarded_site(prefix, SECRET, {"GUARDSVC_FORWARD_AUTH_SECRET": SECRET}) as guarded:
        yield f"http://127.0.0.1:{guarded.port}"


def blocked_browser(chromium, site, make_block, language, **options):
    """A browser of its own that visited the site once (its device cookie), then got a self-releasable block
    on that device; returns (context, page) with the block page open."""
    context = chromium.new_context(base_url=site, locale=WORDS[language]["locale"],
                                   viewport={"width": 1280, "height": 900}, **options)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto("/toko/keranjang")
    expect(page.locator("body")).to_have_text("upstream ok")
    device = next(cookie["value"] for cookie in context.cookies() if cookie["name"] == "guardsvc_device")
    make_block(device_id=device, device_issued=True, self_release=True, reason="Daftar komunitas")
    for _ in range(50):  # nginx's copy of the list refreshes every second
        page.goto("/toko/keranjang")
        if page.locator("#judul-blokir").count():
            break
        page.wait_for_timeout(200)
    expect(page.locator("#judul-blokir")).to_be_visible()
    return context, page


@pytest.mark.parametrize("language", ["id", "en"])
def test_a_blocked_person_unblocks_themselves_and_reaches_the_page(chromium, site, make_block, language):
    words = WORDS[language]
    context, page = blocked_browser(chromium, site, make_block, language)
    report = [f"block page {line}" for line in violations(page)]
    shoot(page, f"lepas-blokir-halaman-blokir-{language}")
    page.get_by_role("link", name=words["release"]).click()
    expect(page).to_have_url(re.compile(r"/guardsvc/lepas-blokir/selesai$"))
    expect(page.locator("#lepas-berhasil")).to_be_visible()
    report += [f"confirmation {line}" for line in violations(page)]
    shoot(page, f"lepas-blokir-selesai-{language}")
    page.get_by_role("link", name=words["back"]).click()
    expect(page).to_have_url(re.compile(r"/toko/keranjang$"))
    expect(page.locator("body")).to_have_text("upstream ok")
    context.close()
    assert report == []


@pytest.mark.parametrize("language", ["id", "en"])
def test_the_page_while_it_computes_and_without_javascript(chromium, site, make_block, language):
    context, page = blocked_browser(chromium, site, make_block, language)
    # The work never ends: the page as it runs (static files carry ?v=<content hash>).
    page.route(re.compile(r".*/self-release-worker\.js(\?.*)?$"), lambda route: None)
    page.get_by_role("link", name=WORDS[language]["release"]).click()
    expect(page.locator("#lepas-proses")).to_be_visible()
    expect(page.locator("#lepas-status")).not_to_be_empty()
    report = [f"computing {line}" for line in violations(page)]
    shoot(page, f"lepas-blokir-menghitung-{language}")
    context.close()
    context, page = blocked_browser(chromium, site, make_block, language, java_script_enabled=False)
    page.get_by_role("link", name=WORDS[language]["release"]).click()
    expect(page.locator("#lepas-tanpa-js")).to_be_visible()
    expect(page.locator("#lepas-banding")).to_be_visible()
    report += [f"no script {line}" for line in violations_without_script(page)]
    shoot(page, f"lepas-blokir-tanpa-js-{language}")
    context.close()
    assert report == []


def violations_without_script(page):
    """axe needs script: the same page's HTML, served at its own address to a scripted page (its
    stylesheet and all), with the page's script kept out."""
    html, url = page.content(), page.url
    scripted = page.context.browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        other = scripted.new_page()
        other.route(url, lambda route: route.fulfill(body=html, content_type="text/html; charset=utf-8"))
        other.route(re.compile(r".*/self-release[^/]*\.js(\?.*)?$"), lambda route: route.abort())
        other.goto(url)
        return violations(other)
    finally:
        scripted.close()
