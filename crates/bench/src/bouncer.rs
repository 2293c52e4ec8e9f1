//! PgBouncer in transaction mode in front of the bench's database, for
//! the debit row through it (docs/operations.md, "PgBouncer").

use anyhow::{Context, bail};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `pgbouncer`, stopped on drop.
pub struct Bouncer {
    child: Child,
    port: u16,
    user: String,
    name: String,
    _dir: tempfile::TempDir,
}

impl Bouncer {
    /// Starts PgBouncer for database `name` of `server`
    /// (`postgres://user@host:port`), with `server_connections` to it. It
    /// refuses to run as root: started as the `postgres` user when this
    /// is root, as the process itself (so that it stops with it).
    pub fn start(server: &str, name: &str, server_connections: usize) -> anyhow::Result<Bouncer> {
        let (user, address) = server
            .strip_prefix("postgres://")
            .and_then(|rest| rest.split_once('@'))
            .context("--postgres as postgres://user@host:port")?;
        let (host, port) = address.split_once(':').unwrap_or((address, "5432"));
        let dir = tempfile::Builder::new().prefix("issuing-bench-pgbouncer-").tempdir()?;
        // Read by the postgres user (below).
        std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
        let listen = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        std::fs::write(dir.path().join("users.txt"), format!("\"{user}\" \"\"\n"))?;
        let ini = dir.path().join("pgbouncer.ini");
        std::fs::write(
            &ini,
            format!(
                "[databases]\n{name} = host={host} port={port} dbname={name} user={user}\n\n\
                 [pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {listen}\nunix_socket_dir =\n\
                 auth_type = trust\nauth_file = {users}\npool_mode = transaction\n\
                 default_pool_size = {server_connections}\nmax_client_conn = 200\n",
                users = dir.path().join("users.txt").display(),
            ),
        )?;
        // Found here: the postgres user may not search this user's PATH.
        let program = std::env::var_os("PATH")
            .and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join("pgbouncer"))
                    .find(|p| p.is_file())
            })
            .context("pgbouncer is not installed (Debian's package: apt-get install pgbouncer)")?;
        let mut command = Command::new(program);
        // SAFETY: plain libc calls; getpwnam's record is read at once.
        if unsafe { libc::geteuid() } == 0 {
            let postgres = unsafe { libc::getpwnam(c"postgres".as_ptr()) };
            anyhow::ensure!(
                !postgres.is_null(),
                "pgbouncer will not run as root, and there is no postgres user"
            );
            let (uid, gid) = unsafe { ((*postgres).pw_uid, (*postgres).pw_gid) };
            command.uid(uid).gid(gid);
        }
        let child = command
            .arg(&ini)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting pgbouncer")?;
        let mut bouncer = Bouncer {
            child,
            port: listen,
            user: user.to_string(),
            name: name.to_string(),
            _dir: dir,
        };
        for _ in 0..100 {
            if let Some(status) = bouncer.child.try_wait()? {
                bail!("pgbouncer exited at its start ({status})");
            }
            if std::net::TcpStream::connect(("127.0.0.1", listen)).is_ok() {
                return Ok(bouncer);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        bail!("pgbouncer did not listen on {}", bouncer.port)
    }

    /// The database's URL through the bouncer.
    pub fn url(&self) -> String {
        format!(
            "postgres://{}@127.0.0.1:{}/{}?pgbouncer=true",
            self.user, self.port, self.name
        )
    }
}

impl Drop for Bouncer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
