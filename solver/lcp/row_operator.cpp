// Matrix-free A = J W J^T + cfm I (row_operator.h).
#include "solver/lcp/row_operator.h"

#include <algorithm>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace ww::lcp {

namespace {

constexpr int kJ = RowOperator::kJacobianFloats;
constexpr int kU = RowOperator::kBodyFloats;

float dot6(const float* a, const float* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

}  // namespace

void RowOperator::resize(int rowCount, int bodyCount) {
    const auto n = static_cast<std::size_t>(rowCount);
    bodies = bodyCount;
    body.resize(2 * n);
    j.resize(kJ * n);
    k.resize(kJ * n);
}

void RowOperator::buildBodyIndex() {
    bodyStart.assign(static_cast<std::size_t>(bodies) + 1, 0);
    for (std::int32_t b : body) {
        if (b >= 0 && b < bodies) {
            ++bodyStart[static_cast<std::size_t>(b) + 1];
        }
    }
    for (int b = 0; b < bodies; ++b) {
        bodyStart[b + 1] += bodyStart[b];
    }
    bodyEntries.resize(static_cast<std::size_t>(bodyStart[bodies]));
    std::vector<std::int32_t> fill(bodyStart.begin(), bodyStart.end() - 1);
    // Entries in increasing 2 * row + side: rows ascending per body (the summation order).
    for (std::size_t e = 0; e < body.size(); ++e) {
        const std::int32_t b = body[e];
        if (b >= 0 && b < bodies) {
            bodyEntries[static_cast<std::size_t>(fill[b]++)] = static_cast<std::int32_t>(e);
        }
    }
    kByBody.resize(kU * bodyEntries.size());
    entryRow.resize(bodyEntries.size());
    for (std::size_t e = 0; e < bodyEntries.size(); ++e) {
        const auto entry = static_cast<std::size_t>(bodyEntries[e]);
        entryRow[e] = static_cast<std::int32_t>(entry >> 1);
        std::copy_n(k.data() + kJ * (entry >> 1) + kU * (entry & 1), kU, kByBody.data() + kU * e);
    }
}

float RowOperator::diagonal(int i) const {
    const auto ui = static_cast<std::size_t>(i);
    const float* ji = j.data() + kJ * ui;
    const float* ki = k.data() + kJ * ui;
    float d = cfm;
    const std::int32_t a = body[2 * ui];
    const std::int32_t b = body[2 * ui + 1];
    if (a >= 0) {
        d += dot6(ji, ki);
    }
    if (b >= 0) {
        d += dot6(ji + kU, ki + kU);
    }
    if (a >= 0 && a == b) {
        d += dot6(ji, ki + kU) + dot6(ji + kU, ki);
    }
    return d;
}

std::string RowOperator::validate(int n) const {
    const auto un = static_cast<std::size_t>(n);
    if (body.size() != 2 * un || j.size() != kJ * un || k.size() != kJ * un) {
        return "the matrix-free operator has " + std::to_string(body.size() / 2) +
               " rows of bodies, " + std::to_string(j.size() / kJ) + " of J and " +
               std::to_string(k.size() / kJ) + " of K; expected " + std::to_string(n);
    }
    if (bodies < 0) {
        return "the matrix-free operator has a negative body count";
    }
    for (std::size_t e = 0; e < body.size(); ++e) {
        if (body[e] < -1 || body[e] >= bodies) {
            return "row " + std::to_string(e / 2) + " names body " + std::to_string(body[e]) +
                   ", outside [-1, " + std::to_string(bodies) + ")";
        }
    }
    if (bodyStart.size() != static_cast<std::size_t>(bodies) + 1 || bodyStart.front() != 0 ||
        bodyEntries.size() != static_cast<std::size_t>(bodyStart.back()) ||
        entryRow.size() != bodyEntries.size() || kByBody.size() != kU * bodyEntries.size()) {
        return "the matrix-free operator's body index is stale (call buildBodyIndex)";
    }
    for (int b = 0; b < bodies; ++b) {
        if (bodyStart[b + 1] < bodyStart[b]) {
            return "the matrix-free operator's body index is stale (call buildBodyIndex)";
        }
    }
    for (int b = 0; b < bodies; ++b) {
        for (std::int32_t e = bodyStart[b]; e < bodyStart[b + 1]; ++e) {
            const std::int32_t entry = bodyEntries[static_cast<std::size_t>(e)];
            if (entry < 0 || static_cast<std::size_t>(entry) >= body.size() ||
                body[static_cast<std::size_t>(entry)] != b) {
                return "the matrix-free operator's body index is stale (call buildBodyIndex)";
            }
        }
    }
    return {};
}

void RowOperator::gatherBodies(const float* x, float* u, int firstBody, int lastBody) const {
#if defined(__AVX2__) && defined(__FMA__)
    // One body's six sums in lanes 0-5 of a vector: per entry one masked load of its K block,
    // one broadcast and one fused multiply-add, the scalar loop's operations lane by lane.
    const __m256i six = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0);
    for (int b = firstBody; b < lastBody; ++b) {
        __m256 acc = _mm256_setzero_ps();
        for (std::int32_t e = bodyStart[b]; e < bodyStart[b + 1]; ++e) {
            const auto ue = static_cast<std::size_t>(e);
            const __m256 kr = _mm256_maskload_ps(kByBody.data() + kU * ue, six);
            acc = _mm256_fmadd_ps(kr, _mm256_set1_ps(x[entryRow[ue]]), acc);
        }
        _mm256_maskstore_ps(u + static_cast<std::size_t>(kU) * b, six, acc);
    }
#else
    for (int b = firstBody; b < lastBody; ++b) {
        float acc[kU] = {0, 0, 0, 0, 0, 0};
        for (std::int32_t e = bodyStart[b]; e < bodyStart[b + 1]; ++e) {
            const auto ue = static_cast<std::size_t>(e);
            const float* kr = kByBody.data() + kU * ue;
            const float xi = x[entryRow[ue]];
            for (int c = 0; c < kU; ++c) {
                acc[c] += kr[c] * xi;
            }
        }
        std::copy_n(acc, kU, u + static_cast<std::size_t>(kU) * b);
    }
#endif
}

