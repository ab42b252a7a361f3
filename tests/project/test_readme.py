"""The README stays one page; everything longer lives in docs/."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_is_one_page_and_links_only_to_pages_that_exist():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    for page in sorted(set(part.split(")")[0].split("#")[0] for part in text.split("](docs/")[1:])):
        assert (ROOT / "docs" / page).is_file(), page
