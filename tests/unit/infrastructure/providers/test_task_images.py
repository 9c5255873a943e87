"""Images sent with a task: the first user message carries them as image input on each provider's wire."""

from __future__ import annotations

from quorum.application.ports.llm import TurnInput
from quorum.domain.tools import ImagePart
from quorum.infrastructure.providers.anthropic.wire import message_to_wire as anthropic_wire
from quorum.infrastructure.providers.openai.wire import message_to_wire as openai_wire

PNG = ImagePart(media_type="image/png", data="iVBORw0KGgo=", size=8)


def test_anthropic_sends_task_images_as_base64_image_blocks_after_the_text() -> None:
    message = TurnInput.user("what is this?", None, [PNG]).message()
    assert anthropic_wire(message) == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
            ],
        }
    ]


def test_openai_sends_task_images_as_image_url_parts_or_a_note_when_images_are_off() -> None:
    message = TurnInput.user("what is this?", None, [PNG]).message()
    assert openai_wire(message) == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            ],
        }
    ]
    [off] = openai_wire(message, images=False)
    assert off["content"].startswith("what is this?") and "1 image(s) not shown" in off["content"]


def test_a_turn_without_images_is_unchanged() -> None:
    message = TurnInput.user("hello", None).message()
    assert openai_wire(message) == [{"role": "user", "content": "hello"}]
    assert anthropic_wire(message) == [{"role": "user", "content": "hello"}]
