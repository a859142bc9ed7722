// Scene builders and events for the rigid-body world. Scenes are code taking plain parameter
// structs; the app loads those structs from assets/*.json. All scenes stand on a static
// ground plane y = 0 (normal +y); lengths in metres, masses in kilograms.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "solver/rigid/world.h"

namespace ww::rigid {

/// Moravanszky's wall: cols x rows cubes in aligned columns, rows exactly touching.
struct WallParams {
    int cols = 10;
    int rows = 6;
    Vec3 brickHalfExtents{0.5f, 0.5f, 0.5f};  ///< unit cubes by default
    float brickMassKg = 1.0f;
    /// Horizontal gap between neighbouring columns, m. 0 (the paper's wall): the columns touch
    /// and the whole wall is one island, posed matrix-free from kMatrixFreeMinRows rows; a gap
    /// splits it into one small island per column (docs/rigid.md).
    float columnGapM = 0.0f;
    /// Random placement noise (uniform, +-jitterM in x and z, +-jitterM rad of yaw), drawn
    /// from `seed` with a fixed LCG so that one seed gives one wall on every platform.
    /// 0 = the exact wall.
    float jitterM = 0.0f;
    std::uint32_t seed = 1;
};

struct PyramidParams {
    int baseCount = 6;  ///< bricks in the bottom row; each row up has one fewer, offset by half
    Vec3 brickHalfExtents{0.5f, 0.5f, 0.5f};
    float brickMassKg = 1.0f;
    float gapM = 0.02f;
};

struct StackParams {
    int height = 10;
    Vec3 brickHalfExtents{0.5f, 0.5f, 0.5f};
    float brickMassKg = 1.0f;
};

/// One brick resting face-down on the ground, launched horizontally: Coulomb friction brakes it
/// at mu g, so with restitution 0 it stops after d = v^2 / (2 mu g), the same in every direction
/// for an isotropic friction cone (docs/rigid.md, "Friction cone").
struct SlideParams {
    float speedMps = 6.0f;  ///< launch speed v, m/s
    float angleDeg = 0.0f;  ///< launch direction about +y: 0 = +x, 90 = +z
    Vec3 brickHalfExtents{0.5f, 0.5f, 0.5f};
    float brickMassKg = 1.0f;
};

/// A sphere shot from `from` with `velocity`; defaults aim at the middle of the default wall.
struct ShotParams {
    Vec3 from{0.0f, 2.5f, 8.0f};
    Vec3 velocity{0.0f, 1.0f, -25.0f};  ///< m/s
    float radiusM = 0.4f;
    float massKg = 20.0f;
};

/// Brick tags: (row << 16) | col; projectiles have tag -1.
inline std::int32_t brickTag(int col, int row) {
    return (row << 16) | col;
}

/// Drift and speed of a scene's bricks (boxes with a tag >= 0; projectiles excluded), for
/// --check, summaries and tests. Start positions are kept by tag, so removing bricks is fine.
class DriftMonitor {
  public:
    /// Records the current positions of the tagged boxes as their start.
    explicit DriftMonitor(const World& world);
    struct Motion {
        float maxDriftM = 0.0f;    ///< largest distance of a brick from its start, m
        float maxSpeedMps = 0.0f;  ///< largest brick speed, m/s
    };
    Motion measure(const World& world) const;

  private:
    std::vector<std::pair<std::int32_t, Vec3>> m_start;  ///< sorted by tag
};

/// Adds the ground plane y = 0; returns its body index.
int addGround(World& world);
/// Adds the bricks of a wall standing on y = 0, centred on x = 0, z = 0.
void addWall(World& world, const WallParams& p);
void addPyramid(World& world, const PyramidParams& p);
void addStack(World& world, const StackParams& p);
/// Adds the slide's brick (tag brickTag(0, 0)) resting on y = 0 at the origin, moving at
/// p.speedMps in direction slideDirection(p); returns its body index.
int addSlide(World& world, const SlideParams& p);
/// Unit launch direction of the slide: (cos a, 0, sin a).
Vec3 slideDirection(const SlideParams& p);

/// How far and in which direction a slid brick went: the horizontal displacement's length
/// (m) and its angle to the launch direction (degrees).
struct SlideOutcome {
    float distanceM = 0.0f;
    float directionErrorDeg = 0.0f;
};
SlideOutcome slideOutcome(const SlideParams& p, const Vec3& start, const Vec3& now);

/// A new world with ground + wall, scratch reserved.
World makeWallWorld(std::shared_ptr<const exec::Executor> executor, const WallParams& wall,
                    const WorldParams& params = {});

/// Adds a sphere moving with the shot's velocity; returns its body index.
int shootSphere(World& world, const ShotParams& shot);
/// Body index of brick (col, row), if present.
std::optional<int> findBrick(const World& world, int col, int row);
/// Removes brick (col, row); false if there is no such brick.
bool removeBrick(World& world, int col, int row);
/// Adds `deltaVelocity` (m/s) to brick (col, row); false if there is no such brick.
bool pushBrick(World& world, int col, int row, const Vec3& deltaVelocity);

}  // namespace ww::rigid
