// Smoke test of the splash suite: `wavewall bench --suite splash --quick` prints, for both sizes,
// the coupled collapse, the wall alone and the water alone with their p50 / p95 / max split into
// the phases, and writes a record for each with the same-run baselines, the phases, the water
// volume's drift and the target. No timing is checked.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "support/run_command.h"
#include "support/seed.h"

namespace ww {
namespace {

const std::vector<std::string> kPhases = {"collide",  "assemble",  "lcp_solve",  "integrate",
                                          "coupling", "water_rhs", "water_solve"};

struct SuiteRun {
    test::CommandResult result;
    nlohmann::json doc;
};

SuiteRun runSuite(int repeat = 1) {
    const std::filesystem::path json =
        std::filesystem::temp_directory_path() /
        ("ww_bench_splash_" + std::to_string(ww::test::freshSeed()) + ".json");
    SuiteRun run;
    run.result =
        test::runShell(std::string(WW_WAVEWALL_EXE) + " bench --quick --backend cpu --repeat " +
                       std::to_string(repeat) + " --suite splash --json " + json.string());
    std::ifstream in(json);
    if (in) {
        run.doc = nlohmann::json::parse(in);
    }
    std::filesystem::remove(json);
    return run;
}

double number(const nlohmann::json& m, const std::string& key) {
    EXPECT_TRUE(m.contains(key)) << key << " in " << m.dump();
    if (!m.contains(key) || !m[key].is_number()) {  // NaN / inf are written as null
        ADD_FAILURE() << key << " is not a number in " << m.dump();
        return std::nan("");
    }
    return m[key].get<double>();
}

TEST(SplashBench, QuickSuitePrintsAndRecordsEveryRunOfBothSizes) {
    const SuiteRun run = runSuite();
    ASSERT_EQ(run.result.code, 0) << run.result.output;
    const std::string& out = run.result.output;
    for (const char* header : {"== splash:", "step", "stat", "collide", "lcp_solve", "coupling",
                               "water_rhs", "water_solve"}) {
        EXPECT_NE(out.find(header), std::string::npos) << header << "\n" << out;
    }
    ASSERT_TRUE(run.doc.contains("records")) << out;
    std::map<std::string, nlohmann::json> records;  // "name size"
    for (const auto& r : run.doc["records"]) {
        EXPECT_EQ(r["suite"], "splash") << r.dump();
        EXPECT_EQ(r["backend"], "cpu") << r.dump();
        records[r["name"].get<std::string>() + " " + r["size"].get<std::string>()] = r;
    }
    EXPECT_EQ(records.size(), 6u) << out;

    for (const std::string size : {"10x6-256^2", "20x20-512^2"}) {
        SCOPED_TRACE(size);
        EXPECT_NE(out.find(size + ": "), std::string::npos) << "no summary line\n" << out;
        for (const std::string name : {"collapse", "wall-alone", "water-alone"}) {
            SCOPED_TRACE(name);
            const auto it = records.find(name + " " + size);
            ASSERT_NE(it, records.end()) << out;
            const nlohmann::json& r = it->second;
            const nlohmann::json& m = r["metrics"];
            EXPECT_GE(r["repeats"].get<int>(), 1);
            const double p50 = r["median_ms"].get<double>();
            EXPECT_TRUE(std::isfinite(p50));
            EXPECT_LE(p50, number(m, "p95_ms"));
            EXPECT_LE(number(m, "p95_ms"), number(m, "max_ms"));
            EXPECT_GE(number(m, "cpu_time_p95_ms"), 0.0);
            for (const std::string& phase : kPhases) {
                const double a = number(m, phase + "_ms");
                const double b = number(m, phase + "_p95_ms");
                const double c = number(m, phase + "_max_ms");
                EXPECT_GE(a, 0.0) << phase;
                EXPECT_LE(a, b) << phase;
                EXPECT_LE(b, c) << phase;
            }
            // The wall alone has no water phases; the water alone no rigid ones.
            if (name == "wall-alone") {
                EXPECT_EQ(number(m, "water_solve_max_ms"), 0.0);
                EXPECT_EQ(number(m, "coupling_max_ms"), 0.0);
                EXPECT_GT(number(m, "lcp_n_max"), 0.0);
            }
            if (name == "water-alone") {
                EXPECT_EQ(number(m, "lcp_solve_max_ms"), 0.0);
                EXPECT_EQ(number(m, "coupling_max_ms"), 0.0);
                EXPECT_GT(number(m, "water_solve_max_ms"), 0.0);
            }
        }
        const nlohmann::json& c = records["collapse " + size];
        const nlohmann::json& m = c["metrics"];
        EXPECT_GT(number(m, "coupling_max_ms"), 0.0);
        EXPECT_GT(number(m, "lcp_n_max"), 0.0);
        EXPECT_GT(number(m, "cg_iterations_mean"), 0.0);
        // The drift is the scene's own invariant (docs/splash.md: within 0.1 %).
        EXPECT_LE(number(m, "volume_drift_rel_max"), 1e-3);
        EXPECT_LE(std::abs(number(m, "volume_drift_rel_final")), number(m, "volume_drift_rel_max"));
        EXPECT_EQ(number(m, "target_p95_ms"), size == "10x6-256^2" ? 8.0 : 16.0);
        const double meets = number(m, "meets_target");
        EXPECT_EQ(meets, number(m, "p95_ms") <= number(m, "target_p95_ms") ? 1.0 : 0.0);
        // The same-run baselines: the wall alone, the water alone and their sum.
        std::map<std::string, double> base;
        for (const auto& b : c["baselines"]) {
            base[b["name"].get<std::string>()] = b["median_ms"].get<double>();
        }
        ASSERT_EQ(base.size(), 3u) << c.dump();
        EXPECT_EQ(base["wall-alone"], records["wall-alone " + size]["median_ms"].get<double>());
        EXPECT_EQ(base["water-alone"], records["water-alone " + size]["median_ms"].get<double>());
        EXPECT_NEAR(base["wall+water"], base["wall-alone"] + base["water-alone"],
                    1e-9 * base["wall+water"]);
        EXPECT_NEAR(number(m, "over_wall_plus_water"),
                    c["median_ms"].get<double>() / base["wall+water"],
                    1e-9 * number(m, "over_wall_plus_water"));
    }
}

// --repeat K runs each trajectory K times and pools the steps (the quick suite runs at most
// two): every record holds twice the samples of a single run, and the summary line says so.
TEST(SplashBench, RepeatPoolsTheRunsSteps) {
    const SuiteRun one = runSuite(1);
    const SuiteRun two = runSuite(2);
    ASSERT_EQ(one.result.code, 0) << one.result.output;
    ASSERT_EQ(two.result.code, 0) << two.result.output;
    ASSERT_TRUE(one.doc.contains("records") && two.doc.contains("records"));
    ASSERT_EQ(one.doc["records"].size(), two.doc["records"].size());
    for (std::size_t i = 0; i < one.doc["records"].size(); ++i) {
        const auto& a = one.doc["records"][i];
        const auto& b = two.doc["records"][i];
        EXPECT_EQ(b["repeats"].get<int>(), 2 * a["repeats"].get<int>()) << b.dump();
    }
    EXPECT_NE(one.result.output.find("1 runs of"), std::string::npos) << one.result.output;
    EXPECT_NE(two.result.output.find("2 runs of"), std::string::npos) << two.result.output;
}

}  // namespace
}  // namespace ww
