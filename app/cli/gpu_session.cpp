#include "app/cli/gpu_session.h"

#include <cstdio>

#include "app/demo/auto_backend.h"

namespace ww::app {

int exitCodeFor(const Error& e) {
    switch (e.kind) {
        case ErrorKind::kGpuUnavailable:
            return kExitNoGpu;
        case ErrorKind::kNumerical:
            return kExitCheckFailed;
        default:
            return kExitUsage;
    }
}

int reportError(const Error& e) {
    std::fprintf(stderr, "wavewall: error: %s\n", e.message.c_str());
    return exitCodeFor(e);
}

Result<Backend> selectBackend(const std::string& choice, const std::string& shaderDir,
                              GpuSession& session) {
    Result<gpu::ShaderLibrary> lib = gpu::ShaderLibrary::create(shaderDir);
    if (!lib) {
        return lib.error();
    }
    session.shaders = std::move(lib).value();
    if (choice == "cpu") {
        return Backend::kCpu;
    }
    if (gpu::GpuContext::current() == nullptr) {
        auto ctx = gpu::GpuContext::createHeadless();
        if (!ctx) {
            session.unavailableReason = ctx.error().message;
            if (choice == "gpu") {
                return Error{ErrorKind::kGpuUnavailable,
                             "the GPU backend was requested but " + ctx.error().message};
            }
            session.autoReason = autoBackendWithoutGl(ctx.error().message).reason;
            std::fprintf(stderr, "wavewall: %s\n", session.autoReason.c_str());
            return Backend::kCpu;
        }
        session.context = std::move(ctx).value();
    }
    if (choice == "gpu") {
        return Backend::kGpu;
    }
    // auto: the one rule of every command (app/demo/auto_backend.h). The context stays for
    // what renders (a --screenshot) when the solvers run on the CPU.
    const AutoBackendChoice chosen = chooseAutoBackend(gpu::GpuContext::current()->info().renderer);
    session.autoReason = chosen.reason;
    std::fprintf(stderr, "wavewall: %s\n", chosen.reason.c_str());
    return chosen.backend;
}

Status ensureGlContext(GpuSession& session, const std::string& what) {
    if (session.available()) {
        return {};
    }
    auto ctx = gpu::GpuContext::createHeadless();
    if (!ctx) {
        return Error{ErrorKind::kGpuUnavailable,
                     what + " needs OpenGL to render, but " + ctx.error().message};
    }
    session.context = std::move(ctx).value();
    return {};
}

}  // namespace ww::app
