-- Why a deleted card was deleted (domain::cards::state::DeletionReason); NULL while it lives.
ALTER TABLE cards ADD COLUMN deleted_reason TEXT;
