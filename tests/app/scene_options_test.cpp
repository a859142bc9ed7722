// Range validation of the scene options (app/cli/scene_options.cpp): each documented bound is
// accepted and the next value past it rejected with an error naming the option; fuzzer findings
// (tests/fuzz/fuzz_config.cpp) are kept here as regression tests.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "app/cli/scene_options.h"
#include "app/scenes/splash/splash_options.h"
#include "app/scenes/wall/wall_options.h"
#include "app/scenes/wall/wall_params.h"
#include "app/scenes/water/water_options.h"

namespace ww::app {
namespace {

struct Case {
    const char* option;
    std::function<void(SceneOptionValues&)> set;
    bool valid;
};

Status validate(const SceneOptionValues& v, bool wall) {
    if (wall) {
        Result<WallSceneSettings> r = makeWallSettings(v);
        return r ? Status{} : Status{r.error()};
    }
    Result<WaterSceneSettings> r = makeWaterSettings(v, 1);
    return r ? Status{} : Status{r.error()};
}

void expectCase(const Case& c, bool wall) {
    SceneOptionValues v;
    c.set(v);
    const Status s = validate(v, wall);
    if (c.valid) {
        EXPECT_TRUE(s.ok()) << c.option << ": " << s.error().message;
    } else {
        ASSERT_FALSE(s.ok()) << c.option << " accepted";
        EXPECT_NE(s.error().message.find(std::string("--") + c.option), std::string::npos)
            << s.error().message;
    }
}

// Found by fuzz_config: "65536x65536" passed parseSize (each side <= 65536) and the brick count
// cols * rows overflowed int (undefined behaviour; UBSan aborts).
TEST(SceneOptions, WallSizeProductDoesNotOverflow) {
    for (const char* size : {"65536x65536", "65536x32768", "32768x65536", "65536x5", "513x512"}) {
        SceneOptionValues v;
        v.wall = size;
        const Result<WallSceneSettings> s = makeWallSettings(v);
        ASSERT_FALSE(s.ok()) << size;
        EXPECT_NE(s.error().message.find("at most 262144"), std::string::npos) << s.error().message;
    }
    for (const char* size : {"4096x1", "1x4096", "64x64", "100x100", "200x50", "200x100"}) {
        SceneOptionValues v;
        v.wall = size;
        EXPECT_TRUE(makeWallSettings(v).ok()) << size;
    }
}

TEST(SceneOptions, WallBoundsAcceptTheEdgeAndRejectPastIt) {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const Case cases[] = {
        {"omega", [](SceneOptionValues& v) { v.omega = 1e-30f; }, true},
        {"omega", [](SceneOptionValues& v) { v.omega = 0.0f; }, true},  // the default
        {"omega", [](SceneOptionValues& v) { v.omega = -1e-30f; }, false},
        {"omega", [=](SceneOptionValues& v) { v.omega = inf; }, false},
        {"omega", [=](SceneOptionValues& v) { v.omega = nan; }, false},
        {"iterations", [](SceneOptionValues& v) { v.iterations = "1000000"; }, true},
        {"iterations", [](SceneOptionValues& v) { v.iterations = "1000001"; }, false},
        {"iterations", [](SceneOptionValues& v) { v.iterations = "0"; }, false},
        {"iterations", [](SceneOptionValues& v) { v.iterations = "12abc"; }, false},
        {"tolerance", [](SceneOptionValues& v) { v.tolerance = 0.0f; }, true},
        {"tolerance", [](SceneOptionValues& v) { v.tolerance = -1e-30f; }, false},
        {"tolerance", [=](SceneOptionValues& v) { v.tolerance = inf; }, false},
        {"friction", [](SceneOptionValues& v) { v.friction = 10.0f; }, true},
        {"friction", [](SceneOptionValues& v) { v.friction = std::nextafter(10.0f, 11.0f); },
         false},
        {"friction", [=](SceneOptionValues& v) { v.friction = nan; }, false},
        {"erp", [](SceneOptionValues& v) { v.erp = 1.0f; }, true},
        {"erp", [](SceneOptionValues& v) { v.erp = std::nextafter(1.0f, 2.0f); }, false},
        {"substeps", [](SceneOptionValues& v) { v.substeps = 64; }, true},
        {"substeps", [](SceneOptionValues& v) { v.substeps = 65; }, false},
        {"substeps", [](SceneOptionValues& v) { v.substeps = 0; }, false},
        {"iteration-budget", [](SceneOptionValues& v) { v.iterationBudget = 0.0; }, true},
        {"iteration-budget", [](SceneOptionValues& v) { v.iterationBudget = 1e12; }, true},
        {"iteration-budget", [](SceneOptionValues& v) { v.iterationBudget = 1.000001e12; }, false},
        {"iteration-budget", [](SceneOptionValues& v) { v.iterationBudget = -1.0; }, false},
        {"iteration-budget",
         [](SceneOptionValues& v) { v.iterationBudget = std::numeric_limits<double>::quiet_NaN(); },
         false},
        {"dt", [](SceneOptionValues& v) { v.dt = 1.0f; }, true},
        {"dt", [](SceneOptionValues& v) { v.dt = std::nextafter(1.0f, 2.0f); }, false},
        {"dt", [](SceneOptionValues& v) { v.dt = -1e-30f; }, false},
        {"chebyshev-rho", [](SceneOptionValues& v) { v.chebyshevRho = 0.0f; }, true},
        {"chebyshev-rho", [](SceneOptionValues& v) { v.chebyshevRho = std::nextafter(1.0f, 0.0f); },
         true},
        {"chebyshev-rho", [](SceneOptionValues& v) { v.chebyshevRho = 1.0f; }, false},
        {"chebyshev-rho", [](SceneOptionValues& v) { v.chebyshevRho = -1e-30f; }, false},
        {"chebyshev-rho", [=](SceneOptionValues& v) { v.chebyshevRho = nan; }, false},
        {"shock-sweeps", [](SceneOptionValues& v) { v.shockSweeps = 0; }, true},
        {"shock-sweeps", [](SceneOptionValues& v) { v.shockSweeps = 1000; }, true},
        {"shock-sweeps", [](SceneOptionValues& v) { v.shockSweeps = 1001; }, false},
        {"shock-sweeps", [](SceneOptionValues& v) { v.shockSweeps = -1; }, false},
    };
    for (const Case& c : cases) {
        expectCase(c, true);
    }
}

TEST(SceneOptions, WaterBoundsAcceptTheEdgeAndRejectPastIt) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const Case cases[] = {
        {"grid", [](SceneOptionValues& v) { v.grid = "4096x8"; }, true},
        {"grid", [](SceneOptionValues& v) { v.grid = "7x8"; }, false},
        {"grid", [](SceneOptionValues& v) { v.grid = "4097x8"; }, false},
        {"grid", [](SceneOptionValues& v) { v.grid = "65536x65536"; }, false},
        {"pool-size", [](SceneOptionValues& v) { v.poolSize = 1.0e4f; }, true},
        {"pool-size", [](SceneOptionValues& v) { v.poolSize = 0.0f; }, false},
        {"wave-speed", [](SceneOptionValues& v) { v.waveSpeed = 1.0e3f; }, true},
        {"wave-speed", [=](SceneOptionValues& v) { v.waveSpeed = nan; }, false},
        {"dt", [](SceneOptionValues& v) { v.dt = 10.0f; }, true},
        {"dt", [](SceneOptionValues& v) { v.dt = 10.000001f; }, false},
        {"dt-ratio", [](SceneOptionValues& v) { v.dtRatio = 1.0e4f; }, true},
        {"dt-ratio", [](SceneOptionValues& v) { v.dtRatio = 0.0f; }, false},
        {"damping", [](SceneOptionValues& v) { v.damping = 1.0e3f; }, true},
        {"damping", [](SceneOptionValues& v) { v.damping = -1e-30f; }, false},
        {"cg-tolerance", [](SceneOptionValues& v) { v.cgTolerance = 0.99999994f; }, true},
        {"cg-tolerance", [](SceneOptionValues& v) { v.cgTolerance = 1.0f; }, false},
        {"cg-max-iterations", [](SceneOptionValues& v) { v.cgMaxIterations = 1000000; }, true},
        {"cg-max-iterations", [](SceneOptionValues& v) { v.cgMaxIterations = 0; }, false},
        {"cg-check-every", [](SceneOptionValues& v) { v.cgCheckEvery = 10000; }, true},
        {"cg-check-every", [](SceneOptionValues& v) { v.cgCheckEvery = 10001; }, false},
    };
    for (const Case& c : cases) {
        expectCase(c, false);
    }
}

// Found by fuzz_config: "dt": 1e-46 passed as a positive double and reached the water scene as
// dt = 0 (a float). Every float option, from a config file or a flag, is checked as the float
// the solvers get: a non-zero value that rounds to 0 and a value beyond float's range are errors
// naming the key (and file:line from a config), never a silent 0 or infinity.
TEST(SceneOptions, EveryFloatOptionRejectsNumbersThatAreNoFloat) {
    CLI::App app("test");
    OptionTable table(app);
    SceneOptionValues values;
    registerSceneOptions(table, values);
    const std::vector<std::string> keys = table.floatKeys();
    // The options the solvers hold as floats: each must be registered as one.
    for (const char* key : {"omega", "tolerance", "chebyshev-rho", "friction", "erp", "pool-size",
                            "wave-speed", "dt-ratio", "damping", "cg-tolerance", "dt"}) {
        EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()) << key;
    }
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("ww_float_options_" + std::to_string(::getpid()) + ".json"))
                                 .string();
    // 1e-46 and 7e-46 round to 0 (the smallest positive float is 1.4e-45); 3.5e38 is past
    // 3.4028235e38; 1e39 is float overflow.
    for (const std::string& key : keys) {
        for (const char* number : {"1e-46", "-7e-46", "1e39", "-3.5e38"}) {
            std::ofstream(path) << "{\n  \"" << key << "\": " << number << "\n}\n";
            CLI::App fileApp("test");
            OptionTable fileTable(fileApp);
            SceneOptionValues fileValues;
            registerSceneOptions(fileTable, fileValues);
            fileApp.parse(std::vector<std::string>{});
            const Status s = fileTable.applyConfig(path);
            ASSERT_FALSE(s.ok()) << key << " = " << number << " accepted from a config";
            EXPECT_NE(s.error().message.find(path + ":2: --" + key), std::string::npos)
                << s.error().message;

            CLI::App flagApp("test");
            OptionTable flagTable(flagApp);
            SceneOptionValues flagValues;
            registerSceneOptions(flagTable, flagValues);
            EXPECT_THROW(flagApp.parse(std::vector<std::string>{number, "--" + key}),
                         CLI::ValidationError)
                << "--" << key << " " << number;
        }
        // The smallest positive float itself is a float: the table passes it on unchanged.
        std::ofstream(path) << "{\"" << key << "\": 1.5e-45}";
        CLI::App okApp("test");
        OptionTable okTable(okApp);
        SceneOptionValues okValues;
        registerSceneOptions(okTable, okValues);
        okApp.parse(std::vector<std::string>{});
        const Status s = okTable.applyConfig(path);
        EXPECT_TRUE(s.ok()) << key << ": " << s.error().message;
    }
    std::filesystem::remove(path);
}

