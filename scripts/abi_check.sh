#!/usr/bin/env bash
# abi_check.sh BASELINE LIB: the shared library's ABI against the committed
# baseline, with abigail-tools' abidiff (Debian abigail-tools). Additions
# (new functions, new enumerators at the end) are allowed and listed;
# anything incompatible (a removed or changed function, a struct that
# changed size or layout) fails. The policy is docs/library.md's ("Versions").
set -uo pipefail
baseline=$1 lib=$2
command -v abidiff >/dev/null || { echo "abi_check: abidiff is missing (apt-get install abigail-tools)" >&2; exit 1; }
[[ -f $baseline ]] || { echo "abi_check: no baseline $baseline (make abi-baseline writes it)" >&2; exit 1; }
# abidiff's status is a bit mask: 1 error, 2 usage error, 4 ABI change,
# 8 incompatible ABI change. Added functions aside (--no-added-syms), any
# change is a failure: abidiff reports a struct that grew a member as a
# change (4), not as incompatible (8), yet it breaks every program that
# declares one.
out=$(abidiff --headers-dir2 include/kcbp --no-added-syms "$baseline" "$lib" 2>&1)
rc=$?
if (( rc & 3 )); then
    printf '%s\n' "$out" >&2
    echo "abi_check: abidiff failed (status $rc)" >&2
    exit 1
fi
if (( rc & 12 )); then
    printf '%s\n' "$out" >&2
    echo "abi_check: $lib changes the ABI of $baseline: only a new major version may (see docs/library.md, Versions)" >&2
    exit 1
fi
added=$(abidiff --headers-dir2 include/kcbp "$baseline" "$lib" 2>&1)
if [[ $? -ne 0 ]]; then
    printf '%s\n' "$added"
    echo "abi_check: additions to the ABI of $baseline (compatible)"
else
    echo "abi_check: $lib has the ABI of $baseline"
fi
