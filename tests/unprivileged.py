"""Running a command as a user whom file permissions bind: root ignores them, so under root the command runs in
a child process that has become `nobody` (the service runs as an ordinary user too)."""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

NOBODY = 65534


def open_folder() -> Path:
    """A fresh folder that the child can enter and write in (root's own pytest folders are closed to others)."""
    folder = Path(tempfile.mkdtemp(prefix="tantrix-perm-"))
    folder.chmod(0o777)
    return folder


def run_cli(argv: list[str], rehearsal: list[str]) -> tuple[int, str, str]:
    """`tantrix-pi ARGV` as an unprivileged user: (exit code, stdout, stderr).

    `rehearsal` is the same command on a copy of its files, run first as we are: it imports every module the
    command needs, Python's own included, which `nobody` may not be able to read (a Python under /root).
    """
    from tantrix_pi.cli import main

    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        main(rehearsal)
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(reader)
        result = {"code": 99, "out": "", "err": "the child failed before running the command"}
        try:
            if os.geteuid() == 0:
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                code = main(argv)
            result = {"code": code, "out": out.getvalue(), "err": err.getvalue()}
        except BaseException as e:  # reported to the parent, which fails the test with it
            result["err"] = f"{type(e).__name__}: {e}"
        finally:
            with os.fdopen(writer, "w") as w:
                w.write(json.dumps(result))
            os._exit(0)
    os.close(writer)
    with os.fdopen(reader) as r:
        result = json.loads(r.read() or "{}")
    os.waitpid(pid, 0)
    sys.stdout.flush()
    return result["code"], result["out"], result["err"]