TEST(SceneOptions, SleepIsOffByDefaultAndReachesTheWorld) {
    SceneOptionValues v;
    EXPECT_EQ(v.sleep, "off");
    Result<WallSceneSettings> off = makeWallSettings(v);
    ASSERT_TRUE(off.ok());
    EXPECT_FALSE(off->world.sleep);
    v.sleep = "on";
    Result<WallSceneSettings> on = makeWallSettings(v);
    ASSERT_TRUE(on.ok());
    EXPECT_TRUE(on->world.sleep);
}


// Walls of 10 000-20 000 bricks are accepted; one that would not fit in memory is refused
// before the run with what it needs (exit 2 at the command line).
TEST(SceneOptions, WallTooBigForMemoryIsRefusedWithWhatItNeeds) {
    const double gb = 1e9;
    // 20 000 bricks need about 1 GB: fine with 8 GB, refused with 1 GB.
    EXPECT_TRUE(checkWallMemory("200x100", 20000, 8 * gb).ok());
    const Status small = checkWallMemory("200x100", 20000, 1 * gb);
    ASSERT_FALSE(small.ok());
    const std::string& m = small.error().message;
    EXPECT_NE(m.find("--wall"), std::string::npos) << m;
    EXPECT_NE(m.find("20000 bricks"), std::string::npos) << m;
    EXPECT_NE(m.find("1.0 GB"), std::string::npos) << m;
    // The estimate grows with the wall and stays above the measured peaks (271 MB at 10 000
    // bricks, 490 MB at 20 000).
    EXPECT_GT(wallMemoryBytes(10000), 271e6);
    EXPECT_GT(wallMemoryBytes(20000), 490e6);
    EXPECT_GT(wallMemoryBytes(20001), wallMemoryBytes(20000));
    // Unknown physical memory (0) does not refuse.
    EXPECT_TRUE(checkWallMemory("512x512", 262144, 0.0).ok());
}

}  // namespace
}  // namespace ww::app
