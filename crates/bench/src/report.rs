//! The results as one markdown table, with the machine, the command and
//! where each target stands, written between two markers of a document so
//! the prose around them is kept.

use crate::driver::Outcome;
use crate::server::Backend;
use std::fmt::Write;
use std::path::Path;

const START: &str = "<!-- results:start (written by crates/bench; do not edit by hand) -->";
const END: &str = "<!-- results:end -->";

/// One line of the table.
#[derive(Debug, Clone)]
pub struct Row {
    pub scenario: String,
    pub backend: &'static str,
    /// `32`, or `open 800/s`.
    pub load: String,
    pub per_second: f64,
    /// p50, p99 and p99.9 in milliseconds.
    pub latency: Option<[f64; 3]>,
    pub errors: String,
    /// `0.91 of pgbench-equivalent`.
    pub ratio: Option<String>,
    pub peak_rss_mib: Option<f64>,
    /// Server CPU µs per request, and the database's (PostgreSQL only:
    /// SQLite runs inside the server).
    pub cpu_us: (Option<f64>, Option<f64>),
    /// Database statements per request (PostgreSQL, where counted).
    pub statements: Option<f64>,
}

impl Row {
    pub fn measured(scenario: &str, backend: &'static str, load: String, outcome: &Outcome) -> Row {
        Row {
            scenario: scenario.to_string(),
            backend,
            load,
            per_second: outcome.per_second(),
            latency: Some([0.5, 0.99, 0.999].map(|q| outcome.ms(q))),
            errors: outcome.error_summary(),
            ratio: None,
            peak_rss_mib: None,
            cpu_us: outcome.cpu_per_request().map_or((None, None), |(server, database)| {
                (server, (backend == Backend::Postgres.name()).then_some(database))
            }),
            statements: outcome.statements_per_request(),
        }
    }
}

/// Where one target stands.
pub struct Target {
    pub goal: String,
    pub measured: String,
    pub met: bool,
}

pub fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| scenario | backend | concurrency | req/s | p50 ms | p99 ms | p99.9 ms | errors | ratio to baseline | server CPU µs/req | db CPU µs/req | statements/req | server peak RSS MiB |\n\
         |---|---|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let rss = r.peak_rss_mib.map_or("-".to_string(), |m| format!("{m:.0}"));
        let latency = r.latency.map_or("- | - | -".to_string(), |[p50, p99, p999]| {
            format!("{p50:.2} | {p99:.2} | {p999:.2}")
        });
        let us = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.0}"));
        let (server_cpu, db_cpu) = (us(r.cpu_us.0), us(r.cpu_us.1));
        let statements = r.statements.map_or("-".to_string(), |s| format!("{s:.1}"));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.0} | {latency} | {} | {} | {server_cpu} | {db_cpu} | {statements} | {} |",
            r.scenario,
            r.backend,
            r.load,
            r.per_second,
            r.errors,
            r.ratio.as_deref().unwrap_or("-"),
            rss
        );
    }
    out
}

pub fn targets(targets: &[Target]) -> String {
    let mut out = String::from("| target | measured | met |\n|---|---|---|\n");
    for t in targets {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            t.goal,
            t.measured,
            if t.met { "yes" } else { "no" }
        );
    }
    out
}

/// The document with its results section replaced by `results` (added at
/// the end when it has none).
pub fn write(path: &Path, results: &str) -> anyhow::Result<()> {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let section = format!("{START}\n{results}\n{END}");
    let new = match (old.find(START), old.find(END)) {
        (Some(s), Some(e)) if s < e => format!("{}{section}{}", &old[..s], &old[e + END.len()..]),
        _ if old.is_empty() => format!("# Benchmarks\n\n{section}\n"),
        _ => format!("{old}\n{section}\n"),
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, new)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_results_section_is_replaced_and_the_prose_around_it_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.md");
        write(&path, "first").unwrap();
        let made = std::fs::read_to_string(&path).unwrap();
        assert!(made.starts_with("# Benchmarks\n") && made.contains("first"));
        std::fs::write(
            &path,
            made.replace("# Benchmarks", "# Benchmarks\n\nProse before.") + "Prose after.\n",
        )
        .unwrap();
        write(&path, "second").unwrap();
        let kept = std::fs::read_to_string(&path).unwrap();
        assert!(kept.contains("Prose before.") && kept.contains("Prose after.") && kept.contains("second"));
        assert!(!kept.contains("first"));
    }
}
