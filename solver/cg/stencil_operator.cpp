// StencilOperator: fast and reference paths (equations in operators.h).
#include "solver/cg/operators.h"

#include <omp.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "solver/cg/vector_kernels.h"

namespace ww::cg {

using detail::kParallelMin;

StencilOperator::StencilOperator(int nx, int ny, float alpha, Boundary boundary)
    : m_nx(nx), m_ny(ny), m_alpha(alpha), m_boundary(boundary), m_zeroRow(nx, 0.0f) {}

float StencilOperator::applyRowDot(const float* x, float* out, int j) const {
    const std::size_t nx = static_cast<std::size_t>(m_nx);
    const bool neumann = m_boundary == Boundary::kNeumann;
    const float* row = x + j * nx;
    // A Neumann ghost row equals the row itself: u_n - u_ij = 0 drops that neighbour.
    const float* up = j > 0 ? row - nx : (neumann ? row : m_zeroRow.data());
    const float* dn = j + 1 < m_ny ? row + nx : (neumann ? row : m_zeroRow.data());
    const float a = m_alpha;
    const float c0 = 1.0f + 4.0f * a;
    const float left = neumann ? row[0] : 0.0f;
    const float right = neumann ? row[nx - 1] : 0.0f;
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

// Per-row partial sums, added in row order: deterministic for any thread count.
template <typename RowFn>
double sumRows(int rows, bool parallel, RowFn&& fn) {
    thread_local std::vector<double> partial;
    if (partial.size() < static_cast<std::size_t>(rows)) {
        partial.resize(static_cast<std::size_t>(rows));
    }
    double* out = partial.data();
#pragma omp parallel for schedule(static) if (parallel) num_threads(detail::workerThreads())
    for (int j = 0; j < rows; ++j) {
        out[j] = static_cast<double>(fn(j));
    }
    return std::accumulate(out, out + rows, 0.0);
}

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

double StencilOperator::updateSolution(float* x, float* r, const float* p, float* /*q*/,
                                       float alpha) const {
    const std::size_t nx = static_cast<std::size_t>(m_nx);
    const bool neumann = m_boundary == Boundary::kNeumann;
    const float a = m_alpha;
    const float c0 = 1.0f + 4.0f * a;
    return sumRows(m_ny, size() >= kParallelMin, [&](int j) {
        const std::size_t o = static_cast<std::size_t>(j) * nx;
        const float* row = p + o;
        const float* up = j > 0 ? row - nx : (neumann ? row : m_zeroRow.data());
        const float* dn = j + 1 < m_ny ? row + nx : (neumann ? row : m_zeroRow.data());
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
        float s = edge(0, neumann ? row[0] : 0.0f, row[1]);
        const int last = m_nx - 1;
#pragma omp simd reduction(+ : s)
        for (int i = 1; i < last; ++i) {
            const float q = c0 * row[i] - a * (row[i - 1] + row[i + 1] + up[i] + dn[i]);
            px[i] += alpha * row[i];
            const float ri = pr[i] - alpha * q;
            pr[i] = ri;
            s += ri * ri;
        }
        return s + edge(e, row[e - 1], neumann ? row[e] : 0.0f);
    });
}

void StencilOperator::apply(std::span<const float> x, std::span<float> y) const {
    (void)applyDot(x.data(), y.data());
}

double StencilOperator::applyDot(const float* x, float* y) const {
    return sumRows(m_ny, size() >= kParallelMin, [&](int j) {
        return applyRowDot(x, y + j * static_cast<std::size_t>(m_nx), j);
    });
}

double StencilOperator::directionApplyDot(const float* r, float* p, float beta,
                                          float* /*q*/) const {
    const std::size_t nx = static_cast<std::size_t>(m_nx);
    thread_local std::vector<double> partial;
    if (partial.size() < static_cast<std::size_t>(m_ny)) {
        partial.resize(static_cast<std::size_t>(m_ny));
    }
    double* sums = partial.data();
    auto updateRow = [&](int j) {
        const float* rr = r + j * nx;
        float* pp = p + j * nx;
        const int len = m_nx;
#pragma omp simd
        for (int i = 0; i < len; ++i) {
            pp[i] = rr[i] + beta * pp[i];
        }
    };
    const int threads = size() >= kParallelMin ? detail::workerThreads() : 1;
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num();
        const int nt = omp_get_num_threads();
        const int j0 = static_cast<int>(static_cast<long>(m_ny) * t / nt);
        const int j1 = static_cast<int>(static_cast<long>(m_ny) * (t + 1) / nt);
        // The first and last rows of each chunk are read by the neighbouring chunks'
        // stencils: update them before anyone reads, the rest just ahead of use.
        if (j1 > j0) {
            updateRow(j0);
            if (j1 - 1 > j0) {
                updateRow(j1 - 1);
            }
        }
        float* row = rowScratch(m_nx);
#pragma omp barrier
        for (int j = j0; j < j1; ++j) {
            if (j + 1 < j1 - 1) {
                updateRow(j + 1);
            }
            sums[j] = static_cast<double>(applyRowDot(p, row, j));
        }
    }
    return std::accumulate(sums, sums + m_ny, 0.0);
}

void StencilOperator::applyReference(std::span<const double> x, std::span<double> y) const {
    const bool neumann = m_boundary == Boundary::kNeumann;
    for (int j = 0; j < m_ny; ++j) {
        for (int i = 0; i < m_nx; ++i) {
            const std::size_t k = static_cast<std::size_t>(j) * m_nx + i;
            double sum = 0.0;
            int count = 0;
            const int di[4] = {-1, 1, 0, 0};
            const int dj[4] = {0, 0, -1, 1};
            for (int d = 0; d < 4; ++d) {
                const int ii = i + di[d];
                const int jj = j + dj[d];
                if (ii >= 0 && ii < m_nx && jj >= 0 && jj < m_ny) {
                    sum += x[static_cast<std::size_t>(jj) * m_nx + ii];
                    ++count;
                }
            }
            const double diag = 1.0 + double(m_alpha) * (neumann ? count : 4);
            y[k] = diag * x[k] - double(m_alpha) * sum;
        }
    }
}

std::vector<Triplet> StencilOperator::triplets() const {
    std::vector<Triplet> t;
    t.reserve(size() * 5);
    const bool neumann = m_boundary == Boundary::kNeumann;
    for (int j = 0; j < m_ny; ++j) {
        for (int i = 0; i < m_nx; ++i) {
            const int k = j * m_nx + i;
            int count = 0;
            auto add = [&](int ii, int jj) {
                if (ii >= 0 && ii < m_nx && jj >= 0 && jj < m_ny) {
                    t.push_back({k, jj * m_nx + ii, -m_alpha});
                    ++count;
                }
            };
            add(i, j - 1);
            add(i - 1, j);
            add(i + 1, j);
            add(i, j + 1);
            t.push_back({k, k, 1.0f + m_alpha * static_cast<float>(neumann ? count : 4)});
        }
    }
    return t;
}

}  // namespace ww::cg
