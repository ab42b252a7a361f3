"""Shapes of self-release requests and answers."""
from marshmallow import fields

from guardsvc.selfrelease.proof import PAYLOAD_MAX
from guardsvc.web.schema_fields import BaseSchema, Text, Timestamp


class ReleaseRequestSchema(BaseSchema):
    """A solved challenge: the ALTCHA payload (base64 JSON of the challenge and its solution)."""

    altcha = Text(required=True, max_length=PAYLOAD_MAX,
                  metadata={"description": "Base64 JSON `{challenge, solution: {counter, derivedKey}}`, "
                                           "as the ALTCHA widget sends it."})


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
