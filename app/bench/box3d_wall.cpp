// The wall in Box3D (wall_peers.h): Erin Catto's soft-step solver (a substepped, relaxed
// Gauss-Seidel on soft contact constraints, as Box2D v3), 4 substeps per 1/60 s step (the count
// Box3D's own benchmark runs), box hulls on a static 800 x 2 x 800 m box whose top face is the
// ground plane y = 0, sleeping off. Friction mu on every shape: Box3D mixes two shapes'
// coefficients as sqrt(mu_a mu_b), so every contact gets mu. Everything else is Box3D's default
// world (contact hertz 30, damping ratio 10, push-out speed <= 3 m/s, continuous collision of
// fast bodies against static ones). Threads: Box3D's own scheduler with workerCount = the
// bench's thread count (b3WorldDef without task callbacks starts workerCount - 1 threads of its
// own, as its benchmark app does); 1 runs on the caller alone.
#include <box3d/box3d.h>

#include <algorithm>
#include <cstdio>

#include "app/bench/wall_peers.h"

namespace ww::bench {
namespace {

constexpr int kSubSteps = 4;
constexpr float kGroundHalfExtentM = 400.0f;
constexpr float kPi = 3.14159265358979f;

b3Vec3 toB3(const rigid::Vec3& v) {
    return {v.x, v.y, v.z};
}

class Box3dWall final : public PeerWall {
  public:
    Box3dWall(const PeerWallSetup& s, int threads) : m_dt(s.dtSeconds), m_friction(s.friction) {
        b3WorldDef def = b3DefaultWorldDef();
        def.gravity = {0.0f, -9.81f, 0.0f};
        def.enableSleep = false;
        def.workerCount = static_cast<uint32_t>(std::clamp(threads, 1, B3_MAX_WORKERS));
        m_world = b3CreateWorld(&def);

        b3BodyDef ground = b3DefaultBodyDef();
        ground.position = {0.0f, -1.0f, 0.0f};
        const b3BodyId groundId = b3CreateBody(m_world, &ground);
        const b3BoxHull slab = b3MakeBoxHull(kGroundHalfExtentM, 1.0f, kGroundHalfExtentM);
        const b3ShapeDef groundShape = shapeDef(0.0f);
        b3CreateHullShape(groundId, &groundShape, &slab.base);

        const rigid::Vec3 h = s.brickHalfExtents;
        m_brickHull = b3MakeBoxHull(h.x, h.y, h.z);
        const b3ShapeDef brickShape = shapeDef(s.brickMassKg / (8.0f * h.x * h.y * h.z));
        m_bricks.reserve(s.brickCentres.size());
        for (const rigid::Vec3& c : s.brickCentres) {
            const b3BodyId id = addBody(c, {});
            b3CreateHullShape(id, &brickShape, &m_brickHull.base);
            m_bricks.push_back(id);
        }
    }

    ~Box3dWall() override { b3DestroyWorld(m_world); }

    Box3dWall(const Box3dWall&) = delete;
    Box3dWall& operator=(const Box3dWall&) = delete;

    void step() override { b3World_Step(m_world, m_dt, kSubSteps); }

    void shoot(const PeerShot& shot) override {
        const float volume = 4.0f / 3.0f * kPi * shot.radiusM * shot.radiusM * shot.radiusM;
        const b3ShapeDef def = shapeDef(shot.massKg / volume);
        b3Sphere sphere{};
        sphere.radius = shot.radiusM;
        b3CreateSphereShape(addBody(shot.from, shot.velocityMps), &def, &sphere);
    }

    void brickPoses(std::vector<BrickPose>& out) const override {
        out.resize(m_bricks.size());
        for (std::size_t i = 0; i < m_bricks.size(); ++i) {
            const b3Pos p = b3Body_GetPosition(m_bricks[i]);
            const b3Quat q = b3Body_GetRotation(m_bricks[i]);
            out[i] = {{static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)},
                      {q.s, q.v.x, q.v.y, q.v.z}};
        }
    }

    rigid::Vec3 brickWorldPoint(std::size_t brick, const rigid::Vec3& local) const override {
        const b3Pos w = b3Body_GetWorldPoint(m_bricks.at(brick), {local.x, local.y, local.z});
        return {static_cast<float>(w.x), static_cast<float>(w.y), static_cast<float>(w.z)};
    }

  private:
    b3ShapeDef shapeDef(float densityKgPerM3) const {
        b3ShapeDef def = b3DefaultShapeDef();
        def.density = densityKgPerM3;
        def.baseMaterial.friction = m_friction;
        def.baseMaterial.restitution = 0.0f;
        return def;
    }

    b3BodyId addBody(const rigid::Vec3& position, const rigid::Vec3& velocity) {
        b3BodyDef def = b3DefaultBodyDef();
        def.type = b3_dynamicBody;
        def.position = {position.x, position.y, position.z};
        def.linearVelocity = toB3(velocity);
        def.enableSleep = false;
        return b3CreateBody(m_world, &def);
    }

    b3WorldId m_world{};
    b3BoxHull m_brickHull{};
    std::vector<b3BodyId> m_bricks;
    float m_dt;
    float m_friction;
};

}  // namespace

std::unique_ptr<PeerWall> makeBox3dWall(const PeerWallSetup& setup, int threads) {
    return std::make_unique<Box3dWall>(setup, threads);
}

std::string box3dDescription(int threads) {
    const b3Version v = b3GetVersion();
    const b3WorldDef def = b3DefaultWorldDef();
    char text[240];
    std::snprintf(text, sizeof text,
                  "Box3D %d.%d.%d: soft step (substepped relaxed Gauss-Seidel), %d substeps, "
                  "contact %.0f Hz, damping ratio %.0f, push-out <= %.0f m/s, no sleeping, "
                  "mu on every shape (sqrt mixing), its own scheduler, %d threads",
                  v.major, v.minor, v.revision, kSubSteps, static_cast<double>(def.contactHertz),
                  static_cast<double>(def.contactDampingRatio),
                  static_cast<double>(def.contactSpeed), std::clamp(threads, 1, B3_MAX_WORKERS));
    return text;
}

}  // namespace ww::bench
