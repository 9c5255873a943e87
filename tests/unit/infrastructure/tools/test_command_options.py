"""Option matching errs wide: prefixes, --no- forms, clusters, and -- never ends the scan."""

from __future__ import annotations

import pytest

from quorum.infrastructure.tools.shell.options import dangerous_option, long_option_match

DANGEROUS = ("output", "no-index", "open-files-in-pager")


@pytest.mark.parametrize(
    ("arg", "match"),
    [
        ("--output", "output"),
        ("--out=F", "output"),
        ("--o", "output"),
        ("--no-i", "no-index"),
        ("--no-output", "output"),
        ("--open='x;y'", "open-files-in-pager"),
        ("--output-indicator-new=+", None),
        ("--", None),
        ("-o", None),
        ("output", None),
    ],
)
def test_long_option_prefixes(arg: str, match: str | None) -> None:
    assert long_option_match(arg, DANGEROUS) == match


def test_clusters_and_values_after_double_dash_are_scanned() -> None:
    assert dangerous_option(["-T", "--", "-uo", "F"], short="o") == "-o"
    assert dangerous_option(["-n", "5"], short="o", long=DANGEROUS) is None
