#!/bin/sh
# The offline PostgreSQL image's entrypoint (offline/build.sh fills in @PGBIN@): the official image's
# contract — a new data directory is initialised with POSTGRES_USER / POSTGRES_PASSWORD (or
# POSTGRES_PASSWORD_FILE) and POSTGRES_DB, password authentication from the network — then the server.
set -eu
bin=@PGBIN@
: "${PGDATA:=/var/lib/postgresql/data}"
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE"); fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "set POSTGRES_PASSWORD (or POSTGRES_PASSWORD_FILE)" >&2; exit 1; }
  pw=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pw"
  "$bin/initdb" -D "$PGDATA" -U "$user" --pwfile="$pw" --auth-local=trust --auth-host=scram-sha-256 \
    --locale=C -E UTF8 >/dev/null
  rm -f "$pw"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\" OWNER \"$user\"" | "$bin/postgres" --single -D "$PGDATA" postgres >/dev/null
  fi
fi
exec "$bin/postgres" -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/var/run/postgresql
