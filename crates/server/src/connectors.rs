//! The connectors each mode runs on, chosen by flags: the simulators by
//! default, or the real providers' connectors with their credentials
//! (environment or files only; a connector chosen without them refuses to
//! start, naming what is missing). The same flags for every process
//! ([`RailsArgs`]), held to the rails recorded in the database
//! ([`hold_rails`]).

use crate::cli::{CardProcessor, KycProvider, RailsArgs, public_url};
use crate::credentials;
use adapters::card_network::NetworkSimulator;
use adapters::connectors::ByMode;
use adapters::connectors::smileid::{self, SmileId, SmileIdCredentials};
use adapters::connectors::sudo::gateway::SudoGateway;
use adapters::connectors::sudo::{self, Sudo, SudoSettings};
use adapters::db::Db;
use adapters::kyc_sandbox::SandboxKyc;
use anyhow::{Context, bail};
use app::health::LiveConnectors;
use domain::rails::Rails;
use domain::{Mode, Secret};
use ports::card_network::CardNetwork;
use ports::kyc::KycVerifier;
use ports::processor_gateway::ProcessorGateway;
use ports::rails::RailsStore;
use std::sync::Arc;

/// The environment variables a mode's Sudo credentials come from: its API
/// key, and what Sudo presents on gateway calls.
fn sudo_env(mode: Mode) -> (&'static str, &'static str) {
    match mode {
        Mode::Live => ("ISSUING_SUDO_API_KEY", "ISSUING_SUDO_GATEWAY_SECRET"),
        Mode::Test => ("ISSUING_SANDBOX_SUDO_API_KEY", "ISSUING_SANDBOX_SUDO_GATEWAY_SECRET"),
    }
}

fn processor_of(mode: Mode, args: &RailsArgs) -> CardProcessor {
    match mode {
        Mode::Live => args.card_processor,
        Mode::Test => args.sandbox_card_processor,
    }
}

fn needed_by(mode: Mode) -> String {
    format!("the sudo card processor ({} mode)", mode.as_str())
}

/// A provider's URL as `flag` gave it: an absolute http(s) URL; in live
/// mode https to a public host, unless `--allow-provider-url-override`
/// (a test's fake on loopback).
fn provider_url(flag: &str, value: &str, mode: Mode, args: &RailsArgs) -> anyhow::Result<String> {
    let url = public_url(flag, value)?;
    if mode.is_live() {
        domain::http_url::webhook_url(flag, &url, mode, args.allow_provider_url_override).map_err(|e| {
            anyhow::anyhow!("{e} (live money goes there: --allow-provider-url-override for a test's fake only)")
        })?;
    }
    Ok(url)
}

/// Sudo's API and vault bases for `mode`: the flags', or its own.
fn sudo_urls(mode: Mode, args: &RailsArgs) -> anyhow::Result<(String, String)> {
    let (api_default, vault_default) = match mode {
        Mode::Live => (sudo::PRODUCTION_URL, sudo::PRODUCTION_VAULT_URL),
        Mode::Test => (sudo::SANDBOX_URL, sudo::SANDBOX_VAULT_URL),
    };
    let api_url = match &args.sudo_api_url {
        Some(url) => provider_url("--sudo-api-url", url, mode, args)?,
        None => api_default.to_string(),
    };
    let vault_url = match &args.sudo_vault_url {
        Some(url) => provider_url("--sudo-vault-url", url, mode, args)?,
        None => vault_default.to_string(),
    };
    Ok((api_url, vault_url))
}

/// Smile ID's API base for `mode`: the flag's, or its own.
fn smileid_url(mode: Mode, args: &RailsArgs) -> anyhow::Result<String> {
    Ok(match (&args.smileid_api_url, mode) {
        (Some(url), _) => provider_url("--smileid-api-url", url, mode, args)?,
        (None, Mode::Live) => smileid::PRODUCTION_URL.to_string(),
        (None, Mode::Test) => smileid::SANDBOX_URL.to_string(),
    })
}

fn kyc_of(mode: Mode, args: &RailsArgs) -> KycProvider {
    match mode {
        Mode::Live => args.kyc_provider,
        Mode::Test => args.sandbox_kyc_provider,
    }
}

fn funding_source_of(mode: Mode, args: &RailsArgs) -> &Option<String> {
    match mode {
        Mode::Live => &args.sudo_funding_source_id,
        Mode::Test => &args.sandbox_sudo_funding_source_id,
    }
}

