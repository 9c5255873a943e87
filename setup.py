"""Package mapping: each layer folder becomes ``quorum.<layer>``, with every subpackage found.

Metadata lives in pyproject.toml.
"""

from setuptools import find_packages, setup

LAYERS = ("domain", "application", "infrastructure", "cli")

packages = []
for layer in LAYERS:
    packages.append(f"quorum.{layer}")
    packages.extend(f"quorum.{layer}.{sub}" for sub in find_packages(layer))

setup(packages=packages, package_dir={f"quorum.{layer}": layer for layer in LAYERS})
