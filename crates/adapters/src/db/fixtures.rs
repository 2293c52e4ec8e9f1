//! The one set-up of the repository suite: an account, a funded card,
//! a cardholder, a leased job, the statements a test writes straight into
//! the tables. Every test runs on SQLite, and on PostgreSQL too when
//! `TEST_DATABASE_URL` is set (`crate::test_db::TestDb::all`).

use crate::db::Db;
use crate::reference::regions;
use crate::test_db::TestDb;
use domain::cardholders::CardholderStatus;
use domain::cardholders::fixtures::nigerian;
use domain::cards::transfer::{Settlement, TransferKind};
use domain::cards::{CardLimit, CardType};
use domain::ids::{AccountId, CardId, CardholderId, EventId, JobId, TransferId};
use domain::ledger::DEFAULT_MAX_WALLET;
use domain::{Amount, Currency, Mode, Timestamp};
use ports::accounts::{AccountStore, NewAccount, StoredKey};
use ports::cardholders::{CardholderRecord, CardholderStore};
use ports::cards::{
    CardRecord, CardStore, Funding, NewCard, NewTransfer, SealedDetails, Settled, SettlementItem, Transfer,
};
use ports::events::NewEvent;
use ports::jobs::{JobKind, Lease, NewJob};
use ports::wallets::WalletStore;

pub(in crate::db) fn new_account(id: &str, is_demo: bool) -> NewAccount {
    let key = |mode: Mode| StoredKey {
        mode,
        lookup_hash: format!("hash-{id}-{}", mode.as_str()),
        sealed: format!("sealed-{id}-{}", mode.as_str()).into_bytes(),
    };
    NewAccount {
        id: AccountId::new(id),
        name: format!("Account {id}"),
        is_demo,
        webhook_url: Some("https://hooks.test/x".into()),
        company_address: Some("1 Marina, Lagos".into()),
        utility_bill_url: Some("https://hooks.test/bill.pdf".into()),
        test_webhook_secret_sealed: b"sealed-whsec-test".to_vec(),
        live_webhook_secret_sealed: b"sealed-whsec-live".to_vec(),
        keys: [key(Mode::Test), key(Mode::Live)],
        created_at: Timestamp::from_unix(1_700_000_000),
    }
}

pub(in crate::db) async fn with_account(db: &Db, id: &str) -> AccountId {
    db.create_account(new_account(id, false)).await.unwrap();
    AccountId::new(id)
}

pub(in crate::db) fn amount(n: i64) -> Amount {
    Amount::from_minor(n).unwrap()
}

pub(in crate::db) async fn exec(db: &Db, sql: &str) {
    db.execute_raw(sql).await.unwrap();
}

/// How many transactions wrote the rows of `table` (a name from the
/// schema): PostgreSQL stamps each row with its transaction's id. `None`
/// on SQLite.
pub(in crate::db) async fn transactions_of(db: &crate::db::Db, table: &str) -> Option<i64> {
    use diesel_async::RunQueryDsl;
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let crate::db::DbPool::Pg(pool) = db.pool() else {
        return None;
    };
    let mut conn = pool.get().await.unwrap();
    let count = diesel::sql_query(format!("SELECT count(DISTINCT xmin::text) AS n FROM {table}"))
        .get_result::<Count>(&mut *conn)
        .await
        .unwrap();
    Some(count.n)
}

pub(in crate::db) const ACCOUNT: &str = "acct_c";

pub(in crate::db) fn job(n: &str, kind: JobKind) -> NewJob {
    NewJob {
        id: JobId::new(format!("job_{n}")),
        kind,
        subject: n.into(),
        max_attempts: 3,
        run_at: Timestamp::from_unix(1),
    }
}

/// A database with one account, a verified cardholder, a wallet of
/// `wallet` cents and one card funded with 300.
pub(in crate::db) async fn setup(t: &TestDb, wallet: i64) -> (crate::db::Db, CardId) {
    let db = t.migrated().await;
    let account = with_account(&db, ACCOUNT).await;
    db.insert(
        record("ch_c", ACCOUNT, Mode::Test, "22212345678", "+2348031234567"),
        None,
    )
    .await
    .unwrap();
    db.fund_from_faucet(
        &account,
        Mode::Test,
        Currency::Usd,
        amount(wallet),
        DEFAULT_MAX_WALLET,
        Timestamp::from_unix(1),
    )
    .await
    .unwrap();
    let card = card_of(&db, "card_c").await;
    (db, card)
}

/// Adds a card `id` funded with 300 from the wallet.
pub(in crate::db) async fn card_of(db: &crate::db::Db, id: &str) -> CardId {
    let (e, d) = event(&format!("created_{id}"));
    db.create(new_card(id, None), e, vec![d], Timestamp::from_unix(1))
        .await
        .unwrap();
    CardId::new(id)
}

/// Whether `card` of the set-up's account is still there (not deleted).
pub(in crate::db) async fn card_exists(db: &crate::db::Db, card: &CardId) -> bool {
    CardStore::get(db, &AccountId::new(ACCOUNT), Mode::Test, card)
        .await
        .unwrap()
        .is_some()
}

/// Writes an approved debit of `cents` on `card_c` straight into its
/// table, as an older release or a forced post left it.
pub(in crate::db) async fn approved_debit(db: &Db, id: &str, reference: &str, cents: i64) {
    let sql = format!(
        "INSERT INTO card_transactions (id, account_id, livemode, card_id, cardholder_id, client_reference, status, \
         amount, currency, description, enriched_data, merchant_name, created_at, approved_seq) VALUES \
         ('{id}', 'acct_c', FALSE, 'card_c', 'ch_c', '{reference}', 'approved', {cents}, 'USD', 'x', '{{}}', 'x', 5, 1)"
    );
    exec(db, &sql).await;
}

