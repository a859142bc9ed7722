// Each LCP method brings its own relaxation, `--omega auto` picks one from the matrix, and
// Gauss-Seidel (CPU only) never runs silently on the GPU backend: the lcp command, the scene
// options and the headless runner.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "app/cli/scene_options.h"
#include "app/scenes/wall/wall_options.h"
#include "solver/io/matrix_market.h"
#include "support/run_command.h"
#include "support/seed.h"

namespace ww::app {
namespace {

namespace fs = std::filesystem;

test::CommandResult run(const std::string& args) {
    return test::runShell(WW_WAVEWALL_EXE " " + args);
}

class LcpCommandFiles : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("ww_solver_choice_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }

    // A = B B^T / n + 0.5 I (SPD, B standard normal), b ~ N(0, 1), a fresh seed; returns the
    // lcp arguments that read it.
    std::string writeSpdProblem(int n, unsigned seed) {
        std::mt19937 rng(seed);
        std::normal_distribution<double> g(0.0, 1.0);
        std::vector<double> bm(static_cast<std::size_t>(n) * n), a(bm.size()), b(n);
        for (double& v : bm) {
            v = g(rng);
        }
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                double s = i == j ? 0.5 : 0.0;
                for (int k = 0; k < n; ++k) {
                    s += bm[i * n + k] * bm[j * n + k] / n;
                }
                a[static_cast<std::size_t>(i) * n + j] = s;
            }
            b[i] = g(rng);
        }
        EXPECT_TRUE(io::writeMatrixMarketArray(path("A.mtx"), n, n, a).ok());
        EXPECT_TRUE(io::writeMatrixMarketVector(path("b.mtx"), b).ok());
        return "--matrix " + path("A.mtx") + " --rhs " + path("b.mtx") + " --backend cpu";
    }
    std::string path(const std::string& name) const { return (m_dir / name).string(); }
    nlohmann::json report() const {
        std::ifstream in(path("r.json"));
        return nlohmann::json::parse(in);
    }

    fs::path m_dir;
};

// Projected Gauss-Seidel at its own default (omega 1) solves a 10-row SPD LCP to 1e-6 in well
// under 200 sweeps (about 30); at Jacobi's 0.1, 200 sweeps leave ~1e-4, so the run would exit 1.
TEST_F(LcpCommandFiles, GaussSeidelUsesItsOwnDefaultOmega) {
    const unsigned seed = ww::test::freshSeed();
    const std::string problem = writeSpdProblem(10, seed);
    const test::CommandResult r =
        run("lcp " + problem + " --solver gauss-seidel --tolerance 1e-6 --iterations 200 --json " +
            path("r.json"));
    ASSERT_EQ(r.code, 0) << "seed " << seed << "\n" << r.output;
    const nlohmann::json j = report();
    EXPECT_EQ(j["omega"].get<double>(), 1.0);
    EXPECT_EQ(j["omega_choice"], "default");
    EXPECT_TRUE(j["converged"].get<bool>());
    EXPECT_LT(j["iterations"].get<int>(), 200);

    const test::CommandResult jacobi = run("lcp " + problem + " --json " + path("r.json"));
    ASSERT_EQ(jacobi.code, 0) << jacobi.output;
    EXPECT_FLOAT_EQ(report()["omega"].get<float>(), 0.1f);  // the paper's, for Jacobi
}

// --omega auto prints the estimate and records it; Jacobi at it converges where the paper's
// 0.1 needs many more iterations (the report's count is compared, not a time).
TEST_F(LcpCommandFiles, OmegaAutoIsEstimatedPrintedAndReported) {
    const unsigned seed = ww::test::freshSeed();
    const std::string problem = writeSpdProblem(40, seed);
    const test::CommandResult r =
        run("lcp " + problem + " --omega auto --tolerance 1e-5 --iterations 20000 --json " +
            path("r.json"));
    ASSERT_EQ(r.code, 0) << "seed " << seed << "\n" << r.output;
    EXPECT_NE(r.output.find("omega auto = "), std::string::npos) << r.output;
    const nlohmann::json j = report();
    EXPECT_EQ(j["omega_choice"], "auto");
    const double lambda = j["omega_auto"]["lambda"].get<double>();
    EXPECT_GT(lambda, 0.0);
    EXPECT_NEAR(j["omega"].get<double>(), 0.85 * 2.0 / lambda, 1e-5);
    EXPECT_TRUE(j["omega_auto"]["symmetric"].get<bool>());
    EXPECT_LE(j["omega_auto"]["rayleigh"].get<double>(),
              j["omega_auto"]["gershgorin"].get<double>());
    const int autoIterations = j["iterations"].get<int>();

    ASSERT_EQ(
        run("lcp " + problem + " --tolerance 1e-5 --iterations 20000 --json " + path("r.json"))
            .code,
        0);
    EXPECT_LT(autoIterations, report()["iterations"].get<int>()) << "seed " << seed;
}

