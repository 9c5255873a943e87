"""The child process that runs grep_search's Python ``re`` fallback; stdlib only, run as a script.

Python's backtracking engine can take exponential time on patterns like ``(a+)+$(?=b)``, and a
search in a thread cannot be interrupted. In this process it can: ``regex_fallback`` kills it when
a file exceeds its time budget. Protocol, one JSON object per line: the first line on stdin is
``{"pattern", "line_chars", "max_bytes"}`` (answered ``{"ready": true}``), then each request
``{"path", "max"}`` gets one reply ``{"hits": [[line_number, text], …]}`` or ``{"error": message}``.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys

CPU_SECONDS = 60
"""A lifetime CPU cap: if the parent dies without killing us, a runaway search still ends."""


def _read(path: str, max_bytes: int) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        chunks, left = [], max_bytes
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _search(regex: re.Pattern[str], text: str, limit: int, line_chars: int) -> list[list[object]]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline ending the last line does not start another
    hits: list[list[object]] = []
    for number, line in enumerate(lines, 1):
        line = line.rstrip("\r")
        if regex.search(line):
            hits.append([number, line[:line_chars]])
            if len(hits) >= limit:
                break
    return hits


def main() -> None:
    try:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        soft = CPU_SECONDS if hard == resource.RLIM_INFINITY else min(CPU_SECONDS, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    except (ImportError, ValueError, OSError):
        pass
    header = json.loads(sys.stdin.readline())
    regex = re.compile(header["pattern"])
    sys.stdout.write('{"ready": true}\n')
    sys.stdout.flush()
    for request_line in sys.stdin:
        request = json.loads(request_line)
        try:
            text = _read(request["path"], header["max_bytes"]).decode("utf-8", errors="replace")
            reply: dict[str, object] = {"hits": _search(regex, text, request["max"], header["line_chars"])}
        except OSError as error:
            reply = {"error": str(error)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
