// --threads / config `threads` / WAVEWALL_THREADS end to end: the precedence, the errors, and
// results that do not depend on the thread count (wall and water hashes, lcp and cg
// solutions), at 1, 2, 3 and 8 threads (3 and 8 oversubscribe a 2-core machine).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/run_command.h"
#include "support/seed.h"

namespace ww {
namespace {

namespace fs = std::filesystem;

const int kThreadCounts[] = {1, 2, 3, 8};

class Threads : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("ww_threads_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string path(const std::string& name) const { return (m_dir / name).string(); }
    nlohmann::json readJson(const std::string& name) const {
        std::ifstream in(path(name));
        return nlohmann::json::parse(in);
    }
    std::string readText(const std::string& name) const {
        std::ifstream in(path(name));
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    static test::CommandResult run(const std::string& args, const std::string& env = "") {
        return test::runShell("env -u WAVEWALL_THREADS " + env + " " WW_WAVEWALL_EXE " " + args);
    }
    fs::path m_dir;
};

using ww::test::freshSeed;

// The wall's islands reach several hundred rows after the shot (split over the threads), the
// 192x192 water grid is above the kernels' serial size, so every parallel path runs.
TEST_F(Threads, WallCollapseHashDoesNotDependOnTheThreadCount) {
    std::string first;
    for (int t : kThreadCounts) {
        const std::string out = "wall" + std::to_string(t) + ".json";
        test::CommandResult r =
            run("headless --scene wall --backend cpu --steps 90 "
                "--event 30:shoot --threads " +
                std::to_string(t) + " --summary-json " + path(out));
        ASSERT_EQ(r.code, 0) << r.output;
        const nlohmann::json s = readJson(out);
        EXPECT_EQ(s["threads"], t);
        if (first.empty()) {
            first = s["hash"];
        }
        EXPECT_EQ(s["hash"], first) << t << " threads";
    }
}

TEST_F(Threads, WaterRainHashDoesNotDependOnTheThreadCount) {
    const std::uint32_t seed = freshSeed();
    std::string first;
    for (int t : kThreadCounts) {
        const std::string out = "water" + std::to_string(t) + ".json";
        test::CommandResult r =
            run("headless --scene water --backend cpu --grid 192x192 --steps 40 --event "
                "0:rain:on --seed " +
                std::to_string(seed) + " --threads " + std::to_string(t) + " --summary-json " +
                path(out));
        ASSERT_EQ(r.code, 0) << r.output;
        const nlohmann::json s = readJson(out);
        EXPECT_EQ(s["threads"], t);
        if (first.empty()) {
            first = s["hash"];
        }
        EXPECT_EQ(s["hash"], first) << t << " threads, seed " << seed;
    }
}

// A fresh random dense SPD LCP (M M^T + n I, b of both signs: some rows active, some not),
// above the size from which one block's rows are split over the threads.
void writeDenseSpd(const std::string& a, const std::string& b, int n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> m(static_cast<std::size_t>(n) * n);
    for (double& x : m) {
        x = u(rng);
    }
    std::ofstream fa(a);
    fa.precision(17);
    fa << "%%MatrixMarket matrix array real general\n" << n << " " << n << "\n";
    for (int j = 0; j < n; ++j) {  // column-major, as Matrix Market arrays are
        for (int i = 0; i < n; ++i) {
            double s = i == j ? n : 0.0;
            for (int k = 0; k < n; ++k) {
                s +=
                    m[static_cast<std::size_t>(i) * n + k] * m[static_cast<std::size_t>(j) * n + k];
            }
            fa << s << "\n";
        }
    }
    std::ofstream fb(b);
    fb.precision(17);
    fb << "%%MatrixMarket matrix array real general\n" << n << " 1\n";
    for (int i = 0; i < n; ++i) {
        fb << 5.0 * u(rng) << "\n";
    }
}

// A fresh random sparse SPD system: a 5-point graph Laplacian on a side x side grid with
// random positive edge weights plus a random positive diagonal shift (diagonally dominant).
void writeSparseSpd(const std::string& a, const std::string& b, int side, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> w(0.5, 1.5);
    const int n = side * side;
    std::vector<double> diag(static_cast<std::size_t>(n), 0.0);
    std::ostringstream off;
    off.precision(17);
    long entries = 0;
    for (int j = 0; j < side; ++j) {
        for (int i = 0; i < side; ++i) {
            const int k = j * side + i;
            for (const int nb : {i + 1 < side ? k + 1 : -1, j + 1 < side ? k + side : -1}) {
                if (nb >= 0) {
                    const double e = w(rng);
                    diag[static_cast<std::size_t>(k)] += e;
                    diag[static_cast<std::size_t>(nb)] += e;
                    off << nb + 1 << " " << k + 1 << " " << -e << "\n";
                    ++entries;
                }
            }
        }
    }
    std::ofstream fa(a);
    fa.precision(17);
    fa << "%%MatrixMarket matrix coordinate real symmetric\n"
       << n << " " << n << " " << entries + n << "\n";
    for (int k = 0; k < n; ++k) {
        fa << k + 1 << " " << k + 1 << " " << diag[static_cast<std::size_t>(k)] + 0.1 * w(rng)
           << "\n";
    }
    fa << off.str();
    std::ofstream fb(b);
    fb.precision(17);
    fb << "%%MatrixMarket matrix array real general\n" << n << " 1\n";
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int k = 0; k < n; ++k) {
        fb << u(rng) << "\n";
    }
}

// The solution files hold 9 significant digits, enough to tell any two floats apart, so
// equal files mean equal bits.
TEST_F(Threads, LcpAndCgSolutionsDoNotDependOnTheThreadCount) {
    const std::uint32_t seed = freshSeed();
    writeDenseSpd(path("A.mtx"), path("b.mtx"), 300, seed);
    writeSparseSpd(path("S.mtx"), path("s.mtx"), 200, seed);
    struct Case {
        std::string args;
        std::string name;
    };
    const Case cases[] = {
        {"lcp --matrix " + path("A.mtx") + " --rhs " + path("b.mtx") +
             " --omega 0.5 --iterations 200",
         "lcp"},
        {"cg --matrix " + path("S.mtx") + " --rhs " + path("s.mtx") +
             " --tolerance 1e-5 --max-iterations 400",
         "cg"},
    };
    for (const Case& c : cases) {
        std::string first;
        for (int t : kThreadCounts) {
            const std::string x = c.name + std::to_string(t) + ".mtx";
            const std::string json = c.name + std::to_string(t) + ".json";
            test::CommandResult r = run(c.args + " --backend cpu --threads " + std::to_string(t) +
                                        " --solution " + path(x) + " --json " + path(json));
            ASSERT_LE(r.code, 1) << r.output;  // 1: did not reach the tolerance; still compared
            EXPECT_EQ(readJson(json)["threads"], t);
            const std::string solution = readText(x);
            ASSERT_FALSE(solution.empty());
            if (first.empty()) {
                first = solution;
            }
            EXPECT_EQ(solution, first) << c.name << " at " << t << " threads, seed " << seed;
        }
    }
}

TEST_F(Threads, FlagBeatsConfigBeatsEnvironmentBeatsHardware) {
    std::ofstream(path("c.json")) << "{\"threads\": 3}";
    const std::string base = "headless --scene wall --backend cpu --steps 2 --summary-json ";
    auto threadsOf = [&](const std::string& extra, const std::string& env) {
        test::CommandResult r = run(base + path("s.json") + " " + extra, env);
        EXPECT_EQ(r.code, 0) << r.output;
        return readJson("s.json")["threads"].get<int>();
    };
    EXPECT_EQ(threadsOf("--config " + path("c.json") + " --threads 5", "WAVEWALL_THREADS=2"), 5);
    EXPECT_EQ(threadsOf("--config " + path("c.json"), "WAVEWALL_THREADS=2"), 3);
    EXPECT_EQ(threadsOf("", "WAVEWALL_THREADS=2"), 2);
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    EXPECT_EQ(threadsOf("", ""), static_cast<int>(hw));
    // More threads than cores: allowed, and nothing is said about it.
    test::CommandResult r = run(base + path("s.json") + " --threads 64");
    EXPECT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(r.output.find("thread"), std::string::npos) << r.output;
}

TEST_F(Threads, BadCountsExitTwoNamingTheOption) {
    for (const char* bad : {"0", "-2", "abc", "2x", "1025"}) {
        for (const char* cmd :
             {"headless --scene wall --steps 1 --backend cpu", "bench --suite ops"}) {
            test::CommandResult r = run(std::string(cmd) + " --threads '" + bad + "'");
            EXPECT_EQ(r.code, 2) << cmd << " --threads '" << bad << "': " << r.output;
            EXPECT_NE(r.output.find("--threads"), std::string::npos) << r.output;
        }
    }
    std::ofstream(path("c.json")) << "{\"threads\": \"0\"}";
    test::CommandResult c =
        run("headless --scene wall --steps 1 --backend cpu --config " + path("c.json"));
    EXPECT_EQ(c.code, 2) << c.output;
    EXPECT_NE(c.output.find("threads"), std::string::npos) << c.output;
    for (const char* bad : {"0", "-1", "many"}) {
        test::CommandResult e = run("headless --scene wall --steps 1 --backend cpu",
                                    std::string("WAVEWALL_THREADS=") + bad);
        EXPECT_EQ(e.code, 2) << bad << ": " << e.output;
        EXPECT_NE(e.output.find("WAVEWALL_THREADS"), std::string::npos) << e.output;
    }
}

}  // namespace
}  // namespace ww
