//! The connectors each mode runs on, chosen by flags: the simulators by
//! default, or the real providers' connectors with their credentials
//! (environment or files only; a connector chosen without them refuses to
//! start, naming what is missing).

use crate::cli::{CardProcessor, KycProvider, ServeArgs, public_url};
use crate::credentials;
use adapters::card_network::NetworkSimulator;
use adapters::connectors::ByMode;
use adapters::connectors::smileid::{self, SmileId, SmileIdCredentials};
use adapters::connectors::sudo::gateway::SudoGateway;
use adapters::connectors::sudo::{self, Sudo, SudoSettings};
use adapters::kyc_sandbox::SandboxKyc;
use anyhow::{Context, bail};
use app::health::LiveConnectors;
use domain::{Mode, Secret};
use ports::card_network::CardNetwork;
use ports::kyc::KycVerifier;
use ports::processor_gateway::ProcessorGateway;
use std::sync::Arc;

/// The environment variables a mode's Sudo credentials come from: its API
/// key, and what Sudo presents on gateway calls.
fn sudo_env(mode: Mode) -> (&'static str, &'static str) {
    match mode {
        Mode::Live => ("ISSUING_SUDO_API_KEY", "ISSUING_SUDO_GATEWAY_SECRET"),
        Mode::Test => ("ISSUING_SANDBOX_SUDO_API_KEY", "ISSUING_SANDBOX_SUDO_GATEWAY_SECRET"),
    }
}

fn processor_of(mode: Mode, args: &ServeArgs) -> CardProcessor {
    match mode {
        Mode::Live => args.card_processor,
        Mode::Test => args.sandbox_card_processor,
    }
}

fn needed_by(mode: Mode) -> String {
    format!("the sudo card processor ({} mode)", mode.as_str())
}

fn network_for(
    mode: Mode,
    args: &ServeArgs,
    simulator: &Arc<NetworkSimulator>,
) -> anyhow::Result<Arc<dyn CardNetwork>> {
    match processor_of(mode, args) {
        CardProcessor::Simulator => Ok(simulator.clone()),
        CardProcessor::Sudo => {
            let needed_by = needed_by(mode);
            let funding_source = match mode {
                Mode::Live => &args.sudo_funding_source_id,
                Mode::Test => &args.sandbox_sudo_funding_source_id,
            };
            let flag = match mode {
                Mode::Live => "--sudo-funding-source-id",
                Mode::Test => "--sandbox-sudo-funding-source-id",
            };
            let funding_source = funding_source.clone().with_context(|| {
                format!("{needed_by} needs {flag}: the gateway funding source its cards are issued on")
            })?;
            let (live_default, live_vault) = (sudo::PRODUCTION_URL, sudo::PRODUCTION_VAULT_URL);
            let (test_default, test_vault) = (sudo::SANDBOX_URL, sudo::SANDBOX_VAULT_URL);
            let (api_default, vault_default) = match mode {
                Mode::Live => (live_default, live_vault),
                Mode::Test => (test_default, test_vault),
            };
            let api_url = match &args.sudo_api_url {
                Some(url) => public_url("--sudo-api-url", url)?,
                None => api_default.to_string(),
            };
            let vault_url = match &args.sudo_vault_url {
                Some(url) => public_url("--sudo-vault-url", url)?,
                None => vault_default.to_string(),
            };
            let settings = SudoSettings {
                api_url,
                vault_url,
                api_key: credentials::required(sudo_env(mode).0, &needed_by)?,
                funding_source,
            };
            Ok(Arc::new(Sudo::new(settings).map_err(anyhow::Error::msg)?))
        }
    }
}

/// The card network of each mode: `simulator` issues under --card-bin.
pub fn network(args: &ServeArgs, simulator: NetworkSimulator) -> anyhow::Result<Arc<dyn CardNetwork>> {
    let simulator = Arc::new(simulator);
    Ok(Arc::new(ByMode {
        live: network_for(Mode::Live, args, &simulator)?,
        test: network_for(Mode::Test, args, &simulator)?,
    }))
}

/// What Sudo must present on each mode's gateway calls (none for a mode
/// on the simulator: the gateway answers 403 for it).
pub fn gateway(args: &ServeArgs) -> anyhow::Result<Arc<dyn ProcessorGateway>> {
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

fn kyc_for(mode: Mode, provider: KycProvider, args: &ServeArgs) -> anyhow::Result<Arc<dyn KycVerifier>> {
    match provider {
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
            let api_url = match (&args.smileid_api_url, mode) {
                (Some(url), _) => public_url("--smileid-api-url", url)?,
                (None, Mode::Live) => smileid::PRODUCTION_URL.to_string(),
                (None, Mode::Test) => smileid::SANDBOX_URL.to_string(),
            };
            let connector = SmileId::new(&api_url, mode, credentials, callback).map_err(anyhow::Error::msg)?;
            Ok(Arc::new(connector))
        }
    }
}

/// The KYC verifier of each mode.
pub fn kyc(args: &ServeArgs) -> anyhow::Result<Arc<dyn KycVerifier>> {
    let verifiers = ByMode {
        live: kyc_for(Mode::Live, args.kyc_provider, args)?,
        test: kyc_for(Mode::Test, args.sandbox_kyc_provider, args)?,
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
pub fn live_connectors(args: &ServeArgs) -> LiveConnectors {
    let kyc = args.kyc_provider == KycProvider::Smileid;
    let cards = args.card_processor == CardProcessor::Sudo;
    match (kyc, cards) {
        (true, true) => LiveConnectors::Real,
        (false, false) => LiveConnectors::Simulated,
        _ => LiveConnectors::Mixed,
    }
}
