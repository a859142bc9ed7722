// Scene builders and events (see scenes.h).
#include "solver/rigid/scenes.h"

#include <algorithm>
#include <cmath>

namespace ww::rigid {
namespace {

/// Uniform in [-1, 1) from a 32-bit LCG (Numerical Recipes constants): portable, unlike the
/// standard distributions.
float nextSigned(std::uint32_t& state) {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) * 0x1.0p-23f - 1.0f;
}

}  // namespace

DriftMonitor::DriftMonitor(const World& world) {
    for (const Body& b : world.bodies()) {
        if (b.kind == BodyKind::kBox && b.tag >= 0) {
            m_start.emplace_back(b.tag, b.position);
        }
    }
    std::sort(m_start.begin(), m_start.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
}

DriftMonitor::Motion DriftMonitor::measure(const World& world) const {
    Motion m;
    for (const Body& b : world.bodies()) {
        if (b.kind != BodyKind::kBox || b.tag < 0) {
            continue;
        }
        const auto it = std::lower_bound(
            m_start.begin(), m_start.end(), b.tag,
            [](const std::pair<std::int32_t, Vec3>& e, std::int32_t tag) { return e.first < tag; });
        if (it != m_start.end() && it->first == b.tag) {
            m.maxDriftM = std::max(m.maxDriftM, length(b.position - it->second));
        }
        m.maxSpeedMps = std::max(m.maxSpeedMps, length(b.linearVelocity));
    }
    return m;
}

int addGround(World& world) {
    BodyDesc d;
    d.kind = BodyKind::kPlane;
    d.position = {0.0f, 0.0f, 0.0f};
    d.planeNormal = {0.0f, 1.0f, 0.0f};
    d.massKg = 0.0f;
    return world.addBody(d);
}

void addWall(World& world, const WallParams& p) {
    const Vec3 h = p.brickHalfExtents;
    const float pitch = 2.0f * h.x + p.columnGapM;
    std::uint32_t rng = p.seed;
    for (int r = 0; r < p.rows; ++r) {
        for (int c = 0; c < p.cols; ++c) {
            BodyDesc d;
            d.kind = BodyKind::kBox;
            d.halfExtents = h;
            d.massKg = p.brickMassKg;
            d.position = {(static_cast<float>(c) - 0.5f * static_cast<float>(p.cols - 1)) * pitch,
                          h.y * static_cast<float>(2 * r + 1), 0.0f};
            if (p.jitterM > 0.0f) {
                d.position.x += p.jitterM * nextSigned(rng);
                d.position.z += p.jitterM * nextSigned(rng);
                d.orientation = axisAngle({0.0f, 1.0f, 0.0f}, p.jitterM * nextSigned(rng));
            }
            d.tag = brickTag(c, r);
            world.addBody(d);
        }
    }
}

void addPyramid(World& world, const PyramidParams& p) {
    const Vec3 h = p.brickHalfExtents;
    const float pitch = 2.0f * h.x + p.gapM;
    for (int r = 0; r < p.baseCount; ++r) {
        const int count = p.baseCount - r;
        for (int c = 0; c < count; ++c) {
            BodyDesc d;
            d.halfExtents = h;
            d.massKg = p.brickMassKg;
            d.position = {(static_cast<float>(c) - 0.5f * static_cast<float>(count - 1)) * pitch,
                          h.y * static_cast<float>(2 * r + 1), 0.0f};
            d.tag = brickTag(c, r);
            world.addBody(d);
        }
    }
}

void addStack(World& world, const StackParams& p) {
    for (int r = 0; r < p.height; ++r) {
        BodyDesc d;
        d.halfExtents = p.brickHalfExtents;
        d.massKg = p.brickMassKg;
        d.position = {0.0f, p.brickHalfExtents.y * static_cast<float>(2 * r + 1), 0.0f};
        d.tag = brickTag(0, r);
        world.addBody(d);
    }
}

Vec3 slideDirection(const SlideParams& p) {
    const float a = p.angleDeg * 3.14159265f / 180.0f;
    return {std::cos(a), 0.0f, std::sin(a)};
}

int addSlide(World& world, const SlideParams& p) {
    BodyDesc d;
    d.halfExtents = p.brickHalfExtents;
    d.massKg = p.brickMassKg;
    d.position = {0.0f, p.brickHalfExtents.y, 0.0f};
    d.linearVelocity = slideDirection(p) * p.speedMps;
    d.tag = brickTag(0, 0);
    return world.addBody(d);
}

SlideOutcome slideOutcome(const SlideParams& p, const Vec3& start, const Vec3& now) {
    const Vec3 moved{now.x - start.x, 0.0f, now.z - start.z};
    SlideOutcome out;
    out.distanceM = length(moved);
    const Vec3 dir = slideDirection(p);
    // atan2 of the sine and cosine parts: accurate for small angles, where acos is not.
    const float sine = std::abs(moved.z * dir.x - moved.x * dir.z);
    out.directionErrorDeg = std::atan2(sine, dot(moved, dir)) * 180.0f / 3.14159265f;
    return out;
}

World makeWallWorld(std::shared_ptr<const exec::Executor> executor, const WallParams& wall,
                    const WorldParams& params) {
    World w(std::move(executor), params);
    const int bricks = wall.cols * wall.rows;
    w.reserve(bricks + 16, 16 * bricks + 64);
    addGround(w);
    addWall(w, wall);
    return w;
}

int shootSphere(World& world, const ShotParams& shot) {
    BodyDesc d;
    d.kind = BodyKind::kSphere;
    d.position = shot.from;
    d.radius = shot.radiusM;
    d.massKg = shot.massKg;
    d.linearVelocity = shot.velocity;
    return world.addBody(d);
}

std::optional<int> findBrick(const World& world, int col, int row) {
    const std::int32_t tag = brickTag(col, row);
    for (int i = 0; i < world.bodyCount(); ++i) {
        const Body& b = world.bodies()[i];
        if (b.kind == BodyKind::kBox && b.tag == tag) {
            return i;
        }
    }
    return std::nullopt;
}

bool removeBrick(World& world, int col, int row) {
    const auto i = findBrick(world, col, row);
    if (!i) {
        return false;
    }
    world.removeBody(*i);
    return true;
}

bool pushBrick(World& world, int col, int row, const Vec3& deltaVelocity) {
    const auto i = findBrick(world, col, row);
    if (!i) {
        return false;
    }
    world.body(*i).linearVelocity += deltaVelocity;
    return true;
}

}  // namespace ww::rigid
