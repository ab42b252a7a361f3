"""Flask's signed-cookie session, without the work a request that has no session does.

The session cookie carries short-lived form state (flash messages, the CSRF
secret, the key of the server-side sign-in session). Flask's own interface
builds a new signing serializer on every request and reads seven cookie
settings before it finds that there is nothing to save; most requests, the API
and every status check among them, have no session at all, and a signed-in
request only reads its session. Here the serializer is built once per key set
(rotation through ``SECRET_KEY_FALLBACKS`` still works: a changed key set builds
a new one), a session nobody touched is not looked at again, a session that
was only read gets its ``Vary: Cookie`` without the cookie settings being read, and a request that
sends no cookie gets a new session without its cookies being parsed.

Served under a path of a guarded site (``X-Forwarded-Prefix`` from a declared
proxy: ``/guardsvc``), the cookie is scoped to that path, so the browser never
sends guardsvc's session to the application beside it on the same host.
"""
from flask import request
from flask.sessions import SecureCookieSessionInterface

from guardsvc.web.doors import is_static


def service_cookie_path(app):
    """The path guardsvc's own cookies (session, trust secret) are scoped to."""
    return app.config["SESSION_COOKIE_PATH"] or request.script_root or app.config["APPLICATION_ROOT"]


class CookieSessionInterface(SecureCookieSessionInterface):
    def __init__(self):
        self._serializer = None
        self._keys = None

    def get_signing_serializer(self, app):
        keys = (app.secret_key, tuple(app.config["SECRET_KEY_FALLBACKS"] or ()))
        if keys != self._keys:
            self._serializer = super().get_signing_serializer(app)
            self._keys = keys
        return self._serializer

    def get_cookie_path(self, app):
        return service_cookie_path(app)

    def open_session(self, app, request):
        # A request that sends no cookie at all (the API, every status check) has no session to
        # read: a new one, as Flask's answer for a missing session cookie, without parsing cookies.
        if "HTTP_COOKIE" not in request.environ and self.get_signing_serializer(app) is not None:
            return self.session_class()
        return super().open_session(app, request)

    def save_session(self, app, session, response):
        if is_static():
            # A file under static/ is the same for everyone, and Flask-Login's after-request hook
            # looks into the session on every request: never vary it by the cookie, or a browser
            # fetches it again whenever a cookie changes (fingerprinted URL or not).
            return
        if not (session or session.modified or session.accessed):
            return  # never read, never written: no cookie, no Vary
        if not session.modified and not (session.permanent and app.config["SESSION_REFRESH_EACH_REQUEST"]):
            # Read, not written (every signed-in request): Flask's answer without its seven
            # cookie settings read first; a session that was read varies by its cookie.
            if session.accessed:
                response.vary.add("Cookie")
            return
        super().save_session(app, session, response)


def init_cookie_session(app):
    app.session_interface = CookieSessionInterface()
