"""Capping tool output: every source cuts at the same byte budget and says how much it cut."""

from __future__ import annotations


def cap_text(text: str, limit_bytes: int) -> str:
    """``text`` cut to at most ``limit_bytes`` UTF-8 bytes, plus a note when anything was cut.

    The cut never splits a multi-byte character; the note gives the bytes kept and the bytes cut so
    the model knows the output is partial and can ask for a narrower slice.
    """
    data = text.encode("utf-8")
    if len(data) <= limit_bytes:
        return text
    kept = data[:limit_bytes].decode("utf-8", errors="ignore")
    kept_bytes = len(kept.encode("utf-8"))
    cut = len(data) - kept_bytes
    return f"{kept}\n[output truncated: showed {kept_bytes} of {len(data)} bytes, {cut} cut]"
