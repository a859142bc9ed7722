// The splash scene's setup, shared by the app's scene, the bench and the tests: a wall of
// bricks (rigid::addWall) standing on the pool's floor (the ground plane y = 0), moved to
// (xM, zM) from the pool's centre, around a SplashWorld's water at rest (docs/splash.md).
#pragma once

#include "solver/core/result.h"
#include "solver/rigid/scenes.h"
#include "solver/splash/splash_world.h"

namespace ww::splash {

/// The coupled world with the ground and `wall` (brick size and mass as given) centred at
/// (xM, zM); W0 is recorded (start()), so the world is ready to step.
Result<SplashWorld> makeSplashWallWorld(const SplashParams& params, const rigid::WallParams& wall,
                                        float xM = 0.0f, float zM = 0.0f);

/// `wall` with cubic bricks of side `brickSizeM` and `densityKgM3` (mass = density * side^3).
rigid::WallParams cubicBricks(rigid::WallParams wall, float brickSizeM, float densityKgM3);

/// The scene's default shot: a ball of 0.8 of a brick's half side, from 8 m in front of the wall
/// (+z) at 0.6 of its height, at 25 m/s towards it (and 1 m/s up).
rigid::ShotParams shotAtWall(const rigid::WallParams& wall, float xM = 0.0f, float zM = 0.0f);

}  // namespace ww::splash
