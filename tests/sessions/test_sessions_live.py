"""Against a real gunicorn (several workers): a copied session cookie dies at sign-out everywhere at once."""
import pytest
import requests

from tests.support.factories import PASSWORD
from tests.support.pages_support import CSRF_META

pytestmark = pytest.mark.live
COOKIE = "guardsvc_session"


def page_token(browser, server, path):
    return CSRF_META.search(browser.get(server.url + path, timeout=30).text).group(1)


def test_a_copied_cookie_stops_working_in_every_worker_at_sign_out(live_server, make_user):
    user = make_user()
    browser = requests.Session()
    token = page_token(browser, live_server, "/masuk")
    signed_in = browser.post(live_server.url + "/masuk", data={"csrf_token": token, "email": user.email,
                                                               "password": PASSWORD},
                             allow_redirects=False, timeout=30)
    assert signed_in.status_code == 303
    thief = requests.Session()
    thief.cookies.set(COOKIE, browser.cookies[COOKIE])
    # Many requests, so several workers (each with its own connections) serve the copy.
    assert all(thief.get(live_server.url + "/akun", allow_redirects=False, timeout=30).status_code == 200
               for _ in range(8))
    token = page_token(browser, live_server, "/akun")
    signed_out = browser.post(live_server.url + "/keluar", data={"csrf_token": token},
                              allow_redirects=False, timeout=30)
    assert signed_out.status_code == 303
    for _ in range(8):
        page = thief.get(live_server.url + "/akun", allow_redirects=False, timeout=30)
        assert page.status_code == 302 and "/masuk" in page.headers["Location"]
        api = thief.get(live_server.url + "/api/auth/tokens", headers={"Accept": "application/json"}, timeout=30)
        assert api.status_code == 401
