// libFuzzer target: a config file goes through what `wavewall headless --config` does before a
// run — JSON parsing, key lookup and type checks of the option table (the scene options and
// the command's own), then the range validation of both scenes' settings (makeWallSettings,
// makeWaterSettings, as scene_registry calls them) — and must end in valid settings or an
// Error: no crash, no undefined behaviour. Settings that pass are checked against the ranges
// docs/cli.md promises; a value let through out of range aborts (a finding).
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app/cli/option_table.h"
#include "app/cli/scene_options.h"
#include "app/scenes/wall/wall_options.h"
#include "app/scenes/wall/wall_params.h"
#include "app/scenes/water/water_options.h"

namespace {

void require(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "fuzz_config: validation let through %s\n", what);
        std::abort();
    }
}

void checkWall(const ww::app::WallSceneSettings& s) {
    require(s.wall.cols >= 1 && s.wall.rows >= 1, "a wall size below 1x1");
    require(static_cast<long long>(s.wall.cols) * s.wall.rows <= ww::app::kMaxWallBricks,
            "more bricks than kMaxWallBricks");
    const ww::rigid::WorldParams& w = s.world;
    require(std::isfinite(w.lcp.omega) && w.lcp.omega > 0.0f, "omega <= 0 or not finite");
    require(w.lcp.maxIterations >= 0 && w.lcp.maxIterations <= 1000000, "iterations");
    require(std::isfinite(w.lcp.tolerance) && w.lcp.tolerance >= 0.0f, "tolerance");
    require(w.friction >= 0.0f && w.friction <= 10.0f, "friction outside [0, 10]");
    require(w.erp >= 0.0f && w.erp <= 1.0f, "erp outside [0, 1]");
    require(w.substeps >= 1 && w.substeps <= 64, "substeps outside [1, 64]");
    require(w.dtSeconds > 0.0f && w.dtSeconds <= 1.0f, "wall dt outside (0, 1]");
}

void checkWater(const ww::app::WaterSceneSettings& s) {
    const ww::wave::WaveParams& p = s.wave;
    require(p.nx >= 8 && p.ny >= 8 && p.nx <= 4096 && p.ny <= 4096, "a grid outside 8..4096");
    require(p.poolSizeM > 0.0f && p.poolSizeM <= 1.0e4f, "pool size");
    require(p.waveSpeed > 0.0f && p.waveSpeed <= 1.0e3f, "wave speed");
    require((p.dtRatio == 0.0f && p.dtSeconds > 0.0f && p.dtSeconds <= 10.0f) ||
                (p.dtRatio > 0.0f && p.dtRatio <= 1.0e4f),
            "neither a dt in (0, 10] s nor a dt ratio in (0, 1e4]");
    require(p.damping >= 0.0f && p.damping <= 1.0e3f, "damping");
    require(p.cg.tolerance > 0.0f && p.cg.tolerance < 1.0f, "cg tolerance outside (0, 1)");
    require(p.cg.maxIterations >= 1 && p.cg.maxIterations <= 1000000, "cg max iterations");
    require(p.cg.checkEvery >= 1 && p.cg.checkEvery <= 10000, "cg check every");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = "/tmp/ww_fuzz_cfg_" + std::to_string(::getpid()) + ".json";
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) {
        return 0;
    }
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    CLI::App app("fuzz");
    ww::app::OptionTable table(app);
    // The options `wavewall headless` registers besides the scene options.
    std::string scene = "wall", backend = "auto";
    int steps = 600, warmUp = 1000;
    std::uint64_t seed = 1;
    table.add("scene", scene, "", {"wall", "water"});
    table.add("backend", backend, "", {"cpu", "gpu", "auto"});
    table.add("steps", steps, "");
    table.add("warm-up-steps", warmUp, "");
    table.add("seed", seed, "");
    ww::app::SceneOptionValues values;
    ww::app::registerSceneOptions(table, values);
    app.parse(std::vector<std::string>{});
    if (!table.applyConfig(path)) {
        return 0;
    }
    if (auto wall = ww::app::makeWallSettings(values)) {
        checkWall(*wall);
    } else {
        require(!wall.error().message.empty(), "an error without a message");
    }
    if (auto water = ww::app::makeWaterSettings(values, seed)) {
        checkWater(*water);
    } else {
        require(!water.error().message.empty(), "an error without a message");
    }
    return 0;
}
