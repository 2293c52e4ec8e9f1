//! The CPU time the server process and PostgreSQL's processes spend over a
//! measured run, read from `/proc`: per request it is steady on a shared
//! 2-core machine where requests per second are not.

use std::time::Duration;

/// CPU time used so far (user and system, all threads).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuTimes {
    /// None for a baseline that runs without the server (pgbench).
    pub server: Option<Duration>,
    /// Every process named `postgres`: the backends serving the server
    /// and the background workers (WAL writer, checkpointer, autovacuum).
    pub database: Duration,
}

impl CpuTimes {
    /// The servers' (summed) and the database's.
    pub fn now(server_pids: &[u32]) -> CpuTimes {
        CpuTimes {
            server: server_pids.iter().map(|pid| process_cpu(&format!("/proc/{pid}"))).sum(),
            database: postgres_cpu(),
        }
    }

    /// The database's alone, for a baseline without the server.
    pub fn database_now() -> CpuTimes {
        CpuTimes {
            server: None,
            database: postgres_cpu(),
        }
    }

    /// What was used between `earlier` and this sample.
    pub fn since(self, earlier: CpuTimes) -> CpuTimes {
        CpuTimes {
            server: self
                .server
                .zip(earlier.server)
                .map(|(now, then)| now.saturating_sub(then)),
            database: self.database.saturating_sub(earlier.database),
        }
    }
}

/// The CPU used (the server's where measured, and the database's) and the
/// statements the database ran, where counted: so far, or over a run.
pub struct Usage {
    pub cpu: CpuTimes,
    pub statements: Option<u64>,
}

impl Usage {
    /// What was used between `earlier` and this sample.
    pub fn since(self, earlier: &Usage) -> Usage {
        Usage {
            cpu: self.cpu.since(earlier.cpu),
            statements: self
                .statements
                .zip(earlier.statements)
                .map(|(now, then)| now.saturating_sub(then)),
        }
    }
}

/// Clock ticks a second (`getconf CLK_TCK`): 100 on Linux everywhere that
/// matters; read from the kernel's ABI once instead of assumed.
fn ticks_per_second() -> u64 {
    // SAFETY: sysconf with a valid name has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|t| *t > 0).unwrap_or(100)
}

/// utime + stime + cutime + cstime of `/proc/<pid>/stat` (fields 14 to
/// 17, counted after the command name, which may hold spaces and
/// parentheses): the process's own CPU and its exited children's. The
/// children's count for PostgreSQL's postmaster, whose backends come and
/// go within a run (pgbench's connections); the server has none.
fn process_cpu(proc_dir: &str) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("{proc_dir}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after_name.split(' ').collect();
    // after_name starts at field 3 (state): utime is field 14.
    let mut ticks = 0;
    for field in fields.get(11..15)? {
        ticks += field.parse::<u64>().ok()?;
    }
    Some(Duration::from_micros(ticks * 1_000_000 / ticks_per_second()))
}

fn postgres_cpu() -> Duration {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Duration::ZERO;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(|e| e.path().display().to_string())
        .filter(|dir| std::fs::read_to_string(format!("{dir}/comm")).is_ok_and(|c| c.trim() == "postgres"))
        .filter_map(|dir| process_cpu(&dir))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Busy until the process's own CPU time shows 200 ms of it: on a
    /// loaded machine that takes longer than 200 ms of wall time, never
    /// for ever, and the count never runs ahead of the wall clock.
    #[test]
    fn a_busy_loop_shows_in_its_own_process_cpu() {
        let me = std::process::id();
        let before = CpuTimes::now(&[me]);
        let start = std::time::Instant::now();
        let mut x = 0u64;
        let used = loop {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
            let used = CpuTimes::now(&[me]).since(before).server.unwrap();
            if used >= Duration::from_millis(200) || start.elapsed() > Duration::from_secs(60) {
                break used;
            }
        };
        let wall = start.elapsed();
        assert!(used >= Duration::from_millis(200), "{used:?} in {wall:?}");
        // This thread's, and the other tests' threads' meanwhile.
        assert!(used <= wall * 4 + Duration::from_millis(100), "{used:?} in {wall:?}");
    }
}
