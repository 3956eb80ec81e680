#!/bin/sh
# Renders the icon at every size the desktop asks for (hicolor theme: 16 to 512 pixels) from
# khet.svg. Needs rsvg-convert (Debian: librsvg2-bin). The PNGs are committed: building and
# packaging the game do not run this.
set -eu
cd "$(dirname "$0")"
for size in 16 24 32 48 64 128 256 512; do
    rsvg-convert --width "$size" --height "$size" khet.svg --output "$size.png"
done
# Windows' icon (packaging/windows/khet.ico, put in khet.exe by build.rs): the sizes Explorer
# and the taskbar use, in one file. Needs ImageMagick (Debian: imagemagick).
convert 16.png 24.png 32.png 48.png 64.png 128.png 256.png ../../packaging/windows/khet.ico
