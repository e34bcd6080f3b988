#!/usr/bin/env bash
# The Python package's tests (python/tests, pytest) against the package as a
# user installs it: a throwaway virtual environment (with Debian's
# python3-numpy and python3-pytest through --system-site-packages), then
#   pip wheel --no-deps --no-build-isolation --no-index .
# offline, which builds libkcbp from the sources (setup.py runs `make
# shared` in build/python/temp.*/libkcbp, so a second run recompiles nothing),
# strips it and bundles it in the package with the qhull_r, cJSON and GMP it
# needs (patchelf: kcbp/.libs, run path $ORIGIN/.libs); the wheel is
# installed into the venv, `ldd` must find those libraries in the package,
# and the tests run from another directory, checking that they import that
# installed package, not python/ of the tree -- in a mount namespace where
# the system's qhull_r, cJSON and GMP are hidden (/dev/null bound over them;
# `unshare --mount`, as root), as on a machine without them. The program the
# tests compare with (KCBP_EXE) is run through a wrapper that finds copies of
# those libraries (LD_LIBRARY_PATH, for it alone). Without patchelf (or
# unshare) the wheel is not bundled (or the libraries not hidden): said, not
# failed.
# Debian's python3 (PYTHON overrides it: a pyenv python3 lacks Debian's
# numpy, pytest and setuptools). Prints cmocka-style lines so that
# scripts/run_tests.sh counts them; a missing Python, numpy, pytest, venv or
# setuptools is a failure (scripts/setup.sh installs them).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
PY=${PYTHON:-/usr/bin/python3}
export PYTHONDONTWRITEBYTECODE=1
echo "[==========] python: pip install into a venv, then pytest python/tests"
fail() {
    echo "[  FAILED  ] python: $1"
    [[ -n ${2:-} ]] && cat "$2"
    echo "[  FAILED  ] 1 test(s)."
    exit 1
}
if ! "$PY" -c 'import numpy, pytest, setuptools, venv' 2>/dev/null; then
    fail "$PY with numpy, pytest, setuptools and venv is needed (scripts/setup.sh installs python3-numpy python3-pytest python3-setuptools python3-venv)"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PY" -m venv --system-site-packages "$tmp/venv" >"$tmp/log" 2>&1 || fail "cannot make a venv" "$tmp/log"
vpy=$tmp/venv/bin/python
# No network (--no-index), the build backend of the system (--no-build-isolation).
bundled=0
command -v patchelf >/dev/null && bundled=1
if ! KCBP_BUNDLE=$bundled "$vpy" -m pip wheel --no-deps --no-build-isolation --no-index --disable-pip-version-check \
    -q -w "$tmp/wheel" "$root" >"$tmp/log" 2>&1; then
    fail "pip wheel --no-deps --no-build-isolation --no-index . failed" "$tmp/log"
fi
whl=$(ls "$tmp"/wheel/kcbp-*.whl)
if ! "$vpy" -m pip install --no-deps --no-index --disable-pip-version-check -q "$whl" >"$tmp/log" 2>&1; then
    fail "pip install of the wheel failed" "$tmp/log"
fi
echo "[       OK ] python: pip wheel --no-deps --no-build-isolation --no-index . ($(basename "$whl"), $(stat -c %s "$whl") bytes), installed"
pkg=$("$vpy" -c 'import os, kcbp; print(os.path.dirname(kcbp.__file__))' 2>"$tmp/log") || fail "import kcbp" "$tmp/log"
lib=$(ls "$pkg"/libkcbp.so.*)
hide=()
if [[ $bundled == 1 ]]; then
    # ldd: beyond the C library's own, only the bundled copies.
    ldd "$lib" >"$tmp/ldd" 2>&1
    if grep -Ev "^\s*(linux-vdso|/lib64/ld-linux|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so)" "$tmp/ldd" \
        | grep -v "=> $pkg/.libs/" | grep -q .; then
        fail "ldd $lib lists libraries outside the package's .libs" "$tmp/ldd"
    fi
    [[ $(grep -c "=> $pkg/.libs/" "$tmp/ldd") -ge 3 ]] || fail "ldd $lib: qhull_r, cJSON and GMP not from .libs" "$tmp/ldd"
    echo "[       OK ] python: ldd on the installed libkcbp: only the C library's own and .libs/ ($(grep -c "=> $pkg/.libs/" "$tmp/ldd") bundled)"
    # The system's copies (as the tree's library finds them), to hide.
    for f in $(ldd "$root/build/libkcbp.so.1" 2>/dev/null | sed -n 's/^\s*\(libqhull_r\|libcjson\|libgmp\)[^ ]* => \(\S*\) .*/\2/p'); do
        hide+=("$(readlink -f "$f")")
    done
else
    echo "[  NOTE    ] python: no patchelf: the wheel is not bundled (apt-get install patchelf), nor tested without the system's libraries"
fi
mkdir "$tmp/elsewhere" "$tmp/syslibs"
exe=${KCBP_EXE:-kcbp}
[[ $exe == /* ]] || exe=$root/$exe
runner=()
if [[ ${#hide[@]} -gt 0 ]] && unshare --mount --propagation private true 2>/dev/null; then
    # The program keeps copies of the hidden libraries, on its own search path.
    for f in "${hide[@]}"; do
        for l in $(dirname "$f")/$(basename "$f" | sed 's/\.so.*//').so.*; do
            [[ -e $l ]] && cp -L "$l" "$tmp/syslibs/"
        done
    done
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec %s "$@"\n' "$tmp/syslibs" "$exe" >"$tmp/kcbp"
    chmod +x "$tmp/kcbp"
    exe=$tmp/kcbp
    mounts=""
    for f in "${hide[@]}"; do mounts+="mount --bind /dev/null '$f' && "; done
    runner=(unshare --mount --propagation private sh -c "${mounts}exec \"\$@\"" sh)
    export KCBP_TEST_HIDDEN="${hide[*]}"
    echo "[       OK ] python: the tests run with ${hide[*]} hidden"
elif [[ $bundled == 1 ]]; then
    echo "[  NOTE    ] python: unshare --mount is not available: the system's libraries are not hidden"
fi
[[ $bundled == 1 ]] && export KCBP_TEST_BUNDLED=1
# The tests run from elsewhere, against the installed package (KCBP_TEST_INSTALLED
# makes them check that), with the program and meshes of this tree.
out=$(cd "$tmp/elsewhere" && env -u KCBP_LIBRARY -u PYTHONPATH KCBP_TEST_INSTALLED=1 KCBP_EXE="$exe" \
    "${runner[@]}" "$vpy" -m pytest -v -p no:cacheprovider --rootdir "$root/python/tests" "$root/python/tests" 2>&1)
rc=$?
passed=$(printf '%s\n' "$out" | grep -c ' PASSED')
failed=$(printf '%s\n' "$out" | grep -Ec ' (FAILED|ERROR)')
printf '%s\n' "$out" | sed -n 's/^.*python\/tests\/\(.*\) PASSED.*/[       OK ] python: \1/p'
if [[ $rc -ne 0 ]]; then
    printf '%s\n' "$out"
    [[ $failed -eq 0 ]] && failed=1 # pytest itself failed (collection, import)
fi
passed=$((passed + 1)) # the wheel and its install
[[ $bundled == 1 ]] && passed=$((passed + 1)) # ldd: only the C library's own and .libs/
echo "[==========] python: $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[[ $failed -gt 0 ]] && echo "[  FAILED  ] $failed test(s)."
[[ $failed -eq 0 ]]
