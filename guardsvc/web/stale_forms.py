"""Forms whose CSRF token went stale are shown again with what the person typed.

A page form registers how to re-render itself from the submitted fields; the
CSRF error handler asks here before falling back to the generic error page.
Nothing is saved: the person only has to press the button again.
"""
from flask import request

_renderers = {}


def rerender_when_stale(endpoint):
    """Register ``render(form)`` as the way to show ``endpoint``'s form again after a CSRF failure."""
    def register(render):
        _renderers[endpoint] = render
        return render
    return register


def stale_form_response():
    """The re-rendered form for this request, or None when its form did not register one."""
    render = _renderers.get(request.endpoint)
    return None if render is None else render(request.form)
