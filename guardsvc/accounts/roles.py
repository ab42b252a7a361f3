"""Roles, and the named sets of roles that doors admit: one home for who may do what."""

USER = "user"
ADMIN = "admin"
# Host applications: may only ask the host checks, never sign in on the web.
SERVICE = "service"
ROLES = (USER, ADMIN, SERVICE)

# People with an account page: they own trusted devices, tokens, 2FA and a sign-in history.
PEOPLE = (USER, ADMIN)
ADMINS = (ADMIN,)
# Who may ask whether a client is trusted or blocked.
HOST_CHECKERS = (ADMIN, SERVICE)
