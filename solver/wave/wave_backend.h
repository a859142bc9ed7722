// Where the water surface's state lives and how it steps: one interface, a CPU and a GPU
// backend (as cg::CgSolver and lcp::LcpSolver). Each backend owns a ring of three height
// buffers (u^n, u^n-1 and the one that receives u^n+1), the right-hand side and a
// cg::CgSolver of its kind; WaveModel owns the parameters, the disturbances (drops, rain,
// wake) and one backend, and moves the heights between backends when asked. The equations
// are in wave_kernels.h.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "solver/cg/operators.h"
#include "solver/core/backend.h"
#include "solver/core/result.h"
#include "solver/exec/executor.h"
#include "solver/wave/wave_kernels.h"
#include "solver/wave/wave_params.h"

namespace ww::gpu {
class ShaderLibrary;
}

namespace ww::wave {

/// Disturbances per step (the GPU's impulse buffer holds this many).
inline constexpr std::size_t kMaxImpulsesPerStep = 256;

/// Which of a backend's three height buffers holds u^n, u^n-1, and receives u^n+1.
struct HeightRing {
    int current = 0;
    std::size_t now() const { return static_cast<std::size_t>(current); }
    std::size_t previous() const { return static_cast<std::size_t>((current + 2) % 3); }
    std::size_t next() const { return static_cast<std::size_t>((current + 1) % 3); }
    void rotate() { current = (current + 1) % 3; }
};

/// Whether a retime to CN keeps the mean velocity (u^n - u^n-1) / dt instead of solving:
/// heavy damping (gamma dt >= 1) makes the CN relation's system ill-conditioned or indefinite.
inline bool retimeKeepsMeanVelocity(const Retime& r) {
    return r.toCn && r.to.g >= 0.5f;
}

/// What one step reads besides the state: the parameters, their grid coefficients, the CN
/// system (I - alpha L) and this step's disturbances.
struct StepInput {
    const WaveParams& params;
    const GridCoeffs& coeffs;
    const cg::StencilOperator& system;
    std::span<const Impulse> impulses;
};

class WaveBackend {
  public:
    virtual ~WaveBackend() = default;
    virtual Backend kind() const = 0;

    /// Applies the disturbances, computes u^n+1 (CN: rhs and one CG solve; explicit: one
    /// update) and rotates the ring. A CG failure (breakdown, GPU error) leaves (u^n, u^n-1)
    /// as they were: stats.cgStatus is then kBreakdown and stats.message says why.
    virtual StepStats step(const StepInput& in) = 0;
    /// Rewrites u^n-1 so that (u^n, u^n-1) keeps u^n and v^n under the new coefficients
    /// (wave_kernels.h, retime); `params` are the new ones. Keeps u^n-1 if its CG fails.
    virtual void retime(const Retime& r, const WaveParams& params) = 0;

    /// Copies (u^n, u^n-1) out (the GPU downloads).
    virtual void download(std::vector<float>& u, std::vector<float>& uPrev) const = 0;
    /// u^n alone (the GPU downloads).
    virtual std::vector<float> heights() const = 0;
    /// Replaces (u^n, u^n-1); both hold the grid's nx * ny cells (checked by the caller).
    virtual void upload(std::span<const float> u, std::span<const float> uPrev) = 0;
    /// u[cells[k]] += deltaM[k] and u += uniformM, in u^n and u^n-1 alike.
    virtual void addAtRest(std::span<const int> cells, std::span<const float> deltaM,
                           float uniformM) = 0;

    /// u^n and u^n-1 in host memory without a copy (valid until the next step); empty when
    /// the state lives elsewhere.
    virtual std::span<const float> hostHeights() const { return {}; }
    virtual std::span<const float> hostPreviousHeights() const { return {}; }
    /// GL buffer name of u^n, 0 when the state is not in a GL buffer.
    virtual unsigned heightBufferHandle() const { return 0; }
    /// GL buffer name of u^n-1, 0 when the state is not in a GL buffer.
    virtual unsigned previousHeightBufferHandle() const { return 0; }
};

/// The CPU backend for `cells` = nx * ny cells at rest; kernels run on `executor`.
std::unique_ptr<WaveBackend> makeCpuWaveBackend(std::size_t cells,
                                                std::shared_ptr<const exec::Executor> executor);
/// The GPU backend at rest: needs a current GL 4.3 context (kGpuUnavailable) and builds its
/// kernels and buffers now (kShader, kGpuLimit). `library` must outlive the backend.
Result<std::unique_ptr<WaveBackend>> makeGpuWaveBackend(const WaveParams& params,
                                                        const cg::StencilOperator& system,
                                                        const gpu::ShaderLibrary& library);

/// Adds a displacement at rest to (u, uPrev) (both backends' addAtRest).
void addAtRestTo(std::span<float> u, std::span<float> uPrev, std::span<const int> cells,
                 std::span<const float> deltaM, float uniformM);
/// Copies a step's CG outcome into `stats`: the report, or for an error status kBreakdown
/// and the reason. Returns whether u^n+1 is usable (the ring may rotate).
bool recordSolve(StepStats& stats, const Result<cg::CgReport>& solve);

}  // namespace ww::wave
