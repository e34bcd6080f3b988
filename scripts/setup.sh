#!/usr/bin/env bash
# Installs what kcbp needs on Debian: the build and test dependencies (gnuplot
# included: test_bench renders `kcbp bench --plot`; libjs-three: three.js for
# the --html pages; chromium: their test renders them; groff-base: the tests
# render the man pages, and a minimal Debian image may lack it; python3 with
# numpy, pytest, pip, setuptools, wheel and venv: the Python package's tests,
# which pip-install it into a venv; patchelf: the wheel's bundled libraries), with --bench
# also the peers the benchmarks compare against (FCL, libccd; Bullet for
# the depth, GEOS and Box2D for 2D), and with
# --harden what the hardening checks need (HARDENING.md: clang and its
# sanitizer/libFuzzer runtime, CGAL with GMP and MPFR, valgrind, g++, and
# abigail-tools for `make abi-check`). Run as
# root it installs them with apt-get; otherwise it says what to install. It
# does nothing when everything is already there.
set -euo pipefail
pkgs=(build-essential pkg-config libqhull-dev libcjson-dev libgmp-dev libcmocka-dev gnuplot-nox groff-base libjs-three
      chromium)
checks=(qhull_r libcjson gmp cmocka)
if [[ "${1:-}" == "--bench" ]]; then
    pkgs+=(g++ libfcl-dev libccd-dev libbullet-dev libgeos-dev libbox2d-dev)
    checks+=(fcl ccd bullet box2d)
fi
missing=0
command -v cc >/dev/null && command -v make >/dev/null && command -v pkg-config >/dev/null || missing=1
if [[ $missing == 0 ]]; then
    for c in "${checks[@]}"; do pkg-config --exists "$c" || missing=1; done
fi
if [[ "${1:-}" == "--harden" ]]; then
    pkgs+=(clang clang-14 libclang-rt-14-dev g++ libcgal-dev libgmp-dev libmpfr-dev valgrind abigail-tools)
    for c in clang clang-14 valgrind g++ abidiff; do command -v "$c" >/dev/null || missing=1; done
    [[ -f /usr/include/CGAL/Exact_predicates_exact_constructions_kernel.h && -f /usr/include/gmp.h ]] || missing=1
    ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || missing=1
fi
command -v gnuplot >/dev/null || missing=1
# libjs-three: three.js, compiled into kcbp's --html pages (a build
# dependency); chromium: tests/test_html.sh renders those pages headless.
[[ -f /usr/share/javascript/three/three.min.js ]] || missing=1
command -v chromium >/dev/null || missing=1
command -v groff >/dev/null || missing=1
# The Python package's tests install it with pip into a venv, offline.
pkgs+=(python3 python3-numpy python3-pytest python3-pip python3-setuptools python3-wheel python3-venv)
/usr/bin/python3 -c 'import numpy, pytest, setuptools, wheel, venv, ensurepip, pip' 2>/dev/null || missing=1
# patchelf: the wheel carries its own qhull, cJSON and GMP (run path
# $ORIGIN/.libs), and its test runs it with the system's copies hidden.
pkgs+=(patchelf)
command -v patchelf >/dev/null || missing=1
# python3-shapely: the oracle of python/tests/test_shapely_heldout.py (2D
# polygons with holes against shapely's intersects and distance; skipped
# without it).
pkgs+=(python3-shapely)
/usr/bin/python3 -c 'import shapely' 2>/dev/null || missing=1
[[ $missing == 0 ]] && exit 0
if [[ $(id -u) -ne 0 ]]; then
    echo "kcbp needs these Debian packages: ${pkgs[*]}" >&2
    echo "install them with: sudo apt-get install ${pkgs[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${pkgs[@]}" >/dev/null
