// StencilOperator: fast and reference paths (equations in operators.h).
#include "solver/cg/operators.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "solver/cg/vector_kernels.h"

namespace ww::cg {

StencilOperator::StencilOperator(int nx, int ny, float alpha, Boundary boundary)
    : m_nx(nx), m_ny(ny), m_alpha(alpha), m_boundary(boundary), m_zeroRow(nx, 0.0f) {}

float StencilOperator::applyRowDot(const float* x, float* out, int j) const {
    const std::size_t nx = static_cast<std::size_t>(m_nx);
    const bool nx0 = neumannX(m_boundary);
    const bool ny0 = neumannY(m_boundary);
    const float* row = x + j * nx;
    // A Neumann ghost row equals the row itself: u_n - u_ij = 0 drops that neighbour.
    const float* up = j > 0 ? row - nx : (ny0 ? row : m_zeroRow.data());
    const float* dn = j + 1 < m_ny ? row + nx : (ny0 ? row : m_zeroRow.data());
    const float a = m_alpha;
    const float c0 = 1.0f + 4.0f * a;
    const float left = nx0 ? row[0] : 0.0f;
    const float right = nx0 ? row[nx - 1] : 0.0f;
    out[0] = c0 * row[0] - a * (left + row[1] + up[0] + dn[0]);
    float s = row[0] * out[0];
    const int last = m_nx - 1;
#pragma omp simd reduction(+ : s)
    for (int i = 1; i < last; ++i) {
        const float v = c0 * row[i] - a * (row[i - 1] + row[i + 1] + up[i] + dn[i]);
        out[i] = v;
        s += row[i] * v;
    }
    const std::size_t e = nx - 1;
    out[e] = c0 * row[e] - a * (row[e - 1] + right + up[e] + dn[e]);
    return s + row[e] * out[e];
}

namespace {

// A per-thread row of scratch: the stencil recomputes q = A p row by row instead of storing
// it (32 instead of 40 bytes per unknown and CG iteration).
float* rowScratch(int nx) {
    thread_local std::vector<float> row;
    if (row.size() < static_cast<std::size_t>(nx)) {
        row.resize(static_cast<std::size_t>(nx));
    }
    return row.data();
}

}  // namespace

double StencilOperator::updateSolution(const exec::Executor& ex, float* x, float* r, const float* p,
                                       float* /*q*/, float alpha) const {
    const std::size_t nx = static_cast<std::size_t>(m_nx);
    const bool nx0 = neumannX(m_boundary);
    const bool ny0 = neumannY(m_boundary);
    const float a = m_alpha;
    const float c0 = 1.0f + 4.0f * a;
    return detail::sumRows(ex, m_ny, nx, [&](int j) {
        const std::size_t o = static_cast<std::size_t>(j) * nx;
        const float* row = p + o;
        const float* up = j > 0 ? row - nx : (ny0 ? row : m_zeroRow.data());
        const float* dn = j + 1 < m_ny ? row + nx : (ny0 ? row : m_zeroRow.data());
        float* px = x + o;
        float* pr = r + o;
        // (A p)_i is formed in registers right where r needs it (q is never stored).
        auto edge = [&](std::size_t i, float left, float right) {
            const float q = c0 * row[i] - a * (left + right + up[i] + dn[i]);
            px[i] += alpha * row[i];
            pr[i] -= alpha * q;
            return pr[i] * pr[i];
        };
        const std::size_t e = nx - 1;
        float s = edge(0, nx0 ? row[0] : 0.0f, row[1]);
        const int last = m_nx - 1;
#pragma omp simd reduction(+ : s)
        for (int i = 1; i < last; ++i) {
            const float q = c0 * row[i] - a * (row[i - 1] + row[i + 1] + up[i] + dn[i]);
            px[i] += alpha * row[i];
            const float ri = pr[i] - alpha * q;
            pr[i] = ri;
            s += ri * ri;
        }
        return static_cast<double>(s + edge(e, row[e - 1], nx0 ? row[e] : 0.0f));
    });
}

ResidualSums StencilOperator::residual(const exec::Executor& ex, const float* b, const float* x,
                                       float* r) const {
    const std::size_t nx = static_cast<std::size_t>(m_nx);
    thread_local std::vector<double> bbRows;
    bbRows.resize(static_cast<std::size_t>(m_ny));
    double* bbOf = bbRows.data();
    ResidualSums sums;
    sums.rr = detail::sumRows(ex, m_ny, nx, [&](int j) {
        const std::size_t o = static_cast<std::size_t>(j) * nx;
        float* rr = r + o;
        const float* bb = b + o;
        (void)applyRowDot(x, rr, j);
        float s = 0.0f;
        float t = 0.0f;
        const int len = m_nx;
#pragma omp simd reduction(+ : s, t)
        for (int i = 0; i < len; ++i) {
            const float ri = bb[i] - rr[i];
            rr[i] = ri;
            s += ri * ri;
            t += bb[i] * bb[i];
        }
        bbOf[j] = static_cast<double>(t);
        return static_cast<double>(s);
    });
    sums.bb = std::accumulate(bbOf, bbOf + m_ny, 0.0);
    return sums;
}

double StencilOperator::residualNorm(const exec::Executor& ex, const float* b, const float* x,
                                     float* /*scratch*/) const {
    const std::size_t nx = static_cast<std::size_t>(m_nx);
    return detail::sumRows(ex, m_ny, nx, [&](int j) {
        float* ax = rowScratch(m_nx);
        (void)applyRowDot(x, ax, j);
        const float* bb = b + static_cast<std::size_t>(j) * nx;
        float s = 0.0f;
        const int len = m_nx;
#pragma omp simd reduction(+ : s)
        for (int i = 0; i < len; ++i) {
            const float ri = bb[i] - ax[i];
            s += ri * ri;
        }
        return static_cast<double>(s);
    });
}

void StencilOperator::apply(const exec::Executor& ex, std::span<const float> x,
                            std::span<float> y) const {
    (void)applyDot(ex, x.data(), y.data());
}

double StencilOperator::applyDot(const exec::Executor& ex, const float* x, float* y) const {
    return detail::sumRows(ex, m_ny, static_cast<std::size_t>(m_nx), [&](int j) {
        return static_cast<double>(applyRowDot(x, y + j * static_cast<std::size_t>(m_nx), j));
    });
}

double StencilOperator::directionApplyDot(const exec::Executor& ex, const float* r, float* p,
                                          float beta, float* /*q*/) const {
    const std::size_t nx = static_cast<std::size_t>(m_nx);
    thread_local std::vector<double> partial;
    if (partial.size() < static_cast<std::size_t>(m_ny)) {
        partial.resize(static_cast<std::size_t>(m_ny));
    }
    double* sums = partial.data();
    auto updateRow = [&](std::ptrdiff_t j) {
        const float* rr = r + j * nx;
        float* pp = p + j * nx;
        const int len = m_nx;
        if (beta == 0.0f) {  // the first direction: p = r, whatever p held
            std::copy(rr, rr + len, pp);
            return;
        }
#pragma omp simd
        for (int i = 0; i < len; ++i) {
            pp[i] = rr[i] + beta * pp[i];
        }
    };
    // Chunks of rows (about kStencilChunkElems unknowns, at least 2 rows). The first and last
    // rows of each chunk are read by the neighbouring chunks' stencils: a first loop updates
    // them before anyone reads, the second updates the rest just ahead of use.
    const std::ptrdiff_t chunkRows =
        std::max<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(kStencilChunkElems / nx));
    const std::ptrdiff_t chunks = exec::chunkCount(m_ny, chunkRows);
    const auto work = static_cast<std::ptrdiff_t>(size());
    auto rowsOf = [&](std::ptrdiff_t c) {
        return std::pair{c * chunkRows, std::min<std::ptrdiff_t>(c * chunkRows + chunkRows, m_ny)};
    };
    ex.parallelFor(
        chunks,
        [&](std::ptrdiff_t c) {
            const auto [j0, j1] = rowsOf(c);
            updateRow(j0);
            if (j1 - 1 > j0) {
                updateRow(j1 - 1);
            }
        },
        work);
    ex.parallelFor(
        chunks,
        [&](std::ptrdiff_t c) {
            const auto [j0, j1] = rowsOf(c);
            float* row = rowScratch(m_nx);
            for (std::ptrdiff_t j = j0; j < j1; ++j) {
                if (j + 1 < j1 - 1) {
                    updateRow(j + 1);
                }
                sums[j] = static_cast<double>(applyRowDot(p, row, static_cast<int>(j)));
            }
        },
        work);
    return std::accumulate(sums, sums + m_ny, 0.0);
}

