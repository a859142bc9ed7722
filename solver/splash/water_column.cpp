// Submerged volume, buoyancy and drag of a body under the height field (water_column.h).
#include "solver/splash/water_column.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ww::splash {

using rigid::Vec3;

namespace {

// Continuous cell coordinate of x along an axis of n cells of side h centred on 0.
float cellCoord(float x, float h, int n) {
    return x / h + 0.5f * static_cast<float>(n - 1);
}

// Surface level at the horizontal position of p, or -inf outside the pool.
float surfaceAt(const WaterGrid& w, const Vec3& p) {
    if (!w.inside(p.x, p.z)) {
        return -std::numeric_limits<float>::infinity();
    }
    return w.restLevelM + w.etaAt(p.x, p.z);
}

// One line p0 + t d, t in [-half, half], of cross-section `weight`: its submerged part.
void submergeLine(const WaterGrid& w, const Vec3& p0, const Vec3& d, float half, float weight,
                  std::vector<SubmergedSample>& out, float& total) {
    // Where the line meets the still surface, then where it meets the surface found there.
    float t = std::clamp((w.restLevelM - p0.y) / d.y, -half, half);
    float level = surfaceAt(w, p0 + d * t);
    if (!std::isfinite(level)) {
        return;
    }
    t = std::clamp((level - p0.y) / d.y, -half, half);
    level = surfaceAt(w, p0 + d * t);
    if (!std::isfinite(level)) {
        return;
    }
    const float ts = (level - p0.y) / d.y;
    const float top = std::min(half, ts);
    const float len = std::clamp(ts + half, 0.0f, 2.0f * half);
    if (len <= 0.0f) {
        return;
    }
    SubmergedSample s;
    s.volume = weight * len;
    s.centroid = p0 + d * (0.5f * (top - half));
    s.waterplane = ts < half ? weight / d.y : 0.0f;
    out.push_back(s);
    total += s.volume;
}

}  // namespace

float WaterGrid::etaAt(float x, float z, float* rate) const {
    const float fx = std::clamp(cellCoord(x, cellM, nx), 0.0f, static_cast<float>(nx - 1));
    const float fz = std::clamp(cellCoord(z, cellM, ny), 0.0f, static_cast<float>(ny - 1));
    const int i0 = std::min(static_cast<int>(fx), nx - 2);
    const int j0 = std::min(static_cast<int>(fz), ny - 2);
    const float ax = fx - static_cast<float>(i0);
    const float az = fz - static_cast<float>(j0);
    const auto at = [&](std::span<const float> f) {
        const std::size_t k = static_cast<std::size_t>(j0) * static_cast<std::size_t>(nx) +
                              static_cast<std::size_t>(i0);
        const std::size_t row = static_cast<std::size_t>(nx);
        return (1.0f - az) * ((1.0f - ax) * f[k] + ax * f[k + 1]) +
               az * ((1.0f - ax) * f[k + row] + ax * f[k + row + 1]);
    };
    const float now = at(eta);
    if (rate != nullptr) {
        *rate = (!etaPrev.empty() && dtSeconds > 0.0f) ? (now - at(etaPrev)) / dtSeconds : 0.0f;
    }
    return now;
}

float WaterGrid::verticalSpeedAt(const Vec3& p) const {
    float rate = 0.0f;
    const float depth = restLevelM + etaAt(p.x, p.z, &rate);
    if (!(depth > 0.0f)) {
        return 0.0f;
    }
    return rate * std::clamp(p.y / depth, 0.0f, 1.0f);
}

float bodyVolume(const rigid::Body& b) {
    if (b.kind == rigid::BodyKind::kBox) {
        return 8.0f * b.halfExtents.x * b.halfExtents.y * b.halfExtents.z;
    }
    if (b.kind == rigid::BodyKind::kSphere) {
        return 4.18879020f * b.radius * b.radius * b.radius;
    }
    return 0.0f;
}

float lowestPointY(const rigid::Body& b) {
    if (b.kind == rigid::BodyKind::kBox) {
        float reach = 0.0f;
        for (int a = 0; a < 3; ++a) {
            reach += std::abs(b.rotation.c[a].y) * b.halfExtents[a];
        }
        return b.position.y - reach;
    }
    if (b.kind == rigid::BodyKind::kSphere) {
        return b.position.y - b.radius;
    }
    return std::numeric_limits<float>::infinity();
}

int linesAlong(float extentM, float cellM, const ColumnParams& p) {
    const int n = static_cast<int>(std::ceil(extentM / (p.lineSpacingCells * cellM)));
    return std::clamp(n, p.minSamples, p.maxSamples);
}

// The body axis closest to the vertical (the first of a tie).
int mostVerticalAxis(const rigid::Body& b) {
    int k = 0;
    for (int a = 1; a < 3; ++a) {
        if (std::abs(b.rotation.c[a].y) > std::abs(b.rotation.c[k].y)) {
            k = a;
        }
    }
    return k;
}

