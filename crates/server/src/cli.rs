//! The command line. Every flag can also be set by its environment
//! variable (`ISSUING_*`, and `DATABASE_URL`).

use clap::builder::{FalseyValueParser, RangedU64ValueParser};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use domain::Amount;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "issuing",
    version,
    about = "Card issuing service",
    after_help = "With no command: `issuing serve`, which takes its flags here too (`issuing serve --help` lists them)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The database and its keys: given before or after the command's
    /// name, each read by the commands whose help shows it.
    #[command(flatten)]
    pub db: DbArgs,

    /// With no command: `serve` with these arguments (hidden from the
    /// top-level help, which lists the commands).
    #[command(flatten)]
    pub serve: ServeArgs,

    /// Logs as text lines or JSON objects (to stderr).
    #[arg(long, env = "ISSUING_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,
}

impl Cli {
    /// The command line as given, each command's `--help` showing only
    /// the global flags it reads.
    pub fn read() -> Cli {
        Cli::parse_args(std::env::args_os()).unwrap_or_else(|e| e.exit())
    }

    /// `args` read as the command line. A flag of `serve` given before a
    /// command's name is refused (it would be read for a command-less
    /// `serve`, and silently not reach the command). The global flags a
    /// command does not read are left at their defaults, whatever the
    /// environment says: what its help does not show, it does not read.
    fn parse_args<T: Into<std::ffi::OsString> + Clone>(args: impl IntoIterator<Item = T>) -> Result<Cli, clap::Error> {
        let mut command = command();
        let matches = command.try_get_matches_from_mut(args)?;
        if let Some(name) = matches.subcommand_name() {
            let misplaced = command.get_arguments().find(|arg| {
                let id = arg.get_id().as_str();
                !GLOBAL.contains(&id) && matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
            });
            if let Some(flag) = misplaced.and_then(|arg| arg.get_long()) {
                let rule = match name {
                    "serve" | "worker" => {
                        format!("--{flag} goes after the command's name: `issuing {name} --{flag} ...`")
                    }
                    _ => format!("--{flag} is a flag of `serve` (`issuing serve --{flag} ...`), not of `{name}`"),
                };
                return Err(command.error(clap::error::ErrorKind::ArgumentConflict, rule));
            }
        }
        let mut cli = Cli::from_arg_matches(&matches)?;
        cli.db = cli.db.only(reads(&leaf(&matches)));
        Ok(cli)
    }
}

/// The names of the command `matches` chose, outermost first.
fn leaf(matches: &clap::ArgMatches) -> Vec<&str> {
    let mut path = Vec::new();
    let mut at = matches;
    while let Some((name, sub)) = at.subcommand() {
        path.push(name);
        at = sub;
    }
    path
}

/// The global flags (the database's, its keys', the logs'), by id.
const GLOBAL: [&str; 8] = [
    "database_url",
    "master_key",
    "master_key_file",
    "previous_master_key",
    "previous_master_key_file",
    "db_pool_size",
    "max_wallet_balance",
    "log_format",
];

/// The database alone.
const DATABASE: &[&str] = &["database_url", "db_pool_size", "log_format"];
/// The database and the master key: what builds the use cases.
const SEALED: &[&str] = &[
    "database_url",
    "db_pool_size",
    "master_key",
    "master_key_file",
    "previous_master_key",
    "previous_master_key_file",
    "log_format",
];

/// The global flags each command reads, by its names; with no command
/// (`serve`), all of them.
const READS: &[(&[&str], &[&str])] = &[
    (&["serve"], &GLOBAL),
    (&["worker"], &GLOBAL),
    (&["migrate"], DATABASE),
    (&["jobs", "list"], SEALED),
    (&["jobs", "retry"], SEALED),
    (&["accounts", "create"], SEALED),
    (&["accounts", "update"], SEALED),
    (&["accounts", "roll-key"], SEALED),
    (&["accounts", "roll-webhook-secret"], SEALED),
    (&["accounts", "keys"], DATABASE),
    (&["accounts", "revoke-key"], DATABASE),
    (&["operators", "create"], SEALED),
    (&["review", "list"], SEALED),
    (&["review", "approve"], SEALED),
    (&["review", "reject"], SEALED),
    (&["wallets", "credit"], &GLOBAL),
    (
        &["ledger", "check"],
        &["database_url", "db_pool_size", "max_wallet_balance", "log_format"],
    ),
    (&["ledger", "totals"], DATABASE),
    (&["reconcile", "cards"], SEALED),
    (&["reconcile", "transactions"], SEALED),
    (&["rails", "show"], DATABASE),
    (&["rails", "set"], DATABASE),
    (&["rewards", "import"], SEALED),
    (&["rewards", "rules"], SEALED),
    (&["master-key", "rotate"], SEALED),
    (&["master-key", "generate"], &[]),
    (&["openapi"], &[]),
];

/// The global flags the command at `path` reads.
fn reads(path: &[&str]) -> &'static [&'static str] {
    match path {
        [] => &GLOBAL,
        path => READS
            .iter()
            .find(|(at, _)| *at == path)
            .map_or(&GLOBAL, |(_, reads)| reads),
    }
}

