"""The Flask class guardsvc runs on: Flask, minus the questions it asked again on every request."""
import json
import sys
import weakref
from inspect import iscoroutinefunction

from flask import Flask, request
from flask.globals import request_ctx
from flask.signals import request_tearing_down
from flask.json.provider import DefaultJSONProvider
from flask_babel.speaklater import LazyString

from guardsvc.web.row_ids import RowIdConverter

_UNSET = object()


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON, plus message ids (guardsvc.messages): written in the request's language.

    An answer (``jsonify``) is encoded by one encoder made once with Flask's settings (sorted keys,
    ASCII, compact, a final newline): Flask's provider builds its arguments and an encoder on every
    answer, half the cost of a small one. In debug mode, or with other settings, Flask's own.
    """

    @staticmethod
    def default(o):
        if isinstance(o, LazyString):
            return str(o)
        return DefaultJSONProvider.default(o)

    def response(self, *args, **kwargs):
        if (self.compact is False or (self.compact is None and self._app.debug) or self.ensure_ascii is not True
                or self.sort_keys is not True or self.mimetype != "application/json"):
            return super().response(*args, **kwargs)
        if args and kwargs:
            raise TypeError("app.json.response() takes either args or kwargs, not both")
        obj = (args[0] if len(args) == 1 else args) if args else (kwargs or None)
        return self._app.response_class(_ENCODE(obj) + "\n", mimetype="application/json")


_ENCODE = json.JSONEncoder(ensure_ascii=True, sort_keys=True, separators=(",", ":"),
                           default=JSONProvider.default).encode


class _Hooks:
    """The request hooks that run for one chain of blueprints, in the order Flask runs them."""

    __slots__ = ("url_values", "before", "after", "teardown")

    def __init__(self, app, blueprints):
        names = (None, *reversed(blueprints))
        backwards = (*blueprints, None)
        self.url_values = tuple(f for name in names for f in app.url_value_preprocessors.get(name, ()))
        self.before = tuple(app.ensure_sync(f) for name in names for f in app.before_request_funcs.get(name, ()))
        self.after = tuple(app.ensure_sync(f) for name in backwards
                           for f in reversed(app.after_request_funcs.get(name, ())))
        self.teardown = tuple(app.ensure_sync(f) for name in backwards
                              for f in reversed(app.teardown_request_funcs.get(name, ())))


class GuardsvcFlask(Flask):
    """Flask with row ids in URLs (``<id:name>``, guardsvc.web.row_ids), asking once, not on every request,
    which hooks run for a request and whether a view or hook is a coroutine function.

    Flask walks its hook tables by blueprint on every request (before, after, teardown: about twenty
    hooks for a status check) and passes each hook through ``ensure_sync``, which inspects the
    function's code flags again. Hooks are fixed once the first request is served (Flask refuses its
    setup methods after that), so the list for each chain of blueprints is made once, each hook
    already wrapped if it is a coroutine function, and run in Flask's order with Flask's rules (a
    before-request hook's answer ends the before-request hooks; ``after_this_request`` functions run
    first; teardowns get the exception). ``ensure_sync`` keeps its answer per function, weakly: a
    function made for one request (``after_this_request``) is forgotten with it.
    """

    json_provider_class = JSONProvider

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Before any route is added: routes parse their converters when registered.
        self.url_map.converters["id"] = RowIdConverter
        self._is_coroutine = weakref.WeakKeyDictionary()
        self._hooks = {}

    def _hooks_for(self, blueprints):
        hooks = self._hooks.get(blueprints)
        if hooks is None:
            hooks = self._hooks[blueprints] = _Hooks(self, blueprints)
        return hooks

    def preprocess_request(self):
        req = request._get_current_object()
        hooks = self._hooks_for(tuple(req.blueprints))
        if hooks.url_values:
            for url_func in hooks.url_values:
                url_func(req.endpoint, req.view_args)
        for before_func in hooks.before:
            rv = before_func()
            if rv is not None:
                return rv
        return None

    def process_response(self, response):
        ctx = request_ctx._get_current_object()
        for func in ctx._after_request_functions:
            response = self.ensure_sync(func)(response)
        for func in self._hooks_for(tuple(ctx.request.blueprints)).after:
            response = func(response)
        session = ctx._session
        if not self.session_interface.is_null_session(session):
            self.session_interface.save_session(self, session, response)
        return response

    def do_teardown_request(self, exc=_UNSET):
        if exc is _UNSET:
            exc = sys.exc_info()[1]
        for func in self._hooks_for(tuple(request.blueprints)).teardown:
            func(exc)
        request_tearing_down.send(self, _async_wrapper=self.ensure_sync, exc=exc)

    def ensure_sync(self, func):
        try:
            is_coroutine = self._is_coroutine.get(func)
        except TypeError:  # cannot be referenced weakly: ask each time
            return super().ensure_sync(func)
        if is_coroutine is None:
            is_coroutine = self._is_coroutine[func] = iscoroutinefunction(func)
        return self.async_to_sync(func) if is_coroutine else func
