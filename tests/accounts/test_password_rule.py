"""The one password rule, as a table, and everywhere it applies (create, change, CLI)."""
import pytest

from guardsvc import messages
from guardsvc.accounts import password_rule
from guardsvc.accounts import service as accounts
from guardsvc.web.errors import ValidationFailed

EMAIL = "Rina.Wati@Example.com"
TOO_SHORT = messages.PASSWORD_TOO_SHORT.format(min=10)

RULE = [
    ("", TOO_SHORT),
    ("pendek123", TOO_SHORT),                          # 9 characters
    ("sepuluh-10", None),                              # exactly 10
    ("x" * 256, None),
    ("x" * 257, messages.FIELD_TOO_LONG.format(max=256)),
    ("rina.wati@example.com", messages.PASSWORD_IS_EMAIL),
    ("RINA.WATI@EXAMPLE.COM", messages.PASSWORD_IS_EMAIL),  # case does not matter
    ("  rina.wati@example.com", None),                 # not the address (the spaces count)
    ("rina.wati@example.com!", None),                  # longer than the address: allowed
    ("1234567890", messages.PASSWORD_TOO_COMMON),
    ("qwertyuiop", messages.PASSWORD_TOO_COMMON),
    ("QwertyUiop", messages.PASSWORD_TOO_COMMON),      # case does not matter
    ("password123", messages.PASSWORD_TOO_COMMON),
    ("1qaz2wsx3edc", messages.PASSWORD_TOO_COMMON),
    ("kuda-laut-biru-2026", None),
    (None, TOO_SHORT),
]


@pytest.mark.parametrize(("password", "problem"), RULE)
def test_rule(password, problem):
    assert password_rule.password_problems(password, EMAIL) == ([problem] if problem else [])


def test_the_local_part_is_refused_when_it_is_long_enough():
    email = "budisantoso@example.com"
    assert password_rule.password_problems("BudiSantoso", email) == [messages.PASSWORD_IS_EMAIL]


def test_the_shipped_list_has_the_ten_thousand_most_common_passwords():
    common = password_rule.common_passwords()
    assert len(common) == 10_000
    assert {"123456", "password", "qwerty", "iloveyou"} <= common


def test_check_names_the_field_it_was_given():
    with pytest.raises(ValidationFailed) as failure:
        password_rule.check_password("1234567890", EMAIL, "new_password")
    assert failure.value.errors == {"new_password": [messages.PASSWORD_TOO_COMMON]}


def test_creating_an_account_applies_the_rule(ctx):
    with pytest.raises(ValidationFailed) as failure:
        accounts.create_user("sari@example.com", "Sari", "sari@example.com", "user")
    assert failure.value.errors == {"password": [messages.PASSWORD_IS_EMAIL]}


def test_the_web_change_applies_the_rule(app, make_user):
    from tests.support.pages_support import post_form, sign_in
    from tests.support.factories import PASSWORD

    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)
    response = post_form(browser, "/akun/kata-sandi", {"current_password": PASSWORD, "new_password": "qwertyuiop",
                                                       "confirmation": "qwertyuiop"}, page="/akun/kata-sandi")
    assert response.status_code == 422
    assert str(messages.PASSWORD_TOO_COMMON) in response.get_data(as_text=True)


@pytest.mark.parametrize("password", ["pendek", "1234567890", "sari@example.com"])
def test_the_command_line_applies_the_rule(runner, password):
    result = runner.invoke(args=["users", "create", "sari@example.com", "--name", "Sari", "--password", password])
    assert result.exit_code == 1
    assert "Traceback" not in result.output and "password:" in result.output
