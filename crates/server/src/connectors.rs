//! The connectors each mode runs on, chosen by flags: the simulators by
//! default, or the real providers' connectors with their credentials
//! (environment or files only; a connector chosen without them refuses to
//! start, naming what is missing).

use crate::cli::{KycProvider, ServeArgs, public_url};
use crate::credentials;
use adapters::connectors::ByMode;
use adapters::connectors::smileid::{self, SmileId, SmileIdCredentials};
use adapters::kyc_sandbox::SandboxKyc;
use anyhow::bail;
use app::health::LiveConnectors;
use domain::Mode;
use ports::kyc::KycVerifier;
use std::sync::Arc;

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
    if args.kyc_provider == KycProvider::Smileid && args.sandbox_kyc_provider == KycProvider::Smileid {
        let (live, test) = (smileid_env(Mode::Live).1, smileid_env(Mode::Test).1);
        let same = credentials::from_env(live)?.map(|k| k.expose().clone())
            == credentials::from_env(test)?.map(|k| k.expose().clone());
        if same {
            bail!("{live} and {test} must differ: Smile ID gives each environment its own key");
        }
    }
    Ok(Arc::new(ByMode {
        live: kyc_for(Mode::Live, args.kyc_provider, args)?,
        test: kyc_for(Mode::Test, args.sandbox_kyc_provider, args)?,
    }))
}

/// What live mode runs on, for `/health` and the start-up warning.
pub fn live_connectors(args: &ServeArgs) -> LiveConnectors {
    match args.kyc_provider {
        KycProvider::Sandbox => LiveConnectors::Simulated,
        KycProvider::Smileid => LiveConnectors::Mixed,
    }
}
