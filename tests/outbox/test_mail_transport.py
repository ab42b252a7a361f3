"""The message the outbox sends, built with the standard library (email.message), no mail extension."""
from datetime import datetime
from email import message_from_bytes, policy
from types import SimpleNamespace

import pytest

from guardsvc.outbox.transport import BadHeaderError, build_message, is_permanent, mail_address

CONFIG = {"BASE_URL": "https://guard.example.org", "MAIL_DEFAULT_SENDER": "guardsvc <no-reply@example.org>"}


def row(**changes):
    return SimpleNamespace(**{"id": 7, "created_at": datetime(2026, 1, 2, 3, 4, 5), "subject": "Keputusan banding",
                              "recipient": "budi@example.com", "body_text": "Halo Budi.",
                              "body_html": "<p>Halo Budi.</p>", **changes})


def test_a_message_is_text_with_an_html_alternative_and_a_stable_id():
    sent = message_from_bytes(build_message(row(), CONFIG).as_bytes(), policy=policy.default)
    assert sent["Message-ID"] == "<guardsvc-outbox-7-20260102030405@guard.example.org>"
    assert (sent["From"], sent["To"], sent["Subject"]) == (CONFIG["MAIL_DEFAULT_SENDER"], "budi@example.com",
                                                           "Keputusan banding")
    assert sent.get_body(("plain",)).get_content().strip() == "Halo Budi."
    assert sent.get_body(("html",)).get_content().strip() == "<p>Halo Budi.</p>"
    plain = message_from_bytes(build_message(row(body_html=None), CONFIG).as_bytes(), policy=policy.default)
    assert plain.get_content_type() == "text/plain"


@pytest.mark.parametrize("changes", [{"subject": "Banding\r\nBcc: semua@example.com"},
                                     {"recipient": "budi@example.com\nBcc: semua@example.com"}])
def test_a_line_break_in_a_header_is_refused_for_good(changes):
    with pytest.raises(BadHeaderError) as refused:
        build_message(row(**changes), CONFIG)
    assert is_permanent(refused.value)


def test_an_international_domain_goes_in_its_ascii_form():
    assert mail_address("budi@münchen.de") == "budi@xn--mnchen-3ya.de"
    assert mail_address("Señor Budi <budi@example.com>") == "=?utf-8?q?Se=C3=B1or_Budi?= <budi@example.com>"
    sent = message_from_bytes(build_message(row(recipient="budi@bücher.example"), CONFIG).as_bytes())
    assert sent["To"] == "budi@xn--bcher-kva.example"
