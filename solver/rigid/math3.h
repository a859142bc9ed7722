// Small float 3-vectors, 3x3 matrices and unit quaternions for the rigid-body simulator.
// Quaternion integration of the orientation (first order, then renormalized):
//   q_{t+dt} = normalize(q_t + dt/2 * (0, omega) * q_t).
#pragma once

#include <cmath>

namespace ww::rigid {

struct Vec3 {
    float x = 0.0f, y = 0.0f, z = 0.0f;

    float operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
    Vec3& operator+=(const Vec3& o) {
        x += o.x;
        y += o.y;
        z += o.z;
        return *this;
    }
    Vec3& operator-=(const Vec3& o) {
        x -= o.x;
        y -= o.y;
        z -= o.z;
        return *this;
    }
    Vec3& operator*=(float s) {
        x *= s;
        y *= s;
        z *= s;
        return *this;
    }
};

inline Vec3 operator+(Vec3 a, const Vec3& b) {
    return a += b;
}
inline Vec3 operator-(Vec3 a, const Vec3& b) {
    return a -= b;
}
inline Vec3 operator-(const Vec3& a) {
    return {-a.x, -a.y, -a.z};
}
inline Vec3 operator*(Vec3 a, float s) {
    return a *= s;
}
inline Vec3 operator*(float s, Vec3 a) {
    return a *= s;
}
inline float dot(const Vec3& a, const Vec3& b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline Vec3 cross(const Vec3& a, const Vec3& b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline float length(const Vec3& a) {
    return std::sqrt(dot(a, a));
}
inline Vec3 normalize(const Vec3& a) {
    const float l = length(a);
    return l > 0.0f ? a * (1.0f / l) : Vec3{0.0f, 1.0f, 0.0f};
}
inline Vec3 mulElem(const Vec3& a, const Vec3& b) {
    return {a.x * b.x, a.y * b.y, a.z * b.z};
}

/// Columns are the images of the unit axes (for a rotation: the body axes in world space).
struct Mat3 {
    Vec3 c[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

    const Vec3& col(int i) const { return c[i]; }
    Vec3 row(int i) const { return {c[0][i], c[1][i], c[2][i]}; }
};

inline Vec3 operator*(const Mat3& m, const Vec3& v) {
    return m.c[0] * v.x + m.c[1] * v.y + m.c[2] * v.z;
}
/// m^T v
inline Vec3 transposeMul(const Mat3& m, const Vec3& v) {
    return {dot(m.c[0], v), dot(m.c[1], v), dot(m.c[2], v)};
}
/// R diag(d) R^T: a body-frame diagonal tensor expressed in world space.
inline Mat3 rotateDiagonal(const Mat3& r, const Vec3& d) {
    Mat3 out;
    for (int j = 0; j < 3; ++j) {
        const Vec3 rj = r.row(j);
        out.c[j] = r * mulElem(d, rj);
    }
    return out;
}

struct Quat {
    float w = 1.0f, x = 0.0f, y = 0.0f, z = 0.0f;
};

inline Quat operator*(const Quat& a, const Quat& b) {
    return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
inline Quat normalize(const Quat& q) {
    const float l = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    return l > 0.0f ? Quat{q.w / l, q.x / l, q.y / l, q.z / l} : Quat{};
}
/// Rotation by `angle` radians about the unit vector `axis`.
inline Quat axisAngle(const Vec3& axis, float angle) {
    const float s = std::sin(0.5f * angle);
    return {std::cos(0.5f * angle), axis.x * s, axis.y * s, axis.z * s};
}
inline Mat3 toMat3(const Quat& q) {
    const float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    const float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    const float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    Mat3 m;
    m.c[0] = {1.0f - 2.0f * (yy + zz), 2.0f * (xy + wz), 2.0f * (xz - wy)};
    m.c[1] = {2.0f * (xy - wz), 1.0f - 2.0f * (xx + zz), 2.0f * (yz + wx)};
    m.c[2] = {2.0f * (xz + wy), 2.0f * (yz - wx), 1.0f - 2.0f * (xx + yy)};
    return m;
}
/// q advanced by angular velocity `omega` (rad/s) over `dt` seconds, renormalized.
inline Quat integrate(const Quat& q, const Vec3& omega, float dt) {
    const Quat dq = Quat{0.0f, omega.x, omega.y, omega.z} * q;
    const float h = 0.5f * dt;
    return normalize(Quat{q.w + h * dq.w, q.x + h * dq.x, q.y + h * dq.y, q.z + h * dq.z});
}

}  // namespace ww::rigid
