// One call for `wavewall cg` and other callers that hold a matrix on the CPU and want it
// solved on either backend: uploads (GPU), solves, downloads, and reports the phases.
#pragma once

#include <memory>
#include <span>

#include "solver/cg/cg_types.h"
#include "solver/cg/operators.h"
#include "solver/core/backend.h"
#include "solver/core/result.h"
#include "solver/gpu/shader_library.h"

namespace ww::cg {

struct SolveOutcome {
    CgReport report;        ///< report.solveMs: the solve alone (GPU: synchronized)
    double uploadMs = 0.0;  ///< GPU: matrix and vector upload plus program build; CPU: 0
};

/// Solves A x = b (x: warm start in, solution out) on `backend`. kGpu needs a current GL
/// context and `library`; errors are kGpuUnavailable, kInput (sizes) or the GPU's own.
/// kCpu runs on `executor`.
Result<SolveOutcome> solveOnBackend(const CsrMatrix& a, std::span<const float> b,
                                    std::span<float> x, const CgOptions& options, Backend backend,
                                    const gpu::ShaderLibrary* library,
                                    std::shared_ptr<const exec::Executor> executor);

}  // namespace ww::cg
