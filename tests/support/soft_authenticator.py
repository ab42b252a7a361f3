"""A software authenticator: real WebAuthn responses made in Python, for tests without a browser.

It keeps one EC P-256 key per credential and answers the options the service
hands out the way a browser and a platform authenticator would: "none"
attestation at registration, an ECDSA signature over
``authenticatorData || SHA-256(clientDataJSON)`` at authentication.
"""
import base64
import hashlib
import json
import os
import struct
from dataclasses import dataclass, field

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, BE, BS, AT = 0x01, 0x04, 0x08, 0x10, 0x40


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class SoftCredential:
    credential_id: bytes
    key: ec.EllipticCurvePrivateKey
    rp_id: str
    user_handle: bytes
    sign_count: int = 0

    @property
    def id(self):
        return b64url(self.credential_id)

    def cose_public_key(self):
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"),
                            -3: numbers.y.to_bytes(32, "big")})


@dataclass
class SoftAuthenticator:
    """``origin``: the page the "browser" is on; ``user_verified``: whether it checks a PIN or biometrics."""

    origin: str
    user_verified: bool = True
    credentials: list = field(default_factory=list)

    def _client_data(self, kind, challenge, origin):
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin or self.origin,
                           "crossOrigin": False}).encode()

    def _flags(self, *extra):
        flags = UP | BE | BS
        if self.user_verified:
            flags |= UV
        for value in extra:
            flags |= value
        return flags

    def create(self, options, *, origin=None, rp_id=None, again=None):
        """Answer registration options (a dict as the service sends them) like ``credentials.create()``.

        ``again``: offer that existing credential once more (an authenticator ignoring the exclusion list).
        """
        rp_id = rp_id or options["rp"]["id"]
        credential = again or SoftCredential(os.urandom(32), ec.generate_private_key(ec.SECP256R1()), rp_id,
                                             unb64url(options["user"]["id"]))
        if again is None:
            self.credentials.append(credential)
        auth_data = (hashlib.sha256(rp_id.encode()).digest() + bytes([self._flags(AT)])
                     + struct.pack(">I", credential.sign_count) + bytes(16)
                     + struct.pack(">H", len(credential.credential_id)) + credential.credential_id
                     + credential.cose_public_key())
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", options["challenge"], origin)
        return {"id": credential.id, "rawId": credential.id, "type": "public-key",
                "authenticatorAttachment": "platform", "clientExtensionResults": {},
                "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation),
                             "transports": ["internal", "hybrid"]}}

    def get(self, options, *, credential=None, origin=None, sign_count=None):
        """Answer authentication options like ``credentials.get()``, with ``credential`` (default: the last one).

        ``sign_count`` forces the counter the authenticator reports (else it counts up by one).
        """
        credential = credential or self.credentials[-1]
        credential.sign_count = credential.sign_count + 1 if sign_count is None else sign_count
        auth_data = (hashlib.sha256(credential.rp_id.encode()).digest() + bytes([self._flags()])
                     + struct.pack(">I", credential.sign_count))
        client_data = self._client_data("webauthn.get", options["challenge"], origin)
        signature = credential.key.sign(auth_data + hashlib.sha256(client_data).digest(),
                                        ec.ECDSA(hashes.SHA256()))
        return {"id": credential.id, "rawId": credential.id, "type": "public-key",
                "authenticatorAttachment": "platform", "clientExtensionResults": {},
                "response": {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(auth_data),
                             "signature": b64url(signature), "userHandle": b64url(credential.user_handle)}}
