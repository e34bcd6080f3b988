#!/usr/bin/env bash
# kcbp scene on a map of parcels and game-like shapes against GEOS
# (tests/stress/twod_geos writes the scene and GEOS's pairs):
#   tests/stress/twod_scene_geos.sh N SEED [KCBP]
# Prints the counts of pairs (expected, found, missing, extra); exit status 1
# when kcbp's colliding pairs differ from GEOS's (pairs GEOS's distance puts
# within 1e-9 of touching, in skip.txt, not counted).
set -euo pipefail
n=${1:-12} seed=${2:-1} kcbp=${3:-./build/kcbp}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
./build/twod_geos "$n" "$seed" "$dir/map.geojson" "$dir"
"$kcbp" scene "$dir/scene.json" --contacts none --jobs 2 > "$dir/out.json"
/usr/bin/python3 - "$dir" <<'END'
import json, sys
d = sys.argv[1]
got = set()
for line in open(d + "/out.json"):
    rep = json.loads(line)
    for p in rep.get("colliding", []):
        got.add(tuple(sorted((p["a"], p["b"]))))
want = {tuple(sorted(l.split())) for l in open(d + "/expected.txt") if l.strip()}
skip = {tuple(sorted(l.split())) for l in open(d + "/skip.txt") if l.strip()}
missing, extra = want - got - skip, got - want - skip
print("scene: %d pairs meet by GEOS, kcbp found %d; missing %d, extra %d, %d near ties left out"
      % (len(want), len(got), len(missing), len(extra), len(skip)))
for p in sorted(missing)[:10]:
    print("missing", *p)
for p in sorted(extra)[:10]:
    print("extra", *p)
sys.exit(1 if missing or extra else 0)
END
