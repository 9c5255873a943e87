"""Package mapping: ``api/`` is the ``quorum`` package itself, each layer folder ``quorum.<layer>``.

``api/`` holds the Python API (``from quorum import Agent``); every subpackage of a layer folder
is found. Metadata lives in pyproject.toml.
"""

from setuptools import find_packages, setup

LAYERS = ("domain", "application", "infrastructure", "cli")

packages = ["quorum", "quorum.composition", "quorum.serve", "quorum.acp"]  # api/: composition, drivers
package_dir = {"quorum": "api"}
for layer in LAYERS:
    packages.append(f"quorum.{layer}")
    packages.extend(f"quorum.{layer}.{sub}" for sub in find_packages(layer))
    package_dir[f"quorum.{layer}"] = layer
# Package data is in pyproject.toml ([tool.setuptools.package-data]): there it wins over setup()'s.
setup(packages=packages, package_dir=package_dir)
