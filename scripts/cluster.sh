#!/usr/bin/env bash
# Helpers to run a throwaway PostgreSQL cluster as the postgres OS user.
# Source this file; then: cluster_start DIR PORT, cluster_psql ..., cluster_stop.
PGBIN=$(pg_config --bindir)

cluster_start() {
	CLUSTER_DIR=$1
	CLUSTER_PORT=$2
	chown postgres "$CLUSTER_DIR"
	runuser -u postgres -- "$PGBIN/initdb" -A trust -D "$CLUSTER_DIR/data" >/dev/null
	runuser -u postgres -- "$PGBIN/pg_ctl" -w -D "$CLUSTER_DIR/data" \
		-o "-p $CLUSTER_PORT -k $CLUSTER_DIR -c listen_addresses=''" \
		-l "$CLUSTER_DIR/log" start >/dev/null
}

cluster_psql() {
	runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -h "$CLUSTER_DIR" -p "$CLUSTER_PORT" -d postgres "$@"
}

cluster_stop() {
	runuser -u postgres -- "$PGBIN/pg_ctl" -w -D "$CLUSTER_DIR/data" -m fast stop >/dev/null 2>&1 || true
}
