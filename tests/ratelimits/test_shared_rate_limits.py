"""One rate-limit bucket per operation, shared by its JSON door and its form: no double quota."""
import pytest

from guardsvc import create_app
from tests.support.pages_support import post_form, quick_passwords  # noqa: F401  (fixture)

pytestmark = pytest.mark.usefixtures("quick_passwords")


@pytest.fixture()
def limited(app):
    """A client of an app whose limits are on: two calls per minute for every operation."""
    limited_app = create_app({"TESTING": True, "RATELIMIT_ENABLED": True,
                              "RATELIMIT_SUBMIT": "2 per minute", "RATELIMIT_CHECK": "2 per minute",
                              "RATELIMIT_AUTH": "2 per minute"})
    return limited_app.test_client()


def test_appeal_submissions_share_one_quota_across_api_and_form(limited):
    # Incomplete appeals: each one is a submission the limit counts, none opens a ticket.
    assert limited.post("/api/guard/unblock-tickets/submit", json={"name": "Budi"}).status_code == 422
    assert post_form(limited, "/banding", {"name": "Budi"}, page="/banding").status_code == 422
    assert limited.post("/api/guard/unblock-tickets/submit", json={"name": "Budi"}).status_code == 429
    assert post_form(limited, "/banding", {"name": "Budi"}, page="/banding").status_code == 429
    # Another operation keeps its own quota.
    assert limited.get("/api/guard/unblock-tickets/check/TKT-00000000").status_code == 404


def test_ticket_checks_share_one_quota_across_api_and_page(limited):
    assert limited.get("/banding/cek?tiket=TKT-00000000").status_code == 404
    assert limited.get("/api/guard/unblock-tickets/check/TKT-00000000").status_code == 404
    refused = limited.get("/banding/cek?tiket=TKT-00000000")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert limited.get("/api/guard/unblock-tickets/check/TKT-00000000").status_code == 429
    # The empty form looks nothing up, so it is never refused.
    assert limited.get("/banding/cek").status_code == 200


def test_sign_ins_share_one_quota_across_api_and_form(limited, make_user):
    user = make_user()
    wrong = {"email": user.email, "password": "bukan-kata-sandinya"}
    assert limited.post("/api/auth/tokens", json=wrong).status_code == 401
    assert post_form(limited, "/masuk", wrong, page="/masuk").status_code == 401
    assert limited.post("/api/auth/tokens", json=wrong).status_code == 429
    assert post_form(limited, "/masuk", wrong, page="/masuk").status_code == 429


def test_an_ipv6_client_is_counted_by_its_64(limited):
    check = "/api/guard/unblock-tickets/check/TKT-00000000"

    def from_address(address):
        return limited.get(check, environ_base={"REMOTE_ADDR": address}).status_code

    assert from_address("2001:db8:7:1::1") == 404
    assert from_address("2001:db8:7:1::2") == 404
    assert from_address("2001:db8:7:1:ffff::3") == 429  # a new address in the same /64: same quota
    assert from_address("2001:db8:7:2::1") == 404  # the next /64 is someone else


def test_the_password_change_spends_the_sign_in_quota(limited, make_user):
    from tests.support.pages_support import sign_in_session

    sign_in_session(limited, make_user(), page="/akun")
    form = {"new_password": "x", "confirmation": "y"}  # refused by the rule, after the limit counted it
    assert post_form(limited, "/akun/kata-sandi", form, page="/akun").status_code == 422
    assert post_form(limited, "/akun/kata-sandi", form, page="/akun").status_code == 422
    assert post_form(limited, "/akun/kata-sandi", form, page="/akun").status_code == 429
