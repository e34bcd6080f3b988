#!/usr/bin/env python3
"""Checks a 2D page of `kcbp collide|distance|sweep|scene ... --html`
(cli/html2d*.c) and Chromium's screenshot of it (used by
tests/test_html2d.sh).

    html2d_check.py page PAGE.html ANSWER.json ITEM...
        the page is well-formed XML and HTML, loads nothing (a
        Content-Security-Policy that forbids every load, no script, no src
        or href, no http(s)://), holds the answer printed on stdout, draws
        exactly the ITEMs named (a b overlap contacts points normal
        translation) and its legend lists exactly those; the viewBox holds
        every coordinate drawn and is fitted to them (a margin under 10%);
        every stroke is non-scaling.
    html2d_check.py pose PAGE.html FILE.geojson TX TY DEG
        A's outline, carried back to the world by the page's data-center and
        data-scale, is the GeoJSON polygon's rings (in order) turned by DEG
        degrees and moved by (TX, TY), computed here, to 1e-7 of its size.
    html2d_check.py sweep PAGE.html ANSWER.json A_TX A_TY A_DEG FROM(3) TO(3) CX CY ITEM...
        well-formed, no loads, the answer, fitted, non-scaling strokes as
        for page; draws and lists exactly the ITEMs (a from to b path
        contacts points normal); the path of B's centre (CX CY in B's own
        frame: its box's centre) begins and ends at the motion's ends and its dot is at
        the pose at toi, the motion interpolated here (translation and angle
        linearly); the contact point drawn is the answer's "point"; A at
        its pose is the identity for a shape at A_TX A_TY.
    html2d_check.py scene PAGE.html SCENE.json REPORT.jsonl FRAME
        well-formed, no loads, fitted; one element per object of the scene,
        each its own colour (all distinct); those outlined as colliding and
        the pairs listed are exactly the report's frame FRAME; every circle
        of a shape object is at its pose at FRAME computed here from the
        scene's pose and velocity; the contact edges drawn are as many as
        the distinct edges the report names (with --contacts all).
    html2d_check.py png SHOT.png ITEM...
        in the drawing (right of the 300-pixel legend column): contact red
        strokes exactly when 'contacts' is named, the points' magenta exactly
        when 'points' is, and ink at all.
"""
import html.parser
import json
import math
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from html_check import read_png  # noqa: E402

ITEMS = {'a': ['kcbp-a'], 'b': ['kcbp-b'], 'overlap': ['kcbp-overlap'], 'contacts': ['kcbp-contacts-a', 'kcbp-contacts-b'],
         'points': ['kcbp-points'], 'normal': ['kcbp-normal'], 'translation': ['kcbp-translation', 'kcbp-ghost']}


def fail(msg):
    raise SystemExit(msg)


def numbers(s):
    return [float(x) for x in re.findall(r'[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?', s)]


def path_points(d):
    """The points of a path of M, L (implicit), A and Z commands."""
    pts = []
    for cmd, body in re.findall(r'([MLAZ])([^MLAZ]*)', d):
        v = numbers(body)
        if cmd in 'ML':
            if len(v) % 2:
                fail(f'odd count of numbers after {cmd}')
            pts += list(zip(v[0::2], v[1::2]))
        elif cmd == 'A':
            if len(v) % 7:
                fail('an arc without its 7 numbers')
            pts += [(v[i + 5], v[i + 6]) for i in range(0, len(v), 7)]
    return pts


def rings(d):
    out = []
    for sub in d.split('Z'):
        if sub.strip():
            out.append(path_points(sub))
    return out


def drawing(root):
    svg = root.find('.//svg[@id="kcbp-2d"]')
    if svg is None:
        fail('no <svg id="kcbp-2d">')
    return svg


def element_points(el):
    tag = el.tag
    dx = dy = 0.0
    m = re.match(r'translate\(([^ ]+) ([^)]+)\)', el.get('transform', ''))
    if m:
        dx, dy = float(m.group(1)), float(m.group(2))
    pts = []
    if tag == 'path':
        pts = path_points(el.get('d'))
    elif tag == 'circle':
        cx, cy, r = float(el.get('cx')), float(el.get('cy')), float(el.get('r'))
        pts = [(cx - r, cy - r), (cx + r, cy + r)]
    elif tag == 'line':
        pts = [(float(el.get('x1')), float(el.get('y1'))), (float(el.get('x2')), float(el.get('y2')))]
    elif tag == 'polygon':
        v = numbers(el.get('points'))
        pts = list(zip(v[0::2], v[1::2]))
    return [(x + dx, y + dy) for x, y in pts]


