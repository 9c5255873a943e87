"""The ACP driver's pure pieces: titles and kinds, diffs confined to the workspace, client inputs, session chains."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from quorum.acp.client_inputs import prompt_task, server_tables, session_cwd
from quorum.acp.recorded import session_runs
from quorum.acp.tool_view import MAX_READ_BYTES, diff_of, kind_of, title_of
from quorum.application.ports.run_store import RunHeader
from quorum.domain.errors import UsageError
from quorum.infrastructure.storage.sqlite_store import SqliteRunStore
from quorum.infrastructure.tools.workspace import Workspace


def test_kinds_and_titles() -> None:
    assert [kind_of(n) for n in ("read_file", "grep_search", "write_file", "run_command", "mcp__web__fetch")] == [
        "read",
        "search",
        "edit",
        "execute",
        "fetch",
    ]
    assert kind_of("mcp__probe__fast") == "other"
    assert title_of("mcp__probe__fast", {}) == "probe: fast"
    assert title_of("run_command", {"command": "echo a\necho b"}) == "Run echo a echo b"  # one line
    assert len(title_of("run_command", {"command": "x" * 500})) == 120


def test_diffs_of_writes_and_edits(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    (tmp_path / "a.txt").write_text("one two\n")
    new = diff_of("write_file", {"path": "new.txt", "content": "hi"}, workspace)
    assert new is not None and (new.path, new.old, new.new) == (str(tmp_path / "new.txt"), None, "hi")
    edit = diff_of("edit_file", {"path": "a.txt", "old_text": "two", "new_text": "2"}, workspace)
    assert edit is not None and (edit.old, edit.new) == ("one two\n", "one 2\n")
    assert diff_of("edit_file", {"path": "a.txt", "old_text": "missing", "new_text": "x"}, workspace) is None
    assert diff_of("read_file", {"path": "a.txt"}, workspace) is None


def test_a_diff_never_reads_outside_the_workspace_or_a_special_file(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    (root / "link.txt").symlink_to(secret)
    os.mkfifo(root / "pipe")  # reading it would block the agent
    (root / "big.txt").write_text("x" * (MAX_READ_BYTES + 1))
    workspace = Workspace(root)
    for path in ("../secret.txt", str(secret), "link.txt", "pipe", "big.txt"):
        assert diff_of("write_file", {"path": path, "content": "new"}, workspace) is None, path


def test_client_servers_become_tables_and_never_merge_into_a_configured_one() -> None:
    stdio = SimpleNamespace(name="probe", command="/bin/srv", args=["-v"], env=[SimpleNamespace(name="K", value="v")])
    http = SimpleNamespace(type="http", name="web api", url="http://127.0.0.1:1/mcp", headers=[])
    tables = server_tables([stdio, http], configured=["probe"])
    assert tables == {
        "probe-client": {"command": "/bin/srv", "args": ["-v"], "env": {"K": "v"}},
        "web-api": {"url": "http://127.0.0.1:1/mcp", "headers": {}},
    }
    with pytest.raises(UsageError, match="sse servers are not supported"):
        server_tables([SimpleNamespace(type="sse", name="old", url="http://x", headers=[])], configured=[])


def test_a_prompt_becomes_a_task(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    blocks = [
        SimpleNamespace(type="text", text="look at"),
        SimpleNamespace(type="resource_link", name="a.py", uri=f"file://{tmp_path}/src/a.py"),
        SimpleNamespace(type="resource_link", name="far", uri="file:///etc/passwd"),
    ]
    assert prompt_task(blocks, workspace) == ("look at\n[a.py](src/a.py)\n[far](file:///etc/passwd)", ())
    with pytest.raises(UsageError, match="'audio' is not supported"):
        prompt_task([SimpleNamespace(type="audio")], workspace)
    with pytest.raises(UsageError, match="empty"):
        prompt_task([SimpleNamespace(type="text", text="  ")], workspace)


def test_session_cwd_must_be_an_absolute_directory(tmp_path: Path) -> None:
    assert session_cwd(str(tmp_path)) == tmp_path.resolve()
    for bad in ("relative", str(tmp_path / "missing")):
        with pytest.raises(UsageError):
            session_cwd(bad)


def test_a_session_is_the_chain_of_runs_up_and_down_from_its_first(tmp_path: Path) -> None:
    store = SqliteRunStore(tmp_path / "runs.db")
    start = datetime.now(UTC)

    def run(run_id: str, parent: str | None, minutes: int) -> None:
        at = start + timedelta(minutes=minutes)
        store.start_run(RunHeader(run_id=run_id, task="t", model="test", parent_run_id=parent, started_at=at))

    run("before", None, 0)  # the session started from this run (quorum run, then loaded)
    run("first", "before", 1)
    run("other", None, 2)  # another conversation
    run("second", "first", 3)
    run("third", "second", 4)
    try:
        assert session_runs(store, "first") == ["before", "first", "second", "third"]
        assert session_runs(store, "third") == ["before", "first", "second", "third"]
        assert session_runs(store, "missing") is None
    finally:
        store.close()


def test_only_lines_the_sdk_survives_reach_it() -> None:
    from quorum.acp.wire_guard import admissible

    assert admissible(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize"}\n')
    assert admissible(b'{"jsonrpc": "2.0", "method": "session/cancel"}\n')
    assert admissible(b"not json at all\n")  # the SDK logs it and reads on
    for fatal in (b"[1, 2]", b'"text"', b"3", b"null", b'{"id": [1], "result": 1}', b'{"id": {}, "method": "x"}'):
        assert not admissible(fatal), fatal


async def test_forwarding_keeps_order_and_ends_with_the_source() -> None:
    import asyncio

    from quorum.acp.wire_guard import forward_messages

    source, sink = asyncio.StreamReader(), asyncio.StreamReader()
    source.feed_data(b'{"id": 1}\n[1]\n\n{"id": 2}')
    source.feed_eof()
    await forward_messages(source, sink)
    assert await sink.read() == b'{"id": 1}\n\n{"id": 2}\n'


def test_prompt_images_become_task_images_and_others_are_refused(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    png = SimpleNamespace(type="image", mime_type="image/png", data="iVBORw0KGgo=")
    task, images = prompt_task([SimpleNamespace(type="text", text="what is this?"), png], workspace)
    assert task == "what is this?"
    assert [(i.media_type, i.data, i.size) for i in images] == [("image/png", "iVBORw0KGgo=", 8)]
    text = SimpleNamespace(type="text", text="x")
    with pytest.raises(UsageError, match="'image/tiff' are not supported"):
        prompt_task([text, SimpleNamespace(type="image", mime_type="image/tiff", data="")], workspace)
    with pytest.raises(UsageError, match="not base64"):
        prompt_task([text, SimpleNamespace(type="image", mime_type="image/png", data="!!")], workspace)
    with pytest.raises(UsageError, match="no text"):
        prompt_task([png], workspace)