TEST_F(LcpCommandFiles, BadOmegaExits2NamingTheOption) {
    const std::string problem = writeSpdProblem(4, 1u);
    for (const char* bad : {"0", "-1", "fast", "nan", "1e50"}) {
        const test::CommandResult r = run("lcp " + problem + " --omega " + bad);
        EXPECT_EQ(r.code, 2) << bad << "\n" << r.output;
        EXPECT_NE(r.output.find("--omega"), std::string::npos) << r.output;
    }
}

TEST(SolverChoice, WallOmegaFollowsTheMethodUnlessGiven) {
    SceneOptionValues v;
    v.lcpSolver = "gauss-seidel";
    Result<WallSceneSettings> gs = makeWallSettings(v);
    ASSERT_TRUE(gs.ok());
    EXPECT_EQ(gs->world.lcp.omega, 1.0f);
    EXPECT_EQ(gs->world.lcp.omega, rigid::defaultWallOmega(lcp::LcpMethod::kGaussSeidel));

    v.lcpSolver = "jacobi";
    Result<WallSceneSettings> jacobi = makeWallSettings(v);
    ASSERT_TRUE(jacobi.ok());
    EXPECT_EQ(jacobi->world.lcp.omega, rigid::defaultWallOmega(lcp::LcpMethod::kJacobi));
    EXPECT_EQ(jacobi->world.lcp.omega, rigid::WorldParams{}.lcp.omega);

    v.lcpSolver = "gauss-seidel";
    v.omega = 1.3f;  // given by the user: kept
    Result<WallSceneSettings> given = makeWallSettings(v);
    ASSERT_TRUE(given.ok());
    EXPECT_EQ(given->world.lcp.omega, 1.3f);

    v.omega = -0.5f;
    Result<WallSceneSettings> bad = makeWallSettings(v);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("--omega"), std::string::npos);
}

TEST(SolverChoice, GaussSeidelNeverGoesToTheGpuBackend) {
    SceneOptionValues v;
    v.lcpSolver = "gauss-seidel";
    Result<std::string> gpu = lcpBackendChoice("gpu", "wall", v);
    ASSERT_FALSE(gpu.ok());
    EXPECT_NE(gpu.error().message.find("--lcp-solver gauss-seidel"), std::string::npos);
    EXPECT_EQ(*lcpBackendChoice("auto", "wall", v), "cpu");
    EXPECT_EQ(*lcpBackendChoice("cpu", "wall", v), "cpu");
    EXPECT_EQ(*lcpBackendChoice("gpu", "water", v), "gpu");  // no LCP there
    v.lcpSolver = "jacobi";
    EXPECT_EQ(*lcpBackendChoice("gpu", "wall", v), "gpu");
    EXPECT_EQ(*lcpBackendChoice("auto", "wall", v), "auto");
}

// End to end: the combination exits 2 before the run (also from a config file), and auto runs
// Gauss-Seidel on the CPU, saying so.
TEST(SolverChoice, HeadlessRefusesGaussSeidelOnTheGpu) {
    const test::CommandResult r =
        run("headless --scene wall --steps 2 --lcp-solver gauss-seidel --backend gpu");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("--backend cpu"), std::string::npos) << r.output;

    const fs::path config =
        fs::temp_directory_path() / ("ww_gs_gpu_" + std::to_string(::getpid()) + ".json");
    std::ofstream(config) << "{\"scene\": \"wall\", \"lcp-solver\": \"gauss-seidel\"}\n";
    const test::CommandResult fromConfig =
        run("headless --config " + config.string() + " --steps 2 --backend gpu");
    fs::remove(config);
    EXPECT_EQ(fromConfig.code, 2) << fromConfig.output;

    const test::CommandResult autoRun =
        run("headless --scene wall --steps 5 --lcp-solver gauss-seidel --backend auto");
    EXPECT_EQ(autoRun.code, 0) << autoRun.output;
    EXPECT_NE(autoRun.output.find("chose the CPU"), std::string::npos) << autoRun.output;
    EXPECT_NE(autoRun.output.find("backend cpu"), std::string::npos) << autoRun.output;
}

}  // namespace
}  // namespace ww::app