def common(page, answer_path):
    """Well-formed, loads nothing, holds the answer (when answer_path)."""
    text = open(page, encoding='utf-8').read()
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        fail(f'not well-formed: {e}')
    p = html.parser.HTMLParser()
    p.feed(text)
    p.close()
    csp = [m for m in root.iter('meta') if m.get('http-equiv') == 'Content-Security-Policy']
    if not csp or "default-src 'none'" not in csp[0].get('content', ''):
        fail('no Content-Security-Policy forbidding loads')
    if re.search(r'https?://', text, re.I) or list(root.iter('script')):
        fail('an address or a script in the page')
    for el in root.iter():
        for att in ('src', 'href', '{http://www.w3.org/1999/xlink}href'):
            if el.get(att) is not None:
                fail(f'<{el.tag} {att}=...> names a resource')
    if answer_path:
        pre = root.find('.//pre[@id="kcbp-answer"]')
        if pre is None or json.loads(pre.text) != json.load(open(answer_path)):
            fail('the page does not hold the answer printed')
    return root


def fitted(svg, css_non_scaling=False):
    """Every point inside the viewBox, which it fills; strokes non-scaling."""
    vx, vy, vw, vh = numbers(svg.get('viewBox'))
    lo, hi = [math.inf, math.inf], [-math.inf, -math.inf]
    parents = {c: p for p in svg.iter() for c in p}
    for el in svg.iter():
        if parents.get(el) is not None and parents[el].tag == 'clipPath':
            continue
        for x, y in element_points(el):
            if not (vx <= x <= vx + vw and vy <= y <= vy + vh):
                fail(f'<{el.tag} id={el.get("id")}> point ({x}, {y}) outside the viewBox {vx} {vy} {vw} {vh}')
            lo = [min(lo[0], x), min(lo[1], y)]
            hi = [max(hi[0], x), max(hi[1], y)]
        stroke = el.get('stroke') or (parents.get(el) is not None and parents[el].get('stroke'))
        if el.tag in ('path', 'circle', 'line') and stroke and stroke != 'none' and not css_non_scaling and \
                el.get('vector-effect') != 'non-scaling-stroke':
            fail(f'<{el.tag} id={el.get("id")}> has a scaling stroke')
    fit = max((hi[0] - lo[0]) / vw, (hi[1] - lo[1]) / vh)
    if not fit > 0.8:
        fail(f'the viewBox is not fitted: the drawing fills {fit:.2f} of it')
    return fit


def to_world(svg):
    cx, cy = numbers(svg.get('data-center'))
    k = float(svg.get('data-scale'))
    return lambda x, y: (x / k + cx, cy - y / k)


def check_page(page, answer_path, items):
    root = common(page, answer_path)
    svg = drawing(root)
    ids = {el.get('id') for el in svg.iter() if el.get('id')}
    drawn = {k for k, v in ITEMS.items() if any(i in ids for i in v)}
    if drawn != set(items):
        fail(f'drawn {sorted(drawn)}, expected {sorted(items)}')
    if 'translation' in drawn and not {'kcbp-translation', 'kcbp-ghost'} <= ids:
        fail('a translation without its arrow or B moved')
    legend = {r.get('data-item') for r in root.iter('div') if r.get('data-item')}
    if legend != drawn:
        fail(f'legend lists {sorted(legend)}, drawn {sorted(drawn)}')
    fit = fitted(svg)
    return f'well-formed, no loads, the answer, drawn {" ".join(sorted(drawn))}, fitted ({fit:.2f})'