void RowOperator::applyRows(const float* x, const float* u, float* w, int firstRow,
                            int lastRow) const {
    for (int i = firstRow; i < lastRow; ++i) {
        const auto ui = static_cast<std::size_t>(i);
        const float* ji = j.data() + kJ * ui;
        const std::int32_t a = body[2 * ui];
        const std::int32_t b = body[2 * ui + 1];
        float wi = cfm * x[i];
        if (a >= 0) {
            wi += dot6(ji, u + static_cast<std::size_t>(kU) * a);
        }
        if (b >= 0) {
            wi += dot6(ji + kU, u + static_cast<std::size_t>(kU) * b);
        }
        w[i] = wi;
    }
}

void RowOperator::apply(const float* x, float* u, float* w) const {
    gatherBodies(x, u, 0, bodies);
    applyRows(x, u, w, 0, rows());
}

std::size_t RowOperator::bytes() const {
    return body.size() * sizeof(std::int32_t) +
           (j.size() + k.size() + kByBody.size()) * sizeof(float) +
           (bodyStart.size() + bodyEntries.size() + entryRow.size()) * sizeof(std::int32_t);
}

void applyRowOperatorDouble(const RowOperator& op, std::span<const float> x,
                            std::vector<double>& w) {
    const int n = op.rows();
    std::vector<double> u(static_cast<std::size_t>(kU) * op.bodies, 0.0);
    for (int i = 0; i < n; ++i) {
        for (int side = 0; side < 2; ++side) {
            const std::int32_t b = op.body[2 * static_cast<std::size_t>(i) + side];
            if (b < 0) {
                continue;
            }
            const float* kr = op.k.data() + kJ * static_cast<std::size_t>(i) + kU * side;
            for (int c = 0; c < kU; ++c) {
                u[kU * static_cast<std::size_t>(b) + c] += static_cast<double>(kr[c]) * x[i];
            }
        }
    }
    w.assign(static_cast<std::size_t>(n), 0.0);
    for (int i = 0; i < n; ++i) {
        double wi = static_cast<double>(op.cfm) * x[i];
        for (int side = 0; side < 2; ++side) {
            const std::int32_t b = op.body[2 * static_cast<std::size_t>(i) + side];
            if (b < 0) {
                continue;
            }
            const float* jr = op.j.data() + kJ * static_cast<std::size_t>(i) + kU * side;
            for (int c = 0; c < kU; ++c) {
                wi += static_cast<double>(jr[c]) * u[kU * static_cast<std::size_t>(b) + c];
            }
        }
        w[static_cast<std::size_t>(i)] = wi;
    }
}

std::vector<float> denseFromRowOperator(const RowOperator& op) {
    const int n = op.rows();
    const auto un = static_cast<std::size_t>(n);
    std::vector<float> a(un * un, 0.0f);
    std::vector<float> e(un, 0.0f);
    std::vector<float> u(static_cast<std::size_t>(kU) * op.bodies);
    std::vector<float> col(un);
    for (int c = 0; c < n; ++c) {
        e[static_cast<std::size_t>(c)] = 1.0f;
        op.apply(e.data(), u.data(), col.data());
        e[static_cast<std::size_t>(c)] = 0.0f;
        for (std::size_t r = 0; r < un; ++r) {
            a[r * un + static_cast<std::size_t>(c)] = col[r];
        }
    }
    return a;
}

}  // namespace ww::lcp
