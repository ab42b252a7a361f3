"""SQL statements per request on the hot paths: a budget that fails loudly when a change adds work.

Counting statements is exact and repeatable where timing is not: a regression
(an extra lookup, a reload after commit, a lazy load) shows up as a number.
SAVEPOINT / RELEASE around an insert that expects a race count as statements.
"""
import pytest
from sqlalchemy import event, update

from guardsvc.accounts.models import User
from guardsvc.extensions import db
from tests.support.factories import submit_ticket
from tests.support.pages_support import csrf_token, sign_in
from tests.support.signin_support import rate_limits_off  # noqa: F401  (fixture)

pytestmark = pytest.mark.usefixtures("rate_limits_off")
JSON = {"Accept": "application/json"}


@pytest.fixture()
def statements(app):
    """The SQL statements the next request runs: ``with statements() as seen: ...``."""
    class Recorder:
        def __init__(self):
            self.seen = []

        def __enter__(self):
            self.seen.clear()
            return self.seen

        def __exit__(self, *exc):
            return False

    recorder = Recorder()

    def record(_conn, _cursor, statement, _params, _context, _many):
        recorder.seen.append(" ".join(statement.split())[:160])

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", record)
    yield lambda: recorder
    event.remove(engine, "before_cursor_execute", record)


def assert_budget(seen, budget):
    assert len(seen) <= budget, f"{len(seen)} statements (budget {budget}):\n" + "\n".join(seen)


def kinds(seen):
    return [statement.split()[0] for statement in seen]


def test_status_check_is_one_indexed_lookup(client, make_ticket, statements):
    number = make_ticket().ticket_number
    with statements() as seen:
        assert client.get(f"/api/guard/unblock-tickets/check/{number}").status_code == 200
    assert kinds(seen) == ["SELECT"], seen


def test_submit_is_the_insert_plus_the_ceiling_and_the_block_it_records(client, statements):
    with statements() as seen:
        assert submit_ticket(client, device="d1").status_code == 201
    assert kinds(seen).count("INSERT") == 3 and "UPDATE" not in kinds(seen)
    # ceiling count, block lookup, the ticket's INSERT (ON CONFLICT DO NOTHING: no savepoint);
    # the private link's hash and the confirmation e-mail (one INSERT each)
    assert_budget(seen, 5)
    assert not any(statement.startswith(("SAVEPOINT", "RELEASE")) for statement in seen), seen


def test_the_cooldown_answer_comes_from_the_constraint(client, statements):
    submit_ticket(client, device="d1")
    with statements() as seen:
        assert submit_ticket(client, device="d1").status_code == 429
    assert_budget(seen, 4)  # ceiling count, block lookup, the refused INSERT, the caller's own ticket
    assert kinds(seen).count("INSERT") == 1 and "ROLLBACK" not in kinds(seen), seen


def test_form_submit_costs_what_the_json_submit_costs(app, statements):
    browser = app.test_client()
    token = csrf_token(browser, "/banding")
    form = {"csrf_token": token, "name": "Rina", "email": "rina@example.com", "reason": "Alasan."}
    with statements() as seen:
        assert browser.post("/banding", data=form).status_code == 303
    assert_budget(seen, 5)


def test_save_my_ip_with_a_bearer_token(client, bearer, statements):
    _, headers = bearer()
    with statements() as seen:
        assert client.post("/api/security/trusted-ips/save-my-ip", json={},
                           headers={**headers, "X-Device-Id": "laptop"}).status_code == 201
    # guard, token with its owner (one join), last-used stamp, find, the insert (ON CONFLICT DO
    # NOTHING: no savepoint), the security notice e-mail
    assert_budget(seen, 6)
    with statements() as seen:
        assert client.post("/api/security/trusted-ips/save-my-ip", json={},
                           headers={**headers, "X-Device-Id": "laptop"}).status_code == 200
    assert_budget(seen, 4)  # guard, token, find, refresh (the stamp is at most once a minute)


def test_save_my_ip_with_the_session_cookie(app, make_user, statements):
    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)
    token = csrf_token(browser, "/akun")
    with statements() as seen:
        assert browser.post("/api/security/trusted-ips/save-my-ip", json={},
                            headers={**JSON, "X-CSRFToken": token, "X-Device-Id": "laptop"}).status_code == 201
    assert_budget(seen, 5)  # guard, session user, find, the insert, the notice e-mail


def test_a_signed_in_page_view_loads_session_and_user_in_one_statement(app, make_user, statements):
    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)
    browser.get("/akun")
    with statements() as seen:
        assert browser.get("/banding").status_code == 200
    # The session joined with its user; last_seen_at is written at most once a minute.
    session_reads = [statement for statement in seen if "user_sessions" in statement]
    assert len(session_reads) == 1 and not any(s.startswith("SELECT users.") for s in seen), seen
    assert set(kinds(seen)) == {"SELECT"} and len(seen) <= 2, seen


def test_a_guarded_page_for_a_client_that_is_not_blocked(client, statements):
    client.get("/")  # the device cookie is handed out once
    with statements() as seen:
        assert client.get("/").status_code == 200
    assert kinds(seen) == ["SELECT"], seen  # the block lookup, nothing else


def test_sign_in(app, make_user, statements):
    user = make_user()
    with app.app_context():  # a holder who signed in before: the language they read is noted already
        db.session.execute(update(User).where(User.id == user.id).values(language="id"))
        db.session.commit()
    browser = app.test_client()
    token = csrf_token(browser, "/masuk")
    with statements() as seen:
        response = browser.post("/masuk", data={"csrf_token": token, "email": user.email,
                                                "password": "kata-sandi-rahasia-123"})
    assert response.status_code == 303
    assert kinds(seen).count("INSERT") == 2  # the sign-in history row, the server-side session
    # guard, the account, "a browser this account knows?" (its device cookie), the throttle's first
    # look before any hash, the throttle (a lock, then the account's recent wrong passwords),
    # "first sign-in?", the history row, the session
    assert_budget(seen, 9)
