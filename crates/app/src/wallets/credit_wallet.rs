//! `issuing wallets credit`: the operator credits an issuing wallet with
//! money its account holder paid in (a bank transfer received), live or
//! sandbox. Never a balance edit: one balanced ledger entry from the
//! account's deposits, once per reference.

use crate::{App, RequestError};
use domain::ids::AccountId;
use domain::{Amount, Currency, InvalidInput, Mode, Timestamp};
use ports::wallets::{CreditOutcome, FundWalletError, WalletCredit};

/// What the operator typed.
#[derive(Debug, Clone)]
pub struct CreditRequest<'a> {
    pub account: AccountId,
    pub mode: Mode,
    pub currency: &'a str,
    /// Minor units, digits only.
    pub amount: &'a str,
    pub reference: &'a str,
    pub note: &'a str,
}

/// The most characters of a credit's reference and of its note.
const MAX_REFERENCE: usize = 100;
const MAX_NOTE: usize = 500;

/// A credit made, or found made before under the same reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credited {
    pub currency: Currency,
    pub amount: Amount,
    /// The reference as kept: trimmed, composed and in lower case
    /// ([`domain::text::reference_key`]).
    pub reference: String,
    /// False when the reference had been credited: nothing moved now.
    pub moved_now: bool,
    pub created_at: Timestamp,
    /// The wallet's balance after the call.
    pub issuing_balance: Amount,
}

impl App {
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn credit_wallet(&self, request: CreditRequest<'_>) -> Result<Credited, RequestError> {
        let max_wallet = self.settings.max_wallet;
        let currency = Currency::parse("currency", request.currency)?;
        let amount = Amount::parse_positive_up_to(
            "amount",
            request.amount,
            max_wallet,
            "the most an issuing wallet may hold",
        )?;
        let note = request.note.trim();
        domain::text::plain("reference", request.reference, MAX_REFERENCE)?;
        domain::text::plain("note", note, MAX_NOTE)?;
        let credit = WalletCredit {
            account: request.account,
            mode: request.mode,
            currency,
            amount,
            reference: domain::text::reference_key(request.reference),
            note: note.to_string(),
        };
        let now = self.now_for(&credit.account, credit.mode).await?;
        let wallets = &self.ports.wallets;
        match wallets.credit_from_deposits(&credit, max_wallet, now).await {
            Ok(CreditOutcome::Credited { balance }) => Ok(Credited {
                currency,
                amount,
                reference: credit.reference,
                moved_now: true,
                created_at: now,
                issuing_balance: balance,
            }),
            Ok(CreditOutcome::AlreadyCredited {
                currency: was_currency,
                amount: was_amount,
                created_at,
            }) => {
                if (was_currency, was_amount) != (currency, amount) {
                    let rule = format!(
                        "already credited {} {} at {} (unix seconds): another credit needs another reference",
                        was_amount.minor(),
                        was_currency.code(),
                        created_at.unix()
                    );
                    return Err(InvalidInput::new("reference", rule).into());
                }
                let balances = wallets.balances(&credit.account, credit.mode).await?;
                Ok(Credited {
                    currency,
                    amount,
                    reference: credit.reference,
                    moved_now: false,
                    created_at,
                    issuing_balance: balances.of(currency),
                })
            }
            Err(FundWalletError::BalanceLimit) => Err(RequestError::WalletFull(max_wallet)),
            Err(FundWalletError::UnknownAccount) => {
                Err(InvalidInput::new("account_id", "no account with this id").into())
            }
            Err(FundWalletError::Store(e)) => Err(e.into()),
        }
    }
}
