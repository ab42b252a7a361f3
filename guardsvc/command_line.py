"""The ``guardsvc`` command: the application's CLI with a help text that says what it is."""
from flask.cli import FlaskGroup

from guardsvc import create_app

HELP = """guardsvc decides who is trusted and gives blocked people a fair way back in.

It blocks IPs, CIDR ranges and devices, takes appeals (tickets TKT-XXXXXXXX)
from the people it blocks, and remembers the devices signed-in users trust.
These commands are for the operator: accounts and tokens, blocks and allow
entries, tickets, the mail queue and the database schema. Settings come from
GUARDSVC_* environment variables (see the README).

Every command also runs as `flask --app guardsvc COMMAND`.
"""

main = FlaskGroup(name="guardsvc", create_app=create_app, help=HELP, add_version_option=False)