/// The command line's definition: the top level's help lists the
/// commands and the global flags, each command's the global flags it
/// reads (the others still accepted, as every command has them).
pub fn command() -> clap::Command {
    let mut cli = Cli::command();
    cli.build();
    // In place: the built command finds its arguments by position.
    cli = cli.mut_args(|arg| {
        let serves = !GLOBAL.contains(&arg.get_id().as_str()) && !matches!(arg.get_id().as_str(), "help" | "version");
        arg.hide(serves)
    });
    for (path, reads) in READS {
        cli = hide_unread(cli, path, reads);
    }
    cli
}

fn hide_unread(command: clap::Command, path: &[&str], reads: &[&str]) -> clap::Command {
    match path.split_first() {
        Some((name, rest)) => command.mut_subcommand(*name, |sub| hide_unread(sub, rest, reads)),
        None => command.mut_args(|arg| {
            let id = arg.get_id().as_str();
            let unread = GLOBAL.contains(&id) && !reads.contains(&id);
            arg.hide(unread)
        }),
    }
}

/// A mode on the command line.
#[derive(Clone, Copy, ValueEnum)]
pub enum ModeArg {
    Test,
    Live,
}

impl From<ModeArg> for domain::Mode {
    fn from(mode: ModeArg) -> Self {
        match mode {
            ModeArg::Test => domain::Mode::Test,
            ModeArg::Live => domain::Mode::Live,
        }
    }
}

/// Who issues a mode's cards and decides their authorizations' funding.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CardProcessor {
    /// The card-network simulator: numbers under --card-bin.
    Simulator,
    /// Sudo Africa, with a gateway funding source (ISSUING_SUDO_API_KEY,
    /// ISSUING_SUDO_GATEWAY_SECRET; in the sandbox ISSUING_SANDBOX_SUDO_*).
    Sudo,
}

/// Who verifies identities in a mode.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KycProvider {
    /// The simulator: the ID number's last four digits decide.
    Sandbox,
    /// Smile ID's Enhanced KYC (ISSUING_SMILEID_PARTNER_ID and
    /// ISSUING_SMILEID_API_KEY; in the sandbox ISSUING_SANDBOX_SMILEID_*).
    Smileid,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Subcommand)]
pub enum Command {
    /// Run the HTTP API (the default when no command is given).
    Serve(Box<ServeArgs>),
    /// Run background jobs (webhook deliveries, ...) without the API.
    Worker(WorkerCommand),
    /// Apply pending database migrations and exit.
    Migrate,
    /// Inspect and retry background jobs.
    #[command(subcommand)]
    Jobs(JobsCommand),
    /// Manage client accounts.
    #[command(subcommand)]
    Accounts(AccountsCommand),
    /// The dashboard's operators.
    #[command(subcommand)]
    Operators(OperatorsCommand),
    /// Manual KYC review of cardholders the automated check could not decide.
    #[command(subcommand)]
    Review(ReviewCommand),
    /// Credit the issuing wallets of accounts.
    #[command(subcommand)]
    Wallets(WalletsCommand),
    /// Inspect the ledger.
    #[command(subcommand)]
    Ledger(LedgerCommand),
    /// Compare what is here with what the card processor holds.
    #[command(subcommand)]
    Reconcile(ReconcileCommand),
    /// The rails each mode runs on (card processor, KYC provider, their
    /// hosts, the funding source), recorded when first chosen.
    #[command(subcommand)]
    Rails(RailsCommand),
    /// The rewards catalogue and each account's reward rules.
    #[command(subcommand)]
    Rewards(RewardsCommand),
    /// The master key that seals secrets at rest.
    #[command(subcommand)]
    MasterKey(MasterKeyCommand),
    /// Print the OpenAPI document.
    Openapi,
}

/// A listener's address, or none (`off`).
#[derive(Debug, Clone, Copy)]
pub struct Listener(pub Option<SocketAddr>);

fn listener(value: &str) -> Result<Listener, String> {
    match value {
        "off" => Ok(Listener(None)),
        address => address
            .parse()
            .map(|a| Listener(Some(a)))
            .map_err(|_| format!("{address:?}: must be an address (127.0.0.1:8082) or off")),
    }
}

/// The embedded database of a first run: the only one that gets a demo
/// account without `--demo`.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://issuing.db";

#[derive(Args, Clone)]
pub struct DbArgs {
    /// `sqlite://path` (`serve` and `migrate` create a missing file; other
    /// commands open an existing one only) or `postgres://...`.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = DEFAULT_DATABASE_URL,
        hide_env_values = true,
        global = true
    )]
    pub database_url: String,

    /// 32 bytes as 64 hex characters, sealing keys and card data at rest.
    /// Unset with SQLite: generated once into a 0600 file beside the database.
    /// Required with PostgreSQL.
    #[arg(long, env = "ISSUING_MASTER_KEY", hide_env_values = true, global = true)]
    pub master_key: Option<String>,

    /// A file holding the master key (64 hex characters), readable by its
    /// owner only: unlike ISSUING_MASTER_KEY, never in the process list or
    /// environment.
    #[arg(long, env = "ISSUING_MASTER_KEY_FILE", global = true)]
    pub master_key_file: Option<PathBuf>,

    /// While rotating the master key: the key being rotated away from (64
    /// hex characters). What it sealed still opens; `issuing master-key
    /// rotate` seals it all again under the master key.
    #[arg(long, env = "ISSUING_PREVIOUS_MASTER_KEY", hide_env_values = true, global = true)]
    pub previous_master_key: Option<String>,

    /// The same, from a file readable by its owner only.
    #[arg(long, env = "ISSUING_PREVIOUS_MASTER_KEY_FILE", global = true)]
    pub previous_master_key_file: Option<PathBuf>,

    /// Connections in the PostgreSQL pool, at least 1 (SQLite always uses one).
    #[arg(long, env = "ISSUING_DB_POOL_SIZE", default_value_t = DEFAULT_POOL_SIZE, global = true,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
    pub db_pool_size: usize,

    /// The most an account may hold in an issuing wallet, in minor units
    /// of its currency (at most 100000000000000). Sandbox fundings and
    /// operator credits past it are refused; money the account's own cards
    /// return is always taken.
    #[arg(long, env = "ISSUING_MAX_WALLET_BALANCE", default_value_t = domain::ledger::DEFAULT_MAX_WALLET, value_parser = parse_max_wallet, global = true)]
    pub max_wallet_balance: Amount,
}

