-- Challenges (issue 65): one player asks another for a game with a setup and clock, and the
-- other accepts or declines wherever they are connected, now or when they next come. A rematch
-- is a challenge too, of the finished game `rematch_of`'s opponent.
CREATE TABLE challenges (
    id TEXT PRIMARY KEY,
    challenger TEXT NOT NULL REFERENCES players (id),
    challenged TEXT NOT NULL REFERENCES players (id),
    setup TEXT NOT NULL,
    -- The time control; NULL for a game without clocks.
    initial_ms BIGINT,
    increment_ms BIGINT,
    -- silver, red or random: the challenger's side.
    color TEXT NOT NULL,
    rated BIGINT NOT NULL,
    rematch_of TEXT,
    -- pending, accepted, declined, withdrawn or expired.
    status TEXT NOT NULL,
    -- The game an accept created.
    game TEXT,
    created_ms BIGINT NOT NULL,
    ended_ms BIGINT
);
-- A player's pending challenges, received and made.
CREATE INDEX challenges_to ON challenges (challenged, status);
CREATE INDEX challenges_from ON challenges (challenger, status);
