//! The plumbing's tests: connections, migrations and sealed values on
//! both databases, PostgreSQL's TLS against a listener of the test's own.

mod connections;
mod pg_tls;
mod sealed_columns;
