"""Passkeys (WebAuthn): add, name, list and remove them; the ceremonies that create and use them.

Built on the ``webauthn`` library (py_webauthn), which checks the origin, the
relying party id, the challenge and the signatures. Signing in with a passkey
is drawn by the signin feature, which calls this package's service; this
package never imports signin.
Imports the layers below (storage, web, cli) and the accounts feature's services.
"""
