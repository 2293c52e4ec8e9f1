-- The dashboard: its users (an operator has no account), their sessions
-- and the audit log of what they did. Users and sessions are found
-- before the account is known (by email, by the cookie's token hash):
-- lookup tables, keyed by what finds them. The audit log is an
-- account's ('' for the operator's service-wide actions).
CREATE TABLE dashboard_users (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    account_id TEXT REFERENCES accounts (id),
    role TEXT NOT NULL CHECK (role IN ('operator', 'admin', 'viewer')),
    password_hash TEXT,
    link_hash TEXT UNIQUE,
    link_expires_at BIGINT,
    failed_logins INTEGER NOT NULL DEFAULT 0,
    locked_until BIGINT,
    -- The TOTP secret of their second factor, sealed under the master key.
    totp_sealed BYTEA,
    created_at BIGINT NOT NULL,
    CHECK ((role = 'operator') = (account_id IS NULL))
);
CREATE TABLE dashboard_sessions (
    token_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES dashboard_users (id),
    started_at BIGINT NOT NULL,
    seen_at BIGINT NOT NULL
);
CREATE INDEX dashboard_sessions_by_user ON dashboard_sessions (user_id);
CREATE TABLE dashboard_audit (
    account_id TEXT NOT NULL,
    id BIGSERIAL,
    at BIGINT NOT NULL,
    email TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL,
    origin TEXT NOT NULL,
    PRIMARY KEY (account_id, id)
);
CREATE INDEX dashboard_audit_by_id ON dashboard_audit (id);
