// Backend selection shared by every subcommand: `--backend cpu` needs no GL at all; `gpu`
// demands a GL 4.3 context (exit 3 with the reason if none can be had); `auto` takes the
// faster backend for the GL at hand (app/demo/auto_backend.h: the CPU on a software
// rasterizer or without GL, the GPU on a hardware one) and prints why on stderr.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "solver/core/backend.h"
#include "solver/core/result.h"
#include "solver/gpu/gpu_context.h"
#include "solver/gpu/shader_library.h"

namespace ww::app {

/// Exit codes of the command-line contract (docs/cli.md).
enum ExitCode : int {
    kExitOk = 0,
    kExitCheckFailed = 1,  ///< --check violation, divergence, solve not converged
    kExitUsage = 2,        ///< bad flag, unreadable or malformed input
    kExitNoGpu = 3,        ///< --backend gpu and no GL 4.3 context
};

int exitCodeFor(const Error& e);
/// Prints "wavewall: error: <message>" to stderr and returns the matching exit code.
int reportError(const Error& e);

struct GpuSession {
    std::unique_ptr<gpu::GpuContext> context;  ///< headless context (null if adopted/none)
    gpu::ShaderLibrary shaders;
    std::string unavailableReason;  ///< why there is no GPU, when there is none
    std::string autoReason;         ///< what `--backend auto` chose and why (empty otherwise)
    bool available() const { return gpu::GpuContext::current() != nullptr; }
};

/// Resolves `choice` ("cpu" | "gpu" | "auto"). For gpu/auto, creates a headless EGL context
/// unless one is already current (the desktop app's window); auto then follows
/// chooseAutoBackend and prints its reason ("wavewall: backend auto: cpu (...)") on stderr.
/// Errors: kGpuUnavailable when the GPU was demanded and none is available; kInput for a bad
/// shader folder.
Result<Backend> selectBackend(const std::string& choice, const std::string& shaderDir,
                              GpuSession& session);

/// Makes sure a GL context is current for offscreen rendering even when the solvers run on the
/// CPU (a --screenshot): creates a headless one if none is. Error: kGpuUnavailable saying that
/// `what` needs OpenGL, and why there is none.
Status ensureGlContext(GpuSession& session, const std::string& what);

}  // namespace ww::app
