-- The server's tables. Written for both SQLite (the default) and PostgreSQL: portable types
-- only (TEXT, BIGINT, DOUBLE PRECISION), flags as 0/1, times as Unix milliseconds.

CREATE TABLE players (
    id TEXT PRIMARY KEY,
    -- SHA-256 of the installation's secret identity; the secret itself is never stored.
    identity_hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    created_ms BIGINT NOT NULL
);

CREATE TABLE games (
    code TEXT PRIMARY KEY,
    setup TEXT NOT NULL,
    -- The starting position string, with its rules.
    start TEXT NOT NULL,
    rated BIGINT NOT NULL,
    -- Shown in the lobby (a game made for a friend is not).
    listed BIGINT NOT NULL,
    -- The time control; NULL for a game without clocks.
    initial_ms BIGINT,
    increment_ms BIGINT,
    -- silver, red or random: what the creator asked for (the lobby shows it).
    creator_choice TEXT NOT NULL,
    silver_player TEXT REFERENCES players (id),
    red_player TEXT REFERENCES players (id),
    -- SHA-256 of each seat's secret.
    silver_secret TEXT,
    red_secret TEXT,
    -- open, playing or over.
    status TEXT NOT NULL,
    -- The engine's GameResult as JSON.
    result TEXT,
    -- Each side's clock as of the last stored change.
    silver_ms BIGINT,
    red_ms BIGINT,
    -- The number of the last event.
    event BIGINT NOT NULL,
    created_ms BIGINT NOT NULL,
    started_ms BIGINT,
    ended_ms BIGINT
);

CREATE INDEX games_by_status ON games (status, created_ms);

CREATE TABLE moves (
    code TEXT NOT NULL REFERENCES games (code),
    ply BIGINT NOT NULL,
    mv TEXT NOT NULL,
    -- Both clocks after the move.
    silver_ms BIGINT,
    red_ms BIGINT,
    at_ms BIGINT NOT NULL,
    PRIMARY KEY (code, ply)
);
