-- The operator's word on a player (`khet-server admin`): a name the operator set is kept
-- whatever the player's game says at its next hello, and a barred identity cannot connect (the
-- reason, never empty, is what it is told).
ALTER TABLE players ADD COLUMN named_by_operator BIGINT NOT NULL DEFAULT 0;
ALTER TABLE players ADD COLUMN barred TEXT;