const DEFAULT_POOL_SIZE: usize = 16;

impl DbArgs {
    /// These flags with those not in `reads` (ids) at their defaults.
    fn only(self, reads: &[&str]) -> DbArgs {
        let read = |id: &str| reads.contains(&id);
        DbArgs {
            database_url: match read("database_url") {
                true => self.database_url,
                false => DEFAULT_DATABASE_URL.to_string(),
            },
            master_key: self.master_key.filter(|_| read("master_key")),
            master_key_file: self.master_key_file.filter(|_| read("master_key_file")),
            previous_master_key: self.previous_master_key.filter(|_| read("previous_master_key")),
            previous_master_key_file: self
                .previous_master_key_file
                .filter(|_| read("previous_master_key_file")),
            db_pool_size: match read("db_pool_size") {
                true => self.db_pool_size,
                false => DEFAULT_POOL_SIZE,
            },
            max_wallet_balance: match read("max_wallet_balance") {
                true => self.max_wallet_balance,
                false => domain::ledger::DEFAULT_MAX_WALLET,
            },
        }
    }
}

#[derive(Args, Clone)]
pub struct ServeArgs {
    /// Address of the API. Port 0 picks a free port (printed at start).
    #[arg(long, env = "ISSUING_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// Address of the card-details relay, which shows card data in clear
    /// (`get_card_details`, `get_card_details_from_token`). Port 0 picks a
    /// free port (printed at start).
    #[arg(long, env = "ISSUING_RELAY_LISTEN", default_value = "127.0.0.1:8081")]
    pub relay_listen: SocketAddr,

    /// Address of the dashboard (docs/dashboard.md), a listener of its
    /// own to keep off the public network; `off` serves none. Port 0
    /// picks a free port (printed at start).
    #[arg(long, env = "ISSUING_DASHBOARD_LISTEN", default_value = "127.0.0.1:8082", value_parser = listener)]
    pub dashboard_listen: Listener,

    /// Where people reach the dashboard (a TLS proxy in front, say), for
    /// the one-time links it shows. Default: its listen address.
    #[arg(long, env = "ISSUING_DASHBOARD_URL")]
    pub dashboard_url: Option<String>,

    /// The URL clients reach the relay at, likewise. Default: the relay's
    /// listen address.
    #[arg(long, env = "ISSUING_RELAY_PUBLIC_URL")]
    pub relay_public_url: Option<String>,

    /// The secret the card processor signs `POST /v1/processor/authorizations`
    /// with (HMAC-SHA256) for live cards; at least 32 characters.
    #[arg(long, env = "ISSUING_PROCESSOR_SECRET", hide_env_values = true)]
    pub processor_secret: Option<String>,

    /// The same for sandbox cards: a request signed with it debits only
    /// sandbox cards, one signed with the live secret only live cards.
    /// With neither set the endpoint answers 403.
    #[arg(long, env = "ISSUING_SANDBOX_PROCESSOR_SECRET", hide_env_values = true)]
    pub sandbox_processor_secret: Option<String>,

    /// The providers each mode runs on: the same flags for every
    /// process.
    #[command(flatten)]
    pub rails: RailsArgs,

    /// The BIN the card-network simulator issues numbers under: 6 digits
    /// in a Mastercard range (7 or 8 with --allow-long-bin).
    #[arg(long, env = "ISSUING_CARD_BIN", default_value = "539983")]
    pub card_bin: String,

    /// Accept a 7- or 8-digit --card-bin, whose last digits are then
    /// digits of every default PIN (digits 7 to 10 of the card number):
    /// an 8-digit BIN leaves 100 default PINs. Send a PIN with every card.
    #[arg(long, env = "ISSUING_ALLOW_LONG_BIN", value_parser = FalseyValueParser::new())]
    pub allow_long_bin: bool,

    /// Do not apply migrations at start (PostgreSQL; SQLite always migrates).
    #[arg(long, env = "ISSUING_NO_MIGRATE", value_parser = FalseyValueParser::new())]
    pub no_migrate: bool,

    /// Do not run background jobs in this process (run `issuing worker`).
    #[arg(long, env = "ISSUING_NO_WORKERS", value_parser = FalseyValueParser::new())]
    pub no_workers: bool,

    /// Create a demo account on an empty database and print its test key
    /// at every start. Always on with the default SQLite file, off
    /// elsewhere (a production database never gets one unasked).
    #[arg(long, env = "ISSUING_DEMO", value_parser = FalseyValueParser::new())]
    pub demo: bool,

