#!/usr/bin/env bash
# Helpers to run a throwaway PostgreSQL cluster as the postgres OS user.
# Source this file; then: cluster_start DIR PORT, cluster_psql ..., cluster_stop.
# The binaries are those of PG_CONFIG (default: pg_config on PATH), so a
# benchmark runs against the installation the extension was installed into.
# Run as root (the cluster runs as postgres through runuser) or as postgres.
PGBIN=$("${PG_CONFIG:-pg_config}" --bindir)

# Run a command as the postgres OS user.
as_postgres() {
	if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

# CLUSTER_OPTS: extra server options, e.g. "-c wal_level=logical".
cluster_start() {
	CLUSTER_DIR=$1
	CLUSTER_PORT=$2
	[ "$(id -un)" = postgres ] || chown postgres "$CLUSTER_DIR"
	as_postgres "$PGBIN/initdb" -A trust -D "$CLUSTER_DIR/data" >/dev/null
	as_postgres "$PGBIN/pg_ctl" -w -D "$CLUSTER_DIR/data" \
		-o "-p $CLUSTER_PORT -k $CLUSTER_DIR -c listen_addresses='' ${CLUSTER_OPTS:-}" \
		-l "$CLUSTER_DIR/log" start >/dev/null
}

cluster_psql() {
	as_postgres "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$CLUSTER_DIR" -p "$CLUSTER_PORT" -d postgres "$@"
}

cluster_stop() {
	as_postgres "$PGBIN/pg_ctl" -w -D "$CLUSTER_DIR/data" -m fast stop >/dev/null 2>&1 || true
}
