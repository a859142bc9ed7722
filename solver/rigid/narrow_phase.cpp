// Narrow-phase contact generation (conventions and method in narrow_phase.h).
#include "solver/rigid/narrow_phase.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ww::rigid {
namespace {

struct ClipVertex {
    Vec3 p;
    std::uint32_t id = 0;
};

/// Body-frame corner of a box: bit k of v set = + half extent along axis k.
Vec3 cornerLocal(const Vec3& h, int v) {
    return {(v & 1) ? h.x : -h.x, (v & 2) ? h.y : -h.y, (v & 4) ? h.z : -h.z};
}

float signOf(float v) {
    return v < 0.0f ? -1.0f : 1.0f;
}

/// Keeps the points with dist(p) = dot(p, n) - offset <= 0 (Sutherland-Hodgman, one plane).
int clipPolygon(const ClipVertex* in, int count, const Vec3& n, float offset, int plane,
                ClipVertex* out) {
    int m = 0;
    for (int k = 0; k < count; ++k) {
        const ClipVertex& cur = in[k];
        const ClipVertex& next = in[(k + 1) % count];
        const float dc = dot(cur.p, n) - offset;
        const float dn = dot(next.p, n) - offset;
        if (dc <= 0.0f) {
            out[m++] = cur;
        }
        if ((dc <= 0.0f) != (dn <= 0.0f)) {
            const float t = dc / (dc - dn);
            const std::uint32_t a = std::min(cur.id, next.id);
            const std::uint32_t b = std::max(cur.id, next.id);
            const std::uint32_t id =
                (a < 8 && b < 8)
                    ? 0x100u | (static_cast<std::uint32_t>(plane) << 6) | (a << 3) | b
                    : 0x1000u |
                          (((a * 31u + b) * 17u + static_cast<std::uint32_t>(plane)) & 0xFFFu);
            out[m++] = {cur.p + (next.p - cur.p) * t, id};
        }
    }
    return m;
}

/// Picks up to 4 of `count` points spanning a large area: the deepest, the farthest from it,
/// then each next one the farthest from those already chosen.
int reduceToFour(ClipVertex* pts, float* sep, int count) {
    if (count <= 4) {
        return count;
    }
    int chosen[4];
    chosen[0] = static_cast<int>(std::min_element(sep, sep + count) - sep);
    for (int c = 1; c < 4; ++c) {
        float best = -1.0f;
        int bestK = 0;
        for (int k = 0; k < count; ++k) {
            float dmin = INFINITY;
            for (int q = 0; q < c; ++q) {
                const Vec3 d = pts[k].p - pts[chosen[q]].p;
                dmin = std::min(dmin, dot(d, d));
            }
            if (dmin > best) {
                best = dmin;
                bestK = k;
            }
        }
        chosen[c] = bestK;
    }
    std::sort(chosen, chosen + 4);
    ClipVertex p2[4];
    float s2[4];
    for (int c = 0; c < 4; ++c) {
        p2[c] = pts[chosen[c]];
        s2[c] = sep[chosen[c]];
    }
    for (int c = 0; c < 4; ++c) {
        pts[c] = p2[c];
        sep[c] = s2[c];
    }
    return 4;
}

/// Face contact: reference face (axis i, sign) of box r, incident face of box c.
/// Appends points with normals from b to a; refIsA tells which of (a, b) r is.
int faceContact(const Body& r, const Body& c, int axis, float sign, bool refIsA,
                const NarrowPhaseParams& p, std::vector<ContactPoint>& out) {
    const Vec3 nRef = r.rotation.col(axis) * sign;  // from r towards c
    int incAxis = 0;
    float best = -1.0f;
    for (int j = 0; j < 3; ++j) {
        const float d = std::fabs(dot(nRef, c.rotation.col(j)));
        if (d > best) {
            best = d;
            incAxis = j;
        }
    }
    const float incSign = -signOf(dot(nRef, c.rotation.col(incAxis)));
    const int u = (incAxis + 1) % 3;
    const int v = (incAxis + 2) % 3;
    static constexpr float kCycle[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
    // The polygon and the clip's output swap buffers after each plane (no copies).
    ClipVertex bufferA[16];
    ClipVertex bufferB[16];
    ClipVertex* poly = bufferA;
    ClipVertex* tmp = bufferB;
    for (int k = 0; k < 4; ++k) {
        float s[3];
        s[incAxis] = incSign;
        s[u] = kCycle[k][0];
        s[v] = kCycle[k][1];
        const int vid = (s[0] > 0 ? 1 : 0) | (s[1] > 0 ? 2 : 0) | (s[2] > 0 ? 4 : 0);
        poly[k] = {c.position + c.rotation * cornerLocal(c.halfExtents, vid),
                   static_cast<std::uint32_t>(vid)};
    }
    int count = 4;
    // A vertex lying exactly on a side plane (aligned stacks) must stay a vertex: clip with a
    // small tolerance so float noise does not flip its feature id between steps.
    constexpr float kClipTolerance = 1.0e-4f;
    const int ru = (axis + 1) % 3;
    const int rv = (axis + 2) % 3;
    const float hr[3] = {r.halfExtents.x, r.halfExtents.y, r.halfExtents.z};
    int plane = 0;
    for (int side : {ru, rv}) {
        const Vec3 n = r.rotation.col(side);
        const float centre = dot(r.position, n);
        for (float sgn : {1.0f, -1.0f}) {
            count = clipPolygon(poly, count, n * sgn, sgn * centre + hr[side] + kClipTolerance,
                                plane++, tmp);
            std::swap(poly, tmp);
            if (count == 0) {
                return 0;
            }
        }
    }
    const float faceOffset = dot(r.position, nRef) + hr[axis];
    float sep[16];
    int kept = 0;
    for (int k = 0; k < count; ++k) {
        const float s = dot(poly[k].p, nRef) - faceOffset;
        if (s > p.margin) {
            continue;
        }
        int twin = -1;
        for (int q = 0; q < kept; ++q) {
            const Vec3 d = poly[q].p - poly[k].p;
            if (dot(d, d) < p.mergeDistance * p.mergeDistance) {
                twin = q;
                break;
            }
        }
        if (twin < 0) {
            poly[kept] = poly[k];
            sep[kept] = s;
            ++kept;
        } else if (poly[k].id < 8 && poly[twin].id >= 8) {
            poly[twin] = poly[k];  // keep the vertex: its feature id does not depend on clipping
            sep[twin] = s;
        }
    }
    kept = reduceToFour(poly, sep, kept);
    const int refFace = axis * 2 + (sign > 0 ? 0 : 1);
    const int incFace = incAxis * 2 + (incSign > 0 ? 0 : 1);
    const std::uint32_t base = (refIsA ? 0u : 0x40000u) |
                               (static_cast<std::uint32_t>(refFace) << 21) |
                               (static_cast<std::uint32_t>(incFace) << 24);
    const Vec3 normal = refIsA ? -nRef : nRef;
    for (int k = 0; k < kept; ++k) {
        out.push_back({poly[k].p - nRef * (0.5f * sep[k]), normal, sep[k], base | poly[k].id});
    }
    return kept;
}

}  // namespace

int collideBoxBox(const Body& a, const Body& b, const NarrowPhaseParams& p,
                  std::vector<ContactPoint>& out) {
    const Vec3 d = b.position - a.position;
    const float ha[3] = {a.halfExtents.x, a.halfExtents.y, a.halfExtents.z};
    const float hb[3] = {b.halfExtents.x, b.halfExtents.y, b.halfExtents.z};
    float c[3][3];
    float absC[3][3];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            c[i][j] = dot(a.rotation.col(i), b.rotation.col(j));
            absC[i][j] = std::fabs(c[i][j]) + 1.0e-6f;
        }
    }
    float bestA = -INFINITY, bestB = -INFINITY, bestE = -INFINITY;
    int axisA = 0, axisB = 0, edgeI = 0, edgeJ = 0;
    float dInA[3];  // d in a's frame
    for (int i = 0; i < 3; ++i) {
        dInA[i] = dot(d, a.rotation.col(i));
        const float s = std::fabs(dInA[i]) -
                        (ha[i] + hb[0] * absC[i][0] + hb[1] * absC[i][1] + hb[2] * absC[i][2]);
        if (s > p.margin) {
            return 0;
        }
        // Within axisTolerance the lower axis keeps it: two bricks touching only along an edge
        // (diagonal neighbours in a wall of touching columns) tie on two face axes, and float
        // noise must not flip the normal (and the feature ids) between steps.
        if (i == 0 || s > bestA + p.axisTolerance) {
            bestA = s;
            axisA = i;
        }
    }
    for (int j = 0; j < 3; ++j) {
        const float s = std::fabs(dot(d, b.rotation.col(j))) -
                        (hb[j] + ha[0] * absC[0][j] + ha[1] * absC[1][j] + ha[2] * absC[2][j]);
        if (s > p.margin) {
            return 0;
        }
        if (j == 0 || s > bestB + p.axisTolerance) {
            bestB = s;
            axisB = j;
        }
    }
    // The edge axes L = a_i x b_j in a's frame, from the cosines c and dInA. With i1, i2 = i + 1,
    // i + 2 and j1, j2 = j + 1, j + 2 (mod 3): L = c[i1][j] a_i2 - c[i2][j] a_i1, so |L|^2 =
    // c[i1][j]^2 + c[i2][j]^2 and d . L = c[i1][j] dInA[i2] - c[i2][j] dInA[i1]; a's radius along
    // L is ha[i1] |c[i2][j]| + ha[i2] |c[i1][j]|, b's (b_k . L = a_i . (b_j x b_k)) hb[j1]
    // |c[i][j2]| + hb[j2] |c[i][j1]|, both with the face axes' absC (|c| + 1e-6: a separation
    // lower by at most 1e-6 (ha + hb) / |L|, on the side of contact, where near-parallel edges
    // meet and the face axes decide). The separation s = (|d . L| - ra - rb) / |L| is compared
    // as s |L|, divided only for a new best axis.
    for (int i = 0; i < 3; ++i) {
        const int i1 = (i + 1) % 3;
        const int i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            const int j1 = (j + 1) % 3;
            const int j2 = (j + 2) % 3;
            const float len = std::sqrt(c[i1][j] * c[i1][j] + c[i2][j] * c[i2][j]);
            if (len < 1.0e-4f) {
                continue;  // parallel edges: covered by the face axes
            }
            const float ra = ha[i1] * absC[i2][j] + ha[i2] * absC[i1][j];
            const float rb = hb[j1] * absC[i][j2] + hb[j2] * absC[i][j1];
            const float gap = std::fabs(c[i1][j] * dInA[i2] - c[i2][j] * dInA[i1]) - ra - rb;
            if (gap > p.margin * len) {
                return 0;
            }
            if (gap > bestE * len) {
                bestE = gap / len;
                edgeI = i;
                edgeJ = j;
            }
        }
    }
    const float bestFace = std::max(bestA, bestB);
    if (bestE > bestFace + p.axisTolerance) {
        Vec3 l = normalize(cross(a.rotation.col(edgeI), b.rotation.col(edgeJ)));
        if (dot(l, d) < 0.0f) {
            l = -l;
        }
        // Nearly face to face (a brick tilted on the one below it), an edge axis a few degrees
        // off a face normal can separate by centimetres more than the face axes, yet its one
        // point lets the bricks turn into each other step by step: such a pair gets the face's
        // manifold, the edge point only when the face clips to nothing.
        int alignedA = 0, alignedB = 0;
        float cosA = 0.0f, cosB = 0.0f;
        for (int k = 0; k < 3; ++k) {
            const float ca = std::fabs(dot(l, a.rotation.col(k)));
            const float cb = std::fabs(dot(l, b.rotation.col(k)));
            alignedA = ca > cosA ? k : alignedA;
            cosA = std::max(cosA, ca);
            alignedB = cb > cosB ? k : alignedB;
            cosB = std::max(cosB, cb);
        }
        if (std::max(cosA, cosB) >= p.faceAlignedEdgeCos) {
            const int made =
                cosB > cosA ? faceContact(b, a, alignedB, signOf(dot(-d, b.rotation.col(alignedB))),
                                          false, p, out)
                            : faceContact(a, b, alignedA, signOf(dot(d, a.rotation.col(alignedA))),
                                          true, p, out);
            if (made > 0) {
                return made;
            }
        }
        Vec3 pa = a.position;
        Vec3 pb = b.position;
        std::uint32_t idA = 0, idB = 0;
        for (int k = 0; k < 3; ++k) {
            if (k != edgeI) {
                const float s = signOf(dot(a.rotation.col(k), l));
                pa += a.rotation.col(k) * (s * ha[k]);
                idA = idA * 2 + (s > 0 ? 1u : 0u);
            }
            if (k != edgeJ) {
                const float s = signOf(dot(b.rotation.col(k), l));
                pb -= b.rotation.col(k) * (s * hb[k]);
                idB = idB * 2 + (s > 0 ? 0u : 1u);
            }
        }
        const Vec3 da = a.rotation.col(edgeI);
        const Vec3 db = b.rotation.col(edgeJ);
        const Vec3 r = pa - pb;
        const float bb = dot(da, db), cc = dot(da, r), ff = dot(db, r);
        const float denom = std::max(1.0f - bb * bb, 1.0e-6f);
        float t = std::clamp((bb * ff - cc) / denom, -ha[edgeI], ha[edgeI]);
        const float uu = std::clamp(ff + t * bb, -hb[edgeJ], hb[edgeJ]);
        t = std::clamp(uu * bb - cc, -ha[edgeI], ha[edgeI]);
        const Vec3 qa = pa + da * t;
        const Vec3 qb = pb + db * uu;
        const std::uint32_t feature = 0x80000000u |
                                      ((static_cast<std::uint32_t>(edgeI) * 4 + idA) << 4) |
                                      (static_cast<std::uint32_t>(edgeJ) * 4 + idB);
        out.push_back({(qa + qb) * 0.5f, -l, bestE, feature});
        return 1;
    }
    if (bestB > bestA + p.axisTolerance) {
        const float sign = signOf(dot(-d, b.rotation.col(axisB)));
        return faceContact(b, a, axisB, sign, false, p, out);
    }
    const float sign = signOf(dot(d, a.rotation.col(axisA)));
    return faceContact(a, b, axisA, sign, true, p, out);
}

