-- Several nodes on one database: each game not over has one owning node at a time, which holds
-- a lease until `lease_until_ms`. Each taking of a lease draws a new `lease_token`, and every
-- write a room makes names the token it holds: a node whose lease was taken over writes nothing
-- (fencing), whatever its clock says.
ALTER TABLE games ADD COLUMN owner TEXT;
ALTER TABLE games ADD COLUMN lease_token BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN lease_until_ms BIGINT NOT NULL DEFAULT 0;