    #[command(flatten)]
    pub worker: WorkerArgs,

    /// Kobo paid for 1 USD, served by the FX-rate endpoint as NGN-USD.
    #[arg(long, env = "ISSUING_FX_NGN_USD", default_value = "160000", value_parser = parse_amount)]
    pub fx_ngn_usd: Amount,

    /// Kobo received for 1 USD, served by the FX-rate endpoint as USD-NGN.
    #[arg(long, env = "ISSUING_FX_USD_NGN", default_value = "155000", value_parser = parse_amount)]
    pub fx_usd_ngn: Amount,

    /// How many seconds a process trusts an API key it looked up, 0 to 300:
    /// a revoked key keeps working this long in each running process (0:
    /// every request looks its key up in the database).
    #[arg(long, env = "ISSUING_KEY_CACHE_SECS", default_value = "5",
          value_parser = clap::value_parser!(i64).range(0..=300))]
    pub key_cache_secs: i64,

    /// How long an answer to Sudo's gateway may take, in milliseconds
    /// (Sudo applies its timeout setting after 4 s): an authorization not
    /// recorded within it is declined (`91`, issuer unavailable) and never
    /// recorded.
    #[arg(long, env = "ISSUING_SUDO_GATEWAY_BUDGET_MS", default_value_t = 2_500,
          value_parser = RangedU64ValueParser::<u64>::new().range(500..=3_500))]
    pub sudo_gateway_budget_ms: u64,

    /// How many seconds an authorization's hold lasts uncaptured before it
    /// expires and goes back to the card, 60 to 2678400 (31 days) on the
    /// mode's clock; 604800 (7 days) by default.
    #[arg(long, env = "ISSUING_AUTHORIZATION_HOLD_SECS", default_value_t = domain::cards::hold::DEFAULT_HOLD_SECS,
          value_parser = clap::value_parser!(i64).range(60..=2_678_400))]
    pub authorization_hold_secs: i64,

    /// The public URL of the deal claim page; it is served on the API
    /// listener at this URL's path (default `/web/rewards`).
    #[arg(long, env = "ISSUING_REWARDS_WEB_URL", value_parser = parse_page_url)]
    pub rewards_web_url: Option<url::Url>,

    /// The public URL of the spending charts page, served likewise
    /// (default `/web/graphs`).
    #[arg(long, env = "ISSUING_GRAPHS_WEB_URL", value_parser = parse_page_url)]
    pub graphs_web_url: Option<url::Url>,
}

