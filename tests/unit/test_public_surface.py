"""Each package says what it exports; every name in __all__ exists, and the docstrings are there."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

LAYERS = ("quorum.domain", "quorum.application", "quorum.infrastructure", "quorum.cli")


def packages() -> list[str]:
    names = []
    for layer in LAYERS:
        module = importlib.import_module(layer)
        names.append(layer)
        names += [m.name for m in pkgutil.walk_packages(module.__path__, layer + ".") if m.ispkg]
    return names


@pytest.mark.parametrize("name", packages())
def test_package_has_a_role_docstring(name: str) -> None:
    module = importlib.import_module(name)
    assert (module.__doc__ or "").strip(), f"{name}/__init__.py needs a docstring saying its role"


@pytest.mark.parametrize(
    "name",
    ["quorum.domain", "quorum.application", "quorum.application.ports", "quorum.infrastructure.plugins"],
)
def test_all_names_exist_and_are_sorted(name: str) -> None:
    module = importlib.import_module(name)
    exported = module.__all__
    assert exported == sorted(exported)
    for attribute in exported:
        assert hasattr(module, attribute), f"{name}.{attribute} is in __all__ but missing"


def test_domain_exports_every_public_type() -> None:
    import quorum.domain as domain

    for sub in (
        "errors",
        "events",
        "responses",
        "review",
        "streaming",
        "tools",
        "messages",
        "model_id",
        "policy",
        "secrets",
    ):
        module = importlib.import_module(f"quorum.domain.{sub}")
        public = {
            n
            for n, v in vars(module).items()
            if isinstance(v, type) and v.__module__ == module.__name__ and not n.startswith("_")
        }
        missing = public - set(domain.__all__)
        assert not missing, f"quorum.domain does not export {sorted(missing)} from {sub}"
