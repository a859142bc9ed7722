// The GPU backend's matrix-free path (internal to lcp_gpu.cpp): every matrix-free block of a
// batch (A = J W J^T + cfm I, row_operator.h) concatenated into flat arrays and iterated
// together, projected Jacobi with two dispatches per iteration for the whole batch
// (shaders/lcp_mf_gather.comp, lcp_mf_rows.comp), each block's stopping rule on the GPU, and
// one readback of x and the block states at the end. See docs/lcp.md, "Matrix-free on the GPU".
#pragma once

#include <span>
#include <string>
#include <vector>

#include "solver/core/result.h"
#include "solver/exec/executor.h"
#include "solver/gpu/gl_objects.h"
#include "solver/lcp/lcp_gpu_layout.h"
#include "solver/lcp/lcp_solver.h"

namespace ww::gpu {
class ShaderLibrary;
}

namespace ww::lcp {

/// Grows `buffer` to at least `bytes` (never shrinks, so steady-state solves do not allocate);
/// `what` names it in the error (size beyond GL_MAX_SHADER_STORAGE_BLOCK_SIZE, out of memory).
Status ensureBuffer(gpu::Buffer& buffer, std::size_t bytes, const char* what);

/// Checks of a matrix-free problem the GPU path needs beyond LcpProblem::validate(), in two
/// halves: before validate() (the body index's offsets are ordered, so that walking it stays in
/// bounds) and after (each body's rows ascending and every row side with a body indexed once, the
/// summation order the kernels rely on; no body with more rows than a shader loop may take).
/// Empty, or the reason.
std::string checkMatrixFreeIndex(const RowOperator& op);
std::string checkMatrixFreeRows(const RowOperator& op);

class GpuMatrixFreeBatch {
  public:
    static Result<GpuMatrixFreeBatch> create(const gpu::ShaderLibrary& shaders);

    /// Threads for packing the batch's arrays on the host (null: the calling thread only). The
    /// executor must outlive the batch.
    void setExecutor(const exec::Executor* executor) { m_executor = executor; }

    /// Solves the blocks (all matrix-free, inputs already checked) together; x holds their
    /// unknowns concatenated in order. One report per block; dispatches, readbacks and times are
    /// the batch's.
    std::vector<LcpReport> solve(std::span<const LcpProblem* const> blocks, std::span<float> x,
                                 const LcpOptions& o);

  private:
    struct Totals {
        std::size_t rows = 0, bodies = 0, entries = 0, residuals = 0;
        int longest = 0;  ///< the largest maxIterations of the batch
    };
    Totals pack(std::span<const LcpProblem* const> blocks, std::span<const float> x,
                const LcpOptions& o);
    Status upload(const Totals& sizes, const LcpOptions& o);
    Status iterate(const Totals& sizes, const LcpOptions& o, int& dispatches);

    gpu::Program m_gather, m_rowsPass, m_finish;
    gpu::Buffer m_rowBuffer, m_jacobian, m_u, m_x, m_blockBuffer, m_residual, m_weightBuffer,
        m_bodyBuffer, m_entryBuffer, m_control;
    /// pack() writes the rows, J, x^0, bodies and entries into m_staging where the context can
    /// map one (sections below), and upload() copies them into the buffers above by DMA; else
    /// into the host vectors below, uploaded with glBufferSubData.
    gpu::Buffer m_staging;
    gpu::Fence m_stagingFence;
    bool m_stagingUsable = true;
    bool m_staged = false;
    struct Sections {
        std::size_t rows = 0, jacobian = 0, x = 0, bodies = 0, entries = 0, end = 0;
    } m_sections;
    std::vector<gpu_layout::MfRow> m_rows;
    std::vector<gpu_layout::MfBody> m_bodies;
    std::vector<gpu_layout::MfEntry> m_entries;
    std::vector<gpu_layout::MfBlock> m_blocks;
    std::vector<float> m_jacobianPlanes, m_xPlanes, m_weights;
    std::vector<int> m_partner;  ///< pack(): each row's disc-pair partner in its block, or -1
    const exec::Executor* m_executor = nullptr;
};

}  // namespace ww::lcp
