#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback for the warehouse tests (tests/test_warehouse_*.py).
# Installs Debian's `postgresql` package when no server binary is found, initializes a cluster in
# $RANKEVAL_PG_DIR (default /tmp/rankeval-pg), starts it on 127.0.0.1:$RANKEVAL_PG_PORT (default
# 54329) with trust authentication, and prints the URL the tests read:
#
#     eval "$(bash .ci/start-postgres.sh)"     # exports RANKEVAL_PG_URL
#
# Idempotent: a server already running in that directory is left as it is. Stop it with
#     su postgres -c "pg_ctl -D /tmp/rankeval-pg stop"      (or pg_ctl directly when not root)
set -euo pipefail
dir="${RANKEVAL_PG_DIR:-/tmp/rankeval-pg}"
port="${RANKEVAL_PG_PORT:-54329}"

bin=""
for d in /usr/lib/postgresql/*/bin; do
  [ -x "$d/pg_ctl" ] && bin="$d"
done
if [ -z "$bin" ]; then
  if [ "$(id -u)" -eq 0 ]; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } >&2
  else
    echo "PostgreSQL is not installed: run 'sudo apt-get install -y postgresql' once." >&2
    exit 1
  fi
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/pg_ctl" ] && bin="$d"
  done
fi

# the server refuses to run as root: as root, run it as the 'postgres' user the package creates
run() {
  if [ "$(id -u)" -eq 0 ]; then
    su postgres -s /bin/sh -c "$*"
  else
    sh -c "$*"
  fi
}

mkdir -p "$dir"
[ "$(id -u)" -eq 0 ] && chown postgres "$dir"
if [ ! -f "$dir/PG_VERSION" ]; then
  run "'$bin/initdb' -D '$dir' -U postgres --auth=trust -E UTF8 --locale=C" >&2
fi
if ! run "'$bin/pg_ctl' -D '$dir' status" >/dev/null 2>&1; then
  run "'$bin/pg_ctl' -D '$dir' -l '$dir/server.log' -w -o \"-k '$dir' -h 127.0.0.1 -p $port\" start" >&2
fi
echo "export RANKEVAL_PG_URL=postgresql://postgres@127.0.0.1:$port/postgres"
