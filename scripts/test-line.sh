#!/usr/bin/env bash
# Runs the contract, security and packaging suites on another Node line (22, 24, 26): that line's Node from
# the registry (scripts/node-line.sh), in a copy of this tree whose node_modules is this one's but for
# isolated-vm, which npm installs afresh under that Node (it picks the version whose engines fit, with a
# prebuilt binary). The Docker suites stay with the full suite: their programs run on the image's Node.
# Ends with the plain line "N passed, N failed, N skipped" of that line's run.
# Usage: scripts/test-line.sh 24 [test files…]       (after `npm run build`; default: those three suites)
set -uo pipefail
line=${1:?usage: test-line.sh 22|24|26 [test files…]}
shift
targets=("$@")
((${#targets[@]})) || targets=(test/contract test/security test/packaging)
root=$(cd "$(dirname "$0")/.." && pwd)
nodedir=$("$root/scripts/node-line.sh" "$line") || { echo "0 passed, 1 failed"; exit 1; }
tree=$(mktemp -d "${TMPDIR:-/tmp}/codeact-node$line.XXXXXX")
trap 'rm -rf "$tree"' EXIT

# The tree: tracked and new files plus the build, not node_modules (linked entry by entry below).
(cd "$root" && { git ls-files -co --exclude-standard; find dist -type f; } | grep -v -e '^node_modules$' -e '^node_modules/' |
  tar -cf - --no-recursion --files-from=-) | tar -xf - -C "$tree"
# A real folder of links: never a link to this tree's node_modules, which the loop below would write into.
mkdir "$tree/node_modules" || { echo "0 passed, 1 failed"; exit 1; }
for entry in "$root"/node_modules/* "$root"/node_modules/.bin; do
  name=$(basename "$entry")
  [[ $name == isolated-vm || $name == node-gyp-build ]] || ln -s "$entry" "$tree/node_modules/$name"
done
range=$(node -p "require('$root/package.json').dependencies['isolated-vm']")
(
  cd "$tree" && mkdir .ivm && cd .ivm && echo '{"private":true}' >package.json &&
    PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir" npm install --no-audit --no-fund --no-package-lock \
      "isolated-vm@$range" >/dev/null && mv node_modules/* "$tree/node_modules/"
) || { echo "Node $line: installing isolated-vm failed"; echo "0 passed, 1 failed"; exit 1; }
echo "Node $line ($("$nodedir/bin/node" --version)): isolated-vm $(node -p "require('$tree/node_modules/isolated-vm/package.json').version")"

cd "$tree"
results="$tree/.results.json"
# No engine for this run (DOCKER_HOST points nowhere), so the Docker parts of mixed files skip.
PATH="$nodedir/bin:$PATH" CODEACT_DOCKER=0 DOCKER_HOST=unix:///nonexistent/docker.sock "$nodedir/bin/node" \
  node_modules/vitest/vitest.mjs run --exclude '**/*docker*' --reporter=default --reporter=json \
  --outputFile.json="$results" "${targets[@]}"
status=$?
summary=$(node -e "
  const r = JSON.parse(require('fs').readFileSync('$results', 'utf8'))
  const n = { passed: 0, failed: 0, skipped: 0 }
  for (const f of r.testResults) {
    for (const t of f.assertionResults) n[t.status === 'passed' ? 'passed' : t.status === 'failed' ? 'failed' : 'skipped']++
    if (!f.assertionResults.length && f.status === 'failed') n.failed++
  }
  console.log(n.passed + ' passed, ' + n.failed + ' failed, ' + n.skipped + ' skipped')
" 2>/dev/null) || summary="0 passed, 1 failed"
echo "Node $line: $summary"
[[ $status -eq 0 && $summary == *" 0 failed"* ]]
