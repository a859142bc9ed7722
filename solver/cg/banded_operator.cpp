// BandedOperator and Göddeke's Jacobi sweep: fast and reference paths (operators.h).
#include "solver/cg/operators.h"

#include <algorithm>
#include <string>

#include "solver/cg/vector_kernels.h"

namespace ww::cg {

using detail::kBlock;

Result<BandedOperator> BandedOperator::create(std::size_t n, std::vector<int> offsets,
                                              std::vector<std::vector<float>> bands) {
    if (offsets.size() != bands.size() || offsets.empty()) {
        return inputError("banded matrix: need one offset per band and at least one band");
    }
    BandedOperator op;
    op.m_n = n;
    op.m_offsets = std::move(offsets);
    op.m_bands.reserve(n * bands.size());
    for (std::size_t d = 0; d < bands.size(); ++d) {
        if (bands[d].size() != n) {
            return inputError("banded matrix: band " + std::to_string(d) + " has " +
                              std::to_string(bands[d].size()) + " entries, expected " +
                              std::to_string(n));
        }
        op.m_bands.insert(op.m_bands.end(), bands[d].begin(), bands[d].end());
        if (op.m_offsets[d] == 0) {
            op.m_diagonal = static_cast<int>(d);
        }
    }
    return op;
}

BandedOperator BandedOperator::fromStencil(const StencilOperator& s) {
    const int nx = s.nx();
    const std::size_t n = s.size();
    std::vector<int> offsets = {-nx, -1, 0, 1, nx};
    std::vector<std::vector<float>> bands(5, std::vector<float>(n, 0.0f));
    for (const Triplet& t : s.triplets()) {
        const int off = t.col - t.row;
        const auto d = std::find(offsets.begin(), offsets.end(), off) - offsets.begin();
        bands[static_cast<std::size_t>(d)][static_cast<std::size_t>(t.row)] = t.value;
    }
    return std::move(create(n, std::move(offsets), std::move(bands))).value();
}

BandedOperator BandedOperator::nineBandedQ1(int nx, int ny, float alpha) {
    const std::size_t n = static_cast<std::size_t>(nx) * ny;
    std::vector<int> offsets = {-nx - 1, -nx, -nx + 1, -1, 0, 1, nx - 1, nx, nx + 1};
    std::vector<std::vector<float>> bands(9, std::vector<float>(n, 0.0f));
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) {
            const std::size_t k = static_cast<std::size_t>(j) * nx + i;
            int d = 0;
            for (int dj = -1; dj <= 1; ++dj) {
                for (int di = -1; di <= 1; ++di, ++d) {
                    const bool inside = i + di >= 0 && i + di < nx && j + dj >= 0 && j + dj < ny;
                    if (di == 0 && dj == 0) {
                        bands[static_cast<std::size_t>(d)][k] = 1.0f + alpha * 8.0f / 3.0f;
                    } else if (inside) {
                        bands[static_cast<std::size_t>(d)][k] = -alpha / 3.0f;
                    }
                }
            }
        }
    }
    return std::move(create(n, std::move(offsets), std::move(bands))).value();
}

void BandedOperator::applyBlock(std::size_t i0, std::size_t i1, const float* x, float* y) const {
    const long n = static_cast<long>(m_n);
    std::fill(y + i0, y + i1, 0.0f);
    // Band by band (Göddeke's DAXPY-like form): each inner loop is a plain vector triad.
    for (std::size_t d = 0; d < m_offsets.size(); ++d) {
        const long off = m_offsets[d];
        const long lo = std::max(static_cast<long>(i0), -off);
        const long hi = std::min(static_cast<long>(i1), n - off);
        const float* b = m_bands.data() + d * m_n + lo;
        const float* xs = x + lo + off;
        float* ys = y + lo;
        const int len = static_cast<int>(hi - lo);
#pragma omp simd
        for (int i = 0; i < len; ++i) {
            ys[i] += b[i] * xs[i];
        }
    }
}

