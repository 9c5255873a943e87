"""Images in tool results: recognised, checked, and never left in the text as base64.

Every tool outcome passes ``apply_image_policy`` in the executor: base64 image payloads found in the
text (``data:`` URIs, long base64 runs that decode to PNG/JPEG/GIF/WebP) are cut out and become
image parts; other long base64 runs of binary data are cut out and described. Then ``[tools]
images`` decides: ``"auto"`` sends the parts to the model as image input, ``"off"`` replaces them
with a note. The model's context never receives base64 text.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Literal

from quorum.domain.tools import IMAGE_MEDIA_TYPES, ImagePart, ToolResult, human_size

ImagesMode = Literal["auto", "off"]

MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""The largest image sent (Anthropic's per-image limit; OpenAI's is higher)."""

MAX_IMAGES = 20
"""At most this many images per tool result; the rest are described."""

MIN_BASE64_RUN = 512
"""Shorter base64-looking runs are left alone (ids, hashes, tokens)."""

_DATA_URI = re.compile(r"data:([A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+)?((?:;[A-Za-z0-9=.+-]+)*);base64,([A-Za-z0-9+/_-]+=*)")
_BASE64_RUN = re.compile(rf"[A-Za-z0-9+/]{{{MIN_BASE64_RUN},}}={{0,2}}")
_HEX = re.compile(r"[0-9a-fA-F]+")


def sniff_image(data: bytes) -> str | None:
    """The media type ``data`` starts like (PNG, JPEG, GIF, WebP), or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(data) >= 12 and data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def decode_base64(text: str) -> bytes | None:
    """Standard or URL-safe base64 (padding optional) as bytes, or None when it is not base64."""
    cleaned = "".join(text.split())
    cleaned += "=" * (-len(cleaned) % 4)
    try:
        if "-" in cleaned or "_" in cleaned:
            return base64.urlsafe_b64decode(cleaned)
        return base64.b64decode(cleaned, validate=True)
    except (binascii.Error, ValueError):
        return None


def image_part(data: str, media_type: str | None) -> tuple[ImagePart | None, str]:
    """An image a tool declared (base64 ``data`` of ``media_type``) as a sendable part, or why not.

    Returns ``(part, description)``: the part is None when the data is not base64, is not one of
    the image types models accept (judged by the bytes, not the declared type, which servers get
    wrong), or is over ``MAX_IMAGE_BYTES``; the description then says so.
    """
    declared = (media_type or "unknown type").lower()
    raw = decode_base64(data)
    if raw is None:
        return None, f"[image: {declared}, not valid base64, not shown]"
    sniffed = sniff_image(raw)
    if sniffed is None:
        accepted = ", ".join(t.removeprefix("image/").upper() for t in IMAGE_MEDIA_TYPES)
        return None, f"[image: {declared}, {human_size(len(raw))}, not shown: models accept {accepted} images]"
    if len(raw) > MAX_IMAGE_BYTES:
        limit = human_size(MAX_IMAGE_BYTES)
        return None, f"[image: {sniffed}, {human_size(len(raw))}, not shown: larger than {limit}]"
    part = ImagePart(media_type=sniffed, data=base64.b64encode(raw).decode("ascii"), size=len(raw))
    return part, part.describe()


def extract_images(text: str) -> tuple[str, list[ImagePart]]:
    """``text`` with base64 payloads cut out, and the images among them.

    ``data:`` URIs with a base64 payload and base64 runs of at least ``MIN_BASE64_RUN`` characters
    are examined: an image becomes a part and its description replaces it; other binary data is
    replaced by ``[base64 data: N KB, removed]``; a run that decodes to text (or is plain hex) stays.
    """
    images: list[ImagePart] = []

    def replace_uri(match: re.Match[str]) -> str:
        media_type = match.group(1)
        payload = match.group(3)
        raw = decode_base64(payload)
        if raw is None:
            return match.group(0)
        if sniff_image(raw) is not None:
            part, description = image_part(payload, media_type)
            if part is not None:
                images.append(part)
            return description
        if len(payload) < MIN_BASE64_RUN and _is_text(raw):
            return match.group(0)
        return f"[data: {media_type or 'unknown type'}, {human_size(len(raw))}, base64 removed]"

    def replace_run(match: re.Match[str]) -> str:
        run = match.group(0)
        if _HEX.fullmatch(run):
            return run
        raw = decode_base64(run)
        if raw is None or _is_text(raw):
            return run
        if sniff_image(raw) is not None:
            part, description = image_part(run, None)
            if part is not None:
                images.append(part)
            return description
        if not _looks_encoded(run):  # a long word of a few letters ("qqqq…", "abab…") is text, not data
            return run
        return f"[base64 data: {human_size(len(raw))}, removed]"

    if "base64," in text:
        text = _DATA_URI.sub(replace_uri, text)
    if len(text) >= MIN_BASE64_RUN:
        text = _BASE64_RUN.sub(replace_run, text)
    return text, images


def apply_image_policy(outcome: ToolResult, mode: ImagesMode) -> ToolResult:
    """``outcome`` as the model may receive it under ``[tools] images = mode``.

    Base64 images in the text become parts (``extract_images``); parts appearing twice (a server
    putting one image in its content and its structured content) are kept once; beyond
    ``MAX_IMAGES`` they are dropped with a note. With ``"off"`` no part is kept and a note says so.
    """
    text, found = extract_images(outcome.output)
    images: list[ImagePart] = []
    seen: set[str] = set()
    for part in (*outcome.images, *found):
        if part.data not in seen:
            seen.add(part.data)
            images.append(part)
    notes: list[str] = []
    if len(images) > MAX_IMAGES:
        notes.append(f"[{len(images) - MAX_IMAGES} more images not shown: at most {MAX_IMAGES} per result]")
        images = images[:MAX_IMAGES]
    if images and mode == "off":
        notes.append(f'[{_count(len(images))} not shown to the model: [tools] images = "off"]')
        images = []
    if notes:
        text = f"{text}\n" + "\n".join(notes)
    if text == outcome.output and tuple(images) == outcome.images:
        return outcome
    return outcome.model_copy(update={"output": text, "images": tuple(images)})


def _count(n: int) -> str:
    return "1 image" if n == 1 else f"{n} images"


def _looks_encoded(run: str) -> bool:
    """Whether a base64-alphabet run has the spread of encoded binary data.

    Encoded bytes use most of the alphabet: upper and lower case letters and digits, and dozens of
    distinct characters over a run of ``MIN_BASE64_RUN``. Text that merely avoids punctuation
    (one letter repeated, a long identifier) does not, and is left for the model to read.
    """
    kinds = (any(c.isupper() for c in run), any(c.islower() for c in run), any(c.isdigit() for c in run))
    return all(kinds) and len(set(run)) >= 32


def _is_text(raw: bytes) -> bool:
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(c.isprintable() or c in "\n\r\t" for c in decoded)
