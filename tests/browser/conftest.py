"""Headless Chromium (Debian's, never downloaded) against a real gunicorn.

The browser is Debian's ``chromium-headless-shell``: Chromium's own engine
(Blink, V8, the same accessibility tree) without the desktop browser around
it, the build Playwright itself uses for headless runs. A page load costs it
about half the CPU of ``/usr/bin/chromium`` in headless mode, and a fresh
browser profile a fifth; ``GUARDSVC_TEST_CHROMIUM=/usr/bin/chromium`` runs
the same tests in the full browser. A browser that cannot start is an error,
never a skip: ``scripts/ensure-packages`` installs it.
"""
import os
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tests.support.factories import PASSWORD

CHROMIUM = os.environ.get("GUARDSVC_TEST_CHROMIUM", "/usr/bin/chromium-headless-shell")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
WIDTHS = (375, 1280)


@pytest.fixture(scope="session")
def chromium():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture()
def new_page(chromium, live_server):
    """``new_page(base_url=None, **context_options)`` -> a page in a fresh browser profile on the live
    server (or at ``base_url``: another server, another name for it)."""
    contexts = []

    def make(base_url=None, **options):
        options.setdefault("viewport", {"width": 1280, "height": 900})
        options.setdefault("locale", "id-ID")
        context = chromium.new_context(base_url=base_url or live_server.browser_url, **options)
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture()
def page(new_page):
    return new_page()


def fill_sign_in(page, email, password=PASSWORD):
    """Fill in and send the sign-in form open on ``page``."""
    page.get_by_label("Alamat e-mail").fill(email)
    page.get_by_label("Kata sandi").fill(password)
    page.get_by_role("button", name="Masuk", exact=True).click()


def shoot(page, name):
    """Save the page at a phone width and a desktop width, then restore the desktop width."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})
