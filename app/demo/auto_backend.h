// What `--backend auto` means, for every command (demo, headless, bench, ...): the faster
// backend for the GL at hand. A software rasterizer (llvmpipe, softpipe, swrast, SwiftShader)
// runs the GPU solvers on the same CPU, slower than the CPU solvers (the default wall's step
// takes 0.23 ms on the CPU and 19 ms on llvmpipe's GPU backend, p50 over 100 steps), so auto
// means the CPU; a hardware GPU means the GPU. No GL at all means the CPU. The reason is one
// line that every command prints the same way (docs/cli.md, "Common options").
#pragma once

#include <string>
#include <string_view>

#include "solver/core/backend.h"

namespace ww::app {

struct AutoBackendChoice {
    Backend backend = Backend::kCpu;
    /// "backend auto: cpu (the only GL is llvmpipe (...), a software rasterizer)" and the like.
    std::string reason;
};

/// The rule for a GL context whose GL_RENDERER is `glRenderer`.
AutoBackendChoice chooseAutoBackend(std::string_view glRenderer);
/// The rule when no GL context can be had (`why` says why).
AutoBackendChoice autoBackendWithoutGl(std::string_view why);

}  // namespace ww::app
