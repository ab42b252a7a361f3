"""Helpers for tests of the ticket conversation: delivering mail and reading private links from it."""
import re

import pytest

from tests.support.pages_support import sign_in_session
from tests.support.smtp import text_body

PRIVATE_LINK = re.compile(r"http://localhost:8000(/banding/tiket/([A-Za-z0-9_-]+))")


def deliver(runner):
    """One round of ``flask mail deliver --once``; returns its summary line."""
    result = runner.invoke(args=["mail", "deliver", "--once"])
    assert result.exit_code == 0, result.output
    return result.output


def private_link(message):
    """``(path, secret)`` of the private link a received e-mail carries."""
    found = PRIVATE_LINK.search(text_body(message))
    assert found, text_body(message)
    return found.group(1), found.group(2)


@pytest.fixture()
def admin_browser(app, make_user):
    """``admin_browser(email=...)`` -> (admin user, a test client signed in as them)."""
    def make(email="admin@example.com", name="Admin Uji"):
        user = make_user(role="admin", email=email, name=name)
        browser = app.test_client()
        sign_in_session(browser, user)
        return user, browser
    return make
