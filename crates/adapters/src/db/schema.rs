//! The schema in portable types only, shared by both backends. Mirrors
//! `migrations/{postgres,sqlite}`.

diesel::table! {
    accounts (id) {
        id -> Text,
        name -> Text,
        is_demo -> Bool,
        webhook_url_test -> Nullable<Text>,
        webhook_url_live -> Nullable<Text>,
        live_webhook_secret_sealed -> Binary,
        created_at -> BigInt,
        company_address -> Nullable<Text>,
        utility_bill_url -> Nullable<Text>,
        test_webhook_secret_sealed -> Nullable<Binary>,
        test_previous_webhook_secret_sealed -> Nullable<Binary>,
        test_previous_webhook_secret_expires_at -> Nullable<BigInt>,
        live_previous_webhook_secret_sealed -> Nullable<Binary>,
        live_previous_webhook_secret_expires_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    cardholders (account_id, id) {
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
        expires_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    ledger_accounts (account_id, id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        code -> Text,
        currency -> Text,
        balance -> BigInt,
        created_at -> BigInt,
    }
}

diesel::table! {
    ledger_entries (account_id, id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        kind -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    ledger_postings (account_id, entry_id, seq) {
        account_id -> Text,
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
    jobs (account_id, id) {
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
        lease -> Nullable<Text>,
    }
}

diesel::table! {
    events (account_id, id) {
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
    event_deliveries (account_id, event_id, attempt) {
        account_id -> Text,
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
    three_ds_challenges (account_id, id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        card_id -> Text,
        amount -> BigInt,
        reference -> Text,
        descriptor -> Text,
        merchant_category_code -> Nullable<Text>,
        otp_hash -> Nullable<Text>,
        failed_attempts -> Integer,
        expires_at -> BigInt,
        state -> Text,
        created_at -> BigInt,
        merchant_country -> Nullable<Text>,
    }
}

diesel::table! {
    card_spending (account_id, card_id) {
        account_id -> Text,
        card_id -> Text,
        controls -> Nullable<Text>,
        day_key -> Integer,
        day_spend -> BigInt,
        week_key -> Integer,
        week_spend -> BigInt,
        lifetime_spend -> BigInt,
    }
}

diesel::table! {
    spending_controls (account_id, livemode) {
        account_id -> Text,
        livemode -> Bool,
        controls -> Text,
        updated_at -> BigInt,
    }
}

diesel::table! {
    test_clocks (account_id) {
        account_id -> Text,
        offset_secs -> BigInt,
    }
}

diesel::table! {
    cards (account_id, id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        cardholder_id -> Text,
        card_type -> Text,
        card_name -> Text,
        pan_sealed -> Binary,
        cvv_sealed -> Binary,
        expiry_month_sealed -> Binary,
        expiry_year_sealed -> Binary,
        last_4 -> Text,
        pin_sealed -> Binary,
        pin_3ds_sealed -> Nullable<Binary>,
        card_limit -> BigInt,
        fee_hold -> BigInt,
        token_number -> Nullable<Text>,
        is_active -> Bool,
        consecutive_declines -> Integer,
        last_funded_at -> Nullable<BigInt>,
        last_unloaded_at -> Nullable<BigInt>,
        meta_data -> Nullable<Text>,
        created_at -> BigInt,
        deleted_at -> Nullable<BigInt>,
        deleted_reason -> Nullable<Text>,
        spend_month -> Integer,
        month_spend -> BigInt,
        last_activity_at -> Nullable<BigInt>,
        approved_count -> BigInt,
        fee_month -> Nullable<Integer>,
        fee_anchor_at -> BigInt,
        currency -> Text,
        nin_sealed -> Nullable<Binary>,
    }
}

diesel::table! {
    card_transactions (account_id, id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        card_id -> Text,
        cardholder_id -> Text,
        client_reference -> Text,
        status -> Text,
        decline_reason -> Nullable<Text>,
        amount -> BigInt,
        currency -> Text,
        description -> Text,
        merchant_category_code -> Nullable<Text>,
        enriched_data -> Text,
        merchant_name -> Text,
        created_at -> BigInt,
        approved_seq -> Nullable<BigInt>,
        kind -> Text,
        authorization_id -> Nullable<Text>,
    }
}

diesel::table! {
    transaction_references (account_id, livemode, reference) {
        account_id -> Text,
        livemode -> Bool,
        reference -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    card_transfers (account_id, id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        card_id -> Text,
        cardholder_id -> Text,
        kind -> Text,
        amount -> BigInt,
        transaction_reference -> Text,
        state -> Text,
        created_at -> BigInt,
        settled_at -> Nullable<BigInt>,
        currency -> Text,
    }
}

diesel::table! {
    card_details_tokens (token_hash) {
        token_hash -> Text,
        account_id -> Text,
        livemode -> Bool,
        card_id -> Text,
        expires_at -> BigInt,
        used_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    reward_rules (account_id, livemode) {
        account_id -> Text,
        livemode -> Bool,
        enabled -> Bool,
        spend_threshold -> BigInt,
        monthly_debits -> Integer,
        inactivity_days -> Integer,
    }
}

diesel::table! {
    reward_catalogues (id) {
        id -> Integer,
        body -> Text,
        imported_at -> BigInt,
    }
}

diesel::table! {
    rewards (account_id, id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        cardholder_id -> Text,
        reward -> Text,
        earned_at -> BigInt,
        claimed_at -> Nullable<BigInt>,
        rule -> Nullable<Text>,
        period -> Nullable<Text>,
    }
}

diesel::joinable!(api_keys -> accounts (account_id));
diesel::table! {
    wallet_credits (account_id, livemode, reference) {
        account_id -> Text,
        livemode -> Bool,
        reference -> Text,
        currency -> Text,
        amount -> BigInt,
        note -> Text,
        entry_id -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    card_reversals (account_id, id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        card_id -> Text,
        transaction_id -> Text,
        reference -> Text,
        kind -> Text,
        amount -> BigInt,
        credited_to -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    idempotency_keys (account_id, livemode, idempotency_key) {
        account_id -> Text,
        livemode -> Bool,
        idempotency_key -> Text,
        request -> Text,
        params_hash -> Text,
        created_at -> BigInt,
        claim_token -> Text,
        lease_until -> Nullable<BigInt>,
        answer_status -> Nullable<Integer>,
        answer_content_type -> Nullable<Text>,
        answer_body -> Nullable<Binary>,
    }
}

diesel::table! {
    processor_cards (account_id, card_id) {
        account_id -> Text,
        card_id -> Text,
        livemode -> Bool,
        processor_card_id -> Text,
    }
}

diesel::table! {
    processor_card_ids (livemode, processor_card_id) {
        livemode -> Bool,
        processor_card_id -> Text,
        account_id -> Text,
        card_id -> Text,
    }
}

diesel::table! {
    reversal_references (livemode, reference) {
        livemode -> Bool,
        reference -> Text,
        account_id -> Text,
    }
}

diesel::table! {
    processor_customers (account_id, cardholder_id) {
        account_id -> Text,
        cardholder_id -> Text,
        customer_id -> Nullable<Text>,
        claimed_at -> BigInt,
    }
}

diesel::table! {
    dashboard_users (id) {
        id -> Text,
        email -> Text,
        account_id -> Nullable<Text>,
        role -> Text,
        password_hash -> Nullable<Text>,
        link_hash -> Nullable<Text>,
        link_expires_at -> Nullable<BigInt>,
        failed_logins -> Integer,
        locked_until -> Nullable<BigInt>,
        created_at -> BigInt,
        totp_sealed -> Nullable<Binary>,
    }
}

diesel::table! {
    dashboard_sessions (token_hash) {
        token_hash -> Text,
        user_id -> Text,
        started_at -> BigInt,
        seen_at -> BigInt,
    }
}

diesel::table! {
    dashboard_audit (id) {
        id -> BigInt,
        account_id -> Text,
        at -> BigInt,
        email -> Text,
        action -> Text,
        detail -> Text,
        origin -> Text,
    }
}

diesel::joinable!(dashboard_sessions -> dashboard_users (user_id));

diesel::allow_tables_to_appear_in_same_query!(
    dashboard_sessions,
    dashboard_users,
    accounts,
    api_keys,
    card_details_tokens,
    card_reversals,
    card_transactions,
    card_transfers,
    cardholders,
    cards,
    event_deliveries,
    events,
    gateway_authorizations,
    jobs,
    ledger_accounts,
    ledger_entries,
    ledger_postings,
    processor_card_ids,
    processor_cards,
    processor_customers,
    rate_limits,
    reconciliation_repairs,
    reversal_references,
    rewards,
    test_clocks,
    transaction_references,
    wallet_credits
);

diesel::table! {
    master_key_check (id) {
        id -> Integer,
        sealed -> Binary,
    }
}

diesel::table! {
    rails (livemode) {
        livemode -> Bool,
        chosen -> Text,
        recorded_at -> BigInt,
    }
}

diesel::table! {
    rails_changes (id) {
        id -> BigInt,
        livemode -> Bool,
        before -> Nullable<Text>,
        after -> Text,
        note -> Text,
        changed_at -> BigInt,
    }
}

diesel::table! {
    card_openings (account_id, card_id) {
        account_id -> Text,
        card_id -> Text,
        opened_with -> BigInt,
        closed_with -> Nullable<BigInt>,
    }
}

diesel::table! {
    reconciliation_runs (id) {
        id -> Text,
        livemode -> Bool,
        since -> BigInt,
        started_at -> BigInt,
        finished_at -> Nullable<BigInt>,
        compared -> BigInt,
        differences -> BigInt,
        repaired -> BigInt,
        unresolved -> BigInt,
        error -> Nullable<Text>,
    }
}

diesel::table! {
    reconciliation_repairs (id) {
        id -> BigInt,
        run_id -> Text,
        livemode -> Bool,
        authorization_id -> Text,
        class -> Text,
        repair -> Text,
        applied_as -> Nullable<Text>,
        account_id -> Nullable<Text>,
        card_id -> Nullable<Text>,
        amount -> BigInt,
        outcome -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    gateway_authorizations (livemode, reference) {
        livemode -> Bool,
        reference -> Text,
        card -> Text,
        created_at -> BigInt,
    }
}
