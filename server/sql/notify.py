"""LISTEN / UNLISTEN / NOTIFY: asynchronous notifications between sessions of one query engine.

As in PostgreSQL, NOTIFY is transactional: inside a transaction block the
notifications are queued and delivered when it commits (dropped if it rolls
back), duplicates of one (channel, payload) within a transaction are sent
once, and a session also receives its own notifications. Delivery appends
(sender pid, channel, payload) to each listening session's inbox; pgwire takes
them with `SQLSession.take_notifications()` and sends NotificationResponse
messages before the next ReadyForQuery.
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Any

from ..errors import InvalidParameterValue, SyntaxError_
from ..pgwire.backend import Result
from .parse import unquote_ident

if TYPE_CHECKING:
    from .session import SQLSession

_LISTEN = re.compile(r"\s*(?P<verb>LISTEN|UNLISTEN|NOTIFY)\s+(?P<rest>.*?)\s*;?\s*$", re.I | re.S)
_NOTIFY = re.compile(r"(?P<chan>\"(?:[^\"]|\"\")+\"|[A-Za-z_][\w$]*)\s*"
                     r"(?:,\s*(?P<payload>E?'(?:[^']|'')*'))?$", re.S)
MAX_PAYLOAD = 8000


class Notifier:
    """The engine-wide registry of listening sessions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: dict[str, set[Any]] = {}

    def listen(self, session: Any, channel: str) -> None:
        with self._lock:
            self._listeners.setdefault(channel, set()).add(session)

    def unlisten(self, session: Any, channel: str | None) -> None:
        with self._lock:
            for chan, sessions in list(self._listeners.items()):
                if channel is None or chan == channel:
                    sessions.discard(session)
                    if not sessions:
                        del self._listeners[chan]

    def channels_of(self, session: Any) -> list[str]:
        """The channels `session` listens on, sorted (pg_listening_channels)."""
        with self._lock:
            return sorted(c for c, sessions in self._listeners.items() if session in sessions)

    def deliver(self, sender_pid: int, items: list[tuple[str, str]]) -> None:
        with self._lock:
            targets = [(list(self._listeners.get(chan, ())), chan, payload)
                       for chan, payload in items]
        woken = set()
        for sessions, chan, payload in targets:
            for s in sessions:
                s.inbox.append((sender_pid, chan, payload))
                woken.add(s)
        for s in woken:  # NB: outside the lock; pgwire pushes them to an idle connection
            hook = s.notify_hook
            if hook is not None:
                hook()


def notifier(s: SQLSession) -> Notifier:
    """The engine's Notifier (created on first use)."""
    n = s.engine.notifier
    if n is None:
        n = s.engine.notifier = Notifier()
    return n


def queue(s: SQLSession, channel: str, payload: str) -> None:
    """NOTIFY / pg_notify: delivered now outside a transaction block, else at COMMIT."""
    if not channel:
        raise InvalidParameterValue("channel name cannot be empty")
    if len(payload.encode()) >= MAX_PAYLOAD:
        raise InvalidParameterValue("payload string too long")
    item = (channel, payload)
    if s.in_block:
        if item not in s.pending_notifies:
            s.pending_notifies.append(item)
    else:
        notifier(s).deliver(s.backend_pid, [item])


def at_commit(s: SQLSession, committed: bool) -> None:
    """Delivers (or, after a rollback, drops) the transaction's queued notifications."""
    items, s.pending_notifies = s.pending_notifies, []
    if committed and items:
        notifier(s).deliver(s.backend_pid, items)


def run(s: SQLSession, sql: str) -> Result:
    """Executes LISTEN ch, UNLISTEN ch | *, NOTIFY ch [, 'payload']."""
    m = _LISTEN.match(sql)
    if m is None:
        raise SyntaxError_("syntax error at end of input")
    verb, rest = m.group("verb").upper(), m.group("rest").strip()
    if verb == "UNLISTEN":
        channel = None if rest == "*" else unquote_ident(rest)
        notifier(s).unlisten(s, channel)
        return Result("UNLISTEN")
    n = _NOTIFY.match(rest)
    if n is None or (verb == "LISTEN" and n.group("payload")):
        bad = rest.split()[0] if rest else ""
        raise SyntaxError_(f'syntax error at or near "{bad}"' if bad else
                           "syntax error at end of input")
    channel = unquote_ident(n.group("chan"))
    if verb == "LISTEN":
        notifier(s).listen(s, channel)
        return Result("LISTEN")
    lit = n.group("payload")
    payload = ""
    if lit:
        payload = lit[lit.index("'") + 1:-1].replace("''", "'")
    queue(s, channel, payload)
    return Result("NOTIFY")
