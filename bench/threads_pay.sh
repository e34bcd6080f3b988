#!/bin/bash
# bench/threads_pay.sh: the default --jobs (every online CPU) against
# --jobs 1 on scenes of 11 to 10^4 objects (issue 33: a moving scene of 11
# objects x 1,000 frames was 2-5x slower with threads, every frame paying
# a hand-off worth more than its work). Interleaved runs (default, then
# --jobs 1, RUNS times); per run the sum over frames of the reported
# "detect" time (wall clock: bounds + broad phase + pairs) and the CPU time
# of the whole command (user + sys, /usr/bin/time). The machine may be
# shared: wall-clock medians are noisy there, CPU time shows the threads'
# overhead (spinning up, waking, waiting) without the other load.
#
#   bench/threads_pay.sh
#   KCBP=/path/to/old/kcbp RUNS=5 SPECS="10:1000 1000:50 10000:1" bench/threads_pay.sh
#
# Output: a markdown table on stdout (and in bench/out/threads_pay/table.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
make -C "$root" -j2 >/dev/null
make -C "$here" gen_moving >/dev/null
KCBP=${KCBP:-$root/build/kcbp}
out="$here/out/threads_pay"
mkdir -p "$out"
cp "$root/meshes/bunny2.obj" "$out/"
RUNS=${RUNS:-3}
# "objects-1 frames" per scene (a static scene: 1 frame)
SPECS=${SPECS:-"10:1000 100:200 1000:10 3000:1"}
gen() { # n frames file
    (cd "$out" && "$root/build/kcbp" scene --generate thesis --mesh bunny2.obj --n "$1") > "$out/static-$1.json"
    if [[ $2 -gt 1 ]]; then
        "$here/gen_moving" "$out/static-$1.json" 7 "$2" > "$3"
    else
        mv "$out/static-$1.json" "$3"
    fi
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
run() { # file args... -> "detect_ms cpu_ms"
    local f=$1
    shift
    local res
    res=$( { /usr/bin/time -f "CPU %U %S" "$KCBP" scene "$f" "$@" > "$out/run.ndjson"; } 2>&1 )
    local det
    det=$(grep -o '"detect":[0-9.e+-]*' "$out/run.ndjson" | cut -d: -f2 | awk '{ s += $1 } END { printf "%.1f", s }')
    echo "$det $(awk '/^CPU/ { printf "%.0f", ($2 + $3) * 1000 }' <<<"$res")"
}
{
    printf '| scene | frames | default: detect ms | --jobs 1: detect ms | ratio | default: CPU ms | --jobs 1: CPU ms |\n'
    printf '|---|---|---|---|---|---|---|\n'
    for spec in $SPECS; do
        n=${spec%%:*} frames=${spec##*:}
        f="$out/scene-$n-$frames.json"
        [[ -s $f ]] || gen "$n" "$frames" "$f"
        d1=() dj=() c1=() cj=()
        for ((r = 0; r < RUNS; r++)); do
            read -r d c <<<"$(run "$f")"
            dj+=("$d") cj+=("$c")
            read -r d c <<<"$(run "$f" --jobs 1)"
            d1+=("$d") c1+=("$c")
        done
        mj=$(printf '%s\n' "${dj[@]}" | median) m1=$(printf '%s\n' "${d1[@]}" | median)
        printf '| %s objects | %s | %s | %s | %s | %s | %s |\n' "$((n + 1))" "$frames" "$mj" "$m1" \
            "$(awk -v a="$mj" -v b="$m1" 'BEGIN { printf "%.2f", a / b }')" \
            "$(printf '%s\n' "${cj[@]}" | median)" "$(printf '%s\n' "${c1[@]}" | median)"
    done
} | tee "$out/table.md"