fn credit_account_of(mode: Mode, args: &RailsArgs) -> &Option<String> {
    match mode {
        Mode::Live => &args.sudo_credit_account_id,
        Mode::Test => &args.sandbox_sudo_credit_account_id,
    }
}

/// A Sudo id `mode` needs, given by `--<flag>` (live) or
/// `--sandbox-<flag>`: `what` says what it is when it is missing.
fn sudo_id(mode: Mode, given: &Option<String>, flag: &str, what: &str) -> anyhow::Result<String> {
    let flag = match mode {
        Mode::Live => format!("--{flag}"),
        Mode::Test => format!("--sandbox-{flag}"),
    };
    given
        .clone()
        .with_context(|| format!("{} needs {flag}: {what}", needed_by(mode)))
}

/// The rails `args` choose for `mode`.
pub fn rails_of(mode: Mode, args: &RailsArgs) -> anyhow::Result<Rails> {
    // Each URL as `public_url` normalizes it: a host in lower case, no
    // default port, no trailing slash.
    let (card_processor, (processor_url, vault_url), funding_source) = match processor_of(mode, args) {
        CardProcessor::Simulator => ("simulator", (None, None), None),
        CardProcessor::Sudo => {
            let (api, vault) = sudo_urls(mode, args)?;
            ("sudo", (Some(api), Some(vault)), funding_source_of(mode, args).clone())
        }
    };
    let (kyc_provider, kyc_url) = match kyc_of(mode, args) {
        KycProvider::Sandbox => ("sandbox", None),
        KycProvider::Smileid => ("smileid", Some(smileid_url(mode, args)?)),
    };
    Ok(Rails {
        card_processor: card_processor.into(),
        processor_url,
        vault_url,
        kyc_provider: kyc_provider.into(),
        kyc_url,
        funding_source,
    })
}

/// Holds this process to the rails recorded for each mode (recording
/// them when none are yet), and says what each mode runs on. A process
/// started on other rails refuses to start, naming how they differ.
pub async fn hold_rails(db: &Db, args: &RailsArgs) -> anyhow::Result<()> {
    let now = ports::clock::Clock::now(&adapters::system::SystemClock);
    for mode in [Mode::Live, Mode::Test] {
        let chosen = rails_of(mode, args)?;
        let recorded = db.record_first(mode, &chosen, now).await?;
        let differences = chosen.differences(&recorded);
        if !differences.is_empty() {
            bail!(
                "{} mode runs on other rails than the database records ({}): start this process with the \
                 recorded ones (`issuing rails show`), or change them on purpose with `issuing rails set --mode {}` \
                 and these flags",
                mode.as_str(),
                differences.join("; "),
                mode.as_str()
            );
        }
        tracing::info!("{} mode runs on {}", mode.as_str(), chosen.describe());
    }
    Ok(())
}

fn network_for(
    mode: Mode,
    args: &RailsArgs,
    simulator: &Arc<NetworkSimulator>,
) -> anyhow::Result<Arc<dyn CardNetwork>> {
    match processor_of(mode, args) {
        CardProcessor::Simulator => Ok(simulator.clone()),
        CardProcessor::Sudo => {
            let funding_source = sudo_id(
                mode,
                funding_source_of(mode, args),
                "sudo-funding-source-id",
                "the gateway funding source its cards are issued on",
            )?;
            let credit_account = sudo_id(
                mode,
                credit_account_of(mode, args),
                "sudo-credit-account-id",
                "the Sudo account a cancelled card's balance is credited to",
            )?;
            let (api_url, vault_url) = sudo_urls(mode, args)?;
            let settings = SudoSettings {
                api_url,
                vault_url,
                api_key: credentials::required(sudo_env(mode).0, &needed_by(mode))?,
                funding_source,
                credit_account,
            };
            Ok(Arc::new(Sudo::new(settings).map_err(anyhow::Error::msg)?))
        }
    }
}

/// The card network of each mode: `simulator` issues under --card-bin.
pub fn network(args: &RailsArgs, simulator: NetworkSimulator) -> anyhow::Result<Arc<dyn CardNetwork>> {
    let simulator = Arc::new(simulator);
    Ok(Arc::new(ByMode {
        live: network_for(Mode::Live, args, &simulator)?,
        test: network_for(Mode::Test, args, &simulator)?,
    }))
}