void StencilOperator::applyReference(std::span<const double> x, std::span<double> y) const {
    for (int j = 0; j < m_ny; ++j) {
        for (int i = 0; i < m_nx; ++i) {
            const std::size_t k = static_cast<std::size_t>(j) * m_nx + i;
            double sum = 0.0;
            const int di[4] = {-1, 1, 0, 0};
            const int dj[4] = {0, 0, -1, 1};
            for (int d = 0; d < 4; ++d) {
                const int ii = i + di[d];
                const int jj = j + dj[d];
                if (ii >= 0 && ii < m_nx && jj >= 0 && jj < m_ny) {
                    sum += x[static_cast<std::size_t>(jj) * m_nx + ii];
                }
            }
            const double diag = 1.0 + double(m_alpha) * (4 - mirroredNeighbours(i, j));
            y[k] = diag * x[k] - double(m_alpha) * sum;
        }
    }
}

int StencilOperator::mirroredNeighbours(int i, int j) const {
    const int sidesX = (i == 0) + (i + 1 == m_nx);
    const int sidesY = (j == 0) + (j + 1 == m_ny);
    return (neumannX(m_boundary) ? sidesX : 0) + (neumannY(m_boundary) ? sidesY : 0);
}

std::vector<Triplet> StencilOperator::triplets() const {
    std::vector<Triplet> t;
    t.reserve(size() * 5);
    for (int j = 0; j < m_ny; ++j) {
        for (int i = 0; i < m_nx; ++i) {
            const int k = j * m_nx + i;
            auto add = [&](int ii, int jj) {
                if (ii >= 0 && ii < m_nx && jj >= 0 && jj < m_ny) {
                    t.push_back({k, jj * m_nx + ii, -m_alpha});
                }
            };
            add(i, j - 1);
            add(i - 1, j);
            add(i + 1, j);
            add(i, j + 1);
            t.push_back({k, k, 1.0f + m_alpha * static_cast<float>(4 - mirroredNeighbours(i, j))});
        }
    }
    return t;
}

}  // namespace ww::cg
