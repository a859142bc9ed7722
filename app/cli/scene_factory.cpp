#include "app/cli/scene_factory.h"

namespace ww::app {

Result<std::unique_ptr<SimScene>> makeScene(const std::string& name, const SceneOptionValues& v,
                                            std::uint64_t seed) {
    if (name == "wall") {
        Result<WallSceneSettings> s = makeWallSettings(v);
        if (!s) {
            return s.error();
        }
        return std::unique_ptr<SimScene>(std::make_unique<WallScene>(std::move(s).value()));
    }
    if (name == "water") {
        Result<WaterSceneSettings> s = makeWaterSettings(v, seed);
        if (!s) {
            return s.error();
        }
        Result<std::unique_ptr<WaterScene>> scene = WaterScene::create(std::move(s).value());
        if (!scene) {
            return scene.error();
        }
        return std::unique_ptr<SimScene>(std::move(scene).value());
    }
    if (name == "splash") {
        Result<SplashSceneSettings> s = makeSplashSettings(v);
        if (!s) {
            return s.error();
        }
        Result<std::unique_ptr<SplashScene>> scene = SplashScene::create(std::move(s).value());
        if (!scene) {
            return scene.error();
        }
        return std::unique_ptr<SimScene>(std::move(scene).value());
    }
    return inputError("--scene '" + name + "' is not a scene (use wall, water or splash)");
}

}  // namespace ww::app
