"""``flask --app guardsvc COMMAND`` run as a process of its own, cheaply.

A cold ``flask`` process spends about two seconds importing guardsvc and its
libraries before the command runs. A forkserver imports them once; each command
then runs in a child forked from it, in exactly the state a cold process has
after its imports: nothing has been built yet (no application, no engine, no
configured ORM mappers), so what a command needs must happen in that command's
own process, as it would for an operator. The child reads its settings from the
environment it is given and writes what the command prints to two files.
"""
import importlib
import multiprocessing
import os
import pkgutil
import sys

import guardsvc

# gunicorn reads this one as its configuration; importing it sets up a server.
NOT_IMPORTED = {"guardsvc.gunicorn_conf"}


def import_every_module():
    for info in pkgutil.walk_packages(guardsvc.__path__, "guardsvc."):
        if info.name not in NOT_IMPORTED:
            importlib.import_module(info.name)


def _run(argv, env, stdout_path, stderr_path):
    """The child: the command's settings, its output to files, then the command as ``flask`` runs it."""
    os.environ.update(env)
    for path, fd in ((stdout_path, 1), (stderr_path, 2)):
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # no one types: a prompt would fail, not wait
    from flask.cli import main

    sys.argv = ["flask", "--app", "guardsvc", *argv]
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


_context = None


def _forkserver():
    global _context
    if _context is None:
        _context = multiprocessing.get_context("forkserver")
        _context.set_forkserver_preload([__name__])
    return _context


class CommandProcess:
    """One command in a process of its own; ``wait()`` gives (exit status, stdout, stderr)."""

    def __init__(self, argv, env, folder):
        self.stdout_path, self.stderr_path = folder / "stdout", folder / "stderr"
        self.process = _forkserver().Process(target=_run, args=(list(argv), dict(env), str(self.stdout_path),
                                                                str(self.stderr_path)))
        self.process.start()

    def wait(self, timeout=120):
        """(exit status, stdout, stderr) once it ends by itself."""
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.kill()
            raise AssertionError(f"still running after {timeout} s")
        return self._outcome()

    def stop_after(self, seconds, timeout=60):
        """For a command that runs until stopped (the worker): (ran until stopped, exit status, stdout, stderr)."""
        self.process.join(seconds)
        running = self.process.is_alive()
        if running:
            self.process.terminate()  # SIGTERM, as systemd or docker stop would
            self.process.join(timeout)
        return (running, *self._outcome())

    def _outcome(self):
        return (self.process.exitcode, self.stdout_path.read_text(errors="replace"),
                self.stderr_path.read_text(errors="replace"))


# In the forkserver (its preload) this is what makes a child cheap; in the test process it costs
# little more than what the suite has imported already.
import_every_module()
