// The splash scene's setup (see splash_scenes.h).
#include "solver/splash/splash_scenes.h"

namespace ww::splash {

Result<SplashWorld> makeSplashWallWorld(const SplashParams& params, const rigid::WallParams& wall,
                                        float xM, float zM) {
    Result<SplashWorld> made = SplashWorld::create(params);
    if (!made) {
        return made.error();
    }
    SplashWorld w = std::move(made).value();
    rigid::World& world = w.world();
    const int bricks = wall.cols * wall.rows;
    world.reserve(bricks + 16, 16 * bricks + 64);
    rigid::addGround(world);
    rigid::addWall(world, wall);
    for (int i = 0; i < world.bodyCount(); ++i) {
        if (world.bodies()[static_cast<std::size_t>(i)].tag >= 0) {
            world.body(i).position += rigid::Vec3{xM, 0.0f, zM};
        }
    }
    w.start();
    return w;
}

rigid::WallParams cubicBricks(rigid::WallParams wall, float brickSizeM, float densityKgM3) {
    const float half = 0.5f * brickSizeM;
    wall.brickHalfExtents = {half, half, half};
    wall.brickMassKg = densityKgM3 * brickSizeM * brickSizeM * brickSizeM;
    return wall;
}

rigid::ShotParams shotAtWall(const rigid::WallParams& wall, float xM, float zM) {
    const float height = static_cast<float>(wall.rows) * 2.0f * wall.brickHalfExtents.y;
    rigid::ShotParams shot;
    shot.from = {xM, 0.6f * height, zM + 8.0f};
    shot.velocity = {0.0f, 1.0f, -25.0f};
    shot.radiusM = 0.8f * wall.brickHalfExtents.x;
    // A steel ball: heavy enough (4.2 bricks of density 500 at the default sizes) to bring the
    // wall down, as a shot in the wall scene does with its light bricks.
    constexpr float kSteelDensityKgM3 = 7850.0f;
    shot.massKg = kSteelDensityKgM3 * 4.18879020f * shot.radiusM * shot.radiusM * shot.radiusM;
    return shot;
}

}  // namespace ww::splash
