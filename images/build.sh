#!/bin/sh
# Builds the codeact runner image (`make image`). Offline by default: FROM scratch plus this machine's own
# Node binary, the shared libraries it links, a small shell toolset for the `bash` workspace tool, a
# non-root user and the runner. `--base node` builds from node:20-slim instead (needs a registry).
#
#   images/build.sh [--base scratch|node] [--tag NAME]     (env: CODEACT_IMAGE, CODEACT_IMAGE_BASE)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
image=${CODEACT_IMAGE:-codeact-runner:latest}
base=${CODEACT_IMAGE_BASE:-scratch}
while [ $# -gt 0 ]; do
  case $1 in
    --base) base=$2; shift 2 ;;
    --tag) image=$2; shift 2 ;;
    *) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
ctx=$here/.build
rm -rf "$ctx"
mkdir -p "$ctx"
# The runner is one file: sandbox/docker/runner/ (TypeScript, with the host modules it imports) bundled by
# esbuild (sandbox/docker/runner-bundle.ts, built into dist/ by `npm run build`). The bundler prints the
# runner's version, stamped on the image as a label: the bundle's hash, then the Dockerfile's (its
# entrypoint's flags), as test/docker/helpers.ts computes it, so a stale image is told from a current one.
bundler=$here/../dist/sandbox/docker/runner-bundle.js
[ -f "$bundler" ] || { echo "build.sh: $bundler is missing; run npm run build first" >&2; exit 1; }
hash=$(node "$bundler" "$ctx/runner.mjs")

if [ "$base" = node ]; then
  exec docker build -q --label "codeact.runner.hash=$hash" -f "$here/Dockerfile.node" -t "$image" "$ctx"
fi
[ "$base" = scratch ] || { echo "build.sh: --base is scratch or node, not $base" >&2; exit 2; }

root=$ctx/rootfs
mkdir -p "$root/opt/codeact" "$root/etc" "$root/tmp" "$root/workspace" "$root/usr/local/bin" "$root/usr/bin" "$root/bin"
chmod 1777 "$root/tmp"
mv "$ctx/runner.mjs" "$root/opt/codeact/"

. "$here/rootfs.sh"

node_bin=$(command -v node) || { echo "build.sh: node is not on PATH" >&2; exit 1; }
# The runner's flags (the Dockerfile's ENTRYPOINT, sandbox/docker/spec.ts's RUNNER_ARGS) must mean something
# to this node, or every container would fail to start: say so now instead.
if ! "$node_bin" --experimental-vm-modules --experimental-permission --allow-fs-read='*' --allow-fs-write='*' \
    --allow-child-process --allow-worker --disable-warning=ExperimentalWarning --disable-warning=SecurityWarning -e 0 2>/dev/null; then
  echo "build.sh: $("$node_bin" --version) does not take the runner's flags (--experimental-permission …); build with Node 20 or 22, or --base node" >&2
  exit 1
fi
copy_binary "$node_bin" /usr/local/bin/node
# The runner's own copy, execute-only: the kernel makes a process that runs a binary it cannot read
# non-dumpable, so no other process of the container (a child of the program) can open the runner's
# /proc/<pid>/mem (or fd, environ …), and its /proc files belong to root. gVisor reads a binary to run it,
# so there the readable /usr/local/bin/node runs the runner (sandbox/docker/spec.ts), and gVisor's own
# /proc refuses another process's memory. /usr/local/bin/node stays readable for the program's children.
cp "$root/usr/local/bin/node" "$root/opt/codeact/node"
chmod 0111 "$root/opt/codeact/node"
# The shell and tools the `bash` workspace tool runs inside the container (whatever this host has).
copy_toolset
write_users

cp "$here/Dockerfile" "$ctx/Dockerfile"
docker build -q --label "codeact.runner.hash=$hash" -t "$image" "$ctx"
