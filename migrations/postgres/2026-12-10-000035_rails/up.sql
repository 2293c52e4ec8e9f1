-- The rails each mode runs on (card processor, KYC provider, their hosts,
-- the funding source), as a JSON object recorded when first chosen; every
-- process must run on them. Each deliberate change (`issuing rails set`)
-- is kept in rails_changes. Service-wide, like the rewards catalogue: no
-- account owns them.
CREATE TABLE rails (
    livemode BOOLEAN PRIMARY KEY,
    chosen TEXT NOT NULL,
    recorded_at BIGINT NOT NULL
);
CREATE TABLE rails_changes (
    id BIGSERIAL PRIMARY KEY,
    livemode BOOLEAN NOT NULL,
    before TEXT,
    after TEXT NOT NULL,
    note TEXT NOT NULL,
    changed_at BIGINT NOT NULL
);
