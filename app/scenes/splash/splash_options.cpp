#include "app/scenes/splash/splash_options.h"

#include <algorithm>

#include "app/scenes/splash/splash_params.h"
#include "app/scenes/wall/wall_options.h"
#include "app/scenes/water/water_options.h"
#include "solver/splash/splash_scenes.h"

namespace ww::app {

Result<SplashSceneSettings> makeSplashSettings(const SceneOptionValues& v) {
    // The splash stands a wall in the pool: the other layouts (pyramid, stack, slide) are the
    // wall scene's, and would otherwise be dropped without a word.
    if (v.layout != "wall") {
        return paramError("layout", "'" + v.layout +
                                        "' is the wall scene's: the splash scene stands a wall "
                                        "in the pool (leave --layout out, or give wall)");
    }
    Result<WallSceneSettings> wall = makeWallSettings(v);
    if (!wall) {
        return wall.error();
    }
    Result<WaterSceneSettings> water = makeWaterSettings(v, 1);
    if (!water) {
        return water.error();
    }
    SplashSceneSettings s;
    s.splash.executor = wall->executor;
    s.splash.world = wall->world;
    s.splash.wave = water->wave;
    s.wall = wall->wall;
    if (Status st = writeParams(splashParams(), v, s); !st) {
        return st.error();
    }
    // The columns keep the wall scene's spacing: standing in water they come into contact and
    // the wall becomes one LCP island (docs/splash.md); a wider gap would only hide that.
    s.maxPenetrationM = std::min(0.05f, 0.1f * v.brickSize);  // beyond one step's approach
    if (Status st = checkSplashFit(s); !st) {
        return st.error();
    }
    s.shot = splash::shotAtWall(s.wall, s.wallXM, s.wallZM);
    return s;
}

Result<std::unique_ptr<SimScene>> makeSplashScene(const SceneBuild& b) {
    Result<SplashSceneSettings> s = makeSplashSettings(b.values);
    if (!s) {
        return s.error();
    }
    Result<std::unique_ptr<SplashScene>> scene = SplashScene::create(std::move(s).value());
    if (!scene) {
        return scene.error();
    }
    return std::unique_ptr<SimScene>(std::move(scene).value());
}

}  // namespace ww::app
