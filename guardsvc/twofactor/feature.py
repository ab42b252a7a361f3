"""Two-step verification: ``flask twofactor`` and ``flask users reset-2fa``."""
from guardsvc import messages
from guardsvc.features import Feature
from guardsvc.twofactor.cli import twofactor_cli  # also adds ``users reset-2fa`` to the accounts' group

FEATURE = Feature("twofactor", commands=(twofactor_cli,),
                  audit_actions={"user.2fa_reset": messages.AUDIT_USER_2FA_RESET})
