//! What the database handle stands on: PostgreSQL's TLS (`pg_tls`), the
//! migrations (`migrate`), the master-key check and the resealing of a
//! rotated key (`master_key_check`, `reseal`), the rails each mode was set
//! up for (`rails`, `ports::rails`), and the gauges read from the tables
//! (`gauges`). The handle itself, with its pool and `with_conn!`, is
//! `crate::db`.

pub(in crate::db) mod gauges;
pub(in crate::db) mod master_key_check;
pub(in crate::db) mod migrate;
pub(in crate::db) mod pg_tls;
mod rails;
mod reseal;

#[cfg(test)]
mod tests;
