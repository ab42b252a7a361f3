"""guardsvc's Flask class answers exactly as Flask does, with less work a request.

Request hooks run from lists made once: the same small application (hooks on the app and on nested blueprints, a before-request hook that
answers, ``after_this_request``, a session written, a view that raises) is served
by Flask and by GuardsvcFlask; every request must call the same hooks in the same order, with the
same answers, headers and teardown exceptions. JSON answers come from one encoder made once: the
same bytes and headers as Flask's provider, for every shape ``jsonify`` takes.
"""
import pytest
from flask import Blueprint, Flask, after_this_request, jsonify, session
from flask.json.provider import DefaultJSONProvider

from guardsvc import messages
from guardsvc.translation import LOCALES

from guardsvc.web.application import GuardsvcFlask


def build(cls, calls):
    app = cls(__name__)
    app.secret_key = "k" * 32
    parent, child = Blueprint("parent", __name__), Blueprint("child", __name__)

    def hook(name, answer=None):
        def before():
            calls.append(("before", name))
            return answer
        return before

    def after(name):
        def run(response):
            calls.append(("after", name))
            response.headers.add("X-Order", name)
            return response
        return run

    def teardown(name):
        def run(exc):
            calls.append(("teardown", name, type(exc).__name__ if exc else None))
        return run

    for target, name in ((app, "app"), (parent, "parent"), (child, "child")):
        target.url_value_preprocessor(lambda endpoint, values, name=name: calls.append(("url", name, endpoint)))
        target.before_request(hook(name + "1"))
        target.before_request(hook(name + "2"))
        target.after_request(after(name + "1"))
        target.after_request(after(name + "2"))
        target.teardown_request(teardown(name))
    child.before_request(hook("answers", "from a hook"))

    @app.get("/plain")
    def plain():
        @after_this_request
        def once(response):
            calls.append(("after", "this request"))
            return response
        session["seen"] = True
        return "plain"

    @parent.get("/fails")
    def fails():
        raise KeyError("boom")

    @child.get("/answered")
    def answered():
        calls.append(("view", "never"))
        return "view"

    parent.register_blueprint(child, url_prefix="/child")
    app.register_blueprint(parent, url_prefix="/parent")
    return app


@pytest.mark.parametrize("path", ["/plain", "/parent/fails", "/parent/child/answered"])
def test_hooks_run_as_flask_runs_them(path):
    seen = {}
    for cls in (Flask, GuardsvcFlask):
        calls = []
        app = build(cls, calls)
        client = app.test_client()
        answers = []
        for _ in range(2):  # the second request runs from the lists made by the first
            response = client.get(path)
            answers.append((response.status_code, response.get_data(as_text=True),
                            response.headers.getlist("X-Order"), response.headers.get("Set-Cookie") is not None))
        seen[cls.__name__] = (calls, answers)
    assert seen["GuardsvcFlask"] == seen["Flask"]
    calls, answers = seen["Flask"]
    assert calls  # the application did run its hooks
    if path == "/parent/child/answered":
        assert ("view", "never") not in calls and answers[0][1] == "from a hook"
    if path == "/parent/fails":
        assert ("teardown", "parent", "KeyError") in calls
    if path == "/plain":
        assert answers[0][3]  # the written session was saved


BODIES = [((), {}), (({"b": 1, "a": [1.5, None, True], "é": "ünï\u2028<&>"},), {}), ((1, "two"), {}),
          ((), {"success": True, "z": {"y": "x"}}), (("plain text",), {}), ((["a", {"c": 3, "b": 2}],), {})]


@pytest.mark.parametrize("args, kwargs", BODIES)
@pytest.mark.parametrize("debug", [False, True])
def test_json_answers_are_flasks_own(app, args, kwargs, debug):
    app.debug = debug
    try:
        with app.test_request_context():
            ours = jsonify(*args, **kwargs)
            flasks = DefaultJSONProvider.response(app.json, *args, **kwargs)
    finally:
        app.debug = False
    assert ours.get_data() == flasks.get_data()
    assert ours.headers == flasks.headers and ours.status_code == flasks.status_code


def test_messages_in_json_answers_are_written_in_the_requests_language(app):
    """A catalogue message in an answer is written when the answer is, in the language asked for."""
    written = {}
    for language in ("id", "en"):
        with app.test_request_context(headers={"Accept-Language": language}):
            written[language] = jsonify(message=messages.TICKET_NOT_FOUND).get_json()["message"]
    assert set(LOCALES) >= {"id", "en"}
    assert written["id"] == "Nomor tiket tidak ditemukan." and written["en"] != written["id"]


def test_both_arguments_and_keywords_are_refused_as_flask_refuses_them(app):
    with app.test_request_context(), pytest.raises(TypeError):
        jsonify(1, a=2)
