// A build without Bullet, ODE and Box3D: this binary compiles app/bench/wall_peers.cpp itself
// without WW_HAVE_BULLET / WW_HAVE_ODE / WW_HAVE_BOX3D (tests/app/bench/CMakeLists.txt), as a
// build on a machine without libbullet-dev, libode-dev and an installed Box3D does (CI). The
// peer table then says what to install and holds our rows only.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "app/bench/wall_peers.h"
#include "support/executor.h"

namespace ww {
namespace {

TEST(WallPeersWithoutPeers, PrintsWhatToInstallAndMeasuresOursOnly) {
    bench::Options opts;
    opts.quick = true;
    opts.repeats = 1;
    opts.executor = test::executor();
    bench::Recorder recorder;
    testing::internal::CaptureStdout();
    bench::runWallPeers(opts, recorder);
    const std::string out = testing::internal::GetCapturedStdout();

    EXPECT_NE(out.find("peers skipped: Bullet not found (install libbullet-dev)\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("peers skipped: ODE not found (install libode-dev)\n"), std::string::npos)
        << out;
    EXPECT_NE(out.find("peers skipped: Box3D not found (build and install "
                       "github.com/erincatto/box3d, then configure with "
                       "-DWW_BOX3D_ROOT=<its install prefix>; docs/benchmarks.md)\n"),
              std::string::npos)
        << out;
    ASSERT_EQ(recorder.records().size(), 2u) << out;  // rest and collapse, ours
    for (const bench::Record& r : recorder.records()) {
        EXPECT_EQ(r.backend, "wavewall-cpu");
        EXPECT_EQ(r.size, "10x6");
        EXPECT_TRUE(r.baselines.empty()) << "no peer ran, so no peer baseline";
        EXPECT_TRUE(std::isfinite(r.medianMs));
        EXPECT_GE(r.repeats, 1);
        EXPECT_NE(out.find("wavewall-cpu" + std::string(13, ' ') + "10x6    " + r.name.substr(6)),
                  std::string::npos)
            << out;
    }
    EXPECT_EQ(out.find("\nbullet "), std::string::npos) << out;  // no peer row
    EXPECT_EQ(out.find("\node "), std::string::npos) << out;
    EXPECT_EQ(out.find("\nbox3d "), std::string::npos) << out;
}

}  // namespace
}  // namespace ww
