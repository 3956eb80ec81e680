-- Each player's rating after each rated game (issue 65: a player's page draws its history).
-- Written with the game's end, in its transaction.
CREATE TABLE rating_history (
    player TEXT NOT NULL REFERENCES players (id),
    code TEXT NOT NULL REFERENCES games (code),
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    at_ms BIGINT NOT NULL,
    PRIMARY KEY (player, code)
);

CREATE INDEX rating_history_by_player ON rating_history (player, at_ms);
