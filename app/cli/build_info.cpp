#include "app/cli/build_info.h"

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <vector>

// app/CMakeLists.txt defines the WW_BUILD_* macros for this file only; the fallbacks keep it
// compiling on its own.
#ifndef WW_BUILD_VERSION
#define WW_BUILD_VERSION "unknown"
#endif
#ifndef WW_BUILD_TYPE
#define WW_BUILD_TYPE "unknown"
#endif
#ifndef WW_BUILD_COMPILER
#define WW_BUILD_COMPILER "unknown"
#endif
#ifndef WW_BUILD_NATIVE
#define WW_BUILD_NATIVE 0
#endif
#ifndef WW_BUILD_SANITIZE
#define WW_BUILD_SANITIZE ""
#endif
#ifndef WW_BUILD_GLEW_VERSION
#define WW_BUILD_GLEW_VERSION ""
#endif
#ifndef WW_BUILD_GLFW_VERSION
#define WW_BUILD_GLFW_VERSION ""
#endif
#ifndef WW_BUILD_TBB_VERSION
#define WW_BUILD_TBB_VERSION ""
#endif
#ifndef WW_BUILD_EIGEN_VERSION
#define WW_BUILD_EIGEN_VERSION ""
#endif
#ifndef WW_BUILD_HAVE_BULLET
#define WW_BUILD_HAVE_BULLET 0
#endif
#ifndef WW_BUILD_BULLET_VERSION
#define WW_BUILD_BULLET_VERSION ""
#endif
#ifndef WW_BUILD_HAVE_ODE
#define WW_BUILD_HAVE_ODE 0
#endif
#ifndef WW_BUILD_ODE_VERSION
#define WW_BUILD_ODE_VERSION ""
#endif

namespace ww::app {

namespace {

std::string withVersion(const char* name, std::string_view version) {
    return version.empty() ? std::string(name) : std::string(name) + " " + std::string(version);
}

// Where the dynamic loader would find libopenblas.so.0, which `wavewall bench` opens at run
// time (app/bench/lcp_bench.cpp): the LD_LIBRARY_PATH folders, then the system library folders.
// Looked up by name only, not opened (opening it starts OpenBLAS's thread pool).
std::string findOpenBlas() {
    std::vector<std::filesystem::path> dirs;
    if (const char* env = std::getenv("LD_LIBRARY_PATH"); env != nullptr) {
        std::string_view rest = env;
        while (!rest.empty()) {
            const std::size_t colon = rest.find(':');
            if (colon != 0) {
                dirs.emplace_back(std::string(rest.substr(0, colon)));
            }
            rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        }
    }
#if defined(__x86_64__)
    const char* multiarch = "x86_64-linux-gnu";
#elif defined(__aarch64__)
    const char* multiarch = "aarch64-linux-gnu";
#else
    const char* multiarch = "";
#endif
    for (const char* root : {"/usr/local/lib", "/lib", "/usr/lib"}) {
        if (*multiarch != '\0') {
            dirs.emplace_back(std::filesystem::path(root) / multiarch);
        }
        dirs.emplace_back(root);
    }
    for (const std::filesystem::path& dir : dirs) {
        std::error_code ec;
        const std::filesystem::path candidate = dir / "libopenblas.so.0";
        if (std::filesystem::exists(candidate, ec)) {
            return candidate.string();
        }
    }
    return {};
}

}  // namespace

const char* wavewallVersion() {
    return WW_BUILD_VERSION;
}

// The same conditions as solver/lcp/lcp_cpu.cpp's projectRows, compiled with the same flags
// (ww_configure_target gives every wavewall target -march=native or none).
const char* lcpSimdLevel() {
#if defined(__AVX512F__)
    return "avx512";
#elif defined(__AVX2__) && defined(__FMA__)
    return "avx2";
#else
    return "scalar";
#endif
}

std::string versionText() {
    std::string t = std::string("wavewall ") + WW_BUILD_VERSION + "\n";
    t += std::string("build type: ") + WW_BUILD_TYPE + "\n";
    t += std::string("compiler: ") + WW_BUILD_COMPILER +
         (WW_BUILD_NATIVE ? ", -march=native (runs on CPUs like the building one)"
                          : ", no -march=native (portable)") +
         (std::string_view(WW_BUILD_SANITIZE).empty()
              ? std::string()
              : std::string(", sanitizers ") + WW_BUILD_SANITIZE) +
         "\n";
    t += "gpu: " + withVersion("OpenGL 4.3 compute through GLEW", WW_BUILD_GLEW_VERSION) +
         ", EGL headless contexts, " + withVersion("GLFW", WW_BUILD_GLFW_VERSION) +
         " window (`wavewall info` checks this machine's GPU)\n";
    const std::string_view simd = lcpSimdLevel();
    t += std::string("simd: ") + lcpSimdLevel() +
         (simd == "avx512" ? " (LCP row kernels: 16 rows a step)"
          : simd == "avx2" ? " (LCP row kernels: 8 rows a step)"
                           : " (LCP row kernels: one row a step)") +
         "\n";
    t += "threads: " + withVersion("oneTBB", WW_BUILD_TBB_VERSION) + "\n";
    t += "eigen: " + withVersion("compiled in", WW_BUILD_EIGEN_VERSION) + " (bench baseline)\n";
    const std::string blas = findOpenBlas();
    t += "openblas: " +
         (blas.empty() ? std::string("not found (bench baseline opened at run time; install "
                                     "libopenblas0)")
                       : "opened at run time from " + blas + " (bench baseline)") +
         "\n";
    t += std::string("bullet: ") +
         (WW_BUILD_HAVE_BULLET
              ? withVersion("compiled in", WW_BUILD_BULLET_VERSION) + " (wall bench peer)"
              : std::string("not compiled in (install libbullet-dev and "
                            "rebuild for the wall bench peer)")) +
         "\n";
    t +=
        std::string("ode: ") +
        (WW_BUILD_HAVE_ODE ? withVersion("compiled in", WW_BUILD_ODE_VERSION) + " (wall bench peer)"
                           : std::string("not compiled in (install libode-dev and rebuild "
                                         "for the wall bench peer)"));
    return t;
}

}  // namespace ww::app
