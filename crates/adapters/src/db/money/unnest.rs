//! PostgreSQL statements over many rows with one fixed text: each column
//! is bound as an array and `unnest`ed in SQL, so a batch of any size is
//! the same statement, prepared once per connection. diesel never caches
//! its multi-row `INSERT` (the text varies with the row count) nor a
//! `sql_query`, which would parse and plan every batch's statements anew.
//!
//! Written here because diesel has no `unnest`: a struct per statement,
//! with a static query id, renders `prefix unnest($1::type[], ...) suffix`.

/// Defines `$name`, the statement `$prefix unnest(<one array per field>)
/// $suffix`, its fields the columns in order, and `$name::of(rows)`, which
/// reads each column from `$row`s with the field's getter.
macro_rules! unnest_statement {
    (
        $(#[$doc:meta])*
        $name:ident of $row:ty, $prefix:literal,
        [$($field:ident: $rust:ty => $sql:ty as $pg:literal = $get:expr),* $(,)?],
        $suffix:literal $(, returns $returns:ty)?
    ) => {
        $(#[$doc])*
        pub(in crate::db) struct $name<'a> {
            $($field: Vec<$rust>,)*
            _rows: std::marker::PhantomData<&'a ()>,
        }

        impl<'a> $name<'a> {
            pub(in crate::db) fn of<R: std::borrow::Borrow<$row>>(rows: &'a [R]) -> Self {
                $name {
                    $($field: rows.iter().map(|r| r.borrow()).map($get).collect(),)*
                    _rows: std::marker::PhantomData,
                }
            }
        }

        impl diesel::query_builder::QueryId for $name<'_> {
            type QueryId = $name<'static>;
            const HAS_STATIC_QUERY_ID: bool = true;
        }

        impl diesel::query_builder::QueryFragment<diesel::pg::Pg> for $name<'_> {
            fn walk_ast<'b>(
                &'b self,
                mut out: diesel::query_builder::AstPass<'_, 'b, diesel::pg::Pg>,
            ) -> diesel::QueryResult<()> {
                out.push_sql(concat!($prefix, " unnest("));
                let mut separator = "";
                $(
                    out.push_sql(separator);
                    out.push_bind_param::<diesel::sql_types::Array<$sql>, _>(&self.$field)?;
                    out.push_sql(concat!("::", $pg, "[]"));
                    separator = ", ";
                )*
                let _ = separator;
                out.push_sql(concat!(") ", $suffix));
                Ok(())
            }
        }

        $(
            impl diesel::query_builder::Query for $name<'_> {
                type SqlType = $returns;
            }
        )?
    };
}
pub(in crate::db) use unnest_statement;

use crate::db::jobs::events::EventRow;
use crate::db::jobs::queue::JobRow;
use crate::db::money::ledger::{EntryRow, PostingRow};
use diesel::sql_types::{BigInt, Bool, Integer, Text};

unnest_statement!(
    /// Takes client references; returns those it took.
    TakeReferences of (&'a str, bool, &'a str, i64),
    "INSERT INTO transaction_references (account_id, livemode, reference, created_at) SELECT * FROM",
    [
        account_id: &'a str => Text as "text" = |r| r.0,
        livemode: bool => Bool as "boolean" = |r| r.1,
        reference: &'a str => Text as "text" = |r| r.2,
        created_at: i64 => BigInt as "bigint" = |r| r.3,
    ],
    "ON CONFLICT DO NOTHING RETURNING account_id, livemode, reference",
    returns (Text, Bool, Text)
);

unnest_statement!(
    InsertEntries of EntryRow,
    "INSERT INTO ledger_entries (id, account_id, livemode, kind, created_at) SELECT * FROM",
    [
        id: &'a str => Text as "text" = |r| r.id.as_str(),
        account_id: &'a str => Text as "text" = |r| r.account_id.as_str(),
        livemode: bool => Bool as "boolean" = |r| r.livemode,
        kind: &'a str => Text as "text" = |r| r.kind,
        created_at: i64 => BigInt as "bigint" = |r| r.created_at,
    ],
    ""
);

unnest_statement!(
    InsertPostings of PostingRow,
    "INSERT INTO ledger_postings (account_id, entry_id, seq, ledger_account_id, currency, amount) SELECT * FROM",
    [
        account_id: &'a str => Text as "text" = |r| r.account_id.as_str(),
        entry_id: &'a str => Text as "text" = |r| r.entry_id.as_str(),
        seq: i32 => Integer as "integer" = |r| r.seq,
        ledger_account_id: &'a str => Text as "text" = |r| r.ledger_account_id.as_str(),
        currency: &'a str => Text as "text" = |r| r.currency,
        amount: i64 => BigInt as "bigint" = |r| r.amount,
    ],
    ""
);

