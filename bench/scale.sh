#!/usr/bin/env bash
# Issue 26 benchmark: scenes at scale. kcbp scene against FCL 0.7's
# DynamicAABBTreeCollisionManager (bench/scale_fcl) on the scenes of
# bench/gen_scale, from 10^3 to 10^5 objects (10^6 on request), static and
# 10 frames moving, with peak memory, the colliding pairs checked identical,
# and the growth exponent between sizes.
#
#   bench/scale.sh                       # from anywhere; RUNS=3, sizes 10^3 10^4 10^5
#   QUICK=1 bench/scale.sh               # smoke run: sizes 10^3 10^4, one run, a few minutes
#   SIZES="1000 10000 100000 1000000" bench/scale.sh   # with 10^6 (opt-in: FCL needs ~1 GB and ~20 min a run moving)
#   SCENES="density density-m10" SIZES=100000 RUNS=5 bench/scale.sh
#   NO_BUILD=1 bench/scale.sh            # skip the make calls
#   TABLE_ONLY=1 bench/scale.sh          # only print the tables again, from the last runs.tsv
#   OUT=bench/out/scale-thesis SCENES=thesis THESIS_SIZES=100000 RUNS=1 bench/scale.sh   # elsewhere
#
# Env: RUNS (3) processes per program, interleaved (kcbp first in odd runs,
# FCL first in even ones); SEED (1); SIZES ("1000 10000 100000"); SCENES
# (below); COINCIDENT_SIZES ("1000 3000"); THESIS_SIZES ("1000 10000": at
# 10^5, 1.8e8 box pairs, kcbp runs out of memory and FCL out of time; run it
# alone with THESIS_SIZES=100000 SCENES=thesis); MEM_MB (4096): every run's
# address space is capped (ulimit -v),
# TIME_S (600): and its time (timeout); a run that hits a cap is reported as
# "OOM" / "timeout", and is not repeated. JOBS ("1 2"): the --jobs values
# for kcbp, when its `scene --help` knows --jobs (else one plain run, noted).
# AABB (1): also kcbp --filter aabb --jobs 1 (program kcbp-aabb), to compare
# the k-CBP filter with boxes only. KCBP, BENCH_BIN: the kcbp program and the
# folder of gen_scale and scale_fcl (default: the tree's; give copies to keep
# a long run's binaries fixed while the tree is rebuilt).
#
# Scenes (bench/gen_scale.c has the details; NAME-mF is NAME moving F frames):
#   density, density-m10    copies of a 464-triangle decimated bunny (blob.obj)
#                           at constant density (the thesis's n = 100 one),
#                           random rotations
#   cad, cad-m10            the same with a 1,260-triangle CAD bracket
#   clustered, clustered-m10  99% of the objects in a small cube at 4x the density, 1% far out
#   mixed, mixed-m10        a floor and N/1000 car-body-sized brackets (x8) among the parts
#   thesis                  `kcbp scene --generate thesis`'s layout (bunny2 at integer
#                           points of [-4, 4]^3): sizes THESIS_SIZES
#   coincident              N copies of a small tetrahedron at one point: COINCIDENT_SIZES
#   coincident_cad, coincident_blob   N copies of the bracket (the decimated bunny) at one
#                           common pose, turned (not in the default SCENES; COINCIDENT_SIZES)
#   overlap_cad, overlap_blob   N copies each shifted by up to 1/8 of its size and turned:
#                           deep overlap, nearly every pair colliding (issue 33 item 4; not in
#                           the default SCENES; COINCIDENT_SIZES). The dense run:
#     SCENES="coincident coincident_cad coincident_blob overlap_cad overlap_blob" \
#       COINCIDENT_SIZES=1000 JOBS=1 AABB=0 bench/scale.sh
#
# Per run: `/usr/bin/time -v` around `kcbp scene SCENE.json` (output to a file)
# and `scale_fcl SCENE.json.bin PAIRS`. kcbp's detect time is the sum over
# frames of its report's time_ms.detect (world boxes + broad phase + pair
# tests: no scene parse, model build or report), its broad phase
# time_ms.broadphase; FCL's detect is scale_fcl's per-frame loop (poses,
# setTransform, computeAABB, register+setup or update, collide). Wall time
# and peak RSS are the whole process's (for kcbp that includes the JSON parse
# and the report); CPU time (user + system) is the whole process's too, the
# measure that stays when other work shares the machine. Tables: medians over
# the runs, with (min-max); growth exponents log(t2/t1)/log(n2/n1) between
# consecutive sizes of the medians.
#
# Output (in OUT, default bench/out/scale, with the scenes): the tables on
# stdout and in results.md, every run in runs.tsv, disagreements in *.diff. Exits 1
# when kcbp and FCL disagree on a scene's colliding pairs, or a run differs
# from the first run of the same program; 2 when something cannot be built.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out=${OUT:-"$here/out/scale"}
KCBP=${KCBP:-"$root/kcbp"}
BENCH_BIN=${BENCH_BIN:-"$here"}
AABB=${AABB:-1}
if [[ -n ${QUICK:-} ]]; then
    RUNS=${RUNS:-1}
    SIZES=${SIZES:-"1000 10000"}
    COINCIDENT_SIZES=${COINCIDENT_SIZES:-"1000"}
    THESIS_SIZES=${THESIS_SIZES:-"1000"}
