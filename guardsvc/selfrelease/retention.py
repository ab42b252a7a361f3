"""What self-release forgets, and when (``flask purge``, guardsvc.retention)."""
from datetime import timedelta

from sqlalchemy import delete, update

from guardsvc.extensions import db
from guardsvc.retention.service import Rule
from guardsvc.selfrelease.models import SelfRelease, UsedProof


def _used_proofs_due(now, config):
    """A used proof's challenge has expired: it is refused as expired from then on, the row has no use."""
    return (UsedProof.expires_at < now,)


def _delete_used_proofs(digests, now):
    db.session.execute(delete(UsedProof).where(UsedProof.digest.in_(digests)).execution_options(
        synchronize_session=False))


def _self_release_addresses_due(now, config):
    """A release's address and device keys, once neither its cooldown nor the retention period needs them.

    The row stays (without them) for the desk's figures."""
    days = max(config["RETENTION_DAYS"], config["SELF_RELEASE_COOLDOWN_DAYS"])
    return (SelfRelease.ip_address.is_not(None), SelfRelease.created_at < now - timedelta(days=days))


def _erase_self_release_addresses(ids, now):
    db.session.execute(update(SelfRelease).where(SelfRelease.id.in_(ids))
                       .values(ip_address=None, address_key=None, device_key=None)
                       .execution_options(synchronize_session=False))


RULES = (
    Rule("used self-release proofs deleted", UsedProof, _used_proofs_due, _delete_used_proofs),
    Rule("self-release addresses erased", SelfRelease, _self_release_addresses_due, _erase_self_release_addresses),
)