def check_pose(page, geojson, tx, ty, deg):
    root = ET.fromstring(open(page, encoding='utf-8').read())
    svg = drawing(root)
    cx, cy = numbers(svg.get('data-center'))
    k = float(svg.get('data-scale'))
    a = svg.find('.//path[@id="kcbp-a"]')
    got = [[(x / k + cx, cy - y / k) for x, y in r] for r in rings(a.get('d'))]
    doc = json.load(open(geojson))
    while doc['type'] in ('FeatureCollection', 'Feature'):
        doc = doc['features'][0] if doc['type'] == 'FeatureCollection' else doc['geometry']
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    want = [[(c * x - s * y + tx, s * x + c * y + ty) for x, y, *_ in r[:-1]] for r in doc['coordinates']]
    size = max(abs(v) for r in want for p in r for v in p) or 1
    if len(got) != len(want) or any(len(g) != len(w) for g, w in zip(got, want)):
        fail(f'rings of {[len(g) for g in got]} vertices drawn, the file has {[len(w) for w in want]}')
    err = max(math.hypot(p[0] - q[0], p[1] - q[1]) for g, w in zip(got, want) for p, q in zip(g, w))
    if err > 1e-7 * size:
        fail(f'A drawn {err:.3g} from its posed vertices')
    return f'A at its pose to {err / size:.1e} of its size'


SWEEP_ITEMS = {'a': 'kcbp-a', 'from': 'kcbp-b-from', 'to': 'kcbp-b-to', 'b': 'kcbp-b', 'path': 'kcbp-path',
               'contacts': ['kcbp-contacts-a', 'kcbp-contacts-b'], 'points': 'kcbp-points', 'normal': 'kcbp-normal'}


def centre_at(fr, to, t, c):
    """B's centre c (its own frame) at t: translation and angle linear."""
    tx, ty, deg = [f + t * (g - f) for f, g in zip(fr, to)]
    co, si = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return (co * c[0] - si * c[1] + tx, si * c[0] + co * c[1] + ty)


def check_sweep(page, answer_path, pose_a, fr, to, c, items):
    root = common(page, answer_path)
    svg = drawing(root)
    ids = {el.get('id') for el in svg.iter() if el.get('id')}
    drawn = {k for k, v in SWEEP_ITEMS.items() if any(i in ids for i in ([v] if isinstance(v, str) else v))}
    if drawn != set(items):
        fail(f'drawn {sorted(drawn)}, expected {sorted(items)}')
    legend = {r.get('data-item') for r in root.iter('div') if r.get('data-item')}
    if legend != drawn:
        fail(f'legend lists {sorted(legend)}, drawn {sorted(drawn)}')
    fit = fitted(svg)
    world = to_world(svg)
    answer = json.load(open(answer_path))
    size = max(abs(v) for v in fr[:2] + to[:2] + pose_a[:2]) or 1
    path = svg.find('.//path[@id="kcbp-path"]')
    pts = [world(x, y) for x, y in path_points(path.get('d'))]

    def near(p, q, what):
        if math.hypot(p[0] - q[0], p[1] - q[1]) > 1e-6 * size:
            fail(f'{what} drawn at {p}, expected {q}')
    near(pts[0], centre_at(fr, to, 0, c), 'the path\'s start')
    near(pts[-1], centre_at(fr, to, 1, c), 'the path\'s end')
    if answer['toi'] is not None:
        dot = svg.find('.//circle[@id="kcbp-path-toi"]')
        near(world(float(dot.get('cx')), float(dot.get('cy'))), centre_at(fr, to, answer['toi'], c), 'the dot at toi')
        pt = svg.find('.//circle[@id="kcbp-points"]')
        near(world(float(pt.get('cx')), float(pt.get('cy'))), answer['point'], 'the contact point')
    a = svg.find('.//*[@id="kcbp-a"]')
    if a.tag == 'circle':
        near(world(float(a.get('cx')), float(a.get('cy'))), pose_a[:2], 'A')
    return f'well-formed, no loads, the answer, drawn {" ".join(sorted(drawn))}, path and toi placed, fitted ({fit:.2f})'


