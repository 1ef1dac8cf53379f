#!/bin/sh
# Builds the codeact server image: `codeact mcp --http 0.0.0.0:8080` (deploy/: Kubernetes, Compose/Swarm).
# Offline by default, the way build.sh builds the runner: FROM scratch plus this machine's own Node, the
# shared libraries it (and isolated-vm's addon) links, a small shell toolset, a non-root user, and this
# checkout's dist/, bin/ and production node_modules. `--base node` builds from node:20-slim instead (needs
# a registry; it installs the production dependencies with npm ci there).
#
#   images/build-server.sh [--base scratch|node] [--tag NAME]    (env: CODEACT_SERVER_IMAGE, CODEACT_IMAGE_BASE)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
image=${CODEACT_SERVER_IMAGE:-codeact-server:latest}
base=${CODEACT_IMAGE_BASE:-scratch}
while [ $# -gt 0 ]; do
  case $1 in
    --base) base=$2; shift 2 ;;
    --tag) image=$2; shift 2 ;;
    *) echo "build-server.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -f "$repo/dist/cli/main.js" ] || { echo "build-server.sh: $repo/dist is missing; run npm run build first" >&2; exit 1; }
ctx=$here/.build-server
rm -rf "$ctx"
mkdir -p "$ctx"
# The app: what `npm pack` ships (dist, bin, package.json), the lockfile for the node base's npm ci.
app=$ctx/app
mkdir -p "$app"
cp -R "$repo/dist" "$repo/bin" "$repo/package.json" "$repo/package-lock.json" "$app/"

if [ "$base" = node ]; then
  exec docker build -q -f "$here/Dockerfile.server.node" -t "$image" "$ctx"
fi
[ "$base" = scratch ] || { echo "build-server.sh: --base is scratch or node, not $base" >&2; exit 2; }

# Production dependencies only, as npm resolved them in this checkout (no registry: npm ls reads node_modules).
(cd "$repo" && npm ls --omit=dev --all --parseable 2>/dev/null) | while read -r dir; do
  [ "$dir" = "$repo" ] && continue
  rel=${dir#"$repo"/}
  mkdir -p "$app/$(dirname "$rel")"
  [ -e "$app/$rel" ] || cp -R "$dir" "$app/$rel"
done
[ -d "$app/node_modules/isolated-vm" ] || { echo "build-server.sh: isolated-vm is not installed here; run npm ci first" >&2; exit 1; }

root=$ctx/rootfs
mkdir -p "$root/opt" "$root/tmp" "$root/usr/local/bin"
chmod 1777 "$root/tmp"
mv "$app" "$root/opt/codeact"
. "$here/rootfs.sh"
node_bin=$(command -v node) || { echo "build-server.sh: node is not on PATH" >&2; exit 1; }
copy_binary "$node_bin" /usr/local/bin/node
# Native addons (isolated-vm) link libraries of their own.
find "$root/opt/codeact/node_modules" -name '*.node' -type f | while read -r addon; do copy_libraries "$addon"; done
copy_toolset
write_users

cp "$here/Dockerfile.server" "$ctx/Dockerfile"
docker build -q -t "$image" "$ctx"
rm -rf "$ctx"
