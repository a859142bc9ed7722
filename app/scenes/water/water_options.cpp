#include "app/scenes/water/water_options.h"

#include "app/cli/thread_option.h"
#include "app/scenes/water/water_params.h"

namespace ww::app {

Result<WaterSceneSettings> makeWaterSettings(const SceneOptionValues& v, std::uint64_t seed) {
    WaterSceneSettings s;
    if (auto ex = executorFor(v.threads); !ex) {
        return ex.error();
    } else {
        s.executor = std::move(ex).value();
    }
    s.seed = seed;
    if (Status st = writeParams(waterParams(), v, s.wave); !st) {
        return st.error();
    }
    // --dt, when given, is the step and --dt-ratio is not used.
    if (v.dt != 0.0f) {
        if (!(v.dt > 0.0f) || v.dt > 10.0f) {
            return paramError("dt", "must be in (0, 10] seconds");
        }
        s.wave.dtSeconds = v.dt;
        s.wave.dtRatio = 0.0f;
    }
    return s;
}

Result<std::unique_ptr<SimScene>> makeWaterScene(const SceneBuild& b) {
    Result<WaterSceneSettings> s = makeWaterSettings(b.values, b.seed);
    if (!s) {
        return s.error();
    }
    s->initialDrop = b.initialDrop;
    s->energyEvery = b.diagnosticsEvery;
    s->wave.cg.recordHistory = s->wave.cg.recordHistory || b.recordHistory;
    Result<std::unique_ptr<WaterScene>> scene = WaterScene::create(std::move(s).value());
    if (!scene) {
        return scene.error();
    }
    return std::unique_ptr<SimScene>(std::move(scene).value());
}

}  // namespace ww::app
