//! The rails a mode runs on: who issues its cards and decides their
//! authorizations, who verifies its cardholders, where each is reached,
//! and the funding source cards are issued on. They are recorded when
//! first chosen; every process must then run on the same ones, until an
//! operator changes them on purpose.

use serde::{Deserialize, Serialize};

/// One mode's rails.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rails {
    /// `simulator` or `sudo`.
    pub card_processor: String,
    /// The processor's API base and its vault's (none for the simulator),
    /// as normalized URLs: scheme, host, port and path.
    pub processor_url: Option<String>,
    pub vault_url: Option<String>,
    /// `sandbox` or `smileid`.
    pub kyc_provider: String,
    /// The KYC provider's API base (none for the sandbox verifier).
    pub kyc_url: Option<String>,
    /// The processor's funding source its cards are issued on.
    pub funding_source: Option<String>,
}

impl Rails {
    /// What differs from `recorded`, one phrase per setting:
    /// `card processor: sudo here, simulator recorded`. Empty when they
    /// are the same rails.
    pub fn differences(&self, recorded: &Rails) -> Vec<String> {
        let shown = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
        let settings = [
            (
                "card processor",
                self.card_processor.clone(),
                recorded.card_processor.clone(),
            ),
            (
                "processor URL",
                shown(&self.processor_url),
                shown(&recorded.processor_url),
            ),
            ("vault URL", shown(&self.vault_url), shown(&recorded.vault_url)),
            ("KYC provider", self.kyc_provider.clone(), recorded.kyc_provider.clone()),
            ("KYC URL", shown(&self.kyc_url), shown(&recorded.kyc_url)),
            (
                "funding source",
                shown(&self.funding_source),
                shown(&recorded.funding_source),
            ),
        ];
        settings
            .into_iter()
            .filter(|(_, here, there)| here != there)
            .map(|(what, here, there)| format!("{what}: {here} here, {there} recorded"))
            .collect()
    }

    /// Why a mode recorded on `self` may not move to `to` now, if it may
    /// not: a card remembers the processor that issued it, and a
    /// cardholder awaiting a verification the provider that runs it, so
    /// neither changes under cards still live or verifications pending.
    pub fn change_refused(&self, to: &Rails, in_use: InUse) -> Option<String> {
        let processor = (
            &self.card_processor,
            &self.processor_url,
            &self.vault_url,
            &self.funding_source,
        ) != (&to.card_processor, &to.processor_url, &to.vault_url, &to.funding_source);
        let kyc = (&self.kyc_provider, &self.kyc_url) != (&to.kyc_provider, &to.kyc_url);
        match (
            processor && in_use.live_cards > 0,
            kyc && in_use.pending_cardholders > 0,
        ) {
            (true, _) => Some(format!(
                "{} card(s) issued on {} are not deleted: a card is served by the processor that issued it \
                 (delete or migrate them first)",
                in_use.live_cards,
                self.describe()
            )),
            (_, true) => Some(format!(
                "{} cardholder(s) await a verification by {}: let it decide them first",
                in_use.pending_cardholders, self.kyc_provider
            )),
            _ => None,
        }
    }

    /// One line: `card processor sudo (https://api.sudo.africa), KYC
    /// smileid (https://api.smileidentity.com), funding source fs_1`.
    pub fn describe(&self) -> String {
        let at = |host: &Option<String>| host.as_ref().map(|h| format!(" ({h})")).unwrap_or_default();
        let funding = self.funding_source.as_deref().unwrap_or("none");
        format!(
            "card processor {}{}, KYC {}{}, funding source {funding}",
            self.card_processor,
            at(&self.processor_url),
            self.kyc_provider,
            at(&self.kyc_url),
        )
    }
}

/// What a mode's rails serve now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InUse {
    /// Cards not deleted.
    pub live_cards: u64,
    /// Cardholders whose verification is still to be decided.
    pub pending_cardholders: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rails() -> impl Strategy<Value = Rails> {
        let name = prop::sample::select(vec!["simulator", "sudo", "sandbox", "smileid"]);
        let host = prop::option::of(prop::sample::select(vec!["a.example", "b.example"]));
        (name.clone(), host.clone(), host.clone(), name, host.clone(), host).prop_map(|(p, ph, v, k, kh, f)| Rails {
            card_processor: p.into(),
            processor_url: ph.map(String::from),
            vault_url: v.map(String::from),
            kyc_provider: k.into(),
            kyc_url: kh.map(String::from),
            funding_source: f.map(String::from),
        })
    }

    proptest! {
        /// Rails differ exactly when a setting does, and each setting that
        /// differs is named once, with both values.
        #[test]
        fn differences_name_each_setting_that_differs(a in rails(), b in rails()) {
            let differences = a.differences(&b);
            prop_assert_eq!(differences.is_empty(), a == b);
            prop_assert!(differences.len() <= 6);
            prop_assert!(a.differences(&a).is_empty());
            prop_assert_eq!(differences.len(), b.differences(&a).len());
        }
    }

    proptest! {
        /// A change is refused exactly when it moves the processor under
        /// live cards or the KYC provider under pending cardholders.
        #[test]
        fn rails_change_only_under_nothing_they_serve(a in rails(), b in rails(), cards in 0u64..3, pending in 0u64..3) {
            let in_use = InUse { live_cards: cards, pending_cardholders: pending };
            let processor = (&a.card_processor, &a.processor_url, &a.vault_url, &a.funding_source)
                != (&b.card_processor, &b.processor_url, &b.vault_url, &b.funding_source);
            let kyc = (&a.kyc_provider, &a.kyc_url) != (&b.kyc_provider, &b.kyc_url);
            let refused = a.change_refused(&b, in_use).is_some();
            prop_assert_eq!(refused, (processor && cards > 0) || (kyc && pending > 0));
            prop_assert!(a.change_refused(&a, in_use).is_none());
        }
    }

    #[test]
    fn a_difference_names_both_sides() {
        let recorded = Rails {
            card_processor: "sudo".into(),
            processor_url: Some("https://api.sudo.africa".into()),
            vault_url: Some("https://vault.sudo.africa".into()),
            kyc_provider: "smileid".into(),
            kyc_url: Some("https://api.smileidentity.com".into()),
            funding_source: Some("fs_1".into()),
        };
        let here = Rails {
            card_processor: "simulator".into(),
            processor_url: None,
            vault_url: None,
            funding_source: None,
            ..recorded.clone()
        };
        assert_eq!(
            here.differences(&recorded),
            [
                "card processor: simulator here, sudo recorded",
                "processor URL: none here, https://api.sudo.africa recorded",
                "vault URL: none here, https://vault.sudo.africa recorded",
                "funding source: none here, fs_1 recorded",
            ]
        );
        assert_eq!(
            recorded.describe(),
            "card processor sudo (https://api.sudo.africa), KYC smileid (https://api.smileidentity.com), funding \
             source fs_1"
        );
    }
}
