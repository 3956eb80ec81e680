-- Club tournaments (issue 65). A tournament's rules state (players, rounds, pairings, results)
-- is one JSON document (`tournament::Tournament`), changed only by a write that names the
-- version it read: any node may direct any tournament, and two that step it at once cannot
-- both pair a round (the loser's games, inserted in the same transaction, are rolled back).
CREATE TABLE tournaments (
    code TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    -- The kind and its length, as the protocol's TournamentKind in JSON.
    kind TEXT NOT NULL,
    setup TEXT NOT NULL,
    initial_ms BIGINT NOT NULL,
    increment_ms BIGINT NOT NULL,
    rated BIGINT NOT NULL,
    listed BIGINT NOT NULL,
    -- created, running, paused or finished.
    status TEXT NOT NULL,
    -- The player who created it; NULL for the operator.
    creator TEXT REFERENCES players (id),
    created_ms BIGINT NOT NULL,
    -- When it starts by itself (before it starts), or started (after).
    starts_ms BIGINT,
    -- When an arena ends; set at its start.
    ends_ms BIGINT,
    state TEXT NOT NULL,
    version BIGINT NOT NULL
);

CREATE INDEX tournaments_by_status ON tournaments (status, created_ms);

-- A tournament's games name it, for a game's page and a player's list.
ALTER TABLE games ADD COLUMN tournament TEXT;