int collideBoxPlane(const Body& box, const Body& plane, const NarrowPhaseParams& p,
                    std::vector<ContactPoint>& out) {
    const Vec3 n = plane.planeNormal;
    ClipVertex pts[8];
    float sep[8];
    int count = 0;
    for (int v = 0; v < 8; ++v) {
        const Vec3 w = box.position + box.rotation * cornerLocal(box.halfExtents, v);
        const float s = dot(n, w) - plane.planeOffset;
        if (s <= p.margin) {
            pts[count] = {w, static_cast<std::uint32_t>(v)};
            sep[count] = s;
            ++count;
        }
    }
    count = reduceToFour(pts, sep, count);
    for (int k = 0; k < count; ++k) {
        out.push_back({pts[k].p - n * (0.5f * sep[k]), n, sep[k], pts[k].id});
    }
    return count;
}

int collideSphereBox(const Body& sphere, const Body& box, const NarrowPhaseParams& p,
                     std::vector<ContactPoint>& out) {
    const Vec3 q = transposeMul(box.rotation, sphere.position - box.position);
    const float h[3] = {box.halfExtents.x, box.halfExtents.y, box.halfExtents.z};
    const float qa[3] = {q.x, q.y, q.z};
    float cl[3];
    bool inside = true;
    for (int k = 0; k < 3; ++k) {
        cl[k] = std::clamp(qa[k], -h[k], h[k]);
        inside = inside && cl[k] == qa[k];
    }
    Vec3 nLocal;
    float sep = 0.0f;
    if (inside) {
        int k = 0;
        float least = INFINITY;
        for (int j = 0; j < 3; ++j) {
            const float dist = h[j] - std::fabs(qa[j]);
            if (dist < least) {
                least = dist;
                k = j;
            }
        }
        float nl[3] = {0, 0, 0};
        nl[k] = signOf(qa[k]);
        cl[k] = nl[k] * h[k];
        nLocal = {nl[0], nl[1], nl[2]};
        sep = -least - sphere.radius;
    } else {
        const Vec3 diff = q - Vec3{cl[0], cl[1], cl[2]};
        const float dist = length(diff);
        nLocal = diff * (1.0f / dist);
        sep = dist - sphere.radius;
    }
    if (sep > p.margin) {
        return 0;
    }
    const Vec3 n = box.rotation * nLocal;
    const Vec3 onBox = box.position + box.rotation * Vec3{cl[0], cl[1], cl[2]};
    const Vec3 onSphere = sphere.position - n * sphere.radius;
    out.push_back({(onBox + onSphere) * 0.5f, n, sep, 0u});
    return 1;
}

