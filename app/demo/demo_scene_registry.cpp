#include "app/demo/demo_scene_registry.h"

#include "app/demo/splash_demo_scene.h"
#include "app/demo/wall_demo_scene.h"
#include "app/demo/water_demo_scene.h"

namespace ww::app {

namespace {

Result<std::unique_ptr<demo::DemoScene>> wrapWall(std::unique_ptr<SimScene> scene,
                                                  DemoAdapterInputs in) {
    auto* wall = dynamic_cast<WallScene*>(scene.get());
    if (wall == nullptr) {
        return inputError("demo: the wall adapter needs a wall scene");
    }
    auto out = std::make_unique<WallDemoScene>(wall->settings(), in.shaders);
    out->setScript(std::move(in.script));
    out->setSolveBudgetMs(in.solveBudgetMs);
    return std::unique_ptr<demo::DemoScene>(std::move(out));
}

Result<std::unique_ptr<demo::DemoScene>> wrapWater(std::unique_ptr<SimScene> scene,
                                                   DemoAdapterInputs in) {
    if (dynamic_cast<WaterScene*>(scene.get()) == nullptr) {
        return inputError("demo: the water adapter needs a water scene");
    }
    std::unique_ptr<WaterDemoScene> out = WaterDemoScene::adopt(
        std::unique_ptr<WaterScene>(static_cast<WaterScene*>(scene.release())), in.shaders);
    out->setScript(std::move(in.script));
    return std::unique_ptr<demo::DemoScene>(std::move(out));
}

Result<std::unique_ptr<demo::DemoScene>> wrapSplash(std::unique_ptr<SimScene> scene,
                                                    DemoAdapterInputs in) {
    if (dynamic_cast<SplashScene*>(scene.get()) == nullptr) {
        return inputError("demo: the splash adapter needs a splash scene");
    }
    std::unique_ptr<SplashDemoScene> out = SplashDemoScene::adopt(
        std::unique_ptr<SplashScene>(static_cast<SplashScene*>(scene.release())), in.shaders);
    out->setScript(std::move(in.script));
    return std::unique_ptr<demo::DemoScene>(std::move(out));
}

constexpr DemoSceneEntry kEntries[] = {
    {"wall", wrapWall, true},
    {"water", wrapWater, true},
    {"splash", wrapSplash, true},
};

}  // namespace

std::span<const DemoSceneEntry> demoSceneRegistry() {
    return kEntries;
}

const DemoSceneEntry* findDemoScene(std::string_view name) {
    for (const DemoSceneEntry& e : kEntries) {
        if (name == e.name) {
            return &e;
        }
    }
    return nullptr;
}

}  // namespace ww::app
