"""Shapes of self-release requests and answers."""
from marshmallow import fields

from guardsvc import messages
from guardsvc.selfrelease.proof import PAYLOAD_MAX
from guardsvc.web.schema_fields import Base64, BaseSchema, Timestamp


class ReleaseRequestSchema(BaseSchema):
    """A solved challenge: the ALTCHA payload (base64 JSON of the challenge and its solution)."""

    altcha = Base64(required=True, max_length=PAYLOAD_MAX, error=messages.SELF_RELEASE_PROOF_MALFORMED,
                    metadata={"description": "Base64 (standard, with its `=` padding) of the JSON "
                                             "`{challenge, solution: {counter, derivedKey}}`, as the ALTCHA widget "
                                             "sends it. What it proves is checked on arrival: a proof that is not "
                                             "valid, has expired or was made for another client is refused with "
                                             "403, text that is not base64 with 422."})


CHALLENGE_SHAPE = {
    "type": "object", "required": ["parameters", "signature"],
    "description": "ALTCHA PoW v2 (`Challenge.from_dict` reads it): `parameters` (algorithm, nonce, salt, cost, "
                   "keyLength, keyPrefix, keySignature, expiresAt, data) and their `signature`.",
    "properties": {"parameters": {"type": "object", "additionalProperties": True},
                   "signature": {"type": "string"}}}


class ChallengeSchema(BaseSchema):
    """A challenge for the calling client and the blocks it would release."""

    challenge = fields.Dict(metadata=CHALLENGE_SHAPE)
    expires_at = Timestamp()


class ReleasedSchema(BaseSchema):
    """What a release opened: until when, and which blocks."""

    allowed_until = Timestamp()
    references = fields.List(fields.String())
