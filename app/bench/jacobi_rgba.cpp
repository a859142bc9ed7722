// Göddeke's RGBA layout (see jacobi_rgba.h).
#include "app/bench/jacobi_rgba.h"

#include <algorithm>
#include <string>
#include <utility>

#include "solver/cg/vector_kernels.h"

namespace ww::bench {

std::vector<float> interleave(const std::array<std::vector<float>, 4>& parts) {
    const std::size_t n = parts[0].size();
    std::vector<float> out(kChannels * n);
    for (int c = 0; c < kChannels; ++c) {
        for (std::size_t i = 0; i < n; ++i) {
            out[kChannels * i + c] = parts[c][i];
        }
    }
    return out;
}

std::vector<float> channel(std::span<const float> rgba, int c) {
    std::vector<float> out(rgba.size() / kChannels);
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = rgba[kChannels * i + c];
    }
    return out;
}

Result<RgbaBandedSystems> RgbaBandedSystems::interleave(
    const std::array<cg::BandedOperator, 4>& ops, const std::array<std::vector<float>, 4>& rhs) {
    RgbaBandedSystems s;
    s.n = ops[0].size();
    s.offsets = ops[0].offsets();
    for (int c = 0; c < kChannels; ++c) {
        if (ops[c].size() != s.n || ops[c].offsets() != s.offsets || rhs[c].size() != s.n) {
            return inputError("RGBA layout: system " + std::to_string(c) +
                              " differs from system 0 in size or band offsets (four systems of "
                              "the same shape are needed)");
        }
    }
    const std::size_t nb = s.offsets.size();
    s.bands.resize(kChannels * nb * s.n);
    for (int c = 0; c < kChannels; ++c) {
        const std::vector<float>& data = ops[c].bandData();
        for (std::size_t k = 0; k < nb * s.n; ++k) {
            s.bands[kChannels * k + c] = data[k];
        }
    }
    s.invDiag = bench::interleave({ops[0].inverseDiagonal(), ops[1].inverseDiagonal(),
                                   ops[2].inverseDiagonal(), ops[3].inverseDiagonal()});
    s.b = bench::interleave(rhs);
    return s;
}

void RgbaBandedSystems::jacobiSweep(const exec::Executor& ex, const float* xIn, float* xOut) const {
    const long nl = static_cast<long>(n);
    const int nb = static_cast<int>(offsets.size());
    const float* pBands = bands.data();
    const float* pInv = invDiag.data();
    const float* pB = b.data();
    const int* off = offsets.data();
    // Rows whose every band stays inside [0, n) skip the bounds test (all but a few edge rows).
    long lo = 0;
    long hi = nl;
    for (int d = 0; d < nb; ++d) {
        lo = std::max(lo, -static_cast<long>(off[d]));
        hi = std::min(hi, nl - off[d]);
    }
    constexpr long kRowsPerChunk = 1024;
    ex.parallelFor((nl + kRowsPerChunk - 1) / kRowsPerChunk,
                   [&](std::ptrdiff_t chunk) {
                       const long end = std::min(nl, (chunk + 1) * kRowsPerChunk);
                       for (long i = chunk * kRowsPerChunk; i < end; ++i) {
                           const bool interior = i >= lo && i < hi;
                           float ax[kChannels] = {0.0f, 0.0f, 0.0f, 0.0f};
                           for (int d = 0; d < nb; ++d) {
                               const long j = i + off[d];
                               if (!interior && (j < 0 || j >= nl)) {
                                   continue;
                               }
                               const float* a =
                                   pBands + kChannels * (static_cast<std::size_t>(d) * n + i);
                               const float* x = xIn + kChannels * j;
#pragma omp simd
                               for (int c = 0; c < kChannels; ++c) {
                                   ax[c] += a[c] * x[c];
                               }
                           }
                           const std::size_t k = kChannels * static_cast<std::size_t>(i);
#pragma omp simd
                           for (int c = 0; c < kChannels; ++c) {
                               xOut[k + c] = xIn[k + c] + (pB[k + c] - ax[c]) * pInv[k + c];
                           }
                       }
                   },
                   nl * nb * kChannels);
}

Result<GpuRgbaJacobi> GpuRgbaJacobi::create(const gpu::ShaderLibrary& library,
                                            const RgbaBandedSystems& systems,
                                            std::span<const float> x0) {
    if (x0.size() != kChannels * systems.n || systems.offsets.size() != 9) {
        return inputError("RGBA Jacobi: needs nine bands and x0 of 4 n = " +
                          std::to_string(kChannels * systems.n) + " floats (got " +
                          std::to_string(systems.offsets.size()) + " bands, " +
                          std::to_string(x0.size()) + " floats)");
    }
    GpuRgbaJacobi j;
    j.m_n = systems.n;
    j.m_offsets = systems.offsets;
    auto program = library.build(gpu::ProgramSpec::computeStage("jacobi9_rgba.comp"));
    const std::size_t bandFloats = kChannels * systems.n;
    for (std::size_t d = 0; d < systems.offsets.size(); ++d) {
        auto band = gpu::Buffer::fromSpan(
            std::span<const float>(systems.bands).subspan(d * bandFloats, bandFloats), "rgba band");
        if (!band) {
            return band.error();
        }
        j.m_bands.push_back(std::move(band).value());
    }
    auto inv = gpu::Buffer::fromSpan(std::span<const float>(systems.invDiag), "rgba invDiag");
    auto b = gpu::Buffer::fromSpan(std::span<const float>(systems.b), "rgba b");
    auto x0Buffer = gpu::Buffer::fromSpan(x0, "rgba x0");
    auto x1Buffer = gpu::Buffer::create(x0.size_bytes(), nullptr, "rgba x1");
    for (const Error* e : {program ? nullptr : &program.error(), inv ? nullptr : &inv.error(),
                           b ? nullptr : &b.error(), x0Buffer ? nullptr : &x0Buffer.error(),
                           x1Buffer ? nullptr : &x1Buffer.error()}) {
        if (e != nullptr) {
            return *e;
        }
    }
    j.m_program = std::move(program).value();
    j.m_invDiag = std::move(inv).value();
    j.m_b = std::move(b).value();
    j.m_x[0] = std::move(x0Buffer).value();
    j.m_x[1] = std::move(x1Buffer).value();
    j.m_program.use();
    j.m_program.set("uN", static_cast<unsigned>(j.m_n));
    for (std::size_t d = 0; d < j.m_offsets.size(); ++d) {
        const std::string name = "uOffsets[" + std::to_string(d) + "]";
        j.m_program.set(name.c_str(), j.m_offsets[d]);
    }
    return j;
}

Status GpuRgbaJacobi::run(int sweeps) {
    m_program.use();
    m_b.bind(2);
    m_invDiag.bind(3);
    for (std::size_t d = 0; d < m_bands.size(); ++d) {
        m_bands[d].bind(4 + static_cast<unsigned>(d));
    }
    for (int s = 0; s < sweeps; ++s) {
        m_x[m_current].bind(0);
        m_x[1 - m_current].bind(1);
        if (Status st = gpu::dispatch(m_program, gpu::groupsFor(m_n, 256)); !st) {
            return st;
        }
        gpu::barrier();
        m_current = 1 - m_current;
    }
    return {};
}

std::vector<float> GpuRgbaJacobi::solution() const {
    return m_x[m_current].download<float>(kChannels * m_n);
}

}  // namespace ww::bench
