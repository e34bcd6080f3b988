/* kcbp's viewer: draws the answer a page of `kcbp ... --html FILE` holds,
 * with three.js (THREE, and THREE.OrbitControls, inlined before this file).
 *
 * The page's data: #kcbp-data, JSON (the manifest: meshes, objects, frames,
 * the answer), and #kcbp-bin, base64 of one buffer of little-endian Float32
 * and Uint32 arrays that the manifest names as [byteOffset, count]. The
 * coordinates are normalised by kcbp (the scene's box centred on the origin,
 * about 1 across its largest side): each object's matrix (3x4, column-major)
 * carries its mesh's stored float32 positions into that frame.
 *
 * After the first frame is drawn, #kcbp-stats (hidden) holds JSON for tests:
 * the screen boxes (CSS pixels) of the contact triangles, of the meshes, of
 * the legend, the closest points, and any error. */
(function () {
  'use strict';
  var errors = [];
  var stats = null;
  function report() {
    var s = document.getElementById('kcbp-stats');
    var out = stats || {};
    out.errors = errors;
    if (s) s.textContent = JSON.stringify(out);
  }
  function fail(msg) {
    errors.push(String(msg));
    var e = document.getElementById('kcbp-error');
    if (e) {
      e.textContent = 'kcbp viewer: ' + errors.join('; ');
      e.style.display = 'block';
    }
    report();
  }
  window.addEventListener('error', function (ev) { fail(ev.message); });
  document.addEventListener('securitypolicyviolation', function (ev) {
    fail('the page tried to load ' + ev.blockedURI + ' (blocked)');
  });

  function hex(c) { return '#' + ('00000' + c.toString(16)).slice(-6); }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function main() {
    var data = JSON.parse(document.getElementById('kcbp-data').textContent);
    var raw = atob(document.getElementById('kcbp-bin').textContent.replace(/\s+/g, ''));
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    var buf = bytes.buffer;
    function f32(r) { return new Float32Array(buf, r[0], r[1]); }
    function u32(r) { return new Uint32Array(buf, r[0], r[1]); }

    /* #size=WxH in the address: a canvas of that size whatever the window
     * (tests: the same picture for --dump-dom and --screenshot). */
    var fixed = /size=(\d+)x(\d+)/.exec(location.hash);
    function width() { return fixed ? +fixed[1] : window.innerWidth; }
    function height() { return fixed ? +fixed[2] : window.innerHeight; }
    var renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    renderer.setPixelRatio(window.devicePixelRatio || 1);
    renderer.setSize(width(), height());
    document.body.insertBefore(renderer.domElement, document.body.firstChild);
    var scene = new THREE.Scene();
    scene.background = new THREE.Color(0xffffff);
    var camera = new THREE.PerspectiveCamera(35, width() / height(), 0.01, 100);
    scene.add(camera);
    scene.add(new THREE.HemisphereLight(0xffffff, 0x808080, 0.55));
    var head = new THREE.DirectionalLight(0xffffff, 0.6);
    head.position.set(0.3, 0.6, 1);
    camera.add(head);

    var contactMat = new THREE.MeshBasicMaterial({
      color: data.contact_color, side: THREE.DoubleSide,
      polygonOffset: true, polygonOffsetFactor: -2, polygonOffsetUnits: -4
    });
    /* The contacts once more, faintly, through whatever hides them. */
    var contactXray = new THREE.MeshBasicMaterial({
      color: data.contact_color, side: THREE.DoubleSide, transparent: true, opacity: 0.55,
      depthTest: false, depthWrite: false
    });
    var cbpFill = new THREE.MeshBasicMaterial({
      color: 0x808080, transparent: true, opacity: 0.12, depthWrite: false, side: THREE.DoubleSide
    });
    var cbpLine = new THREE.LineBasicMaterial({ color: 0x404040 });

    var meshes = data.meshes.map(function (m) {
      var g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(f32(m.positions), 3));
      var index = u32(m.indices);
      g.setIndex(new THREE.BufferAttribute(index, 1));
      g.computeVertexNormals();
      var cbp = null;
      if (m.cbp) {
        cbp = new THREE.BufferGeometry();
        cbp.setAttribute('position', new THREE.BufferAttribute(f32(m.cbp.positions), 3));
        cbp.setIndex(new THREE.BufferAttribute(u32(m.cbp.indices), 1));
      }
      return { geom: g, index: index, cbp: cbp, cbpEdges: cbp ? new THREE.EdgesGeometry(cbp, 1) : null };
    });

    function setMatrix(obj, a, k) {
      obj.matrix.set(a[k], a[k + 3], a[k + 6], a[k + 9], a[k + 1], a[k + 4], a[k + 7], a[k + 10],
                     a[k + 2], a[k + 5], a[k + 8], a[k + 11], 0, 0, 0, 1);
      obj.matrixWorldNeedsUpdate = true;
    }

    var cbpGroup = new THREE.Group(), ghostGroup = new THREE.Group();
    scene.add(cbpGroup);
    scene.add(ghostGroup);
    cbpGroup.visible = false;
    var objects = data.objects.map(function (o) {
      var m = meshes[o.mesh], ghost = o.style === 'ghost';
      var mat = new THREE.MeshPhongMaterial({
        color: o.color, side: THREE.DoubleSide, shininess: 10, specular: 0x151515,
        transparent: ghost, opacity: ghost ? 0.25 : 1, depthWrite: !ghost
      });
      var group = new THREE.Group();
      group.matrixAutoUpdate = false;
      group.add(new THREE.Mesh(m.geom, mat));
      var cg = new THREE.BufferGeometry();
      cg.setAttribute('position', m.geom.getAttribute('position'));
      var contact = new THREE.Mesh(cg, contactMat), xray = new THREE.Mesh(cg, contactXray);
      xray.renderOrder = 2;
      group.add(contact);
      group.add(xray);
      (ghost ? ghostGroup : scene).add(group);
      var cbp = null;
      if (m.cbp && !ghost) {
        cbp = new THREE.Group();
        cbp.matrixAutoUpdate = false;
        cbp.add(new THREE.Mesh(m.cbp, cbpFill));
        cbp.add(new THREE.LineSegments(m.cbpEdges, cbpLine));
        cbpGroup.add(cbp);
      }
      return { data: o, mesh: m, group: group, contactGeom: cg, cbp: cbp };
    });

    /* Contact triangles of one object: their three indices each. */
    function setContacts(obj, tris) {
      var src = obj.mesh.index, idx = new Uint32Array(tris.length * 3);
      for (var k = 0; k < tris.length; k++) {
        idx[3 * k] = src[3 * tris[k]];
        idx[3 * k + 1] = src[3 * tris[k] + 1];
        idx[3 * k + 2] = src[3 * tris[k] + 2];
      }
      obj.contactGeom.setIndex(new THREE.BufferAttribute(idx, 1));
      obj.contactTris = tris;
    }

    var frames = data.frames || null;
    var framePoses = frames ? f32(frames.poses) : null;
    var markStart = frames ? u32(frames.mark_start) : null;
    var marks = frames ? u32(frames.marks) : null;
    var current = 0;
    function setFrame(f) {
      current = f;
      var n = objects.length, lists = objects.map(function () { return []; });
      if (frames) {
        for (var k = markStart[f]; k < markStart[f + 1]; k++) lists[marks[2 * k]].push(marks[2 * k + 1]);
      }
      objects.forEach(function (obj, i) {
        if (frames) {
          setMatrix(obj.group, framePoses, (f * n + i) * 12);
          setContacts(obj, lists[i]);
        } else {
          setMatrix(obj.group, obj.data.matrix, 0);
          setContacts(obj, obj.data.marked ? Array.prototype.slice.call(u32(obj.data.marked)) : []);
        }
        if (obj.cbp) {
          obj.cbp.matrix.copy(obj.group.matrix);
          obj.cbp.matrixWorldNeedsUpdate = true;
        }
      });
      if (frameLabel) frameLabel.textContent = frameText(f);
      if (answerBox) answerBox.textContent = answerText(f);
      if (typeof showPairs === 'function' && pairBox) showPairs(f);
    }

    var points = null;
    if (data.points) {
      points = new THREE.Group();
      var pmat = new THREE.MeshBasicMaterial({ color: data.points_color, depthTest: false });
      var lmat = new THREE.LineBasicMaterial({ color: data.points_color, depthTest: false });
      var pa = new THREE.Vector3().fromArray(data.points.a), pb = new THREE.Vector3().fromArray(data.points.b);
      [pa, pb].forEach(function (p) {
        var s = new THREE.Mesh(new THREE.SphereBufferGeometry(0.012, 16, 12), pmat);
        s.position.copy(p);
        s.renderOrder = 3;
        points.add(s);
      });
      var lg = new THREE.BufferGeometry().setFromPoints([pa, pb]);
      var line = new THREE.Line(lg, lmat);
      line.renderOrder = 3;
      points.add(line);
      scene.add(points);
    }

    if (data.path) {
      var pts = [];
      for (var q = 0; q + 2 < data.path.length; q += 3) pts.push(new THREE.Vector3(data.path[q], data.path[q + 1], data.path[q + 2]));
      var pathLine = new THREE.Line(new THREE.BufferGeometry().setFromPoints(pts),
                                    new THREE.LineBasicMaterial({ color: data.points_color, depthTest: false }));
      pathLine.renderOrder = 3;
      scene.add(pathLine);
      if (points) points.children.forEach(function (c) { if (c.geometry && c.geometry.type === 'SphereBufferGeometry') c.scale.setScalar(2.5); });
    }

    /* The legend. */
    var legend = document.getElementById('kcbp-legend');
    legend.appendChild(el('h1', {}, data.title));
    var answers = data.answers || [];
    function answerText(f) {
      var a = answers[Math.min(f, answers.length - 1)];
      if (!a) return '';
      switch (data.kind) {
        case 'collide':
          return 'collide: ' + a.collide + ' (decided by ' + a.decided_by + ')' +
            (a.contacts ? ', ' + (a.contacts_found || a.contacts.length) + ' contact pair(s)' : '');
        case 'distance':
          if (a.signed_distance !== undefined) {
            /* six digits in the legend; the answer (JSON) below has them all */
            var g = function (x) { return +x.toPrecision(6); };
            var nrm = a.normal ? ', normal [' + a.normal.map(g).join(', ') + ']' : '';
            if (a.signed_distance === null) return 'farther than ' + a.farther_than;
            if (a.status === 'bracketed')
              return 'depth in [' + g(a.depth_lower) + ', ' + g(a.depth_upper) + ']' + nrm;
            if (a.signed_distance < 0) return 'signed distance: ' + g(a.signed_distance) + nrm;
            return 'signed distance: ' + g(a.signed_distance);
          }
          return a.distance === null ? 'farther than ' + a.farther_than : 'distance: ' + a.distance;
        case 'sweep':
          return a.toi === null ? 'no contact from start to end' : 'time of impact: ' + a.toi;
        case 'self':
          return 'self-intersecting: ' + a.self_intersect + (a.pairs ? ', ' + a.pairs.length + ' pair(s)' : '');
        case 'scene':
          return 'frame ' + (a.frame !== undefined ? a.frame : f) + ': ' +
            (a.colliding ? a.colliding.length : 0) + ' colliding pair(s) of ' + a.pairs;
      }
      return '';
    }
    var answerBox = el('div', { 'class': 'answer' });
    legend.appendChild(answerBox);
    function row(color, label, ghost) {
      var r = el('div', { 'class': 'row' });
      var s = el('span', { 'class': 'swatch' + (ghost ? ' ghost' : '') });
      s.style.background = hex(color);
      r.appendChild(s);
      r.appendChild(el('span', {}, label));
      legend.appendChild(r);
    }
    /* Few objects: their rows. Many (a scene): a closed list, so that the
     * legend leaves the view free, and the colliding pairs of the frame. */
    var many = objects.length > 6;
    var objectBox = legend;
    if (many) {
      var objDet = el('details', {});
      objDet.appendChild(el('summary', {}, objects.length + ' objects'));
      legend.appendChild(objDet);
      objectBox = objDet;
    }
    var shown = Math.min(objects.length, 200);
    for (var o = 0; o < shown; o++) {
      var od = objects[o].data;
      var orow = el('div', { 'class': 'row' }), sw = el('span', { 'class': 'swatch' + (od.style === 'ghost' ? ' ghost' : '') });
      sw.style.background = hex(od.color);
      orow.appendChild(sw);
      orow.appendChild(el('span', {}, od.name + (od.style === 'ghost' ? ' (translucent)' : '')));
      objectBox.appendChild(orow);
    }
    if (objects.length > shown) objectBox.appendChild(el('div', {}, '... and ' + (objects.length - shown) + ' more'));
    var pairBox = null;
    if (data.kind === 'scene') {
      var pairDet = el('details', {});
      pairDet.open = true;
      pairDet.appendChild(el('summary', {}, 'colliding pairs'));
      pairBox = el('div', { 'class': 'pairs' });
      pairDet.appendChild(pairBox);
      legend.appendChild(pairDet);
    }
    function showPairs(f) {
      if (!pairBox) return;
      var a = answers[Math.min(f, answers.length - 1)], list = (a && a.colliding) || [];
      pairBox.textContent = '';
      var n = Math.min(list.length, 20);
      for (var k = 0; k < n; k++) pairBox.appendChild(el('div', {}, list[k].a + ' \u2013 ' + list[k].b));
      if (list.length > n) pairBox.appendChild(el('div', {}, '... and ' + (list.length - n) + ' more'));
      if (!list.length) pairBox.appendChild(el('div', {}, 'none'));
    }
    showPairs(0);
    var anyContact = (marks && marks.length > 0) || objects.some(function (obj) {
      return obj.data.marked && u32(obj.data.marked).length > 0;
    });
    if (anyContact) row(data.contact_color, 'contact triangles');
    if (data.points) {
      var a = answers[0];
      var deep = a && a.signed_distance !== undefined && a.signed_distance < 0;
      row(data.points_color, data.kind === 'sweep' ? 'contact point at the time of impact' :
                             deep ? 'witness points: B moved by the translation (their segment) just touches A'
                                  : 'closest points and their segment');
    }
    if (data.path) {
      row(data.points_color, "path of B's origin from start to end");
    }
    function toggle(label, group, on) {
      var r = el('label', { 'class': 'row' }), box = el('input', { type: 'checkbox' });
      box.checked = on;
      group.visible = on;
      box.addEventListener('change', function () { group.visible = box.checked; draw(); });
      r.appendChild(box);
      r.appendChild(document.createTextNode(label));
      legend.appendChild(r);
    }
    if (cbpGroup.children.length) toggle('k-CBPs', cbpGroup, false);
    if (ghostGroup.children.length) toggle('start and end poses', ghostGroup, true);
    var frameLabel = null, slider = null;
    function frameText(f) {
      return 'frame ' + f + ' of 0 to ' + (frames.count - 1) + (data.dt ? ' (t = ' + (f * data.dt).toPrecision(6) + ' s)' : '');
    }
    if (frames && frames.count > 1) {
      frameLabel = el('div', {});
      slider = el('input', { type: 'range', min: 0, max: frames.count - 1, step: 1, value: 0 });
      var play = el('button', {}, 'play');
      var timer = null;
      slider.addEventListener('input', function () { setFrame(+slider.value); draw(); });
      play.addEventListener('click', function () {
        if (timer) {
          clearInterval(timer);
          timer = null;
          play.textContent = 'play';
          return;
        }
        play.textContent = 'pause';
        timer = setInterval(function () {
          slider.value = (current + 1) % frames.count;
          setFrame(+slider.value);
          draw();
        }, 1000 / 24);
      });
      legend.appendChild(frameLabel);
      legend.appendChild(slider);
      legend.appendChild(play);
    }
    if (data.answers && data.answers.length) {
      var det = el('details', {});
      det.appendChild(el('summary', {}, 'the answer (JSON)'));
      var pre = el('pre', {});
      det.appendChild(pre);
      det.addEventListener('toggle', function () {
        pre.textContent = JSON.stringify(answers[Math.min(current, answers.length - 1)], null, 1);
      });
      legend.appendChild(det);
    }
    legend.appendChild(el('div', { 'class': 'help' }, 'drag: turn, wheel: zoom, right drag: pan'));

    /* The first frame: #frame=N in the address picks another. */
    var m = /frame=(\d+)/.exec(location.hash);
    var first = m && frames ? Math.min(+m[1], frames.count - 1) : 0;
    if (slider) slider.value = first;
    setFrame(first);

    /* The camera looks at the scene's box from the side of the contacts
     * (or the closest points), when they are off its centre. */
    scene.updateMatrixWorld(true);
    var focus = new THREE.Vector3(), nf = 0, v = new THREE.Vector3();
    objects.forEach(function (obj) {
      var pos = obj.mesh.geom.getAttribute('position');
      var idx = obj.contactGeom.index ? obj.contactGeom.index.array : [];
      for (var k = 0; k < idx.length; k++) {
        v.fromBufferAttribute(pos, idx[k]).applyMatrix4(obj.group.matrixWorld);
        focus.add(v);
        nf++;
      }
    });
    if (data.points) {
      focus.add(new THREE.Vector3().fromArray(data.points.a)).add(new THREE.Vector3().fromArray(data.points.b));
      nf += 2;
    }
    var dir = new THREE.Vector3(0.55, 0.45, 0.7).normalize();
    if (nf) {
      focus.divideScalar(nf);
      if (focus.length() > 0.05) dir.add(focus.clone().normalize().multiplyScalar(1.5)).normalize();
    }
    var radius = data.radius || 1;
    camera.position.copy(dir.multiplyScalar(radius / Math.sin(17.5 * Math.PI / 180) * 1.05));
    camera.lookAt(0, 0, 0);
    var controls = new THREE.OrbitControls(camera, renderer.domElement);
    controls.target.set(0, 0, 0);
    controls.addEventListener('change', draw);

    function draw() { renderer.render(scene, camera); }
    /* The legend covers the left of the view: the picture's centre moves
     * right by half its width, so that what is shown is not under it. */
    function offsetView() {
      var lw = legend.getBoundingClientRect().width + 8;
      if (lw < 0.6 * width()) camera.setViewOffset(width(), height(), -lw / 2, 0, width(), height());
      else camera.clearViewOffset();
    }
    offsetView();
    window.addEventListener('resize', function () {
      if (fixed) return;
      camera.aspect = width() / height();
      offsetView();
      camera.updateProjectionMatrix();
      renderer.setSize(width(), height());
      draw();
    });
    controls.update();
    draw();

    /* For tests: where things are on screen. */
    function project(p, box) {
      var q = p.clone().project(camera);
      var x = (q.x + 1) / 2 * width(), y = (1 - q.y) / 2 * height();
      if (q.z > 1) return;
      box[0] = Math.min(box[0], x); box[1] = Math.min(box[1], y);
      box[2] = Math.max(box[2], x); box[3] = Math.max(box[3], y);
    }
    var contactBox = [1e9, 1e9, -1e9, -1e9], meshBox = [1e9, 1e9, -1e9, -1e9], ntri = 0;
    objects.forEach(function (obj) {
      var pos = obj.mesh.geom.getAttribute('position');
      var step = Math.max(1, Math.floor(pos.count / 20000));
      for (var k = 0; k < pos.count; k += step) project(v.fromBufferAttribute(pos, k).applyMatrix4(obj.group.matrixWorld), meshBox);
      var idx = obj.contactGeom.index ? obj.contactGeom.index.array : [];
      ntri += idx.length / 3;
      for (var j = 0; j < idx.length; j++) project(v.fromBufferAttribute(pos, idx[j]).applyMatrix4(obj.group.matrixWorld), contactBox);
    });
    var r = legend.getBoundingClientRect();
    stats = {
      ready: true, kind: data.kind, frame: current, width: width(), height: height(),
      contact_triangles: ntri, contact_box: ntri ? contactBox : null, mesh_box: meshBox,
      legend_box: [r.left, r.top, r.right, r.bottom], webgl: renderer.capabilities.isWebGL2 ? 2 : 1
    };
    if (data.points) {
      var a = [1e9, 1e9, -1e9, -1e9];
      project(new THREE.Vector3().fromArray(data.points.a), a);
      project(new THREE.Vector3().fromArray(data.points.b), a);
      stats.points_box = a;
    }
    report();
  }

  try {
    main();
  } catch (e) {
    fail(e && e.message ? e.message : e);
  }
})();
