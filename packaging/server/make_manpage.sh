#!/bin/sh
# Writes the server's manual page (section 8, system administration) from its own --help and
# --version, with help2man (Debian: help2man), and the packaged files from khet-server.h2m. The
# page is committed: packaging does not run this. Run it after a change to the server's options:
#   cargo build -p khet-server && packaging/server/make_manpage.sh
# (any profile: the help is the same; KHET_SERVER names the program otherwise).
set -eu
cd "$(dirname "$0")"
server="${KHET_SERVER:-${CARGO_TARGET_DIR:-../../target}/debug/khet-server}"
help2man --no-info --section 8 --name "the Khet online server" --include khet-server.h2m \
    --output khet-server.8 "$server"
