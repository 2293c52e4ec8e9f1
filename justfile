# Shortcuts; each recipe is one plain cargo command you can also run by hand.

# Run the service on ./issuing.db
run:
    cargo run --release

# The whole test suite on SQLite
test:
    cargo test --workspace

# The whole test suite on SQLite and PostgreSQL
test-pg url="postgres://root@127.0.0.1:5432/test":
    TEST_DATABASE_URL={{url}} cargo test --workspace

# What CI runs
ci:
    bash .ci/run

# Accept a changed OpenAPI snapshot after reviewing it
snapshot:
    INSTA_UPDATE=always cargo test -p issuing-api openapi

# Dependency licences and sources (deny.toml), offline
deny:
    cargo fetch --locked --quiet
    cargo deny --offline check licenses bans sources

lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
