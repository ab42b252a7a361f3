"""Response headers that make every page and answer safer by default."""

CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


ALWAYS = (("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"),
          ("Referrer-Policy", "same-origin"), ("Content-Security-Policy", CSP))
NO_STORE = ("Cache-Control", "no-store")


def add_security_headers(response):
    """Add each header the view did not set itself (one pass over the headers, not one per header)."""
    headers = response.headers
    present = {name.lower() for name in headers.keys()}
    wanted = ALWAYS
    if response.mimetype == "application/json" or response.status_code >= 400:
        wanted = (*ALWAYS, NO_STORE)
    for name, value in wanted:
        if name.lower() not in present:
            headers.add(name, value)
    return response
