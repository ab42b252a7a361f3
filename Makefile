# guardsvc: `make run` serves on http://localhost:8000, `make test` runs every test.
.PHONY: run test bench translations clean

run:
	scripts/run

test:
	scripts/test

bench:
	scripts/bench

# After changing marked text: extract it, merge it into the catalogues, compile them.
translations:
	scripts/translations update
	scripts/translations compile

clean:
	rm -rf .venv instance/guardsvc.db* artifacts .pytest_cache
