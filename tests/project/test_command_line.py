"""The ``guardsvc`` command says what it is and carries every application command."""
from click.testing import CliRunner

from guardsvc.command_line import main


def test_help_says_what_guardsvc_is_and_lists_the_commands():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.output
    assert "decides who is trusted" in result.output
    for command in ("allows", "blocks", "db", "mail", "tickets", "tokens", "users"):
        assert f"\n  {command} " in result.output
