"""Response headers that make every page and answer safer by default; request headers read cheaply."""
from flask import current_app, request


def request_header(name, default=None):
    """The request's header ``name`` (not Content-Type or Content-Length), else ``default``.

    Read from the WSGI environ: werkzeug's ``request.headers.get`` raises and catches an
    exception for every header a request lacks, and the hot paths ask for several that most
    requests lack (a device id, a local IP, a bearer token, a request id).
    """
    return request.environ.get("HTTP_" + name.upper().replace("-", "_"), default)

CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


ALWAYS = (("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"),
          ("Referrer-Policy", "same-origin"), ("Content-Security-Policy", CSP))
NO_STORE = ("Cache-Control", "no-store")
# With Secure cookies the service is reached over HTTPS only: browsers are told to keep to it.
HSTS = ("Strict-Transport-Security", "max-age=31536000")
# Pages of one person or of the administrators: never kept by a browser or a shared cache.
PRIVATE_PREFIXES = ("/admin", "/akun")


def add_security_headers(response):
    """Add each header the view did not set itself (one pass over the headers, not one per header)."""
    headers = response.headers
    present = {name.lower() for name in headers.keys()}
    wanted = ALWAYS
    if (response.mimetype == "application/json" or response.status_code >= 400
            or request.path.startswith(PRIVATE_PREFIXES)):
        wanted = (*wanted, NO_STORE)
    if current_app.config["SESSION_COOKIE_SECURE"]:
        wanted = (*wanted, HSTS)
    for name, value in wanted:
        if name.lower() not in present:
            headers.add(name, value)
    return response
