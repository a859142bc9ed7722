// Fast and reference paths of the CG operators (see operators.h for the equations).
#include "solver/cg/operators.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "solver/cg/vector_kernels.h"

namespace ww::cg {

using detail::kBlock;
using detail::kParallelMin;

// ---- StencilOperator ---------------------------------------------------------------------

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
#pragma omp parallel for schedule(static) if (parallel)
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
    const int nx = m_nx;
    return sumRows(m_ny, size() >= kParallelMin, [&](int j) {
        float* q = rowScratch(nx);
        (void)applyRowDot(p, q, j);
        const std::size_t o = static_cast<std::size_t>(j) * nx;
        float* px = x + o;
        float* pr = r + o;
        const float* pp = p + o;
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int i = 0; i < nx; ++i) {
            px[i] += alpha * pp[i];
            const float ri = pr[i] - alpha * q[i];
            pr[i] = ri;
            s += ri * ri;
        }
        return s;
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
    const int threads = size() >= kParallelMin ? omp_get_max_threads() : 1;
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

// ---- BandedOperator ----------------------------------------------------------------------

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

void BandedOperator::apply(std::span<const float> x, std::span<float> y) const {
    (void)applyDot(x.data(), y.data());
}

double BandedOperator::applyDot(const float* x, float* y) const {
    return detail::blockedSum(m_n, [=, this](std::size_t i0, std::size_t i1) {
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

double BandedOperator::updateSolution(float* x, float* r, const float* p, float* q,
                                      float alpha) const {
    return detail::updateSolution(x, r, p, q, alpha, m_n);
}

double BandedOperator::directionApplyDot(const float* r, float* p, float beta, float* q) const {
    detail::direction(r, p, beta, m_n);
    return applyDot(p, q);
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

void BandedOperator::jacobiSweep(const float* b, const float* invDiag, const float* xIn,
                                 float* xOut) const {
    const long blocks = static_cast<long>((m_n + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static) if (m_n >= kParallelMin)
    for (long k = 0; k < blocks; ++k) {
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
    }
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

// ---- CsrMatrix ---------------------------------------------------------------------------

Result<CsrMatrix> CsrMatrix::fromTriplets(int n, std::span<const int> rows,
                                          std::span<const int> cols,
                                          std::span<const float> values) {
    if (rows.size() != cols.size() || rows.size() != values.size()) {
        return inputError("sparse matrix: rows, cols and values differ in length");
    }
    std::vector<Triplet> t(rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k) {
        t[k] = {rows[k], cols[k], values[k]};
    }
    return fromTriplets(n, t);
}

Result<CsrMatrix> CsrMatrix::fromTriplets(int n, std::span<const Triplet> entries) {
    if (n <= 0) {
        return inputError("sparse matrix: size must be positive");
    }
    for (std::size_t k = 0; k < entries.size(); ++k) {
        const Triplet& e = entries[k];
        if (e.row < 0 || e.row >= n || e.col < 0 || e.col >= n) {
            return inputError("sparse matrix: entry " + std::to_string(k) + " at (" +
                              std::to_string(e.row) + ", " + std::to_string(e.col) +
                              ") is outside " + std::to_string(n) + " x " + std::to_string(n));
        }
    }
    std::vector<Triplet> t(entries.begin(), entries.end());
    std::stable_sort(t.begin(), t.end(), [](const Triplet& a, const Triplet& b) {
        return a.row != b.row ? a.row < b.row : a.col < b.col;
    });
    CsrMatrix m;
    m.m_n = static_cast<std::size_t>(n);
    m.m_rowPtr.assign(m.m_n + 1, 0);
    for (std::size_t k = 0; k < t.size(); ++k) {
        if (!m.m_cols.empty() && k > 0 && t[k].row == t[k - 1].row && t[k].col == t[k - 1].col) {
            m.m_values.back() += t[k].value;
            continue;
        }
        m.m_cols.push_back(static_cast<std::uint32_t>(t[k].col));
        m.m_values.push_back(t[k].value);
        ++m.m_rowPtr[static_cast<std::size_t>(t[k].row) + 1];
    }
    std::partial_sum(m.m_rowPtr.begin(), m.m_rowPtr.end(), m.m_rowPtr.begin());
    return m;
}

bool CsrMatrix::isSymmetric() const {
    auto at = [&](std::size_t i, std::uint32_t j, float* v) {
        const auto b = m_cols.begin() + m_rowPtr[i];
        const auto e = m_cols.begin() + m_rowPtr[i + 1];
        const auto it = std::lower_bound(b, e, j);
        if (it == e || *it != j) {
            return false;
        }
        *v = m_values[static_cast<std::size_t>(it - m_cols.begin())];
        return true;
    };
    for (std::size_t i = 0; i < m_n; ++i) {
        for (std::uint32_t k = m_rowPtr[i]; k < m_rowPtr[i + 1]; ++k) {
            float v = 0.0f;
            if (!at(m_cols[k], static_cast<std::uint32_t>(i), &v) || v != m_values[k]) {
                return false;
            }
        }
    }
    return true;
}

void CsrMatrix::apply(std::span<const float> x, std::span<float> y) const {
    (void)applyDot(x.data(), y.data());
}

double CsrMatrix::applyDot(const float* x, float* y) const {
    return detail::blockedSum(m_n, [=, this](std::size_t i0, std::size_t i1) {
        float s = 0.0f;
        for (std::size_t i = i0; i < i1; ++i) {
            float v = 0.0f;
            for (std::uint32_t k = m_rowPtr[i]; k < m_rowPtr[i + 1]; ++k) {
                v += m_values[k] * x[m_cols[k]];
            }
            y[i] = v;
            s += x[i] * v;
        }
        return s;
    });
}

double CsrMatrix::updateSolution(float* x, float* r, const float* p, float* q, float alpha) const {
    return detail::updateSolution(x, r, p, q, alpha, m_n);
}

double CsrMatrix::directionApplyDot(const float* r, float* p, float beta, float* q) const {
    detail::direction(r, p, beta, m_n);
    return applyDot(p, q);
}

void CsrMatrix::applyReference(std::span<const double> x, std::span<double> y) const {
    for (std::size_t i = 0; i < m_n; ++i) {
        double v = 0.0;
        for (std::uint32_t k = m_rowPtr[i]; k < m_rowPtr[i + 1]; ++k) {
            v += double(m_values[k]) * x[m_cols[k]];
        }
        y[i] = v;
    }
}

std::vector<Triplet> CsrMatrix::triplets() const {
    std::vector<Triplet> t;
    t.reserve(m_values.size());
    for (std::size_t i = 0; i < m_n; ++i) {
        for (std::uint32_t k = m_rowPtr[i]; k < m_rowPtr[i + 1]; ++k) {
            t.push_back({static_cast<int>(i), static_cast<int>(m_cols[k]), m_values[k]});
        }
    }
    return t;
}

// ---- DenseOperator -----------------------------------------------------------------------

Result<DenseOperator> DenseOperator::create(std::size_t n, std::vector<float> rowMajor) {
    if (rowMajor.size() != n * n) {
        return inputError("dense matrix: expected " + std::to_string(n * n) + " values, got " +
                          std::to_string(rowMajor.size()));
    }
    DenseOperator op;
    op.m_n = n;
    op.m_values = std::move(rowMajor);
    return op;
}

void DenseOperator::apply(std::span<const float> x, std::span<float> y) const {
    (void)applyDot(x.data(), y.data());
}

double DenseOperator::applyDot(const float* x, float* y) const {
    const float* a = m_values.data();
    const std::size_t n = m_n;
    // Rows are long: split the rows over the cores once the matrix is large.
    thread_local std::vector<double> partial;
    if (partial.size() < n) {
        partial.resize(n);
    }
    double* out = partial.data();
    const long nl = static_cast<long>(n);
#pragma omp parallel for schedule(static) if (n * n >= kParallelMin)
    for (long i = 0; i < nl; ++i) {
        const float* row = a + static_cast<std::size_t>(i) * n;
        float v = 0.0f;
#pragma omp simd reduction(+ : v)
        for (std::size_t j = 0; j < n; ++j) {
            v += row[j] * x[j];
        }
        y[i] = v;
        out[i] = double(x[i]) * v;
    }
    return std::accumulate(out, out + n, 0.0);
}

double DenseOperator::updateSolution(float* x, float* r, const float* p, float* q,
                                     float alpha) const {
    return detail::updateSolution(x, r, p, q, alpha, m_n);
}

double DenseOperator::directionApplyDot(const float* r, float* p, float beta, float* q) const {
    detail::direction(r, p, beta, m_n);
    return applyDot(p, q);
}

void DenseOperator::applyReference(std::span<const double> x, std::span<double> y) const {
    for (std::size_t i = 0; i < m_n; ++i) {
        double v = 0.0;
        for (std::size_t j = 0; j < m_n; ++j) {
            v += double(m_values[i * m_n + j]) * x[j];
        }
        y[i] = v;
    }
}

std::vector<Triplet> DenseOperator::triplets() const {
    std::vector<Triplet> t;
    for (std::size_t i = 0; i < m_n; ++i) {
        for (std::size_t j = 0; j < m_n; ++j) {
            if (m_values[i * m_n + j] != 0.0f) {
                t.push_back({static_cast<int>(i), static_cast<int>(j), m_values[i * m_n + j]});
            }
        }
    }
    return t;
}

}  // namespace ww::cg