BoxLines boxLinesAlong(const rigid::Body& b, int k, float cellM, const ColumnParams& p) {
    BoxLines out;
    const int k1 = (k + 1) % 3;
    const int k2 = (k + 2) % 3;
    out.d = b.rotation.c[k].y >= 0.0f ? b.rotation.c[k] : -b.rotation.c[k];
    if (!(out.d.y > 0.0f)) {
        return out;
    }
    out.halfLength = b.halfExtents[k];
    out.a1 = b.halfExtents[k1];
    out.a2 = b.halfExtents[k2];
    out.e1 = b.rotation.c[k1];
    out.e2 = b.rotation.c[k2];
    out.n1 = linesAlong(2.0f * out.a1, cellM, p);
    out.n2 = linesAlong(2.0f * out.a2, cellM, p);
    out.weight = 4.0f * out.a1 * out.a2 / static_cast<float>(out.n1 * out.n2);
    return out;
}

BoxLines boxLines(const rigid::Body& b, float cellM, const ColumnParams& p) {
    return boxLinesAlong(b, mostVerticalAxis(b), cellM, p);
}

BoxSampling boxSampling(const rigid::Body& b, float cellM, const ColumnParams& p) {
    BoxSampling out;
    const float band = p.axisBlendBand;
    if (!(band > 0.0f)) {
        const int k = mostVerticalAxis(b);
        out.cut[0] = boxLinesAlong(b, k, cellM, p);
        out.axis[0] = k;
        out.count = out.cut[0].n1 > 0 ? 1 : 0;
        return out;
    }
    float up[3];
    float most = 0.0f;
    for (int a = 0; a < 3; ++a) {
        up[a] = std::abs(b.rotation.c[a].y);
        most = std::max(most, up[a]);
    }
    // alpha_k = (|d_k.y| - (m - band))+ / sum: continuous, since m is (a max of continuous
    // functions) and the sum is at least `band` (the largest axis' own term).
    float share[3];
    float sum = 0.0f;
    for (int a = 0; a < 3; ++a) {
        share[a] = std::max(0.0f, up[a] - (most - band));
        sum += share[a];
    }
    if (!(sum > 0.0f)) {
        return out;
    }
    for (int a = 0; a < 3; ++a) {
        if (share[a] > 0.0f) {
            BoxLines cut = boxLinesAlong(b, a, cellM, p);
            if (cut.n1 == 0) {
                continue;
            }
            cut.weight *= share[a] / sum;
            out.cut[out.count] = cut;
            out.axis[out.count] = a;
            ++out.count;
        }
    }
    return out;
}

float submergedSamples(const rigid::Body& b, const WaterGrid& w, const ColumnParams& p,
                       std::vector<SubmergedSample>& out) {
    float total = 0.0f;
    if (b.kind == rigid::BodyKind::kBox) {
        const BoxSampling sampling = boxSampling(b, w.cellM, p);
        for (int c = 0; c < sampling.count; ++c) {
            const BoxLines& lines = sampling.cut[c];
            const int n1 = lines.n1;
            const int n2 = lines.n2;
            const float a1 = lines.a1;
            const float a2 = lines.a2;
            const Vec3 d = lines.d;
            const Vec3 e1 = lines.e1;
            const Vec3 e2 = lines.e2;
            const float weight = lines.weight;
            for (int s = 0; s < n1; ++s) {
                const float u =
                    a1 * ((2.0f * static_cast<float>(s) + 1.0f) / static_cast<float>(n1) - 1.0f);
                for (int t = 0; t < n2; ++t) {
                    const float v =
                        a2 *
                        ((2.0f * static_cast<float>(t) + 1.0f) / static_cast<float>(n2) - 1.0f);
                    submergeLine(w, b.position + e1 * u + e2 * v, d, lines.halfLength, weight, out,
                                 total);
                }
            }
        }
    } else if (b.kind == rigid::BodyKind::kSphere) {
        const float r = b.radius;
        const int n = linesAlong(2.0f * r, w.cellM, p);
        const float side = 2.0f * r / static_cast<float>(n);
        for (int s = 0; s < n; ++s) {
            const float x = -r + side * (static_cast<float>(s) + 0.5f);
            for (int t = 0; t < n; ++t) {
                const float z = -r + side * (static_cast<float>(t) + 0.5f);
                const float rho2 = x * x + z * z;
                if (rho2 < r * r) {
                    submergeLine(w, b.position + Vec3{x, 0.0f, z}, {0.0f, 1.0f, 0.0f},
                                 std::sqrt(r * r - rho2), side * side, out, total);
                }
            }
        }
    }
    return total;
}

