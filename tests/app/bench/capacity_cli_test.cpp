// `wavewall bench --suite capacity` from the executable: nonsensical limits exit 2 naming the
// flag, before anything runs; the quick suite prints its table and writes a wall record per
// engine this build has (ours, Box3D) and a water record per thread count, the Box3D skip line
// where the build lacks it. No timing is checked.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/run_command.h"
#include "support/seed.h"

namespace ww {
namespace {

test::CommandResult bench(const std::string& args) {
    return test::runShell(std::string(WW_WAVEWALL_EXE) + " bench --backend cpu " + args);
}

TEST(CapacityCli, NonsensicalLimitsExit2WithTheReason) {
    struct Case {
        const char* args;
        const char* message;
    };
    for (const Case& c : {
             Case{"--suite capacity --frame-ms 0", "--frame-ms must be a positive number"},
             Case{"--suite capacity --frame-ms -5", "--frame-ms must be a positive number"},
             Case{"--suite capacity --max-bricks 150",
                  "--max-bricks 150 is below the capacity search's smallest wall (20x10 = 200 "
                  "bricks); give at least 200"},
             Case{"--suite capacity --max-grid 32",
                  "--max-grid 32 is below the capacity search's smallest water grid (64x64)"},
             Case{"--suite wall --threads 1,2",
                  "a list of thread counts is for --suite capacity only"},
             Case{"--suite capacity --threads 1,,2", "an empty entry in the list"},
             Case{"--suite capacity --threads 1,0", "--threads"},
             Case{"--suite wall --walls 10x", "--walls '10x' must be AxB with two positive"},
             Case{"--suite wall --walls 20x20,,40x25", "--walls '' must be AxB"},
             Case{"--suite wall --walls 600x600",
                  "--walls 600x600 has 360000 bricks; at most 262144 are supported"},
         }) {
        SCOPED_TRACE(c.args);
        const test::CommandResult r = bench(c.args);
        EXPECT_EQ(r.code, 2) << r.output;
        EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
        EXPECT_EQ(r.output.find("== capacity"), std::string::npos) << "ran anyway:\n" << r.output;
    }
}

TEST(CapacityCli, QuickSuitePrintsTheLargestSizesPerThreadCount) {
    const std::filesystem::path json =
        std::filesystem::temp_directory_path() /
        ("ww_capacity_" + std::to_string(test::freshSeed()) + ".json");
    // A budget so large that every size of the quick search holds: the search must then end
    // at its bounds (the quick run's 28x14 wall and 128x128 grid).
    const test::CommandResult r = bench(
        "--suite capacity --quick --repeat 1 --threads 1,2 "
        "--frame-ms 1e9 --json " +
        json.string());
    ASSERT_EQ(r.code, 0) << r.output;
    for (const char* column : {"threads", "engine", "largest", "bricks", "p95 ms", "first over"}) {
        EXPECT_NE(r.output.find(column), std::string::npos) << column << "\n" << r.output;
    }
    std::ifstream in(json);
    ASSERT_TRUE(in) << r.output;
    const nlohmann::json doc = nlohmann::json::parse(in);
    in.close();
    std::filesystem::remove(json);
    std::set<std::string> records;  // "name size backend threads"
    for (const auto& rec : doc["records"]) {
        ASSERT_EQ(rec["suite"], "capacity") << rec.dump();
        EXPECT_EQ(rec["metrics"]["at_max"], 1.0) << rec.dump();
        records.insert(rec["name"].get<std::string>() + " " + rec["size"].get<std::string>() + " " +
                       rec["backend"].get<std::string>() + " " +
                       std::to_string(rec["metrics"]["threads"].get<int>()));
    }
    std::set<std::string> expected;
    for (const char* threads : {"1", "2"}) {
        expected.insert(std::string("wall 28x14 wavewall-cpu ") + threads);
        expected.insert(std::string("water 128x128 cpu ") + threads);
        if (WW_TEST_HAVE_BOX3D != 0) {
            expected.insert(std::string("wall 28x14 box3d ") + threads);
        }
    }
    EXPECT_EQ(records, expected) << r.output;
    const bool skipped = r.output.find("peers skipped: Box3D not found") != std::string::npos;
    EXPECT_EQ(skipped, WW_TEST_HAVE_BOX3D == 0) << r.output;
}

}  // namespace
}  // namespace ww
