//! The reward store's tests, on both databases.

use crate::db::fixtures::*;
use crate::test_db::TestDb;
use domain::Mode;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accounts_own_rule_change_never_writes_the_operators_switch() {
    use domain::rewards::rules::RewardRules;
    use ports::rewards::RewardStore;
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let acct = with_account(&db, "acct_a").await;
        let on = RewardRules {
            enabled: true,
            ..RewardRules::default()
        };
        assert!(db.set_rules(&acct, Mode::Test, on, true).await.unwrap());
        // The account's change read the switch off before the operator
        // turned it on: it writes its thresholds, not that stale switch.
        let stale = RewardRules {
            enabled: false,
            monthly_debits: 9,
            ..RewardRules::default()
        };
        assert!(db.set_rules(&acct, Mode::Test, stale, false).await.unwrap());
        let kept = db.rules(&acct, Mode::Test).await.unwrap();
        assert_eq!((kept.enabled, kept.monthly_debits), (true, 9), "{}", t.backend());
        // The operator's change writes it.
        assert!(db.set_rules(&acct, Mode::Test, stale, true).await.unwrap());
        assert!(!db.rules(&acct, Mode::Test).await.unwrap().enabled);
    }
}
