//! Each account's reward rules per mode, and the jobs that apply them: an
//! approved debit of an account with rewards on queues a `RewardRules`
//! job for its cardholder, which awards the month rules the cardholder now
//! meets and plans the inactivity check; that check, due when the
//! inactivity period after the last debit ends, awards the inactivity rule
//! if no debit came since.

use super::RewardError;
use crate::{App, Caller};
use domain::cards::product::Product;
use domain::ids::{AccountId, CardholderId};
use domain::rewards::rules::{MonthActivity, RewardRules, Rule};
use domain::{Amount, Mode, Timestamp};
use ports::StoreError;
use ports::jobs::JobKind;

/// How long a process trusts the reward switch it read: a switch turned
/// on or off applies to debits within this many seconds everywhere.
pub const SWITCH_CACHE_SECS: i64 = 10;

/// The reward switch of each account and mode this process read lately.
pub(crate) type Switches = crate::ttl_cache::TtlCache<(AccountId, Mode), bool>;

/// A change of rules: each field given replaces the current one.
#[derive(Debug, Clone, Default)]
pub struct RulesChange {
    pub enabled: Option<bool>,
    /// USD cents, as sent.
    pub spend_threshold: Option<String>,
    pub monthly_debits: Option<u32>,
    pub inactivity_days: Option<u32>,
}

impl App {
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn reward_rules(&self, caller: &Caller) -> Result<RewardRules, StoreError> {
        self.ports.rewards.rules(&caller.account_id, caller.mode).await
    }

