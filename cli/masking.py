"""Masking what is or may be a secret before ``config show`` prints the configuration.

A value is masked when its key says it is secret (``api_key``, ``token``, ``password``…), when it
sits in a table whose values are credentials by nature (``headers``, an ``env`` table, the
variables ``command_env`` sets), or when the text itself carries one: the password in a URL's
user info (``https://user:***@host``), a secret-looking query parameter, a ``Bearer`` token, or
an ``args`` item such as ``--token=…``, ``--password …`` or ``DB_PASS=…``. Being wrong the safe
way is cheap here (a masked port number), the other way is not.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import SplitResult, parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "********"

_SECRET_WORD = re.compile(r"(?i)key|token|secret|passw|pwd|auth|credential|cookie|signature|sig$")
"""Names that say a value is secret (key names, flag names, variable and query parameter names)."""
_SECRET_VARIABLE = re.compile(r"(?i)pass$|_pw$")
"""More variable names that hold passwords (``DB_PASS``); as a config key ``pass`` lists names."""
_VALUE_TABLES = frozenset({"headers", "env", "set"})
"""Tables whose every value is masked: HTTP headers, child environments, ``command_env.set``."""
_FLAG = re.compile(r"^(-{1,2})([A-Za-z][\w.-]*)(?:=(.*))?$", re.DOTALL)
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.+)$", re.DOTALL)
_BEARER = re.compile(r"(?i)\b(bearer|basic|token)(\s+)\S+")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")
_SHORT_PASSWORD_FLAG = "-p"
"""``-p`` is a password for some tools (mysql, sshpass) and a port or a switch for others: its value
is masked unless it is a number."""


def mask_config(value: Any, key: str = "") -> Any:
    """``value`` (plain JSON data) with every secret or possibly secret value masked."""
    if isinstance(value, dict):
        whole = key.lower() in _VALUE_TABLES
        return {k: (_mask_all(v) if whole else mask_config(v, str(k))) for k, v in value.items()}
    if isinstance(value, list):
        if key.lower() == "args":
            return mask_args([str(v) for v in value]) if all(isinstance(v, str) for v in value) else value
        return [mask_config(v, key) for v in value]
    if isinstance(value, str) and value:
        lowered = key.lower()
        if _SECRET_WORD.search(lowered) and not lowered.endswith("_env"):  # api_key_env names a variable
            return MASK
        return mask_text(value)
    return value


def _mask_all(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _mask_all(v) for k, v in value.items()}
    return MASK if value not in (None, "") else value


def mask_args(args: list[str]) -> list[str]:
    """Command-line arguments with credential values masked.

    ``--token=V`` / ``--password V`` (any long flag whose name looks secret), ``NAME=V`` with a
    secret-looking name, ``-p V`` unless ``V`` is a number, ``-pV`` when ``V`` is neither a number
    nor a word, and secrets inside URLs.
    """
    masked: list[str] = []
    mask_next = False
    for position, arg in enumerate(args):
        if mask_next:
            masked.append(MASK)
            mask_next = False
            continue
        following = args[position + 1] if position + 1 < len(args) else ""
        if arg.startswith(_SHORT_PASSWORD_FLAG) and _looks_like_password(arg[2:]):
            masked.append(_SHORT_PASSWORD_FLAG + MASK)
            continue
        flag = _FLAG.match(arg)
        if flag is not None:
            dashes, name, attached = flag.groups()
            if dashes == "-" and name == "p" and attached is None:
                mask_next = bool(following) and not following.isdigit()
                masked.append(arg)
                continue
            if len(dashes) == 2 and _SECRET_WORD.search(name):
                if attached is None:
                    mask_next = bool(following) and not following.startswith("-")
                    masked.append(arg)
                else:
                    masked.append(f"--{name}={MASK}")
                continue
        assignment = _ASSIGNMENT.match(arg)
        if assignment is not None and _secret_variable(assignment.group(1)):
            masked.append(f"{assignment.group(1)}={MASK}")
            continue
        masked.append(mask_text(arg))
    return masked


def _looks_like_password(attached: str) -> bool:
    """``-pS3cret!`` (mysql) but not ``-p3306`` (a port) nor ``-print``/``-prune`` (find)."""
    return bool(attached) and not attached.isdigit() and not attached.isalpha()


def _secret_variable(name: str) -> bool:
    return bool(_SECRET_WORD.search(name) or _SECRET_VARIABLE.search(name))


def mask_text(text: str) -> str:
    """``text`` with secrets inside URLs and ``Bearer``/``Basic`` tokens masked."""
    text = _URL.sub(lambda m: mask_url(m.group(0)), text)
    return _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)


def mask_url(url: str) -> str:
    """``https://user:pass@host/?token=t`` → ``https://user:********@host/?token=********``.

    A user name alone is masked too: ``https://TOKEN@host`` is how many services take a token.
    """
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  # raises on a malformed port: then mask the whole user info below
    except ValueError:
        return re.sub(r"//[^/@]*@", f"//{MASK}@", url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, sep, _password = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if sep else f"{MASK}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_SECRET_WORD.search(name) for name, _ in pairs):
            query = urlencode([(n, MASK if _SECRET_WORD.search(n) else v) for n, v in pairs], safe="*")
    return urlunsplit(SplitResult(parts.scheme, netloc, parts.path, query, parts.fragment))
