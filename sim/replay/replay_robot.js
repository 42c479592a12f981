// The replay page's robots (sim/replay/README.md): each robot link is a
// THREE.Group moved by its link frame's track; its URDF visuals (boxes,
// spheres, cylinders, capsules and meshes with their colours and smooth
// normals) are drawn in it, and its collision geometry is attached to it,
// hidden by default where the link has visuals. Embedded into
// replay_template.html at build time (sim/replay/CMakeLists.txt) before the
// page's own script, which calls window.sapReplayRobot. Must stay ASCII.
(function () {
  'use strict';

  // Smooth normals that keep sharp edges: each triangle corner averages
  // the (area-weighted) normals of the triangles around its vertex that
  // turn less than the crease angle from its own. Returns a non-indexed
  // BufferGeometry.
  function creasedGeometry(THREE, positions, indices, creaseDegrees) {
    var nt = indices.length / 3, nv = positions.length / 3;
    var creaseCos = Math.cos(creaseDegrees * Math.PI / 180);
    var area = new Float64Array(3 * nt), unit = new Float64Array(3 * nt);
    var t, c, k;
    for (t = 0; t < nt; ++t) {
      var a = 3 * indices[3 * t], b = 3 * indices[3 * t + 1],
          d = 3 * indices[3 * t + 2];
      var ux = positions[b] - positions[a], uy = positions[b + 1] - positions[a + 1],
          uz = positions[b + 2] - positions[a + 2];
      var vx = positions[d] - positions[a], vy = positions[d + 1] - positions[a + 1],
          vz = positions[d + 2] - positions[a + 2];
      var nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
      var len = Math.sqrt(nx * nx + ny * ny + nz * nz) || 1;
      area[3 * t] = nx; area[3 * t + 1] = ny; area[3 * t + 2] = nz;
      unit[3 * t] = nx / len; unit[3 * t + 1] = ny / len; unit[3 * t + 2] = nz / len;
    }
    // The triangles around each vertex (compressed rows).
    var start = new Int32Array(nv + 1);
    for (k = 0; k < indices.length; ++k) ++start[indices[k] + 1];
    for (k = 0; k < nv; ++k) start[k + 1] += start[k];
    var fill = start.slice(0, nv), around = new Int32Array(indices.length);
    for (k = 0; k < indices.length; ++k) around[fill[indices[k]]++] = (k / 3) | 0;
    var outP = new Float32Array(9 * nt), outN = new Float32Array(9 * nt);
    for (t = 0; t < nt; ++t) {
      for (c = 0; c < 3; ++c) {
        var v = indices[3 * t + c], o = 9 * t + 3 * c, sx = 0, sy = 0, sz = 0;
        for (k = start[v]; k < start[v + 1]; ++k) {
          var f = around[k];
          if (unit[3 * t] * unit[3 * f] + unit[3 * t + 1] * unit[3 * f + 1] +
              unit[3 * t + 2] * unit[3 * f + 2] < creaseCos) continue;
          sx += area[3 * f]; sy += area[3 * f + 1]; sz += area[3 * f + 2];
        }
        var sl = Math.sqrt(sx * sx + sy * sy + sz * sz) || 1;
        outN[o] = sx / sl; outN[o + 1] = sy / sl; outN[o + 2] = sz / sl;
        outP[o] = positions[3 * v]; outP[o + 1] = positions[3 * v + 1];
        outP[o + 2] = positions[3 * v + 2];
      }
    }
    var g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(outP, 3));
    g.setAttribute('normal', new THREE.BufferAttribute(outN, 3));
    return g;
  }

  function setLocalPose(object, p) {
    object.position.set(p[0], p[1], p[2]);
    object.quaternion.set(p[4], p[5], p[6], p[3]);
  }

  // THREE: the library; data: the page's data; geometryOf(o): the page's
  // geometry of a primitive {s, d}.
  window.sapReplayRobot = function (THREE, data, geometryOf) {
    var links = data.links || [];
    var vmeshes = data.vmeshes || [];
    var meshGeometries = [];
    var materials = {};
    var robot = {
      groups: [],         // per link
      visuals: [],        // visual meshes (THREE.Mesh)
      hulls: [],          // collision geometry of links with visuals
      triangles: 0        // of the visuals
    };

    function meshGeometry(h) {
      if (meshGeometries[h]) return meshGeometries[h];
      var m = vmeshes[h];
      var positions = new Float32Array(m.v.length);
      for (var i = 0; i < m.v.length; ++i) {
        positions[i] = m.o[i % 3] + m.q * m.v[i];
      }
      meshGeometries[h] = creasedGeometry(THREE, positions, m.f, 40);
      return meshGeometries[h];
    }
    function materialOf(c) {
      var rgba = c || [0.70, 0.73, 0.80, 1];  // no URDF colour: steel grey
      var key = rgba.join(',');
      if (!materials[key]) {
        materials[key] = new THREE.MeshStandardMaterial({
          color: new THREE.Color(rgba[0], rgba[1], rgba[2]),
          roughness: 0.6, metalness: 0.1, side: THREE.DoubleSide,
          transparent: rgba[3] < 1, opacity: rgba[3]
        });
      }
      return materials[key];
    }

    links.forEach(function (l) {
      var group = new THREE.Group();
      group.name = l.n;
      l.v.forEach(function (v) {
        var g = v.s === 'mesh' ? meshGeometry(v.h) : geometryOf({s: v.s, d: v.d});
        var mesh = new THREE.Mesh(g, materialOf(v.c));
        setLocalPose(mesh, v.p);
        group.add(mesh);
        robot.visuals.push(mesh);
        var n = g.index ? g.index.count : g.attributes.position.count;
        robot.triangles += n / 3;
      });
      setLocalPose(group, l.p);
      robot.groups.push(group);
    });

    // A link geometry's mesh (object o with o.l, o.lp) goes into its link.
    robot.attach = function (o, mesh) {
      setLocalPose(mesh, o.lp);
      robot.groups[o.l].add(mesh);
      if (links[o.l].v.length > 0) robot.hulls.push(mesh);
    };
    robot.showHulls = function (on) {
      robot.hulls.forEach(function (m) { m.visible = on; });
    };
    // Poses every link at frame f (towards f + 1 by alpha) with poseAt.
    robot.update = function (poseAt, f, alpha) {
      robot.groups.forEach(function (g, i) {
        poseAt(links[i], f, alpha, g.position, g.quaternion);
      });
    };
    // Grows `box` by every link's drawn extent (its visuals, else its
    // collision geometry) at the sampled frames, and adds the corners of
    // each link's box there to `points` (what the camera frames).
    robot.growBounds = function (box, points, poseAt, frameCount) {
      var corner = new THREE.Vector3(), local = new THREE.Box3();
      var position = new THREE.Vector3(), quaternion = new THREE.Quaternion();
      robot.groups.forEach(function (group, i) {
        local.makeEmpty();
        group.children.forEach(function (child) {
          if (links[i].v.length > 0 && robot.visuals.indexOf(child) < 0) return;
          if (!child.geometry) return;
          if (!child.geometry.boundingBox) child.geometry.computeBoundingBox();
          child.updateMatrix();
          local.union(child.geometry.boundingBox.clone().applyMatrix4(child.matrix));
        });
        if (local.isEmpty()) return;
        var frames = [0];
        if (links[i].k >= 0) {
          for (var f = 1; f < frameCount; f += Math.max(1, frameCount >> 5)) {
            frames.push(f);
          }
          frames.push(frameCount - 1);
        }
        frames.forEach(function (f) {
          poseAt(links[i], f, 0, position, quaternion);
          for (var c = 0; c < 8; ++c) {
            corner.set(c & 1 ? local.max.x : local.min.x,
                       c & 2 ? local.max.y : local.min.y,
                       c & 4 ? local.max.z : local.min.z);
            box.expandByPoint(corner.applyQuaternion(quaternion).add(position));
            points.push(corner.clone());
          }
        });
      });
    };
    // Renders the visuals alone (flat white on black) with `camera` and
    // returns the fraction of the drawing buffer they cover and the extent
    // of their pixels as fractions of its width and height.
    robot.coverage = function (renderer, scene, camera) {
      var hidden = [];
      scene.traverse(function (x) {
        if (x.visible && (x.isMesh || x.isLine || x.isPoints) &&
            robot.visuals.indexOf(x) < 0) {
          hidden.push(x);
          x.visible = false;
        }
      });
      var background = scene.background;
      scene.background = new THREE.Color(0x000000);
      scene.overrideMaterial = new THREE.MeshBasicMaterial(
          {color: 0xffffff, side: THREE.DoubleSide});
      renderer.render(scene, camera);
      var gl = renderer.getContext();
      var w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
      var pixels = new Uint8Array(4 * w * h);
      gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
      var count = 0, x0 = w, x1 = -1, y0 = h, y1 = -1;
      for (var y = 0; y < h; ++y) {
        for (var x = 0; x < w; ++x) {
          if (pixels[4 * (y * w + x)] < 128) continue;
          ++count;
          if (x < x0) x0 = x;
          if (x > x1) x1 = x;
          if (y < y0) y0 = y;
          if (y > y1) y1 = y;
        }
      }
      scene.overrideMaterial.dispose();
      scene.overrideMaterial = null;
      scene.background = background;
      hidden.forEach(function (x) { x.visible = true; });
      return {
        fraction: count / (w * h),
        width: count ? (x1 - x0 + 1) / w : 0,
        height: count ? (y1 - y0 + 1) / h : 0
      };
    };
    return robot;
  };
})();
