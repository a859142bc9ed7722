// The wall against its peers (`wavewall bench --suite wall`, after the suite's own rows): the
// SAME wall of unit cubes in exactly touching columns, awake, built from rigid::addWall's
// poses, stepped at 60 Hz by our rigid::World (default WorldParams, CPU backend), by Bullet
// (btDiscreteDynamicsWorld + btSequentialImpulseConstraintSolver, 10 iterations), by ODE
// (dWorldQuickStep, 20 iterations) and by Box3D (its soft step, 4 substeps, on the bench's
// thread count), with the same Coulomb friction mu = WorldParams{}.friction.
// Walls 10x6, 20x20 and 40x25 (cols x rows; --walls), each twice: at rest for 30 s (the largest
// brick drift after 10 s and after 30 s; stands while no brick drifts more than 5 cm from its
// start) and shot by a 10 kg sphere of radius 0.4 m at 20 m/s for 5 s (per-step ms p50 / p95 /
// max). Each run stops after a wall-clock cap, so a slow engine is reported as stopped instead of
// hanging the bench, and an engine that stops on an internal error (PeerFailure) is reported as
// failed at that step while the others run on. A peer missing at build time (pkg-config `bullet`,
// `ode`; Box3D: CMake's WW_BOX3D_ROOT, docs/benchmarks.md) is skipped with a line saying what to
// install.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/bench/bench.h"
#include "solver/rigid/math3.h"
#include "solver/rigid/world.h"

namespace ww::bench {

/// What every engine builds: boxes on the ground plane y = 0, gravity -9.81 m/s^2 along y.
struct PeerWallSetup {
    std::vector<rigid::Vec3> brickCentres;  ///< m, bricks axis-aligned
    rigid::Vec3 brickHalfExtents{0.5f, 0.5f, 0.5f};
    float brickMassKg = 1.0f;
    float friction = 0.6f;  ///< Coulomb mu of every contact (brick-brick, brick-ground, sphere)
    float dtSeconds = 1.0f / 60.0f;
};

/// The projectile of the collapse run.
struct PeerShot {
    rigid::Vec3 from;
    rigid::Vec3 velocityMps;
    float radiusM = 0.4f;
    float massKg = 10.0f;
};

/// What a peer's step throws when its engine stops on an internal error (ODE's assertions,
/// which otherwise abort the process): the run ends at that step and says why. The peer's
/// world is then abandoned, not destroyed (its state is no longer consistent).
class PeerFailure : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// Where a brick is: its centre (m) and its rotation from the brick's frame to the world.
struct BrickPose {
    rigid::Vec3 centre;
    rigid::Quat rotation;
};

/// One engine's wall. Bricks keep the order of PeerWallSetup::brickCentres.
class PeerWall {
  public:
    virtual ~PeerWall() = default;
    /// Advances by PeerWallSetup::dtSeconds (collision detection included).
    virtual void step() = 0;
    /// Adds the sphere, moving.
    virtual void shoot(const PeerShot& shot) = 0;
    /// Current brick poses.
    virtual void brickPoses(std::vector<BrickPose>& out) const = 0;
    /// Where the engine itself puts the point `local` (m, in brick `brick`'s frame) in the
    /// world, through its own transform: what the tests hold brickPoses' rotations against
    /// (each engine orders a quaternion's components its own way).
    virtual rigid::Vec3 brickWorldPoint(std::size_t brick, const rigid::Vec3& local) const = 0;
    /// Current brick centres, m.
    void brickCentres(std::vector<rigid::Vec3>& out) const;
};

/// The deepest overlap (m, >= 0) between two of the bricks at `poses` (boxes of
/// setup.brickHalfExtents) or between a brick and the ground plane y = 0, measured with our
/// narrow phase (the separating axis test's points, as `--check` measures our own contacts):
/// one measure of how far an engine lets bodies sink into each other, the same for every
/// engine. Non-finite poses are skipped.
double deepestOverlapM(const PeerWallSetup& setup, const std::vector<BrickPose>& poses);

/// The bricks of rigid::addWall for `size`, columns exactly touching (the whole wall one
/// island), with WorldParams{}'s friction and dt: what every engine builds.
PeerWallSetup peerWallSetup(const WallSize& size);

/// Our rigid::World (`params`, CPU backend, `executor`'s threads) on the wall of
/// peerWallSetup(size).
std::unique_ptr<PeerWall> makeOurWall(std::shared_ptr<const exec::Executor> executor,
                                      const WallSize& size,
                                      const rigid::WorldParams& params = rigid::WorldParams{});

#if WW_HAVE_BULLET
/// Bullet (bullet_wall.cpp); its settings are listed there and in docs/benchmarks.md.
std::unique_ptr<PeerWall> makeBulletWall(const PeerWallSetup& setup);
/// "Bullet 3.24, ..." : version and solver settings, for the table's header.
std::string bulletDescription();
#endif
#if WW_HAVE_ODE
/// ODE (ode_wall.cpp); its settings are listed there and in docs/benchmarks.md.
std::unique_ptr<PeerWall> makeOdeWall(const PeerWallSetup& setup);
std::string odeDescription();
#endif
#if WW_HAVE_BOX3D
/// Box3D (box3d_wall.cpp) on `threads` workers of its own scheduler (1: the caller alone).
std::unique_ptr<PeerWall> makeBox3dWall(const PeerWallSetup& setup, int threads);
std::string box3dDescription(int threads);
#endif

/// The line printed for a peer this build lacks ("peers skipped: Box3D not found ..."); empty
/// when the build has it. peer: "bullet", "ode" or "box3d".
std::string peerSkipLine(const std::string& peer);

/// Runs every engine on every wall (opts.quick: 10x6 only, a few steps per run), prints the
/// table and adds one record per run (suite "wall", name "peers-rest" / "peers-collapse",
/// size "COLSxROWS", backend = the engine: "wavewall-cpu", "bullet", "ode", "box3d").
void runWallPeers(const Options& opts, Recorder& recorder);

}  // namespace ww::bench
