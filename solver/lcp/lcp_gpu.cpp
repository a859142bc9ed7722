// GPU backend of the LCP solver (placeholder until the kernels land).
#include "solver/gpu/shader_library.h"
#include "solver/lcp/lcp_solver.h"

namespace ww::lcp {

Result<std::unique_ptr<LcpSolver>> makeGpuLcpSolver(const gpu::ShaderLibrary&) {
    return Error{ErrorKind::kGpuUnavailable, "GPU LCP solver not built yet"};
}

}  // namespace ww::lcp
