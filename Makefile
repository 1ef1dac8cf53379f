# Targets a newcomer would guess. `make setup run` is the quick start; `make test` what CI runs.
.PHONY: setup build run test bench image lint format soak clean

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

# 10,000 mixed and fuzzed runs on the isolate, then 500 on Docker when an engine answers.
soak: build
	node scripts/soak.mjs 10000 4 1 isolate
	if docker info >/dev/null 2>&1; then node scripts/soak.mjs 500 2 1 docker; fi

image: build
	bash images/build.sh

# tsc, Biome (format + lint), dependency-cruiser (layers point down), knip (unused files, exports, deps).
lint:
	npm run lint

format:
	npm run format

clean:
	rm -rf dist .vitest-results.json
