"""The masks over ``/etc`` hide what the sandbox's user could read there, whoever runs Quorum (decision 273).

As root every file of ``/etc`` that is not world-readable is masked (the sandbox user maps to
root, their owner); as another user, only those that user can read: the rest the kernel already
refuses inside. Checked by effect, as a user who is not root (``nobody``): files planted in
``/etc`` that this user can read through its group are not shown in the sandbox, those it cannot
read stay unreadable. The files are planted in a private mount namespace, on a tmpfs over
``/etc`` that no other process sees (the sandbox computes its masks once per process: another
test's process must never find them). That needs root (CI runs as root); elsewhere the test
skips saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.sandbox import require_bubblewrap

_AS_NOBODY = """
import json, os, subprocess, sys
from pathlib import Path
from quorum.infrastructure.sandbox import bubblewrap

workspace, program = Path(sys.argv[1]), sys.argv[2]
subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=755", "quorum-test-etc", "/etc"], check=True)
etc = Path("/etc")
(etc / "group-secret").write_text("GROUP-SECRET\\n")
os.chown(etc / "group-secret", 0, 65534)
(etc / "group-secret").chmod(0o640)
(etc / "root-secret").write_text("ROOT-SECRET\\n")
(etc / "root-secret").chmod(0o600)
(etc / "group-dir").mkdir(mode=0o750)
os.chown(etc / "group-dir", 0, 65534)
(etc / "group-dir" / "inside.txt").write_text("DIR-SECRET\\n")
(etc / "group-dir" / "inside.txt").chmod(0o644)
(etc / "public.txt").write_text("PUBLIC\\n")
(etc / "public.txt").chmod(0o644)

os.setgroups([])
os.setgid(65534)
os.setuid(65534)
command = "cat /etc/group-secret /etc/root-secret /etc/group-dir/inside.txt /etc/public.txt; echo end"
argv = [*bubblewrap.Bubblewrap(program).read_only(workspace, workspace), "/bin/sh", "-c", command]
inside = subprocess.run(argv, capture_output=True, text=True, cwd=workspace, env={"PATH": "/usr/bin:/bin"})
outside = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, cwd=workspace)
print(json.dumps({
    "inside": inside.stdout + inside.stderr,
    "outside": outside.stdout + outside.stderr,
    "masked": [arg for arg in bubblewrap._masks() if arg.startswith("/etc/")],
}))
"""


def test_a_user_s_sandbox_hides_what_the_user_can_read_in_etc() -> None:
    require_bubblewrap()
    if os.geteuid() != 0:
        reason = "planting files in /etc (a private mount namespace) and running as nobody needs root"
        if os.environ.get("CI"):
            pytest.fail(reason + " (CI runs as root)")
        pytest.skip(reason)
    program, unshare = shutil.which("bwrap"), shutil.which("unshare")
    assert program is not None and unshare is not None
    workspace = Path(tempfile.mkdtemp(prefix="quorum-masks-"))
    try:
        workspace.chmod(0o755)
        done = subprocess.run(
            [unshare, "--mount", "--propagation", "private", sys.executable, "-c", _AS_NOBODY, str(workspace), program],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        seen = json.loads(done.stdout)
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    # The planted files are what they claim: outside, nobody reads its group's file and directory
    # and the public file, not root's.
    for text in ("GROUP-SECRET", "DIR-SECRET", "PUBLIC"):
        assert text in seen["outside"]
    assert "ROOT-SECRET" not in seen["outside"]
    # Inside, only the public file.
    assert "PUBLIC" in seen["inside"] and "end" in seen["inside"], seen["inside"]
    for secret in ("GROUP-SECRET", "ROOT-SECRET", "DIR-SECRET"):
        assert secret not in seen["inside"]
    # The masks are those this user needs: what nobody cannot read is not mounted over.
    assert sorted(seen["masked"]) == ["/etc/group-dir", "/etc/group-secret"]
