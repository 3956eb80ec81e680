#!/bin/sh
# Writes the manual pages (section 6, games) from the programs' own --help and --version, with
# help2man (Debian: help2man). The pages are committed: packaging does not run this. Run it after
# a change to either program's options:
#   cargo build --release -p khet -p khet-cli && packaging/make_manpages.sh
set -eu
cd "$(dirname "$0")"
bin="${CARGO_TARGET_DIR:-../target}/release"
help2man --no-info --section 6 --name "the laser game, in 3D" \
    --output khet.6 "$bin/khet"
help2man --no-info --section 6 --name "the Khet engine on the command line" \
    --output khet-engine.6 "$bin/khet-engine"
