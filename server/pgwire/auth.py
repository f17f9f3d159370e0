"""Authentication exchanges: trust, cleartext (R3), md5 (R5) and SCRAM-SHA-256 (R10-R12).

Like the rest of pgwire's protocol this is a state machine without I/O:
`start()` returns the first request to send and `step(payload)` consumes each
client reply ('p' message payload), returning the next bytes and whether the
exchange is finished. A failure raises `InvalidPassword` (28P01) with FATAL
severity, which ends the connection before any session exists.

Stored verifiers (`RoleInfo.password`) come in PostgreSQL's formats:
`SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, `md5<hex>` (md5 of
password + user name), or a plain password. As in PostgreSQL, an md5 request
for a role with a SCRAM verifier upgrades to SCRAM, and the user name inside
the SCRAM client-first message is ignored (libpq sends `n=`): the startup user
is the one authenticated. `-PLUS` channel binding is never offered.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from typing import Any

from scramp import ScramException, ScramMechanism

from ..errors import (
    InvalidAuthorizationSpecification,
    InvalidPassword,
    ProtocolViolation,
    SQLError,
)
from . import messages as M
from .backend import RoleInfo

METHODS = ("trust", "password", "md5", "scram")
_SCRAM = ScramMechanism("SCRAM-SHA-256")


def md5_verifier(user: str, password: str) -> str:
    """Returns PostgreSQL's md5 verifier for a password ('md5' + md5(password + user))."""
    return "md5" + hashlib.md5((password + user).encode()).hexdigest()


def scram_verifier(password: str, iterations: int = 4096) -> str:
    """Returns a SCRAM-SHA-256 verifier in PostgreSQL's pg_authid format."""
    salt, stored, server, it = _SCRAM.make_auth_info(password, iteration_count=iterations)
    b64 = base64.b64encode
    return f"SCRAM-SHA-256${it}:{b64(salt).decode()}${b64(stored).decode()}:{b64(server).decode()}"


def _parse_scram(verifier: str) -> tuple[bytes, bytes, bytes, int] | None:
    try:
        _, params, keys = verifier.split("$")
        it, salt = params.split(":")
        stored, server = keys.split(":")
        b64 = base64.b64decode
        return b64(salt), b64(stored), b64(server), int(it)
    except ValueError:
        return None


def check_cleartext(role: RoleInfo, password: str) -> bool:
    """Tells whether a cleartext password matches the role's stored verifier."""
    stored = role.password
    if stored is None or not password:
        return False
    if stored.startswith("SCRAM-SHA-256$"):
        info = _parse_scram(stored)
        if info is None:
            return False
        salt, stored_key, _, it = info
        salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, it)
        client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
        return hmac.compare_digest(hashlib.sha256(client_key).digest(), stored_key)
    if stored.startswith("md5") and len(stored) == 35:
        return hmac.compare_digest(md5_verifier(role.name, password), stored)
    return hmac.compare_digest(stored.encode(), password.encode())


def auth_failed(user: str) -> SQLError:
    """Returns the FATAL 28P01 error PostgreSQL sends for a failed password."""
    return InvalidPassword(f'password authentication failed for user "{user}"', severity="FATAL")


class Authenticator:
    """One client's authentication exchange for `user` (role None: it does not exist)."""

    def __init__(self, method: str, user: str, role: RoleInfo | None) -> None:
        if method not in METHODS:
            raise ValueError(f"unknown auth method {method!r}")
        self.user = user
        self.role = role
        stored = role.password if role else None
        if method == "md5" and stored and stored.startswith("SCRAM-SHA-256$"):
            method = "scram"  # PostgreSQL upgrades md5 to SCRAM for SCRAM verifiers
        self.method = method
        self._salt = b""
        self._scram: Any = None
        self._stage = 0

    def start(self) -> tuple[bytes, bool]:
        """Returns the first message to send and whether authentication is already complete."""
        if self.method == "trust":
            self._check_role()
            return M.AUTH_OK, True
        if self.method == "password":
            return M.AUTH_CLEARTEXT, False
        if self.method == "md5":
            self._salt = os.urandom(4)
            return M.auth_md5(self._salt), False
        return M.AUTH_SASL, False

    def step(self, payload: bytes) -> tuple[bytes, bool]:
        """Consumes one PasswordMessage/SASL payload; returns the reply and whether it is done."""
        if self.method == "password":
            password = M.cstr(payload, 0)[0] if payload else ""
            if self.role is None or not check_cleartext(self.role, password):
                raise auth_failed(self.user)
            self._check_role()
            return M.AUTH_OK, True
        if self.method == "md5":
            return self._md5(payload)
        return self._sasl(payload)

    def _check_role(self) -> None:
        if self.role is None:
            raise InvalidAuthorizationSpecification(
                f'role "{self.user}" does not exist', severity="FATAL")
        if not self.role.can_login:
            raise InvalidAuthorizationSpecification(
                f'role "{self.user}" is not permitted to log in', severity="FATAL")

    def _md5(self, payload: bytes) -> tuple[bytes, bool]:
        got = M.cstr(payload, 0)[0] if payload else ""
        stored = self.role.password if self.role else None
        if stored is None:
            raise auth_failed(self.user)
        if not (stored.startswith("md5") and len(stored) == 35):
            stored = md5_verifier(self.user, stored)
        want = "md5" + hashlib.md5(stored[3:].encode() + self._salt).hexdigest()
        if not hmac.compare_digest(got.encode(), want.encode()):
            raise auth_failed(self.user)
        self._check_role()
        return M.AUTH_OK, True

    def _auth_info(self, _username: str) -> tuple[bytes, bytes, bytes, int]:
        stored = self.role.password if self.role else None
        if stored and stored.startswith("SCRAM-SHA-256$"):
            info = _parse_scram(stored)
            if info is not None:
                return info
        elif stored and not (stored.startswith("md5") and len(stored) == 35):
            return _SCRAM.make_auth_info(stored, iteration_count=4096)
        # NB: no usable verifier: run the exchange with a random one so it fails at the proof
        return _SCRAM.make_auth_info(os.urandom(16).hex(), iteration_count=4096)

    def _sasl(self, payload: bytes) -> tuple[bytes, bool]:
        try:
            if self._stage == 0:
                mech, first = M.read_sasl_initial(payload)
                if mech != "SCRAM-SHA-256":
                    raise ProtocolViolation(
                        "selected SASL authentication mechanism is not supported",
                        severity="FATAL")
                self._scram = _SCRAM.make_server(self._auth_info)
                text = first.decode()
                cut = text.index(",", text.index(",") + 1) + 1  # past the GS2 header
                header, bare = text[:cut], text[cut:]
                if bare.startswith("n=,"):
                    # NB: libpq sends an empty SCRAM user name, which scramp rejects; parse
                    # with a placeholder, then restore the bare message the client signed,
                    # because the proof covers its exact bytes.
                    self._scram.set_client_first(header + "n=*" + bare[2:])
                    self._scram.client_first_bare = bare
                else:
                    self._scram.set_client_first(text)
                self._stage = 1
                return M.auth_sasl_continue(self._scram.get_server_first().encode()), False
            self._scram.set_client_final(payload.decode())
            final = self._scram.get_server_final().encode()
        except (ScramException, UnicodeDecodeError, ValueError):
            raise auth_failed(self.user) from None
        if self.role is None:
            raise auth_failed(self.user)
        self._check_role()
        return M.auth_sasl_final(final) + M.AUTH_OK, True
