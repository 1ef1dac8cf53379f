# Targets a newcomer would guess. `make setup run` is the quick start; `make test` what CI runs.
.PHONY: setup build run test bench image lint soak clean

setup:
	npm ci

build:
	npm run build

run: build
	node bin/codeact.mjs run examples/price-compare.ts --tools examples/tools.ts

test:
	npm test

bench: build
	node scripts/bench.mjs

soak: build
	node scripts/soak.mjs

image:
	bash images/build.sh

lint:
	npm run lint

clean:
	rm -rf dist .vitest-results.json
