#!/usr/bin/env python3
"""Checks a page of `kcbp ... --html` and Chromium's screenshot of it (used
by tests/test_html.sh).

    html_check.py net PAGE.html
        the page loads nothing: a Content-Security-Policy forbids every
        load, no element names an outside resource, and every http(s)://
        in it is one of the known inert strings of three.js (an XML
        namespace name, comments)
    html_check.py png SHOT.png STATS.json CHECK...
        the screenshot against the page's own report of where things are
        (#kcbp-stats, read from Chromium's --dump-dom): CHECK is
        'contacts' (contact red inside the contact triangles' screen box),
        'no-contacts' (no contact red anywhere outside the legend),
        'points' (the closest points' magenta near their screen box),
        'meshes' (non-background pixels inside the meshes' screen box).

The PNG is decoded here with zlib (Python's standard library), so that the
pixels counted are Chromium's own, not the page's idea of them."""
import json
import re
import struct
import sys
import zlib


def read_png(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise SystemExit(f'{path}: not a PNG')
    pos, idat, w = 8, b'', None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise SystemExit(f'{path}: PNG type {ctype} depth {depth} interlace {interlace} not read here')
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
        elif kind == b'IEND':
            break
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def is_red(r, g, b):  # the contact colour (230, 0, 0), shaded or seen through
    return r >= 110 and r >= 1.5 * max(g, b)


def is_magenta(r, g, b):  # the closest points (255, 0, 255)
    return r >= 180 and b >= 180 and g <= 100


def is_ink(r, g, b):  # anything but the white background
    return min(r, g, b) < 225


def count(img, box, test, legend, grow=0):
    w, h, bpp, rows = img
    x0, y0 = max(0, int(box[0]) - grow), max(0, int(box[1]) - grow)
    x1, y1 = min(w - 1, int(box[2]) + grow), min(h - 1, int(box[3]) + grow)
    n = 0
    for y in range(y0, y1 + 1):
        row = rows[y]
        for x in range(x0, x1 + 1):
            if legend[0] - 2 <= x <= legend[2] + 2 and legend[1] - 2 <= y <= legend[3] + 2:
                continue
            i = x * bpp
            n += test(row[i], row[i + 1], row[i + 2])
    return n


def check_png(shot, stats_path, checks):
    stats = json.load(open(stats_path))
    if not stats.get('ready') or stats.get('errors'):
        raise SystemExit(f'the page did not render: {stats}')
    img = read_png(shot)
    w, h = img[0], img[1]
    legend = stats['legend_box']
    whole = [0, 0, w - 1, h - 1]
    for c in checks:
        if c == 'contacts':
            if not stats.get('contact_box'):
                raise SystemExit('no contact triangles on the page')
            n = count(img, stats['contact_box'], is_red, legend, grow=6)
            if n < 3:
                raise SystemExit(f'contacts: {n} contact-red pixels inside the contact box {stats["contact_box"]}')
            print(f'contacts: {n} contact-red pixels inside the contact box')
        elif c == 'no-contacts':
            n = count(img, whole, is_red, legend)
            if n:
                raise SystemExit(f'no-contacts: {n} contact-red pixels on a page without contacts')
            print('no-contacts: no contact-red pixel')
        elif c == 'points':
            n = count(img, stats['points_box'], is_magenta, legend, grow=12)
            if n < 3:
                raise SystemExit(f'points: {n} magenta pixels near the closest points {stats["points_box"]}')
            print(f'points: {n} magenta pixels near the closest points')
        elif c == 'meshes':
            box = stats['mesh_box']
            n = count(img, box, is_ink, legend)
            area = max(1, (min(box[2], w) - max(box[0], 0)) * (min(box[3], h) - max(box[1], 0)))
            if n < 2000 or n < 0.05 * area:
                raise SystemExit(f'meshes: {n} non-background pixels inside the meshes\' box {box}')
            print(f'meshes: {n} non-background pixels inside the meshes\' box')
        else:
            raise SystemExit(f'unknown check {c}')


# http(s):// strings of the inlined three.js r111 that load nothing: the
# XHTML namespace name (document.createElementNS's first argument), a
# reference in a GLSL comment, and OrbitControls' @author comment lines.
INERT = [
    re.compile(r'createElementNS\("http://www\.w3\.org/1999/xhtml"'),
    re.compile(r'"// source: https://graphics\.stanford\.edu/papers/envmap/envmap\.pdf"'),
    re.compile(r'^\s*\*\s*@author [^\n]*https?://[^\n]*$', re.M),
]


def check_net(page):
    text = open(page, encoding='utf-8').read()
    if "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';" not in text:
        raise SystemExit('no Content-Security-Policy forbidding loads')
    markup = re.sub(r'(<script\b[^>]*>).*?(</script>)', r'\1\2', text, flags=re.S | re.I)
    for pat in (r'<script[^>]*\ssrc=', r'<link\b', r'<img\b', r'<iframe\b', r'<object\b', r'<embed\b',
                r'<base\b', r'\shref=', r'\ssrc='):
        m = re.search(pat, markup, re.I)
        if m:
            raise SystemExit(f'an outside resource: {markup[max(0, m.start() - 40):m.end() + 60]!r}')
    for style in re.findall(r'<style>(.*?)</style>', text, re.S):
        if re.search(r'url\(|@import', style, re.I):
            raise SystemExit('the style sheet loads something')
    spans = []
    for pat in INERT:
        spans += [(m.start(), m.end()) for m in pat.finditer(text)]
    n = 0
    for m in re.finditer(r'https?://', text, re.I):
        n += 1
        if not any(a <= m.start() < b for a, b in spans):
            raise SystemExit(f'a network address: {text[max(0, m.start() - 60):m.end() + 60]!r}')
    print(f'net: a CSP forbidding loads, no outside resource, {n} http(s):// strings all inert')


if __name__ == '__main__':
    if len(sys.argv) >= 3 and sys.argv[1] == 'net':
        check_net(sys.argv[2])
    elif len(sys.argv) >= 5 and sys.argv[1] == 'png':
        check_png(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        raise SystemExit(__doc__)
