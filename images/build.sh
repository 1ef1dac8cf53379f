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
# The runner is every .mjs file here (runner.mjs and the modules it imports), and the program realm's
# setup, TypeScript built by `npm run build` (sandbox/docker/runner/realm.ts), as realm.mjs beside them.
cp "$here"/*.mjs "$ctx/"
realm_js=$here/../dist/sandbox/docker/runner/realm.js
[ -f "$realm_js" ] || { echo "build.sh: $realm_js is missing: run \`npm run build\` first" >&2; exit 1; }
cp "$realm_js" "$ctx/realm.mjs"
# The runner's version, as a label: tests (and anyone) can tell a stale image from a current one.
# Files in byte order of their names (LC_ALL=C), then the Dockerfile (its entrypoint's flags), as
# test/docker/helpers.ts hashes them.
hash=$(cd "$here" && { LC_ALL=C ls *.mjs | LC_ALL=C sort | xargs cat; cat Dockerfile "$realm_js"; } | sha256sum | cut -c1-16)

if [ "$base" = node ]; then
  exec docker build -q --label "codeact.runner.hash=$hash" -f "$here/Dockerfile.node" -t "$image" "$ctx"
fi
[ "$base" = scratch ] || { echo "build.sh: --base is scratch or node, not $base" >&2; exit 2; }

root=$ctx/rootfs
mkdir -p "$root/opt/codeact" "$root/etc" "$root/tmp" "$root/workspace" "$root/usr/local/bin" "$root/usr/bin" "$root/bin"
chmod 1777 "$root/tmp"
mv "$ctx"/*.mjs "$root/opt/codeact/"

# Copy one binary to $2 inside the rootfs with every library it links, at the paths the loader expects.
copy_binary() {
  src=$(readlink -f "$1")
  cp "$src" "$root$2"
  ldd "$src" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | while read -r lib; do
    [ -e "$root$lib" ] && continue
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
}

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
sh_bin=$(command -v dash || command -v sh)
copy_binary "$sh_bin" /bin/sh
for tool in bash cat ls mkdir rm rmdir cp mv head tail wc sort uniq grep sed find xargs touch env \
    tr cut diff dirname basename stat chmod ln sleep tee date awk mktemp readlink realpath seq printf test true false \
    id uname whoami hostname du df nl tac rev paste comm split md5sum sha256sum base64 gzip tar od; do
  path=$(command -v "$tool" 2>/dev/null) || continue
  case $path in /*) ;; *) continue ;; esac # a shell builtin
  copy_binary "$path" "/usr/bin/$tool"
done
[ -e "$root/usr/bin/bash" ] && ln -sf /usr/bin/bash "$root/bin/bash"

printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/tmp:/sbin/nologin\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"

cp "$here/Dockerfile" "$ctx/Dockerfile"
docker build -q --label "codeact.runner.hash=$hash" -t "$image" "$ctx"
