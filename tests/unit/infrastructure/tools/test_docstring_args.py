"""Reading a tool's description and its arguments' descriptions from a Google-style docstring."""

from __future__ import annotations

import pytest

from quorum.infrastructure.tools.functions.docstring_args import DocstringParts, parse_docstring


def test_summary_and_arguments() -> None:
    def weather() -> None:
        """Current weather
        for a city.

        Longer text the model is not shown.

        Args:
            city: City name.
            unit (str): Temperature unit,
                Celsius or Fahrenheit.
            days: Days
                ahead.

                Still about days.
            *args: Ignored by @tool, read anyway.

        Returns:
            A sentence.

        Raises:
            ValueError: never an argument.
        """

    assert parse_docstring(weather.__doc__) == DocstringParts(
        summary="Current weather for a city.",
        arguments={
            "city": "City name.",
            "unit": "Temperature unit, Celsius or Fahrenheit.",
            "days": "Days ahead. Still about days.",
            "args": "Ignored by @tool, read anyway.",
        },
    )


@pytest.mark.parametrize("header", ["Args:", "Arguments:", "Parameters:", "Keyword Args:"])
def test_the_arguments_section_goes_by_several_names(header: str) -> None:
    assert parse_docstring(f"Do it.\n\n{header}\n    key: The key.\n").arguments == {"key": "The key."}


@pytest.mark.parametrize("docstring", [None, "", "   \n  "])
def test_no_docstring_says_nothing(docstring: str | None) -> None:
    assert parse_docstring(docstring) == DocstringParts()


def test_a_docstring_starting_with_a_section_has_no_summary() -> None:
    assert parse_docstring("Args:\n    key: The key.") == DocstringParts("", {"key": "The key."})


def test_an_entry_whose_text_starts_on_the_next_line() -> None:
    docstring = "Look up.\n\nArgs:\n    key:\n        The key to look up.\n    other: Other.\n"
    assert parse_docstring(docstring).arguments == {"key": "The key to look up.", "other": "Other."}


def test_prose_that_is_not_an_entry_is_skipped() -> None:
    docstring = "Look up.\n\nArgs:\n    not an entry line\n    key: The key.\nReturns:\n    key: not an argument\n"
    assert parse_docstring(docstring).arguments == {"key": "The key."}
