"""Import every model so the metadata (and Alembic) sees all tables."""
from guardsvc.accounts.models import ApiToken, PasswordReset, User  # noqa: F401
from guardsvc.appeals.models import UnblockTicket  # noqa: F401
from guardsvc.appeals.conversation_models import ResponseTemplate, TicketMessage, TicketSecret  # noqa: F401
from guardsvc.blocks.models import Block  # noqa: F401
from guardsvc.trust.models import TrustedIp  # noqa: F401
from guardsvc.outbox.models import OutboxMessage  # noqa: F401
from guardsvc.signin.models import EmailVerification, LoginEvent  # noqa: F401
from guardsvc.twofactor.models import RecoveryCode  # noqa: F401
from guardsvc.audit.models import AuditEvent  # noqa: F401
from guardsvc.sessions.models import UserSession  # noqa: F401
from guardsvc.crowdsec.models import Bouncer, DecisionDeletion, SentDecision  # noqa: F401
from guardsvc.webhooks.models import HookDelivery, WebhookEndpoint  # noqa: F401
from guardsvc.passkeys.models import Passkey, PasskeyChallenge  # noqa: F401
from guardsvc.selfrelease.models import ReleaseGate, ReleasedBlock, SelfRelease, UsedProof  # noqa: F401
from guardsvc.nodes.models import FleetKey, Node  # noqa: F401
from guardsvc.storage.revisions import SchemaRequirement  # noqa: F401
