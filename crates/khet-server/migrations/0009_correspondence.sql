-- Correspondence games (issue 65): days a move instead of a clock (NULL for the rest), and when
-- the side to move's turn began (written with the start, each move and each take-back), from
-- which the days are counted, across restarts as across nodes.
ALTER TABLE games ADD COLUMN days_per_move BIGINT;
ALTER TABLE games ADD COLUMN turn_ms BIGINT;
-- A challenge to a correspondence game.
ALTER TABLE challenges ADD COLUMN days_per_move BIGINT;
