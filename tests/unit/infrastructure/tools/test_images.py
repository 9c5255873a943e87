"""The image policy: base64 never stays in tool text; images become parts or notes."""

from __future__ import annotations

import base64
import os

from quorum.domain.tools import ToolResult
from quorum.infrastructure.tools.images import MAX_IMAGES, apply_image_policy, extract_images, image_part

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
JPEG = b"\xff\xd8\xff\xe0" + os.urandom(2000)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_a_long_raw_base64_image_run_becomes_a_part() -> None:
    text, images = extract_images(f"file follows\n{b64(JPEG)}\nend")
    assert text == "file follows\n[image: image/jpeg, 2 KB]\nend"
    assert [(i.media_type, i.size) for i in images] == [("image/jpeg", len(JPEG))]


def test_other_binary_base64_is_removed_and_text_or_hex_stays() -> None:
    blob = b64(b"\x00\x01" + os.urandom(3000))
    hex_run = os.urandom(400).hex()
    wrapped_text = b64(("readable text " * 100).encode())
    text, images = extract_images(f"a {blob} b {hex_run} c {wrapped_text}")
    assert images == []
    assert text.startswith("a [base64 data: 3 KB, removed] b ")
    assert hex_run in text and wrapped_text in text


def test_data_uris_of_non_images_are_described() -> None:
    text, _ = extract_images("pdf: data:application/pdf;base64," + b64(b"%PDF-1.7" + os.urandom(900)))
    assert text == "pdf: [data: application/pdf, 908 bytes, base64 removed]"


def test_declared_types_are_checked_against_the_bytes() -> None:
    part, _ = image_part(b64(PNG), "image/jpeg")  # mislabelled: the bytes say PNG
    assert part is not None and part.media_type == "image/png"
    svg, svg_note = image_part(b64(b"<svg xmlns='http://www.w3.org/2000/svg'/>"), "image/svg+xml")
    assert svg is None and "not shown: models accept PNG, JPEG, GIF, WEBP images" in svg_note
    broken, broken_note = image_part("not base64!", "image/png")
    assert broken is None and "not valid base64" in broken_note


def test_duplicates_are_sent_once_and_the_count_is_capped() -> None:
    part, _ = image_part(b64(PNG), "image/png")
    assert part is not None
    outcome = ToolResult(output=f"[image]\ndata:image/png;base64,{b64(PNG)}", images=(part,))
    assert apply_image_policy(outcome, "auto").images == (part,)
    many = [image_part(b64(PNG + bytes([i])), "image/png")[0] for i in range(MAX_IMAGES + 3)]
    capped = apply_image_policy(ToolResult(output="x", images=tuple(p for p in many if p)), "auto")
    assert len(capped.images) == MAX_IMAGES and "[3 more images not shown" in capped.output


def test_off_keeps_no_image() -> None:
    outcome = apply_image_policy(ToolResult(output=f"see data:image/png;base64,{b64(PNG)}"), "off")
    assert outcome.images == ()
    assert (
        outcome.output == 'see [image: image/png, 70 bytes]\n[1 image not shown to the model: [tools] images = "off"]'
    )


def test_long_words_without_the_spread_of_encoded_data_stay() -> None:
    for word in ("q" * 40_000, "ab" * 600, "TheQuickBrownFoxJumps" * 40):
        assert extract_images(f"before {word} after") == (f"before {word} after", [])
    encoded = base64.b64encode(os.urandom(3000)).decode()
    assert "removed" in extract_images(f"x {encoded} y")[0]
