// Göddeke's RGBA layout: four nine-banded systems of the same shape solved at once, unknown i
// of system c stored in channel c of element i (4 floats per element), on the CPU and the GPU
// (shaders/jacobi9_rgba.comp). The single-channel layout is cg::BandedOperator.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "solver/cg/operators.h"
#include "solver/core/result.h"
#include "solver/exec/executor.h"
#include "solver/gpu/gl_objects.h"
#include "solver/gpu/shader_library.h"

namespace ww::bench {

inline constexpr int kChannels = 4;

/// Four banded systems with the same band offsets, interleaved by channel.
struct RgbaBandedSystems {
    std::size_t n = 0;           ///< unknowns per system
    std::vector<int> offsets;    ///< band offsets (shared)
    std::vector<float> bands;    ///< bands[(d n + i) 4 + c] = A_c(i, i + offsets[d])
    std::vector<float> invDiag;  ///< invDiag[4 i + c] = 1 / A_c(i, i)
    std::vector<float> b;        ///< b[4 i + c]

    /// Interleaves four operators with identical offsets and their right-hand sides.
    static Result<RgbaBandedSystems> interleave(const std::array<cg::BandedOperator, 4>& ops,
                                                const std::array<std::vector<float>, 4>& rhs);
    /// One Jacobi sweep of all four systems: xOut = xIn + (b - A xIn) invDiag per channel.
    /// Rows in fixed chunks on `ex` (each row on its own: the result does not depend on
    /// the thread count).
    void jacobiSweep(const exec::Executor& ex, const float* xIn, float* xOut) const;
};

/// Interleaves four vectors of equal length (v[4 i + c] = parts[c][i]).
std::vector<float> interleave(const std::array<std::vector<float>, 4>& parts);
/// Channel c of an interleaved vector.
std::vector<float> channel(std::span<const float> rgba, int c);

/// The RGBA Jacobi on the GPU: all data resident (one buffer per band), sweeps ping-pong two
/// iterate buffers.
class GpuRgbaJacobi {
  public:
    /// Uploads the systems and x0 (4 n floats); needs a current GL 4.3 context.
    static Result<GpuRgbaJacobi> create(const gpu::ShaderLibrary& library,
                                        const RgbaBandedSystems& systems,
                                        std::span<const float> x0);
    /// Runs `sweeps` sweeps (no readback).
    Status run(int sweeps);
    /// Downloads the current iterate (4 n floats, interleaved).
    std::vector<float> solution() const;

  private:
    GpuRgbaJacobi() = default;
    std::size_t m_n = 0;
    std::vector<int> m_offsets;
    gpu::Program m_program;
    std::vector<gpu::Buffer> m_bands;  ///< one per band, bindings 4, 5, ...
    gpu::Buffer m_invDiag;
    gpu::Buffer m_b;
    gpu::Buffer m_x[2];
    int m_current = 0;
};

}  // namespace ww::bench
