"""One reader for files that change under a running process (the breached-password list, the GeoIP database)."""
import os

from guardsvc.storage.watched_file import WatchedFile


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
