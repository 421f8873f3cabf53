#!/bin/sh
# One-shot (temporalio/admin-tools): creates Temporal's two PostgreSQL databases and brings their schemas to the
# server's version. The same steps as `npm run cluster` (devtools/cluster.ts), which is what CI runs.
set -eu
SQL="temporal-sql-tool --plugin postgres12 --ep postgresql -p 5432 -u temporal --pw temporal"
SCHEMA=/etc/temporal/schema/postgresql/v12
for pair in temporal:temporal temporal_visibility:visibility; do
  db=${pair%%:*}; dir=${pair#*:}
  $SQL --db "$db" create-database || echo "database $db exists"
  $SQL --db "$db" setup-schema -v 0.0 || echo "schema of $db already set up"
  $SQL --db "$db" update-schema -d "$SCHEMA/$dir/versioned"
done
