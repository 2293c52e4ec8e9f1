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
        pub(super) struct $name<'a> {
            $(pub(super) $field: Vec<$rust>,)*
            pub(super) _rows: std::marker::PhantomData<&'a ()>,
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
pub(super) use unnest_statement;
