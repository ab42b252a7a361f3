"""JSON door of self-release: a challenge, then the release it proves."""
from flask import Blueprint

from guardsvc import messages
from guardsvc.accounts.auth import public_json
from guardsvc.selfrelease import service
from guardsvc.selfrelease.limits import self_release_limit
from guardsvc.selfrelease.schemas import ChallengeSchema, ReleasedSchema, ReleaseRequestSchema
from guardsvc.web.doors import json_door, never_guarded
from guardsvc.web.identity import client_ip, current_client
from guardsvc.web.jsonio import json_body, ok
from guardsvc.web.schema_fields import load_or_raise

# Blocked clients are who calls it: never guarded.
bp = never_guarded(json_door(Blueprint("self_release_api", __name__, url_prefix="/api/guard/self-release")))
REQUEST_SCHEMA = ReleaseRequestSchema()


@bp.get("/challenge")
@self_release_limit
def challenge():
    """A proof-of-work challenge for the calling client (address and device) and its blocks."""
    issued, expires_at = service.issue_challenge(current_client())
    return ok(data=ChallengeSchema().dump({"challenge": issued, "expires_at": expires_at}))


@bp.post("")
@public_json
@self_release_limit
def release():
    """Release the calling client by a solved challenge: an exact, temporary allow entry."""
    data = load_or_raise(REQUEST_SCHEMA, json_body())
    released = service.release_client(current_client(), data["altcha"], origin_ip=client_ip())
    return ok(201, message=messages.SELF_RELEASE_DONE, data=ReleasedSchema().dump(released))
