// CsrMatrix and DenseOperator: fast and reference paths (operators.h).
#include "solver/cg/operators.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "solver/cg/vector_kernels.h"

namespace ww::cg {

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

void CsrMatrix::apply(const exec::Executor& ex, std::span<const float> x,
                      std::span<float> y) const {
    (void)applyDot(ex, x.data(), y.data());
}

double CsrMatrix::applyDot(const exec::Executor& ex, const float* x, float* y) const {
    return detail::blockedSum(ex, m_n, [=, this](std::size_t i0, std::size_t i1) {
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

void DenseOperator::apply(const exec::Executor& ex, std::span<const float> x,
                          std::span<float> y) const {
    (void)applyDot(ex, x.data(), y.data());
}

double DenseOperator::applyDot(const exec::Executor& ex, const float* x, float* y) const {
    const float* a = m_values.data();
    const std::size_t n = m_n;
    // Rows are long: one row is one "row" of detail::sumRows.
    return detail::sumRows(ex, static_cast<int>(n), n, [=](int i) {
        const float* row = a + static_cast<std::size_t>(i) * n;
        float v = 0.0f;
#pragma omp simd reduction(+ : v)
        for (std::size_t j = 0; j < n; ++j) {
            v += row[j] * x[j];
        }
        y[i] = v;
        return double(x[i]) * v;
    });
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
