// The implicit water surface (Krüger & Westermann, GPU Gems 2 ch. 44.4): heights u on an
// nx x ny grid advanced by Crank–Nicolson (one SPD solve (I - alpha L) u^n+1 = rhs per step,
// by warm-started CG) or by the explicit leapfrog scheme, on the CPU or the GPU. The right-
// hand side is built on the backend that solves; switching backends keeps the state.
// Equations: solver/wave/wave_kernels.h and docs/wave.md.
//
// State: u^n and u^n-1 (a ring of three height buffers, the third receives u^n+1), the
// pending disturbances, the rain generator and the wake. Parameters: WaveParams.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "solver/cg/operators.h"
#include "solver/core/backend.h"
#include "solver/core/result.h"
#include "solver/gpu/shader_library.h"
#include "solver/wave/wave_backend.h"
#include "solver/wave/wave_kernels.h"
#include "solver/wave/wave_params.h"

namespace ww::wave {

/// A point of a wake path, normalized pool coordinates in [0, 1].
struct PathPoint {
    float x = 0.0f;
    float y = 0.0f;
};

class WaveModel {
  public:
    /// Builds the model at rest; its CPU kernels run on `executor` (results do not depend on
    /// its thread count). kGpu needs a current GL context and `library`.
    static Result<WaveModel> create(const WaveParams& params, Backend backend,
                                    const gpu::ShaderLibrary* library,
                                    std::shared_ptr<const exec::Executor> executor);
    WaveModel(WaveModel&&) noexcept;
    WaveModel& operator=(WaveModel&&) noexcept;
    ~WaveModel();

    const WaveParams& params() const { return m_params; }
    /// Changes dt, speed, damping, scheme, boundary or CG options (not the grid size). A
    /// change of dt, damping or scheme keeps the heights u^n and the velocity v^n (the state
    /// the pair (u^n, u^n-1) stands for), so the water neither speeds up nor slows down:
    /// u^n-1 is recomputed (one CG solve for Crank–Nicolson, docs/wave.md "Changing dt").
    Status setParams(const WaveParams& params);

    /// A drop at rest: a Gaussian bump of `amplitude` metres and 1/e radius `radiusM`
    /// centred at normalized (xNorm, yNorm), applied at the start of the next step.
    void addDrop(float xNorm, float yNorm, float amplitude, float radiusM);
    /// Random drops at `dropsPerSecond` (Poisson in time, uniform in space), reproducible
    /// from `seed`.
    void setRain(bool on, float dropsPerSecond, std::uint64_t seed, float amplitude = 0.02f,
                 float radiusM = 0.08f);
    /// A source moving along `path` (normalized points, looped) at `speedMps`, pushing the
    /// surface down by `depthRate` metres per second under a Gaussian of `radiusM` and up by
    /// the same volume under one twice as wide, so that the pool's volume is kept.
    void setWake(std::vector<PathPoint> path, float speedMps, float depthRate = 0.5f,
                 float radiusM = 0.15f);
    void clearWake() { m_wakePath.clear(); }

    /// Advances one time step.
    StepStats step();

    /// Discrete energy of (u^n, u^n-1), see wave_kernels.h (downloads on the GPU).
    double energy() const;
    /// Heights u^n, row-major nx x ny (downloads on the GPU: not for the render path).
    std::vector<float> heights() const;
    /// GL buffer name of u^n (nx * ny floats) when on the GPU, 0 on the CPU. Valid until
    /// the next step() or setBackend().
    unsigned heightBufferHandle() const;
    /// GL buffer name of u^n-1 on the GPU, 0 on the CPU; valid as heightBufferHandle(). A
    /// kernel may write u^n and u^n-1 in place (a displacement at rest, as addAtRest) when it
    /// ends with gpu::barrier() before the next step.
    unsigned previousHeightBufferHandle() const;
    /// CPU backend: u^n and u^n-1 without a copy, valid until the next step (empty on the GPU).
    std::span<const float> cpuHeights() const;
    std::span<const float> cpuPreviousHeights() const;
    /// Adds deltaM[k] to cell cells[k] and uniformM to every cell, in u^n and u^n-1 alike: a
    /// displacement at rest, which carries no velocity (a source of volume, docs/splash.md).
    /// On the GPU through a download and an upload.
    void addAtRest(std::span<const int> cells, std::span<const float> deltaM, float uniformM);
    /// Copies the state (u^n, u^n-1) out (downloads on the GPU).
    void heightsPair(std::vector<float>& u, std::vector<float>& uPrev) const;
    /// Replaces the state (u^n, u^n-1); sizes must be nx * ny.
    Status setState(const std::vector<float>& u, const std::vector<float>& uPrev);

    /// Everything later steps depend on besides the params: the heights (u^n, u^n-1), queued
    /// drops, rain and wake (with the rain's random state), the step count and time.
    /// Restoring it and stepping repeats the saved run bit for bit on the same backend.
    struct State {
        std::vector<float> u, uPrev;
        std::vector<Impulse> pending;
        bool rainOn = false;
        float rainRate = 0.0f, rainAmplitude = 0.0f, rainRadius = 0.0f;
        std::uint64_t rng = 0;
        std::vector<PathPoint> wakePath;
        float wakeSpeed = 0.0f, wakeDepthRate = 0.0f, wakeRadius = 0.0f;
        double wakeDistance = 0.0;
        long steps = 0;
        double time = 0.0;
        std::size_t bytes() const {
            return (u.size() + uPrev.size()) * sizeof(float) + pending.size() * sizeof(Impulse) +
                   wakePath.size() * sizeof(PathPoint);
        }
    };
    /// Downloads the heights on the GPU.
    State saveState() const;
    /// Sizes must match the grid (an input error otherwise, and nothing changes).
    Status restoreState(const State& state);

    Backend backend() const { return m_impl->kind(); }
    /// Moves the state to the other backend (kGpu needs a current context and `library`,
    /// which must outlive the model): the heights are read from the current backend and
    /// written to a new one. On failure nothing changes.
    Status setBackend(Backend backend, const gpu::ShaderLibrary* library);

    long steps() const { return m_steps; }
    double timeSeconds() const { return m_time; }
    /// FNV-1a hash of u^n and u^n-1, for determinism checks.
    std::string stateHash() const;

  private:
    WaveModel() = default;
    GridCoeffs coeffs() const;
    std::size_t cells() const {
        return static_cast<std::size_t>(m_params.nx) * static_cast<std::size_t>(m_params.ny);
    }
    void collectImpulses(float dt);
    /// The wake source's impulses of this step (a trough and a ridge of the same volume) into
    /// m_impulses; the pool is width x height metres.
    void addWakeImpulses(float dt, float width, float height);

    WaveParams m_params;
    std::shared_ptr<const exec::Executor> m_ex;
    cg::StencilOperator m_op{4, 4, 0.0f, cg::Boundary::kNeumann};  ///< the CN system
    std::unique_ptr<WaveBackend> m_impl;  ///< the heights and the kernels that step them

    std::vector<Impulse> m_pending;   ///< drops queued by addDrop
    std::vector<Impulse> m_impulses;  ///< this step's impulses
    bool m_rainOn = false;
    float m_rainRate = 0.0f;
    float m_rainAmplitude = 0.0f;
    float m_rainRadius = 0.0f;
    std::uint64_t m_rng = 0;
    std::vector<PathPoint> m_wakePath;
    float m_wakeSpeed = 0.0f;
    float m_wakeDepthRate = 0.0f;
    float m_wakeRadius = 0.0f;
    double m_wakeDistance = 0.0;
    long m_steps = 0;
    double m_time = 0.0;
};

}  // namespace ww::wave