unnest_statement!(
    /// Moves each balance (ledger account, change, and the range the new
    /// balance must land in), only where it lands within its range.
    MoveBalances of (String, i64, i64, i64),
    "UPDATE ledger_accounts SET balance = ledger_accounts.balance + d.delta FROM",
    [
        id: &'a str => Text as "text" = |r| r.0.as_str(),
        delta: i64 => BigInt as "bigint" = |r| r.1,
        lo: i64 => BigInt as "bigint" = |r| r.2,
        hi: i64 => BigInt as "bigint" = |r| r.3,
    ],
    "AS d(id, delta, lo, hi) WHERE ledger_accounts.id = ANY($1) AND ledger_accounts.id = d.id \
     AND ledger_accounts.balance + d.delta BETWEEN d.lo AND d.hi"
);

/// The columns of a job, for [`InsertJobs`] and [`InsertDeliveries`].
macro_rules! job_columns {
    ($(#[$doc:meta])* $name:ident, $prefix:literal, $suffix:literal) => {
        unnest_statement!(
            $(#[$doc])*
            $name of JobRow,
            $prefix,
            [
                id: &'a str => Text as "text" = |r| r.id.as_str(),
                account_id: &'a str => Text as "text" = |r| r.account_id.as_str(),
                livemode: bool => Bool as "boolean" = |r| r.livemode,
                kind: &'a str => Text as "text" = |r| r.kind,
                subject: &'a str => Text as "text" = |r| r.subject.as_str(),
                state: &'a str => Text as "text" = |r| r.state,
                attempts: i32 => Integer as "integer" = |r| r.attempts,
                max_attempts: i32 => Integer as "integer" = |r| r.max_attempts,
                run_at: i64 => BigInt as "bigint" = |r| r.run_at,
                created_at: i64 => BigInt as "bigint" = |r| r.created_at,
                updated_at: i64 => BigInt as "bigint" = |r| r.updated_at,
            ],
            $suffix
        );
    };
}

job_columns!(
    InsertJobs,
    "INSERT INTO jobs (id, account_id, livemode, kind, subject, state, attempts, max_attempts, run_at, \
     created_at, updated_at) SELECT * FROM",
    ""
);

job_columns!(
    /// Webhook deliveries: only those whose account has a URL for their
    /// mode (see [`crate::db::jobs::events::store_event`]).
    InsertDeliveries,
    "INSERT INTO jobs (id, account_id, livemode, kind, subject, state, attempts, max_attempts, run_at, \
     created_at, updated_at) SELECT d.* FROM",
    "AS d(id, account_id, livemode, kind, subject, state, attempts, max_attempts, run_at, created_at, updated_at) \
     JOIN accounts a ON a.id = d.account_id \
     WHERE a.id = ANY($2) AND (CASE WHEN d.livemode THEN a.webhook_url_live ELSE a.webhook_url_test END) IS NOT NULL"
);

unnest_statement!(
    /// Events, each `no_endpoint` at once when its account has no URL for
    /// its mode (see [`crate::db::jobs::events::store_event`]).
    InsertEvents of EventRow,
    "INSERT INTO events (id, account_id, livemode, event, data, created_at, delivery_state, attempts) \
     SELECT d.id, d.account_id, d.livemode, d.event, d.data, d.created_at, \
     CASE WHEN (CASE WHEN d.livemode THEN a.webhook_url_live ELSE a.webhook_url_test END) IS NULL \
     THEN 'no_endpoint' ELSE d.delivery_state END, d.attempts FROM",
    [
        id: &'a str => Text as "text" = |r| r.id.as_str(),
        account_id: &'a str => Text as "text" = |r| r.account_id.as_str(),
        livemode: bool => Bool as "boolean" = |r| r.livemode,
        event: &'a str => Text as "text" = |r| r.event,
        data: &'a str => Text as "text" = |r| r.data.as_str(),
        created_at: i64 => BigInt as "bigint" = |r| r.created_at,
        delivery_state: &'a str => Text as "text" = |r| r.delivery_state,
        attempts: i32 => Integer as "integer" = |r| r.attempts,
    ],
    "AS d(id, account_id, livemode, event, data, created_at, delivery_state, attempts) \
     JOIN accounts a ON a.id = d.account_id AND a.id = ANY($2)"
);
