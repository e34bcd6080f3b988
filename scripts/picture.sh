#!/usr/bin/env bash
# docs/kcbp.png, the README's picture: a real --html page of kcbp collide
# (bunny2 and spot, every contact red), rendered by headless Chromium.
# `make picture` runs it; it needs the build and Debian's chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
page=$(mktemp --suffix=.html)
trap 'rm -f "$page"' EXIT
./kcbp collide meshes/bunny2.obj meshes/spot.obj --pose-b "0.5 0 0 0 0 1 30" --contacts all --html "$page" >/dev/null
chromium --headless --no-sandbox --disable-gpu --use-gl=swiftshader --enable-unsafe-swiftshader \
    --hide-scrollbars --window-size=900,520 --virtual-time-budget=5000 --screenshot=docs/kcbp.png "file://$page" \
    2>/dev/null
echo "wrote docs/kcbp.png"