void BandedOperator::apply(const exec::Executor& ex, std::span<const float> x,
                           std::span<float> y) const {
    (void)applyDot(ex, x.data(), y.data());
}

double BandedOperator::applyDot(const exec::Executor& ex, const float* x, float* y) const {
    return detail::blockedSum(ex, m_n, [=, this](std::size_t i0, std::size_t i1) {
        applyBlock(i0, i1, x, y);
        const float* px = x + i0;
        const float* py = y + i0;
        const int len = static_cast<int>(i1 - i0);
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int i = 0; i < len; ++i) {
            s += px[i] * py[i];
        }
        return s;
    });
}

void BandedOperator::applyReference(std::span<const double> x, std::span<double> y) const {
    for (std::size_t i = 0; i < m_n; ++i) {
        double s = 0.0;
        for (std::size_t d = 0; d < m_offsets.size(); ++d) {
            const long j = static_cast<long>(i) + m_offsets[d];
            if (j >= 0 && j < static_cast<long>(m_n)) {
                s += double(m_bands[d * m_n + i]) * x[static_cast<std::size_t>(j)];
            }
        }
        y[i] = s;
    }
}

std::vector<Triplet> BandedOperator::triplets() const {
    std::vector<Triplet> t;
    for (std::size_t i = 0; i < m_n; ++i) {
        for (std::size_t d = 0; d < m_offsets.size(); ++d) {
            const long j = static_cast<long>(i) + m_offsets[d];
            const float v = m_bands[d * m_n + i];
            if (j >= 0 && j < static_cast<long>(m_n) && v != 0.0f) {
                t.push_back({static_cast<int>(i), static_cast<int>(j), v});
            }
        }
    }
    return t;
}

std::vector<float> BandedOperator::inverseDiagonal() const {
    std::vector<float> inv(m_n, 0.0f);
    if (m_diagonal >= 0) {
        const float* d = m_bands.data() + static_cast<std::size_t>(m_diagonal) * m_n;
        for (std::size_t i = 0; i < m_n; ++i) {
            inv[i] = 1.0f / d[i];
        }
    }
    return inv;
}

void BandedOperator::jacobiSweep(const exec::Executor& ex, const float* b, const float* invDiag,
                                 const float* xIn, float* xOut) const {
    const auto blocks =
        exec::chunkCount(static_cast<std::ptrdiff_t>(m_n), static_cast<std::ptrdiff_t>(kBlock));
    ex.parallelFor(
        blocks,
        [&](std::ptrdiff_t k) {
            const std::size_t i0 = static_cast<std::size_t>(k) * kBlock;
            const std::size_t i1 = std::min(i0 + kBlock, m_n);
            applyBlock(i0, i1, xIn, xOut);
            const float* pi = xIn + i0;
            const float* pb = b + i0;
            const float* pd = invDiag + i0;
            float* po = xOut + i0;
            const int len = static_cast<int>(i1 - i0);
#pragma omp simd
            for (int i = 0; i < len; ++i) {
                po[i] = pi[i] + (pb[i] - po[i]) * pd[i];
            }
        },
        static_cast<std::ptrdiff_t>(m_n));
}

void BandedOperator::jacobiSweepReference(const float* b, const float* xIn, float* xOut) const {
    for (std::size_t i = 0; i < m_n; ++i) {
        double s = 0.0;
        double diag = 1.0;
        for (std::size_t d = 0; d < m_offsets.size(); ++d) {
            const long j = static_cast<long>(i) + m_offsets[d];
            if (j >= 0 && j < static_cast<long>(m_n)) {
                s += double(m_bands[d * m_n + i]) * xIn[j];
            }
            if (m_offsets[d] == 0) {
                diag = m_bands[d * m_n + i];
            }
        }
        xOut[i] = static_cast<float>(xIn[i] + (b[i] - s) / diag);
    }
}

}  // namespace ww::cg