def check_scene(page, scene_path, report_path, frame):
    root = common(page, None)
    svg = drawing(root)
    fit = fitted(svg, css_non_scaling=True)
    style = ''.join(st.text or '' for st in root.iter('style'))
    if not re.search(r'\.o \{[^}]*vector-effect: non-scaling-stroke', style):
        fail('the objects\' strokes scale')
    world = to_world(svg)
    scene = json.load(open(scene_path))
    objs = scene['objects']
    dt = scene.get('motion', {}).get('dt', 0)
    report = [json.loads(line) for line in open(report_path) if line.strip()][frame]
    drawn = [el for el in svg.iter() if el.get('data-i') is not None]
    if sorted(int(el.get('data-i')) for el in drawn) != list(range(len(objs))):
        fail(f'{len(drawn)} objects drawn, the scene has {len(objs)}')
    colours = [el.get('fill') for el in drawn]
    if len(set(colours)) != len(colours):
        fail(f'{len(colours) - len(set(colours))} objects share a colour')
    names = [o['name'] for o in objs]
    hit = {names[int(el.get('data-i'))] for el in drawn if 'hit' in el.get('class', '').split()}
    want = {p[k] for p in report['colliding'] for k in ('a', 'b')}
    if hit != want:
        fail(f'{len(hit)} objects marked colliding, the report has {len(want)} ({sorted(hit ^ want)[:5]})')
    listed = [li.text for li in root.iter('li')]
    pairs = [f'{p["a"]} \u2014 {p["b"]}' for p in report['colliding']]
    if sorted(x.split(' (')[0] for x in listed) != sorted(pairs):
        fail(f'{len(listed)} pairs listed, the report has {len(pairs)}')
    t = frame * dt
    circles = 0
    for el in drawn:
        o = objs[int(el.get('data-i'))]
        if el.tag == 'circle':
            v = o.get('velocity', [0, 0, 0])
            want_c = (o['pose'][0] + t * v[0], o['pose'][1] + t * v[1])
            got = world(float(el.get('cx')), float(el.get('cy')))
            if math.hypot(got[0] - want_c[0], got[1] - want_c[1]) > 1e-6 * (1 + abs(want_c[0]) + abs(want_c[1])):
                fail(f'{o["name"]} drawn at {got}, its pose at frame {frame} is {want_c}')
            circles += 1
    edges = {(p[k], c[i]) for p in report['colliding'] for c in p.get('contacts', [])
             for i, k in enumerate(('a', 'b')) if c[i] is not None}
    cpath = svg.find('.//path[@id="kcbp-contacts"]')
    ndrawn = len(re.findall('M', cpath.get('d'))) if cpath is not None else 0
    if ndrawn != len(edges):
        fail(f'{ndrawn} contact edges drawn, the report names {len(edges)}')
    legend = {r.get('data-item') for r in root.iter('div') if r.get('data-item')}
    if legend != {'objects'} | ({'colliding'} if want else set()) | ({'contacts'} if edges else set()):
        fail(f'legend lists {sorted(legend)}')
    return (f'well-formed, no loads, {len(objs)} objects in distinct colours, {len(hit)} colliding and '
            f'{len(pairs)} pairs as reported, {circles} circles at their poses, {ndrawn} contact edges, fitted ({fit:.2f})')


def check_png(shot, items):
    w, h, bpp, rows = read_png(shot)
    red = magenta = ink = 0
    for y in range(h):
        row = rows[y]
        for x in range(310, w):
            r, g, b = row[x * bpp], row[x * bpp + 1], row[x * bpp + 2]
            if r >= 215 and g <= 40 and b <= 40:
                red += 1
            elif r >= 215 and b >= 215 and g <= 60:
                magenta += 1
            if r + g + b < 720:
                ink += 1
    want_red, want_magenta = 'contacts' in items, 'points' in items
    if (red > 0) != want_red or (magenta > 0) != want_magenta or ink < 500:
        fail(f'{red} contact red, {magenta} magenta, {ink} ink pixels; expected contacts {want_red}, points {want_magenta}')
    return f'{red} contact red, {magenta} magenta, {ink} ink pixels'


if __name__ == '__main__':
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == 'page':
        print(check_page(args[0], args[1], args[2:]))
    elif mode == 'pose':
        print(check_pose(args[0], args[1], *map(float, args[2:5])))
    elif mode == 'sweep':
        v = list(map(float, args[2:13]))
        print(check_sweep(args[0], args[1], v[0:3], v[3:6], v[6:9], v[9:11], args[13:]))
    elif mode == 'scene':
        print(check_scene(args[0], args[1], args[2], int(args[3])))
    elif mode == 'png':
        print(check_png(args[0], args[1:]))
    else:
        fail(f'unknown mode {mode}')
