// Body construction, mass properties and bounds (equations in body.h).
#include "solver/rigid/body.h"

#include <cmath>

namespace ww::rigid {

const char* toString(BodyKind k) {
    switch (k) {
        case BodyKind::kBox:
            return "box";
        case BodyKind::kSphere:
            return "sphere";
        case BodyKind::kPlane:
            return "plane";
    }
    return "?";
}

void Body::updateDerived() {
    rotation = toMat3(orientation);
    invInertiaWorld = rotateDiagonal(rotation, invInertiaBody);
}

Body makeBody(const BodyDesc& d) {
    Body b;
    b.kind = d.kind;
    b.position = d.position;
    b.orientation = normalize(d.orientation);
    b.linearVelocity = d.linearVelocity;
    b.angularVelocity = d.angularVelocity;
    b.halfExtents = d.halfExtents;
    b.radius = d.radius;
    b.tag = d.tag;
    const bool dynamic = d.kind != BodyKind::kPlane && d.massKg > 0.0f;
    if (dynamic) {
        const float m = d.massKg;
        b.invMass = 1.0f / m;
        if (d.kind == BodyKind::kBox) {
            const Vec3 h2 = mulElem(d.halfExtents, d.halfExtents);
            b.invInertiaBody = {3.0f / (m * (h2.y + h2.z)), 3.0f / (m * (h2.x + h2.z)),
                                3.0f / (m * (h2.x + h2.y))};
        } else {
            const float i = 0.4f * m * d.radius * d.radius;
            b.invInertiaBody = {1.0f / i, 1.0f / i, 1.0f / i};
        }
    } else {
        b.linearVelocity = {};
        b.angularVelocity = {};
    }
    if (d.kind == BodyKind::kPlane) {
        b.planeNormal = normalize(d.planeNormal);
        b.planeOffset = dot(b.planeNormal, d.position);
    }
    b.updateDerived();
    return b;
}

Aabb boundsOf(const Body& b, float margin) {
    Vec3 ext;
    if (b.kind == BodyKind::kBox) {
        const Mat3& r = b.rotation;
        for (int i = 0; i < 3; ++i) {
            const Vec3 row = r.row(i);
            const float e = std::fabs(row.x) * b.halfExtents.x +
                            std::fabs(row.y) * b.halfExtents.y + std::fabs(row.z) * b.halfExtents.z;
            (i == 0 ? ext.x : (i == 1 ? ext.y : ext.z)) = e;
        }
    } else if (b.kind == BodyKind::kSphere) {
        ext = {b.radius, b.radius, b.radius};
    } else {
        const float inf = INFINITY;
        return {{-inf, -inf, -inf}, {inf, inf, inf}};
    }
    const Vec3 m{margin, margin, margin};
    return {b.position - ext - m, b.position + ext + m};
}

}  // namespace ww::rigid
