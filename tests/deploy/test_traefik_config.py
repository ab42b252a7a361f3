"""The shipped Traefik file, checked as far as this machine allows (Debian ships no Traefik binary).

Its structure is read as YAML and held to what makes forward auth work: the
device cookie goes to the browser and never to the application, the browser's
Accept reaches guardsvc (so a blocked browser gets the block page), the proxy
secret and the prefix are sent, guardsvc's pages are routed under /guardsvc/.
"""
import yaml

from tests.support.live import ROOT

PLACEHOLDERS = ("@LISTEN@", "@GUARDSVC@", "@APP@", "@SECRET@")


def shipped():
    text = (ROOT / "deploy/traefik/guardsvc.yml").read_text()
    filled = text
    for placeholder, value in zip(PLACEHOLDERS, ("app.example.com", "127.0.0.1:8000", "127.0.0.1:3000", "s3cret")):
        filled = filled.replace(placeholder, value)
    return text, yaml.safe_load(filled)["http"]


def test_the_traefik_file_forwards_what_guardsvc_needs_and_keeps_the_cookie_for_the_browser():
    text, config = shipped()
    assert all(placeholder in text for placeholder in PLACEHOLDERS)
    auth = config["middlewares"]["guardsvc-auth"]["forwardAuth"]
    assert auth["address"] == "http://127.0.0.1:8000/api/guard/forward-auth" and auth["trustForwardHeader"] is False
    assert {"Accept", "Cookie", "X-Device-Id", "X-Guardsvc-Secret", "X-Forwarded-Prefix"} <= set(auth["authRequestHeaders"])
    assert auth["addAuthCookiesToResponse"] == ["guardsvc_device"]
    assert "Set-Cookie" not in auth.get("authResponseHeaders", [])  # never into the application's request
    identify = config["middlewares"]["guardsvc-identify"]["headers"]["customRequestHeaders"]
    assert identify == {"X-Guardsvc-Secret": "s3cret", "X-Forwarded-Prefix": "/guardsvc"}
    app, pages = config["routers"]["app"], config["routers"]["guardsvc-pages"]
    assert app["middlewares"] == ["guardsvc-identify", "guardsvc-auth"]  # the secret is set before it is sent
    assert "PathPrefix(`/guardsvc/`)" in pages["rule"] and "guardsvc-auth" not in pages["middlewares"]
    assert config["services"]["guardsvc"]["loadBalancer"]["servers"] == [{"url": "http://127.0.0.1:8000"}]
