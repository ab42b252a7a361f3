"""Programs from Debian packages that the suite needs but no one has to install.

``apt-get download`` fetches the package and ``dpkg -x`` unpacks it into a cache
folder (``~/.cache/guardsvc-debs``, or ``GUARDSVC_TEST_DEB_CACHE``): nothing is
installed, no service starts, no root needed once it is there. A test skips
only when the machine has no apt at all, or the package cannot be fetched.
"""
import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import pytest

CACHE = Path(os.environ.get("GUARDSVC_TEST_DEB_CACHE", Path.home() / ".cache" / "guardsvc-debs"))


def unpacked_program(package, program):
    """The path of ``program`` (e.g. ``usr/bin/cscli``) of the Debian ``package``, unpacked once."""
    root = CACHE / package
    target = root / program
    if target.exists():
        return target
    if shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        pytest.skip(f"{package}: no apt-get/dpkg on this machine")
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:  # lanes running side by side fetch it once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():
            _fetch(package, root)
    if not target.exists():
        pytest.skip(f"{package} has no {program}")
    return target


def _fetch(package, root):
    download = CACHE / "download"
    shutil.rmtree(download, ignore_errors=True)
    download.mkdir()
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    fetched = subprocess.run(["apt-get", "download", "-qq", package], cwd=download, env=env,
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    if fetched.returncode != 0 and os.geteuid() == 0:
        # A fresh machine may have no package lists yet.
        subprocess.run(["apt-get", "update", "-qq"], env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=300)
        fetched = subprocess.run(["apt-get", "download", "-qq", package], cwd=download, env=env,
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    debs = list(download.glob(f"{package}_*.deb"))
    if fetched.returncode != 0 or not debs:
        pytest.skip(f"apt-get download {package} failed: {fetched.stderr.strip()[-300:]}")
    unpacking = root.with_name(root.name + ".partial")
    shutil.rmtree(unpacking, ignore_errors=True)
    subprocess.run(["dpkg", "-x", str(debs[0]), str(unpacking)], check=True, stdin=subprocess.DEVNULL)
    shutil.rmtree(root, ignore_errors=True)
    unpacking.rename(root)
    shutil.rmtree(download, ignore_errors=True)