fi
RUNS=${RUNS:-3}
SEED=${SEED:-1}
SIZES=${SIZES:-"1000 10000 100000"}
COINCIDENT_SIZES=${COINCIDENT_SIZES:-"1000 3000"}
THESIS_SIZES=${THESIS_SIZES:-"1000 10000"}
SCENES=${SCENES:-"density density-m10 cad cad-m10 clustered clustered-m10 mixed mixed-m10 thesis coincident"}
MEM_MB=${MEM_MB:-4096}
TIME_S=${TIME_S:-600}
JOBS=${JOBS:-"1 2"}

die() { echo "scale.sh: $*" >&2; exit 2; }
start=$SECONDS
tsv="$out/runs.tsv"
status_all=0
if [[ -z ${TABLE_ONLY:-} ]]; then
if [[ -z ${NO_BUILD:-} ]]; then
    make -s -C "$root" -j2 >&2 || die "building kcbp failed"
    make -s -C "$here" -j2 scale-bench >&2 || die "building the bench programs failed"
fi
[[ -x $KCBP && -x $BENCH_BIN/gen_scale && -x $BENCH_BIN/scale_fcl ]] || die "kcbp, bench/gen_scale or bench/scale_fcl is missing"
mkdir -p "$out"
rm -f "$out"/*.diff "$out"/run-*
"$BENCH_BIN/gen_scale" meshes "$out" "$root/meshes/bunny2.obj" >/dev/null || die "gen_scale meshes failed"
cp "$root/meshes/bunny2.obj" "$out/bunny2.obj"

# kcbp's --jobs, when it has one.
if [[ $("$KCBP" scene --help 2>/dev/null) == *--jobs* ]]; then
    read -r -a kcbp_variants <<<"$JOBS"
    jobs_note="kcbp with --jobs ${JOBS// /, }"
else
    kcbp_variants=(-)
    jobs_note="kcbp scene has no --jobs option yet: one configuration (one thread), --jobs runs skipped"
fi
echo "# $jobs_note" >&2

printf 'scene\tobjects\tframes\tprogram\trun\tstatus\tdetect_ms\tbroadphase_ms\tload_ms\tbuild_ms\twall_s\tpeak_kb\tbp_pairs\tcolliding\tcpu_s\n' >"$tsv"

# run_one TAG FILE PROG ...: runs PROG under the caps and /usr/bin/time -v;
# sets status, wall_s, peak_kb; stdout in FILE.out, stderr in FILE.err.
run_one() {
    local file=$1
    shift
    (
        ulimit -v $((MEM_MB * 1024))
        exec /usr/bin/time -v -o "$file.time" timeout -s KILL "$TIME_S" "$@" >"$file.out" 2>"$file.err"
    )
    local rc=$?
    wall_s=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$file.time" 2>/dev/null)
    peak_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$file.time" 2>/dev/null)
    cpu_s=$(awk -F': ' '/User time \(seconds\)/ { u = $2 } /System time \(seconds\)/ { s = $2 } END { if (u != "") printf "%.2f", u + s }' "$file.time" 2>/dev/null)
    cpu_s=${cpu_s:--}
    wall_s=${wall_s:--}
    peak_kb=${peak_kb:--}
    if ((rc == 0)); then
        status=ok
    elif ((rc == 124 || rc == 137)) && ! grep -q 'out of memory' "$file.err"; then
        status="timeout>${TIME_S}s"
    elif grep -q -i 'out of memory\|bad_alloc\|cannot allocate' "$file.err"; then
        status="OOM>${MEM_MB}MB"
    elif grep -q 'limit' "$file.err"; then
        status="refused"
    else
        status="failed(rc=$rc)"
    fi
    if [[ $status != ok ]]; then
        echo "scale.sh: $(basename "$file"): $status: $(head -c 300 "$file.err" | head -n 2)" >&2
    fi
}

# kcbp's report, frame lines -> detect, broadphase, load, build, bp pairs, colliding.
kcbp_stats() {
    grep -o '"passed":{[^}]*}\|"time_ms":{[^}]*}' "$1" | awk '
        /"passed"/ { match($0, /"broadphase":[0-9.e+-]+/); bp += substr($0, RSTART + 13, RLENGTH - 13)
                     match($0, /"mesh":[0-9.e+-]+/); col += substr($0, RSTART + 7, RLENGTH - 7) }
        /"time_ms"/ { match($0, /"detect":[0-9.e+-]+/); det += substr($0, RSTART + 9, RLENGTH - 9)
                      match($0, /"broadphase":[0-9.e+-]+/); bpt += substr($0, RSTART + 13, RLENGTH - 13)
                      if (!seen++) { match($0, /"load":[0-9.e+-]+/); load = substr($0, RSTART + 7, RLENGTH - 7)
                                     match($0, /"build":[0-9.e+-]+/); build = substr($0, RSTART + 8, RLENGTH - 8) } }
        END { if (seen) printf "%.3f %.3f %.3f %.3f %d %d\n", det, bpt, load, build, bp, col; else print "- - - - - -" }'
}

# The colliding pairs of kcbp's output as "F A B" lines (objects are named oI), sorted.
kcbp_pairs() {
    grep -n -o '"a":"o[0-9]*","b":"o[0-9]*"' "$1" |
        sed -E 's/^([0-9]+):"a":"o([0-9]+)","b":"o([0-9]+)"/\1 \2 \3/' |
        awk '{ print $1 - 1, $2, $3 }' | LC_ALL=C sort
}

fcl_stat() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

declare -a cases=()
for scene in $SCENES; do
    layout=${scene%%-m*}
    frames=1
    [[ $scene == *-m* ]] && frames=${scene##*-m}
    sizes=$SIZES
    [[ $layout == coincident* || $layout == overlap* ]] && sizes=$COINCIDENT_SIZES
    [[ $layout == thesis ]] && sizes=$THESIS_SIZES
    for n in $sizes; do
        cases+=("$scene $layout $frames $n")
    done
done

for c in "${cases[@]}"; do
    read -r scene layout frames n <<<"$c"
    tag="$scene-$n"
    json="$out/$layout-$n$( ((frames > 1)) && echo "-m$frames").json"
    check=--check
    ((n > 100000)) && check=
    "$BENCH_BIN/gen_scale" scene "$layout" "$n" "$SEED" "$frames" "$json" $check >"$out/run-$tag.gen" 2>&1 ||
        { echo "scale.sh: gen_scale $layout $n failed: $(tail -n 1 "$out/run-$tag.gen")" >&2; status_all=1; continue; }
    progs=()
    for v in "${kcbp_variants[@]}"; do progs+=("kcbp$([[ $v != - ]] && echo "-j$v")"); done
    [[ $AABB == 1 && ${kcbp_variants[0]} != - ]] && progs+=(kcbp-aabb)
    progs+=(fcl)
    declare -A capped=()
    for ((r = 1; r <= RUNS; r++)); do
        order=("${progs[@]}")
        if ((r % 2 == 0)); then # FCL first in even runs
            order=(fcl "${progs[@]:0:${#progs[@]}-1}")
        fi
        for p in "${order[@]}"; do
            [[ -n ${capped[$p]:-} ]] && continue
            f="$out/run-$tag-$p-r$r"
            if [[ $p == fcl ]]; then
                run_one "$f" "$BENCH_BIN/scale_fcl" "$json.bin" "$f.pairs"
                if [[ $status == ok ]]; then
                    read -r det bpt load build bp col < <(echo "$(fcl_stat "$f.out" detect_ms) - $(fcl_stat "$f.out" load_ms) $(fcl_stat "$f.out" build_ms) $(fcl_stat "$f.out" broadphase) $(fcl_stat "$f.out" colliding)")
                    LC_ALL=C sort "$f.pairs" -o "$f.pairs"
                fi
            else
                jobs_arg=()
                [[ $p == kcbp-j* ]] && jobs_arg=(--jobs "${p#kcbp-j}")
                [[ $p == kcbp-aabb ]] && jobs_arg=(--jobs 1 --filter aabb)
                run_one "$f" "$KCBP" scene "$json" "${jobs_arg[@]}"
                if [[ $status == ok ]]; then
                    read -r det bpt load build bp col < <(kcbp_stats "$f.out")
                    kcbp_pairs "$f.out" >"$f.pairs"
                fi
            fi
            if [[ $status != ok ]]; then
                det=- bpt=- load=- build=- bp=- col=-
                capped[$p]=$status
                rm -f "$f.pairs" # a run cut short leaves a partial list: not to compare
            fi
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scene" "$n" "$frames" "$p" "$r" "$status" \
                "$det" "$bpt" "$load" "$build" "$wall_s" "$peak_kb" "$bp" "$col" "$cpu_s" >>"$tsv"
            # Every run's pairs against the first ok run of the same program, and kcbp's against FCL's.
            if [[ $status == ok ]]; then
                first=$(ls "$out/run-$tag-$p-r"*.pairs 2>/dev/null | head -n 1)
                if [[ $first != "$f.pairs" ]] && ! cmp -s "$first" "$f.pairs"; then
                    echo "scale.sh: $tag: $p run $r found other pairs than its first run" >&2
                    status_all=1
                fi
            fi
            [[ $p == kcbp* || $status != ok ]] && rm -f "$f.out" # kcbp's report can be large; its pairs are kept
        done
    done
    # kcbp against FCL: the first ok run of each.
    fp=$(ls "$out/run-$tag-fcl-r"*.pairs 2>/dev/null | head -n 1)
    for p in "${progs[@]}"; do
        [[ $p == fcl ]] && continue
        kp=$(ls "$out/run-$tag-$p-r"*.pairs 2>/dev/null | head -n 1)
        if [[ -n $fp && -n $kp ]]; then
            if cmp -s "$kp" "$fp"; then
                echo "$tag $p same $(wc -l <"$kp")" >>"$out/run-agree"
            else
                LC_ALL=C comm -3 "$kp" "$fp" >"$out/$tag-$p.diff"
                onlyk=$(LC_ALL=C comm -23 "$kp" "$fp" | wc -l)
                onlyf=$(LC_ALL=C comm -13 "$kp" "$fp" | wc -l)
                echo "scale.sh: $tag: kcbp ($p) and FCL disagree: $onlyk pairs only kcbp's, $onlyf only FCL's (F A B, first lines; all in $out/$tag-$p.diff):" >&2
                LC_ALL=C comm -23 "$kp" "$fp" | head -n 5 | sed 's/^/  kcbp only: /' >&2
                LC_ALL=C comm -13 "$kp" "$fp" | head -n 5 | sed 's/^/  FCL only:  /' >&2
                echo "$tag $p DIFFERENT kcbp-only=$onlyk fcl-only=$onlyf" >>"$out/run-agree"
                status_all=1
            fi
        else
            echo "$tag $p unchecked" >>"$out/run-agree"
        fi
    done
    # Keep the first run's pairs only (the others were compared).
    for p in "${progs[@]}"; do
        ls "$out/run-$tag-$p-r"*.pairs 2>/dev/null | tail -n +2 | xargs -r rm -f
    done
    unset capped
done

echo "SEED=$SEED RUNS=$RUNS, caps ${MEM_MB} MB / ${TIME_S} s; $jobs_note" >"$out/run-note"
fi # TABLE_ONLY

# The tables, from runs.tsv.
[[ -f $tsv ]] || die "no $tsv: run the benchmark first"
note=$(cat "$out/run-note" 2>/dev/null)
{
    echo "## bench/scale.sh: $(date -u -r "$tsv" +%Y-%m-%d) $note"
    echo
    awk -F'\t' -v agree="$out/run-agree" '
    function med(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
        if (n == 0) return ""
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function lo(list,   n, a, i, m) { n = split(list, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]; return m }
    function hi(list,   n, a, i, m) { n = split(list, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 > m + 0) m = a[i]; return m }
    function fmt(list, scale, digits,   m) {
        if (list == "") return "-"
        m = med(list)
        if (split(list, _x, " ") == 1) return sprintf("%.*f", digits, m / scale)
        return sprintf("%.*f (%.*f-%.*f)", digits, m / scale, digits, lo(list) / scale, digits, hi(list) / scale)
    }
    BEGIN { while ((getline line < agree) > 0) { split(line, w, " "); ag[w[1] " " w[2]] = w[3] } }
    NR == 1 { next }
    {
        key = $1 SUBSEP $2 SUBSEP $4
        if (!($1 SUBSEP $2 in seen)) { seen[$1 SUBSEP $2] = 1; order[++nc] = $1 SUBSEP $2; frames[$1 SUBSEP $2] = $3 }
        if (!(key in st)) { progs[$1 SUBSEP $2] = progs[$1 SUBSEP $2] " " $4 }
        if ($6 != "ok") { st[key] = $6; next }
        if (!(key in st)) st[key] = "ok"
        det[key] = det[key] " " $7; bpt[key] = bpt[key] " " $8; wall[key] = wall[key] " " $11; peak[key] = peak[key] " " $12
        if ($15 != "" && $15 != "-") cpu[key] = cpu[key] " " $15
        bp[key] = $13; col[key] = $14; load[key] = load[key] " " $9; build[key] = build[key] " " $10
    }
    END {
        print "| scene | objects | frames | program | status | detect ms | broad phase ms | load+build ms | wall s | cpu s | peak MB | bp pairs | colliding | /FCL detect | /FCL cpu | /FCL peak | growth | bp growth | pairs vs FCL |"
        print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        for (i = 1; i <= nc; i++) {
            c = order[i]; split(c, cn, SUBSEP)
            np = split(progs[c], pl, " ")
            for (j = 1; j <= np; j++) {
                p = pl[j]; key = c SUBSEP p; fk = c SUBSEP "fcl"
                s = st[key]
                ratio = "-"; pr = "-"; growth = "-"; bgrowth = "-"; cr = "-"
                if (s == "ok" && p != "fcl" && st[fk] == "ok") {
                    ratio = sprintf("%.3f", med(det[key]) / med(det[fk]))
                    pr = sprintf("%.2f", med(peak[key]) / med(peak[fk]))
                    if (cpu[key] != "" && cpu[fk] != "" && med(cpu[fk]) > 0) cr = sprintf("%.3f", med(cpu[key]) / med(cpu[fk]))
                }
                if (s == "ok" && (cn[1] SUBSEP p) in lastn) {
                    pn = lastn[cn[1] SUBSEP p]; pt = lastt[cn[1] SUBSEP p]
                    if (pt > 0 && cn[2] != pn) growth = sprintf("n^%.2f", log(med(det[key]) / pt) / log(cn[2] / pn))
                    pb = lastb[cn[1] SUBSEP p]
                    if (p != "fcl" && pb > 0 && cn[2] != pn) bgrowth = sprintf("n^%.2f", log(med(bpt[key]) / pb) / log(cn[2] / pn))
                }
                if (s == "ok") { lastn[cn[1] SUBSEP p] = cn[2]; lastt[cn[1] SUBSEP p] = med(det[key]); lastb[cn[1] SUBSEP p] = (p == "fcl" ? 0 : med(bpt[key])) }
                else delete lastn[cn[1] SUBSEP p]
                a = (cn[1] "-" cn[2] " " p) in ag ? ag[cn[1] "-" cn[2] " " p] : (p == "fcl" ? "" : "-")
                if (s != "ok")
                    printf "| %s | %s | %s | %s | %s | - | - | - | - | - | - | - | - | - | - | - | - | - | %s |\n", cn[1], cn[2], frames[c], p, s, a
                else {
                    lb = ""
                    split(load[key], la, " "); split(build[key], ba, " ")
                    lb = (la[1] == "-" ? "-" : sprintf("%.0f", med(load[key]) + med(build[key])))
                    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                        cn[1], cn[2], frames[c], p, s, fmt(det[key], 1, 1), (p == "fcl" ? "-" : fmt(bpt[key], 1, 1)), lb,
                        fmt(wall[key], 1, 2), (cpu[key] == "" ? "-" : fmt(cpu[key], 1, 2)), fmt(peak[key], 1024, 0), bp[key], col[key],
                        ratio, cr, pr, growth, bgrowth, a
                }
            }
        }
    }' "$tsv"
    echo
    echo "(medians over the runs, (min-max) when more than one; cpu s: the process's user + system time; /FCL: kcbp's median over"
    echo " FCL's median (detect time, the process's CPU time, peak memory); growth: exponent of detect time"
    echo " from the previous size of the same scene, bp growth: of kcbp's broad-phase time; pairs vs FCL: the colliding pairs of"
    echo " every frame compared, 'same' = identical)"
} | tee "$out/results.md"
echo "scale.sh: $((SECONDS - start)) s; runs in $tsv" >&2
exit $status_all