BodyWater waterForces(const rigid::Body& b,
                      const WaterGrid& /*water: the drag is relative to still water*/,
                      const ColumnParams& p, std::span<const SubmergedSample> samples) {
    BodyWater out;
    out.bodyVolume = bodyVolume(b);
    const float lengthScale = std::cbrt(std::max(out.bodyVolume, 1e-9f));
    const Vec3 up{0.0f, 1.0f, 0.0f};
    Vec3 moment;
    for (const SubmergedSample& s : samples) {
        out.submergedVolume += s.volume;
        moment += s.centroid * s.volume;
        const Vec3 r = s.centroid - b.position;
        const Vec3 fb = up * (p.waterDensity * p.gravity * s.volume);
        const Vec3 rel = b.linearVelocity + cross(b.angularVelocity, r);
        const float speed = length(rel);
        const Vec3 fd = rel * (-p.waterDensity * s.volume *
                               (p.linearDrag + p.quadraticDrag * speed / lengthScale));
        out.buoyancyForce += fb;
        out.dragForce += fd;
        out.torque += cross(r, fb + fd);
        out.dragTorque += cross(r, fd);
    }
    out.buoyancyCentre =
        out.submergedVolume > 0.0f ? moment * (1.0f / out.submergedVolume) : b.position;
    return out;
}

void applyWaterForces(rigid::Body& b, const BodyWater& f, float dt) {
    const float relSpeed = length(b.linearVelocity);
    const float dragDv = length(f.dragForce) * b.invMass * dt;
    const float linScale = dragDv > relSpeed ? relSpeed / dragDv : 1.0f;
    const Vec3 dragDw = b.invInertiaWorld * f.dragTorque * dt;
    const float spin = length(b.angularVelocity);
    const float angScale = length(dragDw) > spin ? spin / length(dragDw) : 1.0f;
    b.linearVelocity += (f.buoyancyForce + f.dragForce * linScale) * (b.invMass * dt);
    b.angularVelocity += b.invInertiaWorld * (f.torque - f.dragTorque * (1.0f - angScale)) * dt;
}

double kineticEnergy(const rigid::Body& b) {
    if (b.isStatic()) {
        return 0.0;
    }
    const Vec3 v = b.linearVelocity;
    double k = 0.5 / static_cast<double>(b.invMass) * static_cast<double>(dot(v, v));
    const Vec3 w = rigid::transposeMul(b.rotation, b.angularVelocity);  // body frame
    for (int a = 0; a < 3; ++a) {
        if (b.invInertiaBody[a] > 0.0f) {
            k += 0.5 * static_cast<double>(w[a]) * w[a] / b.invInertiaBody[a];
        }
    }
    return k;
}

double chargeRadiation(rigid::Body& b, double energyJ) {
    if (!(energyJ > 0.0) || b.isStatic()) {
        return 0.0;
    }
    const double k = kineticEnergy(b);
    if (!(k > 0.0)) {
        return 0.0;
    }
    const double taken = std::min(energyJ, k);
    const auto scale = static_cast<float>(std::sqrt(1.0 - taken / k));
    b.linearVelocity = b.linearVelocity * scale;
    b.angularVelocity = b.angularVelocity * scale;
    return taken;
}

GridPoint16 gridPoint16(int nx, int ny, float cellM, const rigid::Vec3& p) {
    const auto axis = [cellM](float x, int n) {
        const double c = (static_cast<double>(x) / static_cast<double>(cellM) +
                          0.5 * static_cast<double>(n - 1)) *
                         16.0;
        if (!std::isfinite(c)) {
            return 0;
        }
        return static_cast<int>(std::clamp(std::round(c), -16.0 * n, 32.0 * n));
    };
    return {axis(p.x, nx), axis(p.z, ny)};
}

void splatVolume(const WaterGrid& w, std::span<const SubmergedSample> samples,
                 std::vector<float>& volumePerCell, std::vector<char>& mark,
                 std::vector<int>& touched, float sign) {
    const auto add = [&](int i, int j, float v) {
        const int c = j * w.nx + i;
        volumePerCell[static_cast<std::size_t>(c)] += sign * v;
        if (!mark[static_cast<std::size_t>(c)]) {
            mark[static_cast<std::size_t>(c)] = 1;
            touched.push_back(c);
        }
    };
    for (const SubmergedSample& s : samples) {
        const float fx =
            std::clamp(cellCoord(s.centroid.x, w.cellM, w.nx), 0.0f, static_cast<float>(w.nx - 1));
        const float fz =
            std::clamp(cellCoord(s.centroid.z, w.cellM, w.ny), 0.0f, static_cast<float>(w.ny - 1));
        const int i0 = std::min(static_cast<int>(fx), w.nx - 2);
        const int j0 = std::min(static_cast<int>(fz), w.ny - 2);
        const float ax = fx - static_cast<float>(i0);
        const float az = fz - static_cast<float>(j0);
        add(i0, j0, s.volume * (1.0f - ax) * (1.0f - az));
        add(i0 + 1, j0, s.volume * ax * (1.0f - az));
        add(i0, j0 + 1, s.volume * (1.0f - ax) * az);
        add(i0 + 1, j0 + 1, s.volume * ax * az);
    }
}

}  // namespace ww::splash