/// A base URL clients prepend to paths, published in the OpenAPI document:
/// nothing a path cannot follow (a query, a fragment) and no credentials.
/// Checked after parsing, so that a refusal names the flag without echoing
/// the value (which may hold a password), as clap's own refusal would.
pub fn public_url(flag: &str, value: &str) -> anyhow::Result<String> {
    let url = url::Url::parse(value).map_err(|e| anyhow::anyhow!("{flag}: an absolute http(s) URL: {e}"))?;
    let bare =
        url.query().is_none() && url.fragment().is_none() && url.username().is_empty() && url.password().is_none();
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() || !bare {
        anyhow::bail!("{flag}: an absolute http(s) URL with a host, and no credentials, query or fragment");
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

fn parse_page_url(value: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(value).map_err(|e| format!("an absolute http(s) URL: {e}"))?;
    let path = url.path();
    if !matches!(url.scheme(), "http" | "https")
        || path == "/"
        || path.starts_with("/v1/")
        || path.starts_with("/health")
    {
        return Err("an http(s) URL whose path is the page's own, outside /v1/ and /health".into());
    }
    Ok(url)
}

/// The rails each mode runs on: its card processor and KYC provider,
/// their hosts and the funding source. Every process that reaches a
/// provider (`serve`, `worker`, `reconcile`) takes this one set of flags,
/// and all of them must run on the rails recorded in the database
/// (`issuing rails show`, `issuing rails set`).
#[derive(Args, Clone)]
pub struct RailsArgs {
    /// The URL clients reach the API at (a TLS proxy in front, say), named
    /// as the server of the OpenAPI document, and where Smile ID posts its
    /// callbacks. Default: the listen address.
    #[arg(long, env = "ISSUING_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Who issues live cards. Credentials come from the environment or
    /// files only (see docs/connectors.md).
    #[arg(long, env = "ISSUING_CARD_PROCESSOR", value_enum, default_value_t = CardProcessor::Simulator)]
    pub card_processor: CardProcessor,

    /// The same for the sandbox.
    #[arg(long, env = "ISSUING_SANDBOX_CARD_PROCESSOR", value_enum, default_value_t = CardProcessor::Simulator)]
    pub sandbox_card_processor: CardProcessor,

    /// Sudo's API base. Default: its production URL in live mode, its
    /// sandbox URL in the sandbox.
    #[arg(long, env = "ISSUING_SUDO_API_URL")]
    pub sudo_api_url: Option<String>,

    /// Sudo's vault (card numbers and CVVs), likewise.
    #[arg(long, env = "ISSUING_SUDO_VAULT_URL")]
    pub sudo_vault_url: Option<String>,

    /// The id of the live gateway funding source cards are issued on
    /// (made once on Sudo, its `jitGateway.url` this service's
    /// `/v1/connectors/sudo/gateway`).
    #[arg(long, env = "ISSUING_SUDO_FUNDING_SOURCE_ID")]
    pub sudo_funding_source_id: Option<String>,

    /// The same for the sandbox.
    #[arg(long, env = "ISSUING_SANDBOX_SUDO_FUNDING_SOURCE_ID")]
    pub sandbox_sudo_funding_source_id: Option<String>,

    /// The id of the live Sudo account a cancelled card's balance is
    /// credited to (Sudo requires one on every cancellation; with a
    /// gateway funding source nothing is left on the card there). Sudo's
    /// `GET /accounts` lists them: the settlement account will do.
    #[arg(long, env = "ISSUING_SUDO_CREDIT_ACCOUNT_ID")]
    pub sudo_credit_account_id: Option<String>,

    /// The same for the sandbox.
    #[arg(long, env = "ISSUING_SANDBOX_SUDO_CREDIT_ACCOUNT_ID")]
    pub sandbox_sudo_credit_account_id: Option<String>,

    /// Who verifies cardholders' identities in live mode. Credentials come
    /// from the environment or files only (see docs/connectors.md).
    #[arg(long, env = "ISSUING_KYC_PROVIDER", value_enum, default_value_t = KycProvider::Sandbox)]
    pub kyc_provider: KycProvider,

    /// The same for the sandbox.
    #[arg(long, env = "ISSUING_SANDBOX_KYC_PROVIDER", value_enum, default_value_t = KycProvider::Sandbox)]
    pub sandbox_kyc_provider: KycProvider,

    /// Smile ID's API base. Default: its production URL in live mode, its
    /// sandbox URL (testapi) in the sandbox.
    #[arg(long, env = "ISSUING_SMILEID_API_URL")]
    pub smileid_api_url: Option<String>,

    /// Accept a live provider URL that is not https, or that names a
    /// loopback or private address (a test's fake): never in production.
    #[arg(long, env = "ISSUING_ALLOW_PROVIDER_URL_OVERRIDE", value_parser = FalseyValueParser::new())]
    pub allow_provider_url_override: bool,
}

#[derive(Args, Clone)]
pub struct WorkerArgs {
    /// Serve `GET /metrics` (Prometheus' text format) on this address, a
    /// listener of its own to keep off the public network. Port 0 picks a
    /// free port (printed at start). Off when absent.
    #[arg(long, env = "ISSUING_METRICS_LISTEN")]
    pub metrics_listen: Option<std::net::SocketAddr>,

    /// Export traces (a span per request, use case and repository step)
    /// over OpenTelemetry to this OTLP/HTTP collector, JSON to
    /// `<url>/v1/traces` (`http://127.0.0.1:4318`, say). Off when absent.
    #[arg(long, env = "ISSUING_OTLP_ENDPOINT")]
    pub otlp_endpoint: Option<String>,

    /// Job runners per process on PostgreSQL (SQLite always runs one).
    #[arg(long, env = "ISSUING_WORKERS", default_value_t = 4)]
    pub workers: usize,

    /// How long an idle runner waits before looking for due jobs again.
    #[arg(long, env = "ISSUING_WORKER_POLL_MS", default_value_t = 500)]
    pub worker_poll_ms: u64,

    /// Webhook delivery: time allowed to connect.
    #[arg(long, env = "ISSUING_WEBHOOK_CONNECT_TIMEOUT_MS", default_value_t = 5_000)]
    pub webhook_connect_timeout_ms: u64,

    /// Webhook delivery: time allowed for the whole request.
    #[arg(long, env = "ISSUING_WEBHOOK_TIMEOUT_MS", default_value_t = 10_000)]
    pub webhook_timeout_ms: u64,

    /// Let webhook URLs point at loopback, private and other non-public
    /// addresses, and at http:// in live mode: for local development and
    /// tests only. Off, such URLs are refused when set and never reached
    /// (nor are a KYC case's images, which the dashboard fetches).
    #[arg(long, env = "ISSUING_WEBHOOK_ALLOW_PRIVATE", value_parser = FalseyValueParser::new())]
    pub webhook_allow_private: bool,

    /// Reconcile each mode's money with its card processor's books (a
    /// processor that keeps them: Sudo) every this many seconds, over the
    /// last day; one process runs each period. 0: never.
    #[arg(long, env = "ISSUING_RECONCILE_EVERY", default_value_t = 3_600)]
    pub reconcile_every: u64,

    /// A scheduled reconciliation leaves an authorization made less than
    /// this many seconds ago to the next run (its calls may be in flight).
    #[arg(long, env = "ISSUING_RECONCILE_GRACE_SECS", default_value_t = 900)]
    pub reconcile_grace_secs: u32,
}

#[derive(Args, Clone)]
pub struct WorkerCommand {
    #[command(flatten)]
    pub worker: WorkerArgs,

    #[command(flatten)]
    pub rails: RailsArgs,
}

#[derive(Subcommand)]
pub enum MasterKeyCommand {
    /// Seal every stored secret again under the master key, opening it
    /// with the previous one (--previous-master-key); prints how many. Safe
    /// to run while the service runs with both keys, and to run again.
    Rotate,
    /// Make a new random master key (64 hex characters): written to a new
    /// file only its owner can read (mode 0600) with --out, else printed.
    Generate {
        /// The file to create (never replaced), for ISSUING_MASTER_KEY_FILE.
        #[arg(long)]
        out: Option<std::path::PathBuf>,
    },
}

#[derive(Subcommand)]
pub enum JobsCommand {
    /// Pending, running and failed jobs, oldest first.
    List {
        /// Only the parked (failed) ones.
        #[arg(long)]
        failed: bool,
    },
    /// Put a parked job back in the queue, with a fresh set of attempts.
    Retry { id: String },
}

fn parse_amount(value: &str) -> Result<Amount, String> {
    Amount::parse_positive("rate", value).map_err(|e| e.to_string())
}

fn parse_max_wallet(value: &str) -> Result<Amount, String> {
    let rule = "the largest maximum, which leaves money returned by cards room to land";
    Amount::parse_positive("max-wallet-balance", value)
        .and_then(|max| max.at_most("max-wallet-balance", domain::ledger::MAX_WALLET_LIMIT, rule))
        .map_err(|e| e.to_string())
}

/// An account's company profile and webhook URL, as `accounts create` and
/// `accounts update` take them.
#[derive(Args)]
pub struct Profile {
    /// Where its webhooks go (sandbox and live), an http(s) URL.
    #[arg(long)]
    pub webhook_url: Option<String>,
    /// The company's address (registering cardholders needs it).
    #[arg(long)]
    pub company_address: Option<String>,
    /// A URL of the company's utility bill (registering cardholders needs it).
    #[arg(long)]
    pub utility_bill_url: Option<String>,
}

#[derive(Subcommand)]
pub enum AccountsCommand {
    /// Create an account; prints its id, keys and webhook secret as JSON.
    Create {
        #[arg(long)]
        name: String,
        #[command(flatten)]
        profile: Profile,
    },
    /// Change an account's company profile, webhook URL or reward switch.
    Update {
        account_id: String,
        /// Switch the rewards feature on or off, in both modes.
        #[arg(long, value_parser = ["on", "off"])]
        rewards: Option<String>,
        #[command(flatten)]
        profile: Profile,
    },
    /// Issue a new secret key for a mode; prints it once, as JSON. The
    /// mode's previous keys keep working until they expire.
    RollKey(RollArgs),
    /// Issue a new webhook secret for a mode; prints it once, as JSON.
    /// Deliveries are signed with the new and the previous secret until
    /// the previous one expires.
    RollWebhookSecret(RollArgs),
    /// An account's keys, newest first, one JSON object a line: id, livemode,
    /// created_at, expires_at (null: the mode's current key). Never the key.
    Keys { account_id: String },
    /// Make a key (its id from `accounts keys`) stop working now.
    RevokeKey { account_id: String, key_id: String },
}

/// What a roll of a key or a webhook secret is told.
#[derive(Args)]
pub struct RollArgs {
    pub account_id: String,
    #[arg(long, value_enum)]
    pub mode: ModeArg,
    /// How long the previous keys or secret keep working: `0s` (the
    /// default: they stop now), `90m`, `24h`, `7d` at most.
    #[arg(long, default_value = "0s", value_parser = parse_overlap)]
    pub expire_old_in: i64,
}

/// `<n>s`, `<n>m`, `<n>h` or `<n>d`, as seconds.
fn parse_overlap(value: &str) -> Result<i64, String> {
    let rule = || format!("{value:?}: must be a number of seconds, minutes, hours or days (30s, 90m, 24h, 7d)");
    let split = value.len().checked_sub(1).ok_or_else(rule)?;
    let (number, unit) = value.split_at_checked(split).ok_or_else(rule)?;
    let unit = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => return Err(rule()),
    };
    let number: i64 = number.parse().map_err(|_| rule())?;
    let secs = number.checked_mul(unit).ok_or_else(rule)?;
    if !(0..=app::accounts::MAX_OVERLAP_SECS).contains(&secs) {
        return Err(format!("{value:?}: must be from 0s to 7d"));
    }
    Ok(secs)
}

#[derive(Subcommand)]
pub enum WalletsCommand {
    /// Credit an issuing wallet with money the account holder paid in: one
    /// ledger entry from the account's deposits, once per reference (the
    /// same reference again moves nothing). Prints the credit as JSON.
    Credit(CreditArgs),
}

#[derive(Args)]
pub struct CreditArgs {
    pub account_id: String,
    #[arg(long, value_enum)]
    pub mode: ModeArg,
    /// USD or NGN.
    #[arg(long)]
    pub currency: String,
    /// In minor units (cents, kobo), digits only.
    #[arg(long, allow_hyphen_values = true)]
    pub amount: String,
    /// Your reference for the money received (a bank transfer's), 1 to 100
    /// characters: a credit is made once per reference.
    #[arg(long)]
    pub reference: String,
    /// Why, for the record, 1 to 500 characters.
    #[arg(long)]
    pub note: String,
}

#[derive(Subcommand)]
pub enum RewardsCommand {
    /// Replace the rewards catalogue with FILE (.json, or .csv; see
    /// docs/rewards.md); nothing changes if any line breaks a rule.
    Import { file: PathBuf },
    /// Print an account's reward rules of a mode as JSON, after changing
    /// the ones given.
    Rules {
        account_id: String,
        #[arg(long, value_enum)]
        mode: ModeArg,
        /// A calendar month's spending (USD cents) must be greater than this.
        #[arg(long)]
        spend_threshold: Option<String>,
        /// Approved debits in a calendar month that earn a reward.
        #[arg(long)]
        monthly_debits: Option<u32>,
        /// Days without an approved debit that earn a reward.
        #[arg(long)]
        inactivity_days: Option<u32>,
    },
}

#[derive(Subcommand)]
pub enum OperatorsCommand {
    /// Make a dashboard operator, and print a one-time link (72 hours)
    /// that sets their password.
    Create {
        #[arg(long)]
        email: String,
        /// Where the dashboard is reached, for the link (a TLS proxy in
        /// front, say). Default: `--dashboard-listen`'s address.
        #[arg(long, env = "ISSUING_DASHBOARD_URL")]
        dashboard_url: Option<String>,
        /// The dashboard's address, as `serve` is given it.
        #[arg(long, env = "ISSUING_DASHBOARD_LISTEN", default_value = "127.0.0.1:8082", value_parser = listener)]
        dashboard_listen: Listener,
    },
}

#[derive(Subcommand)]
pub enum ReviewCommand {
    /// Cases waiting for review, oldest first, one JSON object a line.
    List,
    /// Verify the cardholder (active, `cardholder_verification.successful`).
    Approve { cardholder_id: String },
    /// Refuse the cardholder (`cardholder_verification.failed`).
    Reject {
        cardholder_id: String,
        /// Sent as the event's `error_description`.
        #[arg(long)]
        reason: Option<String>,
    },
}

#[derive(Subcommand)]
pub enum ReconcileCommand {
    /// Each processor-kept card's status here against the processor's:
    /// one JSON object per difference; exits 1 when there is any.
    Cards {
        #[arg(long, value_enum, default_value_t = ModeArg::Live)]
        mode: ModeArg,

        #[command(flatten)]
        rails: RailsArgs,
    },
    /// The money here against the processor's books (its authorizations
    /// and transactions): each difference repaired once and printed as a
    /// JSON line, then a summary line; exits 1 when any is left to an
    /// operator.
    Transactions {
        #[arg(long, value_enum, default_value_t = ModeArg::Live)]
        mode: ModeArg,

        /// From when (`YYYY-MM-DD HH:MM:SS`, GMT); a day ago by default.
        #[arg(long)]
        since: Option<String>,

        /// An authorization made less than this many seconds ago is left
        /// to the next run (its calls may still be in flight).
        #[arg(long, default_value_t = 900)]
        grace_secs: u32,

        #[command(flatten)]
        rails: RailsArgs,
    },
}

#[derive(Subcommand)]
pub enum RailsCommand {
    /// Each mode's recorded rails and every change of them, as JSON.
    Show,
    /// Records the rails these flags choose for one mode, in place of the
    /// recorded ones: every process must then run on them. Kept with its
    /// note in the list of changes.
    Set {
        #[arg(long, value_enum)]
        mode: ModeArg,

        /// Why the rails change (who asked, the ticket).
        #[arg(long)]
        note: String,

        /// Boxed: the connector flags outweigh every other command's.
        #[command(flatten)]
        rails: Box<RailsArgs>,
    },
}

#[derive(Subcommand)]
pub enum LedgerCommand {
    /// Verify every ledger invariant; exits 1 and names each breach.
    Check {
        /// Each breach as a JSON object on a line of its own (tagged by
        /// `breach`, with the ids that show it), then a summary object.
        #[arg(long)]
        json: bool,
    },
    /// The balance of each kind of ledger account, summed per mode and
    /// currency over all accounts, as one JSON object:
    /// `{"live": {"USD": {"card": ...}}, "test": {...}}`.
    Totals,
}

#[cfg(test)]
mod help_tests {
    use super::GLOBAL;

    /// The global flags `path`'s `--help` shows.
    fn shown(path: &[&str]) -> Vec<String> {
        let mut command = super::command();
        let mut at = &mut command;
        for name in path {
            at = at.find_subcommand_mut(name).expect("a command");
        }
        at.get_arguments()
            .filter(|arg| !arg.is_hide_set() && GLOBAL.contains(&arg.get_id().as_str()))
            .map(|arg| arg.get_id().to_string())
            .collect()
    }

    /// At 10^15, the bound every balance guard keeps, a wallet at its
    /// maximum could take back nothing its cards returned.
    #[test]
    fn the_wallet_maximum_leaves_room_for_money_returned_by_cards() {
        assert!(super::parse_max_wallet("100000000000000").is_ok());
        let refused = super::parse_max_wallet("1000000000000000").unwrap_err();
        assert!(
            refused.starts_with("max-wallet-balance: must be at most 100000000000000"),
            "{refused}"
        );
        assert!(super::parse_max_wallet("0").is_err());
    }

    /// `issuing --card-bin 222100 serve` once served under the default BIN.
    #[test]
    fn a_serve_flag_before_serve_is_refused_and_global_flags_go_anywhere() {
        let parse = |args: &[&str]| super::Cli::parse_args(args.iter().copied()).map(|_| ());
        let misplaced = parse(&["issuing", "--card-bin", "222100", "serve"]).unwrap_err();
        assert!(
            misplaced
                .to_string()
                .contains("--card-bin goes after the command's name"),
            "{misplaced}"
        );
        assert!(parse(&["issuing", "--workers", "9", "worker"]).is_err());
        let elsewhere = parse(&["issuing", "--card-bin", "222100", "jobs", "list"]).unwrap_err();
        assert!(
            elsewhere.to_string().contains("--card-bin is a flag of `serve`"),
            "{elsewhere}"
        );
        assert!(parse(&["issuing", "serve", "--card-bin", "222100"]).is_ok());
        assert!(parse(&["issuing", "--card-bin", "222100"]).is_ok(), "no command: serve");
        assert!(parse(&["issuing", "--database-url", "sqlite://x.db", "serve"]).is_ok());
        assert!(parse(&["issuing", "ledger", "check", "--database-url", "sqlite://x.db"]).is_ok());
        // A pool of no connections would wait for one for ever.
        assert!(parse(&["issuing", "ledger", "totals", "--db-pool-size", "0"]).is_err());
    }

    /// Switches read from the environment as operators write them.
    #[test]
    fn switches_from_the_environment_take_1_yes_and_empty() {
        let read = |value: &str| {
            // SAFETY: this test alone reads or writes ISSUING_DEMO.
            unsafe { std::env::set_var("ISSUING_DEMO", value) };
            let cli = super::Cli::parse_args(["issuing"]).unwrap();
            unsafe { std::env::remove_var("ISSUING_DEMO") };
            cli.serve.demo
        };
        assert!(read("1") && read("yes") && read("true"));
        assert!(!read("") && !read("0") && !read("false"));
    }

    /// Every command that runs something, by its names.
    fn leaves(command: &clap::Command, path: Vec<String>, out: &mut Vec<Vec<String>>) {
        let subs: Vec<_> = command.get_subcommands().filter(|c| c.get_name() != "help").collect();
        if subs.is_empty() && !path.is_empty() {
            out.push(path.clone());
        }
        for sub in subs {
            let mut at = path.clone();
            at.push(sub.get_name().to_string());
            leaves(sub, at, out);
        }
    }

    #[test]
    fn each_commands_help_shows_the_global_flags_it_reads() {
        super::command().debug_assert();
        let mut all = Vec::new();
        leaves(&super::command(), Vec::new(), &mut all);
        assert!(all.len() >= 25, "{all:?}");
        for path in &all {
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            let listed = super::READS.iter().find(|(at, _)| *at == path.as_slice());
            let (_, reads) = listed.unwrap_or_else(|| panic!("{path:?} has no entry in READS"));
            let (mut shown, mut reads) = (shown(&path), reads.to_vec());
            shown.sort();
            reads.sort();
            assert_eq!(shown, reads, "{path:?}");
        }
        assert_eq!(
            shown(&["ledger", "check"]),
            ["database_url", "db_pool_size", "max_wallet_balance", "log_format"]
        );
        assert!(shown(&["openapi"]).is_empty());
        assert_eq!(shown(&["serve"]).len(), GLOBAL.len());
        assert!(!shown(&["review", "approve"]).contains(&"max_wallet_balance".to_string()));
    }

    /// What a command's help hides, it does not read: a hidden flag's
    /// value is left at its default.
    #[test]
    fn a_global_flag_a_command_does_not_read_stays_at_its_default() {
        let parse = |args: &[&str]| super::Cli::parse_args(args.iter().copied()).unwrap();
        let max = ["--max-wallet-balance", "5"];
        let approve = parse(&[&["issuing", "review", "approve", "ch_1"][..], &max].concat());
        assert_eq!(approve.db.max_wallet_balance, domain::ledger::DEFAULT_MAX_WALLET);
        let credit = parse(
            &[
                &["issuing", "wallets", "credit", "acct_1", "--mode", "live"][..],
                &max,
                &["--currency", "USD", "--amount", "1", "--reference", "r", "--note", "n"],
            ]
            .concat(),
        );
        assert_eq!(credit.db.max_wallet_balance.minor(), 5);
        let keys = parse(&["issuing", "accounts", "keys", "acct_1", "--master-key", "ab"]);
        assert!(keys.db.master_key.is_none());
        let serve = parse(&["issuing", "--master-key", "ab"]);
        assert_eq!(serve.db.master_key.as_deref(), Some("ab"));
    }

    /// The README's table of settings names every flag of `serve`.
    #[test]
    fn the_readme_names_every_flag_of_serve() {
        let readme = include_str!("../../../README.md");
        let rows: Vec<&str> = readme.lines().filter(|l| l.starts_with("| `--")).collect();
        let mut command = super::command();
        let serve = command.find_subcommand_mut("serve").unwrap();
        for long in serve
            .get_arguments()
            .filter_map(|a| a.get_long())
            .filter(|l| *l != "help")
        {
            let named = format!("`--{long}`");
            assert!(
                rows.iter().any(|row| row.contains(&named)),
                "README's table lacks {named}"
            );
        }
    }

    /// The top level lists the commands and the global flags: `serve`'s
    /// own are in `issuing serve --help`.
    #[test]
    fn the_top_level_help_lists_no_flag_of_serve() {
        let top = super::command().render_help().to_string();
        assert!(!top.contains("--card-bin") && !top.contains("--listen"), "{top}");
        assert!(
            top.contains("--database-url") && top.contains("issuing serve --help"),
            "{top}"
        );
        let serve = super::command()
            .find_subcommand_mut("serve")
            .unwrap()
            .render_help()
            .to_string();
        assert!(serve.contains("--card-bin") && serve.contains("--listen"), "{serve}");
    }
}
