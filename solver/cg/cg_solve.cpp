// solveOnBackend (see cg_solve.h).
#include "solver/cg/cg_solve.h"

#include <string>

#include "solver/cg/cg_cpu.h"
#include "solver/cg/cg_gpu.h"
#include "solver/core/timer.h"
#include "solver/gpu/gpu_context.h"

namespace ww::cg {

Result<SolveOutcome> solveOnBackend(const CsrMatrix& a, std::span<const float> b,
                                    std::span<float> x, const CgOptions& options, Backend backend,
                                    const gpu::ShaderLibrary* library,
                                    std::shared_ptr<const exec::Executor> executor) {
    if (b.size() != a.size() || x.size() != a.size()) {
        return inputError("cg: the matrix is " + std::to_string(a.size()) + " x " +
                          std::to_string(a.size()) + " but b has " + std::to_string(b.size()) +
                          " and x " + std::to_string(x.size()) + " entries");
    }
    SolveOutcome out;
    if (backend == Backend::kCpu) {
        out.report = solveCpu(std::move(executor), a, b, x, options);
        return out;
    }
    gpu::GpuContext* ctx = gpu::GpuContext::current();
    if (ctx == nullptr || library == nullptr) {
        return Error{ErrorKind::kGpuUnavailable, "cg: no current GL 4.3 context for --backend gpu"};
    }
    Stopwatch upload;
    auto op = GpuOperator::upload(a);
    if (!op) {
        return op.error();
    }
    auto solver = GpuCgSolver::create(*library, op.value());
    if (!solver) {
        return solver.error();
    }
    auto bb = gpu::Buffer::fromSpan(b, "cg b");
    auto xb = gpu::Buffer::fromSpan(std::span<const float>(x.data(), x.size()), "cg x");
    if (!bb) {
        return bb.error();
    }
    if (!xb) {
        return xb.error();
    }
    ctx->finish();
    out.uploadMs = upload.elapsedMs();
    auto report = solver->solve(op.value(), bb.value(), xb.value(), options);
    if (!report) {
        return report.error();
    }
    out.report = std::move(report).value();
    xb->download(x.data(), x.size_bytes());
    return out;
}

}  // namespace ww::cg
