//! The schema in portable types only, shared by both backends. Mirrors
//! `migrations/{postgres,sqlite}`.

diesel::table! {
    accounts (id) {
        id -> Text,
        name -> Text,
        is_demo -> Bool,
        webhook_url_test -> Nullable<Text>,
        webhook_url_live -> Nullable<Text>,
        webhook_secret_sealed -> Binary,
        created_at -> BigInt,
        company_address -> Nullable<Text>,
        utility_bill_url -> Nullable<Text>,
    }
}

diesel::table! {
    cardholders (id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        first_name -> Text,
        last_name -> Text,
        email_address -> Nullable<Text>,
        phone -> Text,
        address -> Text,
        city -> Text,
        state -> Text,
        country -> Text,
        postal_code -> Text,
        house_no -> Text,
        lga -> Nullable<Text>,
        id_type -> Text,
        bvn -> Nullable<Text>,
        id_no -> Nullable<Text>,
        id_image -> Nullable<Text>,
        selfie_image -> Nullable<Text>,
        id_first_name -> Nullable<Text>,
        id_last_name -> Nullable<Text>,
        id_middle_name -> Nullable<Text>,
        date_of_birth -> Nullable<Text>,
        gender -> Nullable<Text>,
        status -> Text,
        blacklisted -> Bool,
        error_description -> Nullable<Text>,
        meta_data -> Nullable<Text>,
        created_at -> BigInt,
        deleted_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    api_keys (lookup_hash) {
        lookup_hash -> Text,
        account_id -> Text,
        livemode -> Bool,
        sealed_key -> Binary,
        created_at -> BigInt,
    }
}

diesel::table! {
    ledger_accounts (id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        code -> Text,
        currency -> Text,
        balance -> BigInt,
        allow_negative -> Bool,
        created_at -> BigInt,
    }
}

diesel::table! {
    ledger_entries (id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        kind -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    ledger_postings (entry_id, seq) {
        entry_id -> Text,
        seq -> Integer,
        ledger_account_id -> Text,
        currency -> Text,
        amount -> BigInt,
    }
}

diesel::table! {
    rate_limits (account_id, livemode, action, subject) {
        account_id -> Text,
        livemode -> Bool,
        action -> Text,
        subject -> Text,
        last_at -> BigInt,
    }
}

diesel::table! {
    jobs (id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        kind -> Text,
        subject -> Text,
        state -> Text,
        attempts -> Integer,
        max_attempts -> Integer,
        run_at -> BigInt,
        locked_until -> Nullable<BigInt>,
        last_error -> Nullable<Text>,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    events (id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        event -> Text,
        data -> Text,
        created_at -> BigInt,
        delivery_state -> Text,
        attempts -> Integer,
        delivered_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    event_deliveries (event_id, attempt) {
        event_id -> Text,
        attempt -> Integer,
        attempted_at -> BigInt,
        url -> Text,
        status_code -> Nullable<Integer>,
        error -> Nullable<Text>,
        duration_ms -> BigInt,
    }
}

diesel::table! {
    test_clocks (account_id) {
        account_id -> Text,
        offset_secs -> BigInt,
    }
}

diesel::joinable!(api_keys -> accounts (account_id));
diesel::allow_tables_to_appear_in_same_query!(
    accounts,
    api_keys,
    cardholders,
    event_deliveries,
    events,
    jobs,
    ledger_accounts,
    ledger_entries,
    ledger_postings,
    rate_limits,
    test_clocks
);
