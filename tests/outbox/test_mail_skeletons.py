"""The hot paths' e-mails put their values into a skeleton rendered once per language: the same text
as rendering the templates with those values, whatever the values hold."""
import pytest

from guardsvc.outbox import service
from guardsvc.outbox.skeletons import Filled
from guardsvc.web.locale import in_language

AWKWARD = ['Budi <script>alert("x")</script> & co', "a.b@c.d:80/x\\y", "Zoë 'O\"Neil' ∑", "%(ticket)s {{ x }}"]


def _both_ways(template, subject, fill, context):
    composed = service.compose_mail("k", "r@example.com", subject, template, fill=fill, **context)
    plain = {**fill, **{name: _resolved(value, fill) for name, value in context.items()}}
    text = service._render(f"mail/{template}.txt", plain)
    html = service._render(f"mail/{template}.html", {"subject": subject, **plain})
    return (composed["body_text"], composed["body_html"]), (text, html)


def _resolved(value, fill):
    if isinstance(value, Filled):
        return fill[value.name]
    if isinstance(value, (list, tuple)):
        return type(value)(_resolved(item, fill) for item in value)
    return value


@pytest.mark.parametrize("language", ["id", "en"])
@pytest.mark.parametrize("awkward", AWKWARD)
def test_the_confirmation_is_the_rendered_template(app, language, awkward):
    with app.test_request_context(), in_language(language):
        for _ in range(2):  # the first builds the skeleton, the second uses it
            fill = {"ticket_number": "TKT-0A1B2C3D", "when": awkward, "private_url": f"https://x.test/{awkward}",
                    "status_url": "https://x.test/banding/cek?tiket=TKT-0A1B2C3D"}
            filled, rendered = _both_ways("appeal_received", f"Permohonan {awkward}", fill, {})
            assert filled == rendered


@pytest.mark.parametrize("language", ["id", "en"])
@pytest.mark.parametrize("awkward", AWKWARD)
def test_the_security_notice_is_the_rendered_template(app, language, awkward):
    from guardsvc import messages

    with app.test_request_context(), in_language(language):
        for device_name in (awkward, "Laptop kantor"):
            fill = {"name": awkward, "email": "budi.s@example.co.id", "when": "1 Desember 2026, 10.00 WIB",
                    "ip_address": "2001:db8::1", "device": awkward, "detail_0": device_name}
            context = {"what": messages.NOTICE_TRUSTED_DEVICE, "forgot_url": "https://x.test/lupa",
                       "account_url": "https://x.test/akun",
                       "details": [(messages.NOTICE_DEVICE_NAME, Filled("detail_0"))]}
            filled, rendered = _both_ways("security_notice", "Pemberitahuan", fill, context)
            assert filled == rendered
            assert "\u200d" in filled[1]  # the e-mail address is still shown through unlinkable


def test_an_empty_value_is_rendered_the_usual_way(app):
    with app.test_request_context():
        fill = {"ticket_number": "TKT-0A1B2C3D", "when": "", "private_url": "https://x.test/p",
                "status_url": "https://x.test/s"}
        filled, rendered = _both_ways("appeal_received", "Permohonan", fill, {})
        assert filled == rendered
