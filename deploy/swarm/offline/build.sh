#!/bin/sh
# Builds, offline, the PostgreSQL and HAProxy images compose.yaml runs beside codeact, from this machine's
# own Debian binaries (apt-get install postgresql haproxy), FROM scratch the way images/build.sh builds the
# runner: for a machine that cannot pull postgres:16 and haproxy:2.8. They take the official images'
# settings (POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB, PGDATA; /usr/local/etc/haproxy/haproxy.cfg).
#
#   deploy/swarm/offline/build.sh [--tag TAG]     → codeact-postgres:TAG, codeact-haproxy:TAG (default: offline)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tag=offline
while [ $# -gt 0 ]; do
  case $1 in
    --tag) tag=$2; shift 2 ;;
    *) echo "offline/build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
. "$here/../../../images/rootfs.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# PostgreSQL: the newest server Debian installed, at its own paths (its binaries find share/ and lib/ by them).
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$pgbin" ] || { echo "offline/build.sh: no PostgreSQL server here; apt-get install postgresql" >&2; exit 1; }
pgver=$(basename "$(dirname "$pgbin")")
root=$work/postgres/rootfs
# The data directory exists in the image, empty, owned by the server's user and 0700: a new volume
# mounted there takes its owner and mode from it (initdb wants both).
mkdir -p "$root/tmp" "$root/var/run/postgresql" "$work/postgres/home/postgresql/data"
chmod 0700 "$work/postgres/home/postgresql/data"
chmod 1777 "$root/tmp" "$root/var/run/postgresql"
for bin in postgres initdb pg_ctl; do copy_binary "$pgbin/$bin" "$pgbin/$bin"; done
mkdir -p "$root/usr/share/postgresql" "$root/usr/lib/postgresql/$pgver"
cp -R "/usr/share/postgresql/$pgver" "$root/usr/share/postgresql/"
cp -R "/usr/lib/postgresql/$pgver/lib" "$root/usr/lib/postgresql/$pgver/"
for so in "$root/usr/lib/postgresql/$pgver/lib"/*.so; do copy_libraries "$so"; done
mkdir -p "$root/usr/share"
cp -R /usr/share/zoneinfo "$root/usr/share/"
copy_toolset
write_users
mkdir -p "$root/usr/local/bin"
sed "s#@PGBIN@#$pgbin#" "$here/postgres-entrypoint.sh" > "$root/usr/local/bin/docker-entrypoint.sh"
chmod 0755 "$root/usr/local/bin/docker-entrypoint.sh"
cat > "$work/postgres/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY rootfs/ /
COPY --chown=65534:65534 home/ /var/lib/
ENV PGDATA=/var/lib/postgresql/data
USER 65534:65534
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
DOCKERFILE
docker build -q -t "codeact-postgres:$tag" "$work/postgres"

# HAProxy: the binary and its libraries; the configuration comes from the stack (a Swarm config).
haproxy_bin=$(command -v haproxy || echo /usr/sbin/haproxy)
[ -x "$haproxy_bin" ] || { echo "offline/build.sh: no HAProxy here; apt-get install haproxy" >&2; exit 1; }
root=$work/haproxy/rootfs
mkdir -p "$root/tmp" "$root/usr/local/etc/haproxy"
chmod 1777 "$root/tmp"
copy_binary "$haproxy_bin" /usr/local/sbin/haproxy
write_users
cat > "$work/haproxy/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY rootfs/ /
USER 65534:65534
EXPOSE 8080
ENTRYPOINT ["/usr/local/sbin/haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
DOCKERFILE
docker build -q -t "codeact-haproxy:$tag" "$work/haproxy"