/// What Sudo must present on each mode's gateway calls (none for a mode
/// on the simulator: the gateway answers 403 for it).
pub fn gateway(args: &RailsArgs) -> anyhow::Result<Arc<dyn ProcessorGateway>> {
    /// Long enough not to be guessed, as the processor secrets.
    const MIN_CHARS: usize = 32;
    let secret = |mode: Mode| -> anyhow::Result<Option<Secret<String>>> {
        if processor_of(mode, args) != CardProcessor::Sudo {
            return Ok(None);
        }
        let name = sudo_env(mode).1;
        let secret = credentials::required(name, &needed_by(mode))?;
        if secret.expose().chars().count() < MIN_CHARS {
            bail!("{name}: must be at least {MIN_CHARS} characters");
        }
        // Sudo presents it as registered, `Bearer <secret>` or bare: a
        // secret that is itself `Bearer ...` could match the other mode's.
        if secret
            .expose()
            .get(..7)
            .is_some_and(|p| p.eq_ignore_ascii_case("bearer "))
        {
            bail!("{name}: the secret itself, without `Bearer ` (Sudo's header may carry it either way)");
        }
        Ok(Some(secret))
    };
    let (live, test) = (secret(Mode::Live)?, secret(Mode::Test)?);
    if let (Some(live), Some(test)) = (&live, &test)
        && live.expose() == test.expose()
    {
        bail!(
            "ISSUING_SUDO_GATEWAY_SECRET and ISSUING_SANDBOX_SUDO_GATEWAY_SECRET must differ: with one secret for both, a sandbox call would debit live cards"
        );
    }
    Ok(Arc::new(SudoGateway { live, test }))
}

/// The environment variables a mode's Smile ID credentials come from.
fn smileid_env(mode: Mode) -> (&'static str, &'static str) {
    match mode {
        Mode::Live => ("ISSUING_SMILEID_PARTNER_ID", "ISSUING_SMILEID_API_KEY"),
        Mode::Test => ("ISSUING_SANDBOX_SMILEID_PARTNER_ID", "ISSUING_SANDBOX_SMILEID_API_KEY"),
    }
}

fn kyc_for(mode: Mode, args: &RailsArgs) -> anyhow::Result<Arc<dyn KycVerifier>> {
    match kyc_of(mode, args) {
        KycProvider::Sandbox => Ok(Arc::new(SandboxKyc)),
        KycProvider::Smileid => {
            let needed_by = format!("the smileid KYC provider ({} mode)", mode.as_str());
            let (partner_env, key_env) = smileid_env(mode);
            let credentials = SmileIdCredentials {
                partner_id: credentials::required(partner_env, &needed_by)?.expose().clone(),
                api_key: credentials::required(key_env, &needed_by)?,
            };
            let Some(public) = &args.public_url else {
                bail!(
                    "{needed_by} needs --public-url: Smile ID posts asynchronous outcomes to <public-url>/v1/connectors/smileid/callback"
                );
            };
            let callback = format!("{}/v1/connectors/smileid/callback", public_url("--public-url", public)?);
            let api_url = smileid_url(mode, args)?;
            let connector = SmileId::new(&api_url, mode, credentials, callback).map_err(anyhow::Error::msg)?;
            Ok(Arc::new(connector))
        }
    }
}

/// The KYC verifier of each mode.
pub fn kyc(args: &RailsArgs) -> anyhow::Result<Arc<dyn KycVerifier>> {
    let verifiers = ByMode {
        live: kyc_for(Mode::Live, args)?,
        test: kyc_for(Mode::Test, args)?,
    };
    if args.kyc_provider == KycProvider::Smileid && args.sandbox_kyc_provider == KycProvider::Smileid {
        let (live, test) = (smileid_env(Mode::Live).1, smileid_env(Mode::Test).1);
        let same = credentials::from_env(live)?.map(|k| k.expose().clone())
            == credentials::from_env(test)?.map(|k| k.expose().clone());
        if same {
            bail!("{live} and {test} must differ: Smile ID gives each environment its own key");
        }
    }
    Ok(Arc::new(verifiers))
}

/// What live mode runs on, for `/health` and the start-up warning.
pub fn live_connectors(args: &RailsArgs) -> LiveConnectors {
    let kyc = args.kyc_provider == KycProvider::Smileid;
    let cards = args.card_processor == CardProcessor::Sudo;
    match (kyc, cards) {
        (true, true) => LiveConnectors::Real,
        (false, false) => LiveConnectors::Simulated,
        _ => LiveConnectors::Mixed,
    }
}
