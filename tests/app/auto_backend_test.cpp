// `--backend auto` has one meaning for every command (app/demo/auto_backend.h): the CPU on a
// software rasterizer or without GL, the GPU on a hardware one, with the reason said. The rule
// on renderer strings as drivers report them, and `wavewall headless` following it on this
// machine's GL.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "app/demo/auto_backend.h"
#include "render/renderer.h"
#include "support/run_command.h"

namespace ww::app {
namespace {

TEST(AutoBackend, SoftwareRasterizersMeanTheCpuHardwareGpusTheGpu) {
    for (const char* software : {"llvmpipe (LLVM 15.0.6, 256 bits)", "softpipe", "Mesa swrast",
                                 "SwiftShader Device", "Google SwiftShader"}) {
        const AutoBackendChoice c = chooseAutoBackend(software);
        EXPECT_EQ(c.backend, Backend::kCpu) << software;
        EXPECT_EQ(c.reason.rfind("backend auto: cpu (the only GL is " + std::string(software) +
                                     ", a software rasterizer",
                                 0),
                  0u)
            << c.reason;
    }
    for (const char* hardware :
         {"NVIDIA H100 80GB HBM3/PCIe/SSE2", "NVIDIA GeForce RTX 3080/PCIe/SSE2",
          "AMD Radeon RX 6800 (navi21, LLVM 15.0.6, DRM 3.49, 6.1.0)",
          "Mesa Intel(R) UHD Graphics 620 (KBL GT2)"}) {
        const AutoBackendChoice c = chooseAutoBackend(hardware);
        EXPECT_EQ(c.backend, Backend::kGpu) << hardware;
        EXPECT_EQ(c.reason, "backend auto: gpu (" + std::string(hardware) + ", a hardware GPU)");
    }
    const AutoBackendChoice none = autoBackendWithoutGl("EGL: no display");
    EXPECT_EQ(none.backend, Backend::kCpu);
    EXPECT_EQ(none.reason, "backend auto: cpu (no GPU: EGL: no display)");
}

// headless with the default `--backend auto` on this machine's GL: on a software rasterizer
// (llvmpipe here) the wall runs on the CPU and the reason is printed; on a hardware GPU on
// the GPU. The summary names the renderer that decided.
TEST(AutoBackend, HeadlessFollowsTheRuleAndSaysWhy) {
    const std::filesystem::path summary =
        std::filesystem::temp_directory_path() /
        ("ww_auto_backend_" + std::to_string(::getpid()) + ".json");
    const test::CommandResult r = test::runShell(WW_WAVEWALL_EXE
                                                 " headless --scene wall --wall 4x3 --steps 3 "
                                                 "--summary-json '" +
                                                 summary.string() + "'");
    ASSERT_EQ(r.code, 0) << r.output;
    nlohmann::json doc;
    std::ifstream(summary) >> doc;
    std::filesystem::remove(summary);
    const std::string renderer = doc.value("renderer", "");
    const std::string backend = doc.value("backend", "");
    if (renderer == "none") {
        EXPECT_EQ(backend, "cpu") << r.output;
        EXPECT_NE(r.output.find("wavewall: backend auto: cpu (no GPU: "), std::string::npos)
            << r.output;
    } else if (render::isSoftwareRenderer(renderer)) {
        EXPECT_EQ(backend, "cpu") << r.output;
        EXPECT_NE(r.output.find("wavewall: backend auto: cpu (the only GL is " + renderer +
                                ", a software rasterizer"),
                  std::string::npos)
            << r.output;
    } else {
        EXPECT_EQ(backend, "gpu") << r.output;
        EXPECT_NE(r.output.find("wavewall: backend auto: gpu (" + renderer), std::string::npos)
            << r.output;
    }
}

}  // namespace
}  // namespace ww::app
