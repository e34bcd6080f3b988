#!/usr/bin/env bash
# The held-out hunt in 3D, third round (branch hunt3e, issue 33): CAD-like
# parts near contact (a lid on a box, flush and overhanging; a pin in its
# bore, exact, sliding, at clearance and interference; boxes sharing an edge
# or a corner; faces fanned from their centres: slivers), closed scans
# against themselves moved by 1e-12 .. 1e-6 of their size, inset along their
# normals by 1e-3 .. 1e-9, scaled, turned into deep overlap; at scale 1 and
# 1e6 off the origin.
#
#   1. bench/hunt3e: every query through the C API (collide with every
#      contact and the first, containment, distance, clearance, signed
#      distance and its proofs, sweep), each against a brute force over
#      triangle pairs (bench/hunt3e.c says how); writes each pair as OBJ.
#   2. the same pairs through the CLI (kcbp collide --contacts all,
#      distance, distance --margin, distance --signed, sweep), compared
#      with the C API's answers: the same collide and contact count, the
#      distance within 1e-12 of S (the JSON prints 15 digits), the same
#      signed status, the same time of impact within 1e-8.
#   3. timing against FCL 0.7 (bench/cones_bench: kcbp_distance, one
#      kcbp_collide and fcl::distance in one program, CPU time of the
#      thread, medians of ROUNDS interleaved rounds) on the pairs apart
#      (FCL's distance is the peer) .
#
#   bench/holdout3.sh               # ROUNDS=3
#   NO_BUILD=1 ONLY=cad bench/holdout3.sh
#
# Exits non-zero when a program fails or an answer is off.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out/holdout3"
ROUNDS=${ROUNDS:-3}
MESHES=${MESHES:-$root/../shared/meshes}
[[ -d $MESHES ]] || MESHES=$root/meshes
kcbp=$root/build/kcbp

fail() { echo "holdout3.sh: $*" >&2; exit 1; }
if [[ -z ${NO_BUILD:-} ]]; then
    make -s -C "$root" build/libkcbp.a build/libkcbp_eval.a build/kcbp >&2 || fail "building kcbp failed"
    make -s -C "$here" hunt3e cones_bench >&2 || fail "building the bench programs failed"
fi
rm -rf "$out"
mkdir -p "$out"

echo "== 1. C API against the brute force"
"$here/hunt3e" -w "$out" "$MESHES" | tee "$out/api.log" | grep -v '^  (not a solid' || true
tail -1 "$out/api.log" | grep -q 'off 0$' || fail "answers off (see $out/api.log)"

echo "== 2. the CLI against the C API"
/usr/bin/python3 - "$kcbp" "$out" <<'EOF'
import json, subprocess, sys
kcbp, out = sys.argv[1], sys.argv[2]
checks = bad = 0
def run(*args):
    p = subprocess.run([kcbp, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"kcbp {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)
for line in open(f"{out}/cases.tsv"):
    stem, coll, nc, d, sd, lo, hi, toi, sw, S = line.rstrip("\n").split("\t")
    coll, nc, d, lo, hi, toi, S = int(coll), int(nc), float(d), float(lo), float(hi), float(toi), float(S)
    sw = [float(x) for x in sw.split()]
    A, B = f"{out}/{stem}.A.obj", f"{out}/{stem}.B.obj"
    errs = []
    c = run("collide", A, B, "--contacts", "all", "--max-contacts", "100000000")
    n = len(c.get("contacts", []))
    if c["collide"] != bool(coll) or n != nc:
        errs.append(f"collide {c['collide']} with {n} contacts, API {coll} with {nc}")
    r = run("distance", A, B)
    if abs(r["distance"] - d) > 1e-12 * S + 1e-14 * d:
        errs.append(f"distance {r['distance']!r}, API {d!r}")
    if d > 4e-12 * S:
        for D, want in ((d * (1 - 1e-6) - 4e-12 * S, False), (d * (1 + 1e-6) + 4e-12 * S, True)):
            m = run("distance", A, B, "--margin", repr(D))
            within = "farther_than" not in m
            if within != want:
                errs.append(f"--margin {D!r}: within {within}, distance {d!r}")
    if sd != "-":
        s = run("distance", A, B, "--signed")
        if s["status"] != sd:
            errs.append(f"--signed {s['status']}, API {sd}")
    if any(sw):
        fr = f"{sw[0]!r} {sw[1]!r} {sw[2]!r} 1 0 0 0"
        to = f"{-sw[0]!r} {-sw[1]!r} {-sw[2]!r} 1 0 0 0"
        w = run("sweep", A, B, "--from", fr, "--to", to)
        t = w.get("toi")
        if (t is None) != (toi != toi) or (t is not None and abs(t - toi) > 1e-8):
            errs.append(f"sweep toi {t}, API {toi}")
    checks += 1
    if errs:
        bad += 1
        print(f"  OFF {stem}: " + "; ".join(errs))
print(f"cli pairs {checks}, off {bad}")
sys.exit(1 if bad else 0)
EOF

echo "== 3. time against FCL (pairs apart; CPU us, medians of $ROUNDS)"
# BASE=path: a cones_bench built against another kcbp, run in the same rounds
# (its distance and collide times: the last two columns).
BASE=${BASE:-}
printf '%-34s %14s %10s %10s %8s %10s %12s %12s %10s %10s\n' case triangles kcbp_us fcl_us kcbp/fcl collide_us tri_pairs "|k-f|/S" base_us base_coll
awk -F'\t' '$2 == 0 && $4 > 0 {print $1 "\t" $10}' "$out/cases.tsv" | while IFS=$'\t' read -r stem S; do
    A="$out/$stem.A.obj" B="$out/$stem.B.obj"
    ks=() fs=() cs=() bs=() bc=() d=0 e=0 t=0
    for ((r = 0; r < ROUNDS; r++)); do
        # kcbp_us K fcl_us F d_kcbp D d_fcl E d_brute B box_pairs P tri_pairs T collide_us C
        set -- $("$here/cones_bench" "$A" "$B" 1 1 0)
        ks+=("$2") fs+=("$4") cs+=("${16}") d=$6 e=$8 t=${14}
        if [[ -n $BASE ]]; then
            set -- $("$BASE" "$A" "$B" 1 0 0)
            bs+=("$2") bc+=("${16}")
        else
            bs+=(nan) bc+=(nan)
        fi
    done
    med() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
    na=$(grep -c '^f ' "$A") nb=$(grep -c '^f ' "$B")
    awk -v s="$stem" -v na="$na" -v nb="$nb" -v k="$(med "${ks[@]}")" -v f="$(med "${fs[@]}")" -v dk="$d" -v df="$e" \
        -v t="$t" -v c="$(med "${cs[@]}")" -v S="$S" -v b="$(med "${bs[@]}")" -v bc="$(med "${bc[@]}")" \
        'BEGIN { x = dk - df; if (x < 0) x = -x; printf "%-34s %6d x %-6d %10.1f %10.1f %8.3f %10.1f %12d %12.1e %10s %10s\n", s, na, nb, k, f, k / f, c, t, x / S, b, bc }'
done | tee "$out/fcl.txt"
