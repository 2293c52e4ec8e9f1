"""PostgreSQL servers of the scripts' own, made with Debian's programs in
a temporary directory (shared by scripts/failover and scripts/pgbouncer),
and psql against them.
"""

import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def work_dir(prefix):
    """A temporary directory the `postgres` user owns (its servers write
    there), and a master key for `issuing` in the environment (card
    numbers are sealed under one on PostgreSQL)."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    if os.geteuid() == 0:
        shutil.chown(work, "postgres")
    os.environ["ISSUING_MASTER_KEY"] = secrets.token_hex(32)
    return work


def pg_bin():
    """Debian's PostgreSQL programs, of the newest version installed."""
    versions = sorted(Path("/usr/lib/postgresql").iterdir(), key=lambda p: int(p.name))
    return versions[-1] / "bin"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_postgres(*command, must=True):
    """A PostgreSQL program as the `postgres` user (the server refuses root)."""
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    return subprocess.run(prefix + [str(c) for c in command], check=must, capture_output=True, text=True)


class Cluster:
    def __init__(self, work, name, port):
        self.dir, self.port, self.log = work / name, port, work / f"{name}.log"

    def start(self):
        as_postgres(pg_bin() / "pg_ctl", "-D", self.dir, "-l", self.log, "-w", "start")

    def pid(self):
        return int((self.dir / "postmaster.pid").read_text().split()[0])

    @classmethod
    def created(cls, work, name):
        """A new cluster in `work`, started, on a port of its own, with a
        database `issuing`; `root` its superuser, trusted."""
        cluster = cls(work, name, free_port())
        as_postgres(pg_bin() / "initdb", "-D", cluster.dir, "-U", "root", "--auth=trust", "--no-sync")
        cluster.configure({"listen_addresses": "127.0.0.1", "unix_socket_directories": str(work), "port": cluster.port})
        cluster.start()
        psql(cluster.port, "CREATE DATABASE issuing", database="postgres")
        return cluster

    def stop(self):
        as_postgres(pg_bin() / "pg_ctl", "-D", self.dir, "-m", "immediate", "stop", must=False)

    def configure(self, settings):
        with open(self.dir / "postgresql.auto.conf", "a") as conf:
            for key, value in settings.items():
                conf.write(f"{key} = '{value}'\n")


def psql(port, sql, database="issuing"):
    out = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "root", "-d", database, "-tAq", "-c", sql],
        check=True, capture_output=True, text=True,
    )
    return out.stdout.strip()
