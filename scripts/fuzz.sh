#!/usr/bin/env bash
# Runs the libFuzzer programs of `make fuzz` (build/fuzz/fuzz_<target>) for
# FUZZ_SECONDS each (default 35), FUZZ_JOBS at a time (default 2; FUZZ_SEED), on the
# seed corpus tests/fuzz/corpus/<target>/ plus a working corpus in
# build/fuzz/work/<target>/ that grows from run to run. Targets: the
# arguments, or all of obj scene pose collide stl ply off geojson svg.
#
# A crash (or a violated property, which aborts) stops that target: its
# input is saved under build/fuzz/artifacts/<target>/ and the script exits
# non-zero. Keep it as a regression test: copy it into
# tests/fuzz/regress/<target>/ (tests/test_fuzz_corpus.c replays it in
# `make test`), then fix the bug.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-35}
seed=${FUZZ_SEED:-0} # 0: libFuzzer picks one; CI fixes it so that its runs start alike
jobs=${FUZZ_JOBS:-2}
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(obj scene pose collide stl ply off geojson svg)
declare -A max_len=([obj]=4096 [scene]=4096 [pose]=1024 [collide]=256)

run_one() {
    local t=$1 bin=build/fuzz/fuzz_$1
    local work=build/fuzz/work/$t art=build/fuzz/artifacts/$t/ log=build/fuzz/$t.log
    mkdir -p "$work" "$art"
    local dict=()
    [[ -f tests/fuzz/$t.dict ]] && dict=(-dict="tests/fuzz/$t.dict")
    "$bin" -seed="$seed" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="${max_len[$t]:-4096}" \
        -print_final_stats=1 -artifact_prefix="$art" "${dict[@]}" "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1
    local rc=$?
    local execs
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    if [[ $rc -eq 0 ]]; then
        echo "fuzz $t: ok, ${execs:-?} inputs in ${seconds} s, corpus $(ls "$work" | wc -l) files"
    else
        echo "fuzz $t: FAILED (exit $rc); the end of $log:"
        tail -40 "$log"
        echo "reproducer(s): $(ls "$art")  (in $art; keep one in tests/fuzz/regress/$t/)"
    fi
    return $rc
}

for t in "${targets[@]}"; do
    [[ -x build/fuzz/fuzz_$t ]] || { echo "no build/fuzz/fuzz_$t: run make fuzz" >&2; exit 2; }
done
failed=0 pids=() names=()
for t in "${targets[@]}"; do
    while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do wait -n || failed=$((failed + 1)); done
    run_one "$t" &
done
while [[ $(jobs -rp | wc -l) -gt 0 ]]; do wait -n || failed=$((failed + 1)); done
echo "fuzz: ${#targets[@]} targets, $failed failed"
[[ $failed -eq 0 ]]
