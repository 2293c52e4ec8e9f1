//! PostgreSQL statements over many rows with one fixed text: each column
//! is bound as an array and `unnest`ed in SQL, so a batch of any size is
//! the same statement, prepared once per connection. diesel never caches
//! its multi-row `INSERT` (the text varies with the row count) nor a
//! `sql_query`, which would parse and plan every batch's statements anew.
//!
//! Written here because diesel has no `unnest`: a struct per statement,
//! with a static query id, renders `prefix unnest($1::type[], ...) suffix`.

/// Defines `$name`, the statement `$prefix unnest(<one array per field>)
/// $suffix`, its fields the columns in order.
macro_rules! unnest_statement {
    (
        $(#[$doc:meta])*
        $name:ident, $prefix:literal,
        [$($field:ident: $rust:ty => $sql:ty as $pg:literal),* $(,)?],
        $suffix:literal $(, returns $returns:ty)?
    ) => {
        $(#[$doc])*
        pub(in crate::db) struct $name<'a> {
            $(pub(in crate::db) $field: Vec<$rust>,)*
            pub(in crate::db) _rows: std::marker::PhantomData<&'a ()>,
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
use std::borrow::Borrow;
use std::marker::PhantomData;

unnest_statement!(
    /// Takes client references; returns those it took.
    TakeReferences,
    "INSERT INTO transaction_references (account_id, livemode, reference, created_at) SELECT * FROM",
    [
        account_id: &'a str => Text as "text",
        livemode: bool => Bool as "boolean",
        reference: &'a str => Text as "text",
        created_at: i64 => BigInt as "bigint",
    ],
    "ON CONFLICT DO NOTHING RETURNING account_id, livemode, reference",
    returns (Text, Bool, Text)
);

unnest_statement!(
    InsertEntries,
    "INSERT INTO ledger_entries (id, account_id, livemode, kind, created_at) SELECT * FROM",
    [
        id: &'a str => Text as "text",
        account_id: &'a str => Text as "text",
        livemode: bool => Bool as "boolean",
        kind: &'a str => Text as "text",
        created_at: i64 => BigInt as "bigint",
    ],
    ""
);

unnest_statement!(
    InsertPostings,
    "INSERT INTO ledger_postings (account_id, entry_id, seq, ledger_account_id, currency, amount) SELECT * FROM",
    [
        account_id: &'a str => Text as "text",
        entry_id: &'a str => Text as "text",
        seq: i32 => Integer as "integer",
        ledger_account_id: &'a str => Text as "text",
        currency: &'a str => Text as "text",
        amount: i64 => BigInt as "bigint",
    ],
    ""
);

unnest_statement!(
    /// Moves each balance, only where it lands within its range.
    MoveBalances,
    "UPDATE ledger_accounts SET balance = ledger_accounts.balance + d.delta FROM",
    [
        id: &'a str => Text as "text",
        delta: i64 => BigInt as "bigint",
        lo: i64 => BigInt as "bigint",
        hi: i64 => BigInt as "bigint",
    ],
    "AS d(id, delta, lo, hi) WHERE ledger_accounts.id = ANY($1) AND ledger_accounts.id = d.id \
     AND ledger_accounts.balance + d.delta BETWEEN d.lo AND d.hi"
);

/// The columns of a job, for [`InsertJobs`] and [`InsertDeliveries`].
macro_rules! job_columns {
    ($(#[$doc:meta])* $name:ident, $prefix:literal, $suffix:literal) => {
        unnest_statement!(
            $(#[$doc])*
            $name,
            $prefix,
            [
                id: &'a str => Text as "text",
                account_id: &'a str => Text as "text",
                livemode: bool => Bool as "boolean",
                kind: &'a str => Text as "text",
                subject: &'a str => Text as "text",
                state: &'a str => Text as "text",
                attempts: i32 => Integer as "integer",
                max_attempts: i32 => Integer as "integer",
                run_at: i64 => BigInt as "bigint",
                created_at: i64 => BigInt as "bigint",
                updated_at: i64 => BigInt as "bigint",
            ],
            $suffix
        );

        impl<'a> $name<'a> {
            pub(in crate::db) fn of<R: Borrow<JobRow>>(rows: &'a [R]) -> Self {
                $name {
                    id: column(rows, |r| r.borrow().id.as_str()),
                    account_id: column(rows, |r| r.borrow().account_id.as_str()),
                    livemode: column(rows, |r| r.borrow().livemode),
                    kind: column(rows, |r| r.borrow().kind),
                    subject: column(rows, |r| r.borrow().subject.as_str()),
                    state: column(rows, |r| r.borrow().state),
                    attempts: column(rows, |r| r.borrow().attempts),
                    max_attempts: column(rows, |r| r.borrow().max_attempts),
                    run_at: column(rows, |r| r.borrow().run_at),
                    created_at: column(rows, |r| r.borrow().created_at),
                    updated_at: column(rows, |r| r.borrow().updated_at),
                    _rows: PhantomData,
                }
            }
        }
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
    InsertEvents,
    "INSERT INTO events (id, account_id, livemode, event, data, created_at, delivery_state, attempts) \
     SELECT d.id, d.account_id, d.livemode, d.event, d.data, d.created_at, \
     CASE WHEN (CASE WHEN d.livemode THEN a.webhook_url_live ELSE a.webhook_url_test END) IS NULL \
     THEN 'no_endpoint' ELSE d.delivery_state END, d.attempts FROM",
    [
        id: &'a str => Text as "text",
        account_id: &'a str => Text as "text",
        livemode: bool => Bool as "boolean",
        event: &'a str => Text as "text",
        data: &'a str => Text as "text",
        created_at: i64 => BigInt as "bigint",
        delivery_state: &'a str => Text as "text",
        attempts: i32 => Integer as "integer",
    ],
    "AS d(id, account_id, livemode, event, data, created_at, delivery_state, attempts) \
     JOIN accounts a ON a.id = d.account_id AND a.id = ANY($2)"
);

impl<'a> InsertEvents<'a> {
    pub(in crate::db) fn of<R: Borrow<EventRow>>(rows: &'a [R]) -> Self {
        InsertEvents {
            id: column(rows, |r| r.borrow().id.as_str()),
            account_id: column(rows, |r| r.borrow().account_id.as_str()),
            livemode: column(rows, |r| r.borrow().livemode),
            event: column(rows, |r| r.borrow().event),
            data: column(rows, |r| r.borrow().data.as_str()),
            created_at: column(rows, |r| r.borrow().created_at),
            delivery_state: column(rows, |r| r.borrow().delivery_state),
            attempts: column(rows, |r| r.borrow().attempts),
            _rows: PhantomData,
        }
    }
}

/// A column of `rows`.
pub(in crate::db) fn column<'a, R, T>(rows: &'a [R], f: impl Fn(&'a R) -> T) -> Vec<T> {
    rows.iter().map(f).collect()
}

impl<'a> InsertEntries<'a> {
    pub(in crate::db) fn of(rows: &'a [EntryRow]) -> Self {
        InsertEntries {
            id: column(rows, |r| r.id.as_str()),
            account_id: column(rows, |r| r.account_id.as_str()),
            livemode: column(rows, |r| r.livemode),
            kind: column(rows, |r| r.kind),
            created_at: column(rows, |r| r.created_at),
            _rows: PhantomData,
        }
    }
}

impl<'a> InsertPostings<'a> {
    pub(in crate::db) fn of(rows: &'a [PostingRow]) -> Self {
        InsertPostings {
            account_id: column(rows, |r| r.account_id.as_str()),
            entry_id: column(rows, |r| r.entry_id.as_str()),
            seq: column(rows, |r| r.seq),
            ledger_account_id: column(rows, |r| r.ledger_account_id.as_str()),
            currency: column(rows, |r| r.currency),
            amount: column(rows, |r| r.amount),
            _rows: PhantomData,
        }
    }
}

impl<'a> MoveBalances<'a> {
    /// Moves: ledger account, change, and the range the new balance must
    /// land in.
    pub(in crate::db) fn of(moves: &'a [(String, i64, i64, i64)]) -> Self {
        MoveBalances {
            id: column(moves, |r| r.0.as_str()),
            delta: column(moves, |r| r.1),
            lo: column(moves, |r| r.2),
            hi: column(moves, |r| r.3),
            _rows: PhantomData,
        }
    }
}
