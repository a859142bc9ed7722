// Conjugate gradients and linear Jacobi on the GPU (OpenGL 4.3 compute, through
// solver/gpu). The algorithm is the CPU one (cg_cpu.h); the GPU layout follows Krüger &
// Westermann (GPU Gems 2 ch. 44) with the passes fused:
//
//   init        r = b - A x, rho = r.r, b.b, p = 0                        (1 dispatch / solve)
//   direction   p' = r + beta p, q = A p', alpha = rho / p'.q             (dispatch 1 / iter)
//   update      x += alpha p', r -= alpha q, rho' = r.r, beta = rho'/rho  (dispatch 2 / iter)
//   final       ||b - A x|| / ||b|| (cg_init with uFinal = 1)             (1 dispatch / solve)
//
// All scalars (alpha, beta, rho, residual, status) stay in a 48-byte GPU buffer, the
// chapter's 1x1 "single float" texture; no readback happens inside an iteration, the status
// is read every CgOptions::checkEvery iterations, and once converged the kernels return at
// once, so the iteration count is exact. Reductions add fixed workgroup partials in index
// order: a solve repeats bit for bit on one device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "solver/cg/cg_types.h"
#include "solver/cg/operators.h"
#include "solver/core/result.h"
#include "solver/gpu/gl_objects.h"
#include "solver/gpu/shader_library.h"

namespace ww::cg {

/// Mirror of CgScalars in shaders/cg_common.glsl.
struct GpuCgScalars {
    float alpha;
    float beta;
    float rho;
    float pq;
    float bb;
    float residual;
    float tolerance;
    std::uint32_t iterations;
    std::uint32_t status;  ///< 0 running, 1 converged, 2 breakdown
    std::uint32_t ticket;
    float trueResidual;  ///< ||b - A x|| / ||b||, written by the final cg_init pass
    std::uint32_t pad1;
};
static_assert(sizeof(GpuCgScalars) == 48);
static_assert(offsetof(GpuCgScalars, tolerance) == 24);
static_assert(offsetof(GpuCgScalars, iterations) == 28);
static_assert(offsetof(GpuCgScalars, ticket) == 36);
static_assert(offsetof(GpuCgScalars, trueResidual) == 40);

/// An operator's data on the GPU (the stencil needs none: it is matrix-free).
class GpuOperator {
  public:
    enum class Kind { kStencil, kBanded, kCsr, kDense };

    static GpuOperator fromStencil(const StencilOperator& op);
    static Result<GpuOperator> upload(const BandedOperator& op);
    static Result<GpuOperator> upload(const CsrMatrix& op);
    static Result<GpuOperator> upload(const DenseOperator& op);

    Kind kind() const { return m_kind; }
    std::size_t size() const { return m_n; }
    /// Stencil only: changes alpha (e.g. when the wave model's time step changes).
    void setStencilAlpha(float alpha) { m_alpha = alpha; }
    /// The shader define that selects this operator in cg_operator.glsl.
    const char* define() const;
    /// Sets the operator's uniforms on `program` (in use) and binds its buffers.
    void bind(const gpu::Program& program) const;

  private:
    Kind m_kind = Kind::kStencil;
    std::size_t m_n = 0;
    int m_nx = 0;
    int m_ny = 0;
    float m_alpha = 0.0f;
    bool m_neumannX = false;  ///< stencil: ghost columns mirror the boundary cell
    bool m_neumannY = false;  ///< stencil: ghost rows mirror the boundary cell
    std::vector<int> m_offsets;
    gpu::Buffer m_data0;  ///< bands | row pointers | dense values
    gpu::Buffer m_data1;  ///< CSR columns
    gpu::Buffer m_data2;  ///< CSR values
};

/// Owns the GPU work buffers and programs for one operator kind and size: create once,
/// solve every step.
class GpuCgSolver {
  public:
    /// recomputeStencilProduct (stencil only): the update kernel recomputes A p' instead of
    /// reading a stored q, 32 instead of 40 bytes per unknown and iteration. Off by default:
    /// on llvmpipe it measured no faster (the extra arithmetic runs on the same CPU cores,
    /// docs/cg.md); worth re-measuring on a bandwidth-bound discrete GPU.
    static Result<GpuCgSolver> create(const gpu::ShaderLibrary& library, const GpuOperator& op,
                                      bool recomputeStencilProduct = false);

    /// Solves A x = b with b and x already on the GPU (x: warm start in, solution out).
    Result<CgReport> solve(const GpuOperator& op, const gpu::Buffer& b, gpu::Buffer& x,
                           const CgOptions& options);
    /// Convenience: uploads b and x, solves, downloads x (buffers allocated on first use).
    Result<CgReport> solve(const GpuOperator& op, std::span<const float> b, std::span<float> x,
                           const CgOptions& options);

    /// Dispatches per CG iteration (the init dispatch runs once per solve).
    static constexpr int kDispatchesPerIteration = 2;
    std::size_t size() const { return m_n; }

  private:
    std::size_t m_n = 0;
    std::uint32_t m_groups = 0;
    gpu::Program m_init;
    gpu::Program m_direction;
    gpu::Program m_update;
    gpu::Buffer m_scalars;
    gpu::Buffer m_partials;
    gpu::Buffer m_r;
    gpu::Buffer m_p[2];
    gpu::Buffer m_q;
    gpu::Buffer m_history;
    std::size_t m_historyCapacity = 0;
    gpu::Buffer m_b;  ///< for the span overload only
    gpu::Buffer m_x;
};

/// Linear Jacobi sweeps on banded storage on the GPU (Göddeke), ping-ponging two buffers.
class GpuJacobi {
  public:
    static Result<GpuJacobi> create(const gpu::ShaderLibrary& library, const BandedOperator& op,
                                    std::span<const float> b, std::span<const float> x0);
    /// Runs `sweeps` sweeps (no readback).
    Status run(int sweeps);
    /// Downloads the current iterate.
    std::vector<float> solution() const;

  private:
    GpuOperator m_op;
    gpu::Program m_program;
    gpu::Buffer m_b;
    gpu::Buffer m_invDiag;
    gpu::Buffer m_x[2];
    int m_current = 0;
};

}  // namespace ww::cg
