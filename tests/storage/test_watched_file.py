"""One reader for files that change under a running process (the breached-password list, the GeoIP database)."""
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from guardsvc.storage import clock
from guardsvc.storage.watched_file import KEPT, LOADED, NONE, UNREADABLE, WatchedFile


def test_a_file_is_loaded_once_again_when_it_changes_and_a_problem_is_told_once(tmp_path):
    path, loads, heard = tmp_path / "list.txt", [], []

    def load(where):
        text = where.read_text()
        if text == "rusak":
            raise ValueError("not a list")
        loads.append(text)
        return text

    watched = WatchedFile(load, lambda where, value, error: heard.append((value, type(error).__name__)),
                          recheck_seconds=0)
    assert watched.current(path) is None and watched.current(path) is None  # missing: told once
    path.write_text("satu")
    assert watched.current(path) == "satu" and watched.current(path) == "satu" and loads == ["satu"]
    fresh = tmp_path / "fresh.txt"
    fresh.write_text("dua")
    os.replace(fresh, path)
    assert watched.current(path) == "dua"
    path.write_text("rusak")
    assert watched.current(path) is None and watched.current(path) is None
    assert heard == [(None, "FileNotFoundError"), ("satu", "NoneType"), ("dua", "NoneType"), (None, "ValueError")]


def test_the_file_system_is_asked_at_most_once_per_interval(tmp_path):
    path = tmp_path / "list.txt"
    path.write_text("satu")
    watched = WatchedFile(lambda where: where.read_text(), recheck_seconds=3600)
    assert watched.current(path) == "satu"
    path.write_text("dua, lebih panjang")
    assert watched.current(path) == "satu"  # within the interval: not looked at
    watched.recheck_seconds = 0
    assert watched.current(path) == "dua, lebih panjang"


def test_a_kept_value_outlives_a_file_that_goes_bad_and_no_file_is_nothing(tmp_path):
    """keep and missing_is_nothing (the breached-password list): the states, the reports, the changes."""
    path, loads, heard, changes = tmp_path / "list.txt", [], [], []

    def load(where):
        text = where.read_text()
        if text.startswith("rusak"):
            raise ValueError("not a list")
        loads.append(text)
        return text

    watched = WatchedFile(load, lambda where, value, error: heard.append((value, type(error).__name__)),
                          recheck_seconds=0, keep=True, missing_is_nothing=True,
                          describe=lambda where, error: f"{where.name}: {error}")

    def changed():  # called outside the lock: it can take it
        assert watched.lock.acquire(blocking=False)
        watched.lock.release()
        changes.append(watched.state)

    watched.on_change = changed

    def now():
        watched.current(path)
        found = watched.snapshot()
        return found["state"], found["value"], found["problem"]

    assert now() == (NONE, None, None) and heard == [] and changes == []  # no file: no list, not a problem
    before = clock.utcnow()
    path.write_text("satu")
    assert now() == (LOADED, "satu", None)
    loaded_at = watched.loaded_at
    assert before <= loaded_at <= clock.utcnow()
    path.write_text("rusak")
    assert now() == now() == (KEPT, "satu", "list.txt: not a list") and watched.loaded_at == loaded_at
    path.write_text("rusak lagi")  # changed, and still bad for the same reason: said once
    assert now() == (KEPT, "satu", "list.txt: not a list")
    assert changes == [LOADED, KEPT] and heard == [("satu", "NoneType"), ("satu", "ValueError")]

    path.write_text("satu")
    assert now() == (LOADED, "satu", None) and watched.loaded_at > loaded_at
    fresh = tmp_path / "fresh.txt"
    fresh.write_text("satu")
    os.replace(fresh, path)  # loaded again, to an equal value: heard, but no change
    assert now() == (LOADED, "satu", None) and loads == ["satu", "satu", "satu"]
    assert changes == [LOADED, KEPT, LOADED] and heard[2:] == [("satu", "NoneType"), ("satu", "NoneType")]

    path.unlink()  # the value is gone: heard as a load of nothing
    assert now() == now() == (NONE, None, None) and watched.loaded_at is None
    path.write_text("rusak")
    assert now() == (UNREADABLE, None, "list.txt: not a list")
    path.unlink()  # no value was taken away: nothing to hear, but the problem is over
    assert now() == (NONE, None, None)
    assert changes == [LOADED, KEPT, LOADED, NONE, UNREADABLE, NONE]
    assert heard[4:] == [(None, "NoneType"), (None, "ValueError")]


def test_forget_loads_the_file_at_the_next_look_whatever_it_looks_like(tmp_path):
    path, loads = tmp_path / "list.txt", []
    path.write_text("satu")
    watched = WatchedFile(lambda where: loads.append(where.read_text()) or loads[-1], recheck_seconds=3600)
    assert watched.current(path) == "satu"
    watched.forget()
    assert watched.current(path) == "satu" and loads == ["satu", "satu"]  # unchanged, loaded again
    path.write_text("dua")
    assert watched.current(path) == "satu"
    watched.forget()
    assert watched.current(path) == "dua"


def test_concurrent_looks_load_a_changed_file_once(tmp_path):
    path, loads = tmp_path / "list.txt", []
    path.write_text("satu")

    def slow_load(where):
        loads.append(where)
        time.sleep(0.2)
        return where.read_text()

    watched, start = WatchedFile(slow_load, recheck_seconds=0), threading.Barrier(8)

    def look():
        start.wait()
        return watched.current(path)

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(lambda _: look(), range(8))) == ["satu"] * 8
    assert len(loads) == 1