int collideSpherePlane(const Body& sphere, const Body& plane, const NarrowPhaseParams& p,
                       std::vector<ContactPoint>& out) {
    const Vec3 n = plane.planeNormal;
    const float sep = dot(n, sphere.position) - plane.planeOffset - sphere.radius;
    if (sep > p.margin) {
        return 0;
    }
    out.push_back({sphere.position - n * (sphere.radius + 0.5f * sep), n, sep, 0u});
    return 1;
}

int collideSphereSphere(const Body& a, const Body& b, const NarrowPhaseParams& p,
                        std::vector<ContactPoint>& out) {
    const Vec3 d = a.position - b.position;
    const float dist = length(d);
    const float sep = dist - a.radius - b.radius;
    if (sep > p.margin) {
        return 0;
    }
    const Vec3 n = dist > 1.0e-6f ? d * (1.0f / dist) : Vec3{0.0f, 1.0f, 0.0f};
    out.push_back({b.position + n * (b.radius + 0.5f * sep), n, sep, 0u});
    return 1;
}

int collide(const Body& a, const Body& b, const NarrowPhaseParams& p,
            std::vector<ContactPoint>& out) {
    using K = BodyKind;
    const auto flipped = [&](int added) {
        for (std::size_t k = out.size() - static_cast<std::size_t>(added); k < out.size(); ++k) {
            out[k].normal = -out[k].normal;
        }
        return added;
    };
    if (a.kind == K::kBox) {
        switch (b.kind) {
            case K::kBox:
                return collideBoxBox(a, b, p, out);
            case K::kPlane:
                return collideBoxPlane(a, b, p, out);
            case K::kSphere:
                return flipped(collideSphereBox(b, a, p, out));
        }
    } else if (a.kind == K::kSphere) {
        switch (b.kind) {
            case K::kBox:
                return collideSphereBox(a, b, p, out);
            case K::kPlane:
                return collideSpherePlane(a, b, p, out);
            case K::kSphere:
                return collideSphereSphere(a, b, p, out);
        }
    } else if (b.kind != K::kPlane) {
        return flipped(collide(b, a, p, out));
    }
    return 0;
}

}  // namespace ww::rigid
