"""The Flask class guardsvc runs on: Flask, minus a question it asked again on every call."""
import weakref
from inspect import iscoroutinefunction

from flask import Flask
from flask.json.provider import DefaultJSONProvider
from flask_babel.speaklater import LazyString

from guardsvc.web.row_ids import RowIdConverter


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON, plus message ids (guardsvc.messages): written in the request's language."""

    @staticmethod
    def default(o):
        if isinstance(o, LazyString):
            return str(o)
        return DefaultJSONProvider.default(o)


class GuardsvcFlask(Flask):
    """Flask with row ids in URLs (``<id:name>``, guardsvc.web.row_ids), asking once per function
    whether a view or hook is a coroutine function.

    Flask passes each view, before/after-request hook and teardown through
    ``ensure_sync`` on every request (seventeen calls for a status check), and
    each call inspects the function's code flags again. The answer never changes
    for a function, so it is kept, weakly: a function made for one request
    (``after_this_request``) is forgotten with it.
    """

    json_provider_class = JSONProvider

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Before any route is added: routes parse their converters when registered.
        self.url_map.converters["id"] = RowIdConverter
        self._is_coroutine = weakref.WeakKeyDictionary()

    def ensure_sync(self, func):
        try:
            is_coroutine = self._is_coroutine.get(func)
        except TypeError:  # cannot be referenced weakly: ask each time
            return super().ensure_sync(func)
        if is_coroutine is None:
            is_coroutine = self._is_coroutine[func] = iscoroutinefunction(func)
        return self.async_to_sync(func) if is_coroutine else func
