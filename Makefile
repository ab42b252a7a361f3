# guardsvc: `make run` serves on http://127.0.0.1:8000, `make test` runs every test.
.PHONY: run test bench clean

run:
	scripts/run

test:
	scripts/test

bench:
	scripts/bench

clean:
	rm -rf .venv instance/guardsvc.db* artifacts .pytest_cache
