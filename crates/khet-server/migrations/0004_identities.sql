-- Identities cost nothing, so what one may do is earned (`identity.rs`). `casual_games` counts
-- the casual games a player finished with a move from each side: with its rated games, what it
-- needs before it may play rated. Players from before count the casual games they finished.
ALTER TABLE players ADD COLUMN casual_games BIGINT NOT NULL DEFAULT 0;
UPDATE players SET casual_games = (
    SELECT COUNT(*) FROM games g
    WHERE g.status = 'over' AND g.rated = 0
      AND (g.silver_player = players.id OR g.red_player = players.id)
      AND g.silver_player IS NOT NULL AND g.red_player IS NOT NULL
      AND (SELECT COUNT(*) FROM moves m WHERE m.code = g.code) >= 2
);

-- The rated games two players started against each other lately: each pair's are counted at
-- every rated join.
CREATE INDEX games_by_pair ON games (silver_player, red_player, started_ms);

-- The networks (an IPv4 address, an IPv6 /64) each player connected from lately, kept only as
-- long as a bar would hold them (`--bar-holds-network`) and deleted after: what a bar holds.
CREATE TABLE player_networks (
    player TEXT NOT NULL REFERENCES players (id),
    network TEXT NOT NULL,
    last_ms BIGINT NOT NULL,
    PRIMARY KEY (player, network)
);
CREATE INDEX player_networks_by_time ON player_networks (last_ms);

-- Networks a bar holds: no new identity is made from one until `until_ms`. Deleted then, and
-- at once when the barred player is let back.
CREATE TABLE held_networks (
    network TEXT NOT NULL,
    player TEXT NOT NULL,
    until_ms BIGINT NOT NULL,
    PRIMARY KEY (network, player)
);