    /// Changes the caller's rules of its mode. The switch itself is the
    /// operator's (`issuing accounts update --rewards`): a key cannot turn
    /// the feature on.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn update_reward_rules(&self, caller: &Caller, change: RulesChange) -> Result<RewardRules, RewardError> {
        if change.enabled.is_some() {
            let rule = "is switched on and off by the operator (through support), not with an API key";
            return Err(domain::InvalidInput::new("enabled", rule).into());
        }
        self.change_reward_rules(&caller.account_id, caller.mode, change).await
    }

    /// Changes an account's rules of `mode` (the operator's path: the
    /// switch too).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn change_reward_rules(
        &self,
        account: &AccountId,
        mode: Mode,
        change: RulesChange,
    ) -> Result<RewardRules, RewardError> {
        let current = self.ports.rewards.rules(account, mode).await?;
        let threshold = match change.spend_threshold.as_deref() {
            Some(cents) => Amount::parse("spend_threshold", cents)?,
            None => current.spend_threshold,
        };
        let rules = RewardRules {
            enabled: change.enabled.unwrap_or(current.enabled),
            spend_threshold: threshold,
            monthly_debits: change.monthly_debits.unwrap_or(current.monthly_debits),
            inactivity_days: change.inactivity_days.unwrap_or(current.inactivity_days),
        }
        .validate()?;
        let switch = change.enabled.is_some();
        if !self.ports.rewards.set_rules(account, mode, rules, switch).await? {
            return Err(domain::InvalidInput::new("account_id", "no account with this id").into());
        }
        self.reward_switches.forget(&(account.clone(), mode));
        Ok(rules)
    }

    /// After an approved debit: queues the cardholder's rule job when the
    /// account has rewards on. Never fails the debit, which is done.
    pub(crate) async fn after_approved_debit(&self, account: &AccountId, mode: Mode, cardholder: &CardholderId) {
        let queued = async {
            if !self.rewards_on(account, mode).await? {
                return Ok(());
            }
            let job = self.job_now(JobKind::RewardRules, cardholder.to_string());
            self.ports.jobs.schedule(job, account, mode).await
        };
        if let Err(error) = queued.await {
            tracing::warn!(%account, %error, "the reward rules of an approved debit were not queued");
        }
    }

    async fn rewards_on(&self, account: &AccountId, mode: Mode) -> Result<bool, StoreError> {
        let now = self.ports.clock.now();
        if let Some(on) = self.reward_switches.get(&(account.clone(), mode), now) {
            return Ok(on);
        }
        let on = self.ports.rewards.rules(account, mode).await?.enabled;
        self.reward_switches.put((account.clone(), mode), on, now);
        Ok(on)
    }

    /// The `RewardRules` job: `<cardholder>` after a debit (the month
    /// rules, then plan the inactivity check), or `<cardholder> <unix>`
    /// when the inactivity period after the debit at `<unix>` ends.
    pub(crate) async fn run_reward_rules(
        &self,
        (account, mode): (&AccountId, Mode),
        subject: &str,
    ) -> Result<(), String> {
        let (cardholder, after) = match subject.split_once(' ') {
            Some((cardholder, at)) => {
                let at = at
                    .parse::<i64>()
                    .map_err(|_| format!("a reward job's subject is unreadable: {subject}"))?;
                (CardholderId::new(cardholder), Some(Timestamp::from_unix(at)))
            }
            None => (CardholderId::new(subject), None),
        };
        self.apply_reward_rules((account, mode, &cardholder), after)
            .await
            .map_err(|e| e.to_string())
    }

    async fn apply_reward_rules(
        &self,
        (account, mode, cardholder): (&AccountId, Mode, &CardholderId),
        inactive_since: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        let rules = self.ports.rewards.rules(account, mode).await?;
        if !rules.enabled {
            return Ok(());
        }
        let clock = self.clock_for(account, mode).await?;
        let now = clock.now;
        let Some(last) = self.ports.rewards.last_debit(account, mode, cardholder).await? else {
            return Ok(());
        };
        let holder = (account, mode, cardholder);
        match inactive_since {
            None => {
                let month = now.month_bounds(0);
                let spending = self.ports.rewards.spending(account, mode, cardholder, month).await?;
                let mut activity = MonthActivity {
                    spent: Amount::ZERO,
                    debits: 0,
                };
                for s in spending {
                    let cents = Product::of(s.currency).counts_against_limit(s.total, self.settings.fx_rates);
                    activity.spent = activity.spent.checked_add(cents).unwrap_or(Amount::MAX);
                    activity.debits = activity.debits.saturating_add(s.debits);
                }
                for rule in rules.earned(activity) {
                    let period = now.month_key().to_string();
                    self.give(holder, Some((rule, period)), now).await?;
                }
                let check = format!("{cardholder} {}", last.unix());
                let job = self.job_at(JobKind::RewardRules, check, clock, rules.inactive_from(last));
                self.ports.jobs.schedule(job, account, mode).await
            }
            // A later debit planned its own check.
            Some(since) if since != last => Ok(()),
            Some(since) if now < rules.inactive_from(since) => {
                // The period grew since this check was planned.
                let check = format!("{cardholder} {}", since.unix());
                let job = self.job_at(JobKind::RewardRules, check, clock, rules.inactive_from(since));
                self.ports.jobs.schedule(job, account, mode).await
            }
            Some(since) => {
                self.give(holder, Some((Rule::Inactivity, since.unix().to_string())), now)
                    .await?;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Mocks;

    #[tokio::test]
    async fn the_switch_is_read_once_per_window_and_forgotten_when_changed() {
        let mut m = Mocks::default();
        let at = std::sync::Arc::new(std::sync::atomic::AtomicI64::new(1_000));
        let clock = at.clone();
        m.clock
            .expect_now()
            .returning(move || Timestamp::from_unix(clock.load(std::sync::atomic::Ordering::SeqCst)));
        m.ids.expect_unique().returning(|| "u".into());
        let on = RewardRules {
            enabled: true,
            ..RewardRules::default()
        };
        // Three reads of the switch, and the change's read of the rules.
        m.rewards.expect_rules().times(4).returning(move |_, _| Ok(on));
        m.rewards.expect_set_rules().times(1).returning(|_, _, _, _| Ok(true));
        m.jobs.expect_schedule().times(4).returning(|_, _, _| Ok(()));
        let app = m.app();
        let (account, holder) = (AccountId::new("acct_1"), CardholderId::new("ch_1"));
        // Read once, then trusted within the window.
        app.after_approved_debit(&account, Mode::Test, &holder).await;
        app.after_approved_debit(&account, Mode::Test, &holder).await;
        // Read again once the window ends.
        at.store(1_000 + SWITCH_CACHE_SECS, std::sync::atomic::Ordering::SeqCst);
        app.after_approved_debit(&account, Mode::Test, &holder).await;
        // A change through this process is seen at once.
        let change = RulesChange {
            monthly_debits: Some(3),
            ..RulesChange::default()
        };
        app.change_reward_rules(&account, Mode::Test, change).await.unwrap();
        app.after_approved_debit(&account, Mode::Test, &holder).await;
    }
}
