// The one conjugate-gradient API with two backends (CPU, GPU), as the LCP solvers have
// (solver/lcp/lcp_solver.h). The algorithm and its equations are in cg_cpu.h (CPU) and
// cg_gpu.h (GPU); this interface owns the work buffers of each backend and reports every
// failure the same way, as an Error of Result<CgReport>:
//
//   kInput           b or x does not have A's size; tolerance < 0 or not finite;
//                    maxIterations < 0; checkEvery < 1
//   kNumerical       CG broke down: p.Ap <= 0 or not finite (A is not SPD, or the values
//                    overflow float). x then holds the last iterate and must not be used.
//   kGpuUnavailable  makeGpuCgSolver without a current GL 4.3 context
//   kGpuLimit        the operator or the vectors do not fit the GPU (buffer size, dispatch)
//   kShader          a CG kernel failed to build
//
// A report that comes back is a finished solve: status kConverged, kIterationLimit (the
// iteration budget ran out; x is the last iterate) or kInaccurate (the recursive residual
// converged but the true one did not follow, see cg_types.h); never kBreakdown.
#pragma once

#include <memory>
#include <span>

#include "solver/cg/cg_types.h"
#include "solver/cg/operators.h"
#include "solver/core/backend.h"
#include "solver/core/result.h"
#include "solver/exec/executor.h"

namespace ww::gpu {
class Buffer;
class ShaderLibrary;
}  // namespace ww::gpu

namespace ww::cg {

class GpuOperator;

class CgSolver {  // one API, two backends
  public:
    virtual ~CgSolver() = default;
    virtual Backend backend() const = 0;
    const char* backendName() const { return ww::backendName(backend()); }

    /// Solves A x = b with b and x in host memory: x is the warm start in (size A.size())
    /// and the solution out. The GPU backend uploads A, b and x and downloads x
    /// (CgReport::uploadMs); the work buffers of a size are kept for the next solve.
    virtual Result<CgReport> solve(const StencilOperator& a, std::span<const float> b,
                                   std::span<float> x, const CgOptions& options) = 0;
    virtual Result<CgReport> solve(const BandedOperator& a, std::span<const float> b,
                                   std::span<float> x, const CgOptions& options) = 0;
    virtual Result<CgReport> solve(const CsrMatrix& a, std::span<const float> b, std::span<float> x,
                                   const CgOptions& options) = 0;
    virtual Result<CgReport> solve(const DenseOperator& a, std::span<const float> b,
                                   std::span<float> x, const CgOptions& options) = 0;
};

/// The GPU backend also solves with A, b and x already on the GPU (no transfer), as the
/// wave model does every step.
class GpuCgBackend : public CgSolver {
  public:
    using CgSolver::solve;
    /// b and x hold op.size() floats; x: warm start in, solution out.
    virtual Result<CgReport> solve(const GpuOperator& op, const gpu::Buffer& b, gpu::Buffer& x,
                                   const CgOptions& options) = 0;
    /// Builds the kernels and work buffers for op's kind and size now (solve does it on
    /// first use), so that a shader or size error surfaces here.
    virtual Status prepare(const GpuOperator& op) = 0;
};

/// The CPU backend; its kernels run on `executor` (results do not depend on its thread count).
std::unique_ptr<CgSolver> makeCpuCgSolver(std::shared_ptr<const exec::Executor> executor);
/// Needs a current GpuContext (kGpuUnavailable otherwise). The kernels are built on first use
/// of each operator kind (or by prepare), from `shaders`, which must outlive the solver.
Result<std::unique_ptr<GpuCgBackend>> makeGpuCgSolver(const gpu::ShaderLibrary& shaders);

/// Empty when b and x have A's size n and the options are valid, else the kInput error.
Status checkCgInput(std::size_t n, std::size_t bSize, std::size_t xSize, const CgOptions& options);

}  // namespace ww::cg
