//! Connections and what they start with: migrations applied once, each
//! connection's session settings, values sealed to their places.

use crate::crypto::vault::MasterKeyVault;
use crate::db::fixtures::*;
use crate::db::{Db, MIGRATE_DIRECTLY, migrate, pending_migrations};
use crate::test_db::TestDb;
use domain::{Mode, Secret};
use ports::accounts::AccountStore;
use ports::vault::{Place, Vault};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrations_apply_once() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        assert_eq!(migrate(&db).await.unwrap(), 0, "{}", t.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sealed_secrets_are_what_is_stored() {
    // The vault and the store together: what the account row holds opens
    // back to the secret only with the same master key.
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let vault = MasterKeyVault::from_hex(&MasterKeyVault::generate_hex()).unwrap();
        let mut account = new_account("acct_demo", true);
        let place = |row| Place::api_key(row, "acct_demo", Mode::Test);
        account.keys[0].sealed = vault.seal(b"sk_test_demo", &place("hash-acct_demo-test"));
        db.create_account(account).await.unwrap();
        let demo = db.demo_key(Mode::Test).await.unwrap().unwrap();
        assert_eq!(
            vault.open(&demo.sealed, &place(&demo.lookup_hash)).unwrap(),
            Secret::new(b"sk_test_demo".to_vec()),
            "{}",
            t.backend()
        );
        assert!(vault.open(&demo.sealed, &place("another-key")).is_err());
    }
}

#[derive(diesel::QueryableByName)]
struct Setting {
    #[diesel(sql_type = diesel::sql_types::Text)]
    value: String,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_connection_starts_with_its_session_settings() {
    use diesel_async::RunQueryDsl;
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let query = match t.backend() {
            "sqlite" => "SELECT journal_mode AS value FROM pragma_journal_mode",
            _ => "SELECT current_setting('application_name') AS value",
        };
        let setting = crate::db::with_conn!(db.pool(), |conn| diesel::sql_query(query)
            .get_result::<Setting>(conn)
            .await)
        .unwrap();
        let expected = if t.backend() == "sqlite" { "wal" } else { "issuing" };
        assert_eq!(setting.value, expected, "{}", t.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_sealed_before_places_are_sealed_again_bound_to_theirs() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let vault = MasterKeyVault::from_hex(&MasterKeyVault::generate_hex()).unwrap();
        let mut account = new_account("acct_old", true);
        account.keys[0].sealed = vault.seal_unbound(b"sk_test_old");
        account.keys[1].sealed = vault.seal_unbound(b"sk_live_old");
        account.test_webhook_secret_sealed = vault.seal_unbound(b"whsec_test");
        account.live_webhook_secret_sealed = vault.seal_unbound(b"whsec_live");
        db.create_account(account).await.unwrap();
        assert_eq!(db.reseal_unbound(&vault).await.unwrap(), 4, "{}", t.backend());
        assert_eq!(db.reseal_unbound(&vault).await.unwrap(), 0, "once");
        let test_key = Place::api_key("hash-acct_old-test", "acct_old", Mode::Test);
        let demo = db.demo_key(Mode::Test).await.unwrap().unwrap();
        assert_eq!(vault.open(&demo.sealed, &test_key).unwrap().expose(), b"sk_test_old");
        // Another key does not open them, and says which value it was.
        let other = MasterKeyVault::from_hex(&MasterKeyVault::generate_hex()).unwrap();
        let mut account = new_account("acct_more", false);
        account.keys[0].sealed = vault.seal_unbound(b"sk_test_more");
        db.create_account(account).await.unwrap();
        let e = db.reseal_unbound(&other).await.unwrap_err();
        assert!(e.to_string().contains("api_keys.sealed_key of hash-acct_more-"), "{e}");
    }
}

/// Told a transaction pooler stands between (`pgbouncer=true`), a database
/// never migrated counts every migration pending and is not migrated
/// through it (migrations need a session): the refusal says what to do.
/// Once migrated directly, nothing is pending through it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_a_transaction_pooler_a_database_never_migrated_says_to_migrate_directly() {
    let Some(t) = TestDb::postgres_from_env().await else {
        return;
    };
    let pooled = Db::connect(&format!("{}&pgbouncer=true", t.url()), 2).await.unwrap();
    let shipped = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/postgres"))
        .unwrap()
        .filter(|entry| entry.as_ref().unwrap().path().is_dir())
        .count();
    assert_eq!(pending_migrations(&pooled).await.unwrap(), shipped);
    let refused = migrate(&pooled).await.unwrap_err().to_string();
    assert!(refused.contains(MIGRATE_DIRECTLY), "{refused}");
    t.migrated().await;
    assert_eq!(pending_migrations(&pooled).await.unwrap(), 0);
}

#[test]
fn a_pooler_unannounced_is_named_with_the_setting_that_fixes_it() {
    for said in [
        "connection pool: Error occurred while creating a new object: prepared statement \"s0\" already exists",
        "migration failed: prepared statement \"s11\" does not exist",
    ] {
        let hinted = crate::db::pooler_hint(said).expect("a hint");
        assert!(
            hinted.starts_with(said) && hinted.contains("add pgbouncer=true"),
            "{hinted}"
        );
    }
    for said in [
        "relation \"cards\" does not exist",
        "duplicate key value violates unique constraint",
    ] {
        assert_eq!(crate::db::pooler_hint(said), None, "{said}");
    }
}