/// Funds `card` with `cents` from the wallet, settled.
pub(in crate::db) async fn fund(db: &crate::db::Db, card: &CardId, cents: i64) {
    let id = format!("ctr_fund_{card}_{cents}");
    db.reserve(
        transfer(&id, card, TransferKind::Fund, cents, 5),
        job(&format!("s_{id}"), JobKind::SettleCardTransfer),
    )
    .await
    .unwrap();
    assert_eq!(settle(db, &id, Settlement::Complete).await, Settled::Done);
}

pub(in crate::db) fn transfer(id: &str, card: &CardId, kind: TransferKind, cents: i64, now: i64) -> NewTransfer {
    NewTransfer {
        id: TransferId::new(id),
        account_id: AccountId::new(ACCOUNT),
        mode: Mode::Test,
        card_id: card.clone(),
        kind,
        currency: domain::Currency::Usd,
        amount: amount(cents),
        transaction_reference: format!("ref-{id}"),
        created_at: Timestamp::from_unix(now),
        clock_ahead_secs: Some(0),
    }
}

pub(in crate::db) async fn settle(db: &crate::db::Db, id: &str, settlement: Settlement) -> Settled {
    settle_batch(db, &[(id, settlement)]).await.remove(0)
}

pub(in crate::db) fn record(id: &str, account: &str, mode: Mode, bvn: &str, phone: &str) -> CardholderRecord {
    let mut input = nigerian();
    input.phone = Some(phone.into());
    input.identity.as_mut().unwrap().bvn = Some(bvn.into());
    CardholderRecord {
        id: CardholderId::new(id),
        account_id: AccountId::new(account),
        mode,
        registration: input.check(&regions()).unwrap(),
        status: CardholderStatus::Verified,
        blacklisted: false,
        error_description: None,
        meta_data: Some(r#"{"k":1}"#.into()),
        created_at: Timestamp::from_unix(5),
    }
}

/// A claim's lease of five minutes, under the token "l".
pub(in crate::db) fn lease() -> Lease {
    Lease {
        token: "l".into(),
        secs: 300,
    }
}

pub(in crate::db) fn event(n: &str) -> (NewEvent, NewJob) {
    let event = NewEvent {
        id: EventId::new(format!("evt_{n}")),
        account_id: AccountId::new(ACCOUNT),
        mode: Mode::Test,
        event: "card_test",
        data: "{}".into(),
        created_at: Timestamp::from_unix(1),
    };
    (event, job(&format!("d{n}"), JobKind::DeliverWebhook))
}

/// A card `id` to create, funded with 300 from the wallet, under `reference`.
pub(in crate::db) fn new_card(id: &str, reference: Option<&str>) -> NewCard {
    let card = CardId::new(id);
    NewCard {
        card: CardRecord {
            id: card.clone(),
            account_id: AccountId::new(ACCOUNT),
            mode: Mode::Test,
            cardholder_id: CardholderId::new("ch_c"),
            card_type: CardType::Virtual,
            currency: domain::Currency::Usd,
            name: "Ada Obi".into(),
            details: SealedDetails {
                pan: vec![1],
                cvv: vec![2],
                expiry_month: vec![3],
                expiry_year: vec![4],
            },
            last_4: "4444".into(),
            limit: CardLimit::Usd5k,
            fee_hold: amount(300),
            state: domain::cards::state::CardState::Active,
            pin_3ds_activated: false,
            meta_data: None,
            created_at: Timestamp::from_unix(1),
            balance: 0,
            held: 0,
        },
        sealed_pin: vec![9],
        sealed_nin: None,
        token_number: None,
        funding: Funding::Wallet(amount(300)),
        fee_anchor_at: Timestamp::from_unix(1),
        reference: reference.map(str::to_string),
        processor_card: None,
    }
}

/// Settles a batch in one transaction.
pub(in crate::db) async fn settle_batch(db: &crate::db::Db, batch: &[(&str, Settlement)]) -> Vec<Settled> {
    let mut items = vec![];
    for (n, (id, settlement)) in batch.iter().enumerate() {
        let (event, delivery) = event(&format!("{id}-{settlement:?}-{n}"));
        items.push(SettlementItem {
            transfer: transfer_of(db, id).await,
            settlement: *settlement,
            event,
            delivery,
            now: Timestamp::from_unix(10),
        });
    }
    db.settle(items).await
}

/// The statements posting a balanced entry of `amount` from one ledger
/// account to another, cached balances kept, as an entry of `account` in
/// its mode.
pub(in crate::db) fn post(
    entry: &str,
    (account, live): (&str, bool),
    kind: &str,
    from: &str,
    to: &str,
    amount: i64,
) -> Vec<String> {
    vec![
        format!(
            "INSERT INTO ledger_entries (id, account_id, livemode, kind, created_at) \
             VALUES ('{entry}', '{account}', {live}, '{kind}', 5)"
        ),
        format!(
            "INSERT INTO ledger_postings (account_id, entry_id, seq, ledger_account_id, currency, amount) \
             VALUES ('{account}', '{entry}', 0, '{from}', 'USD', -{amount}), \
             ('{account}', '{entry}', 1, '{to}', 'USD', {amount})"
        ),
        format!("UPDATE ledger_accounts SET balance = balance - {amount} WHERE id = '{from}'"),
        format!("UPDATE ledger_accounts SET balance = balance + {amount} WHERE id = '{to}'"),
    ]
}

pub(in crate::db) async fn transfer_of(db: &crate::db::Db, id: &str) -> Transfer {
    let mut found = db.transfers(&[TransferId::new(id)]).await.unwrap();
    assert_eq!(found.len(), 1, "{id}");
    found.remove(0)
}
