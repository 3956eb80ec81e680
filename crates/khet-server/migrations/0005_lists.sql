-- The public lists answered from indexes (issue 61): `/games` reads the newest listed games,
-- `/players` the best rated players, and a start withdraws the open games waiting too long.
-- Portable: plain indexes, which SQLite and PostgreSQL both scan in either direction.
CREATE INDEX games_listed ON games (listed, created_ms);
CREATE INDEX players_by_rating ON players (rating, games);
-- A player's games not over (`seats_of`), on either side.
CREATE INDEX games_by_silver ON games (silver_player, status);
CREATE INDEX games_by_red ON games (red_player, status);
