// The CPU LCP solver's plan of a problem (lcp_cpu_plan.h).
#include "solver/lcp/lcp_cpu_plan.h"

#include <algorithm>

namespace ww::lcp::cpu {

namespace {

/// Rows per chunk of the plan's parallel loops.
constexpr std::ptrdiff_t kPlanChunkRows = 3 * 2048;

/// True when every row triple 3k, 3k + 1, 3k + 2 is a contact: a normal row, then two friction
/// rows bounded by it (the rigid world's blocks), checked on the executor.
bool allContactTriples(const LcpProblem& p, const exec::Executor* ex) {
    if (!p.hasFriction() || p.cone != FrictionCone::kDisc || p.n % 3 != 0) {
        return false;
    }
    const std::ptrdiff_t n = p.n;
    return exec::reduceChunks(
        ex, exec::chunkCount(n, kPlanChunkRows), true,
        [&](std::ptrdiff_t c) {
            const std::ptrdiff_t last = std::min(n, (c + 1) * kPlanChunkRows);
            for (std::ptrdiff_t i = c * kPlanChunkRows; i < last; i += 3) {
                const auto ui = static_cast<std::size_t>(i);
                if (p.frictionNormal[ui] >= 0 || p.frictionNormal[ui + 1] != i ||
                    p.frictionNormal[ui + 2] != i) {
                    return false;
                }
            }
            return true;
        },
        [](bool acc, bool all) { return acc && all; }, n);
}

}  // namespace

void Workspace::reserve(const LcpProblem& p, const exec::Executor* ex) {
    const auto n = static_cast<std::size_t>(p.n);
    for (auto* v : {&cur, &next, &good, &kept, &w, &invDiag, &lo, &hi}) {
        v->resize(n);
    }
    u.resize(p.matrixFree() ? static_cast<std::size_t>(RowOperator::kBodyFloats) *
                                  static_cast<std::size_t>(p.op.bodies())
                            : 0);
    if (allContactTriples(p, ex)) {
        reserveContactTriples(p, ex);
        return;
    }
    pairs = frictionPairs(p);
    partner.assign(pairs.empty() ? 0 : n, -1);
    for (const FrictionPair& q : pairs) {
        partner[static_cast<std::size_t>(q.first)] = q.second;
        partner[static_cast<std::size_t>(q.second)] = q.first;
    }
    prev.resize(pairs.empty() ? 0 : n);
    pairFirst.resize(pairs.size());
    pairSecond.resize(pairs.size());
    pairNormal.resize(pairs.size());
    pairMu.resize(pairs.size());
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        pairFirst[k] = pairs[k].first;
        pairSecond[k] = pairs[k].second;
        pairNormal[k] = pairs[k].normal;
        pairMu[k] = pairs[k].mu;
    }
    // run = how many pairs from k on continue a run of consecutive row triples.
    tripleAt.assign(pairs.size(), 0);
    int run = 0;
    for (std::size_t k = pairs.size(); k-- > 0;) {
        const bool triple = pairFirst[k] == pairNormal[k] + 1 && pairSecond[k] == pairNormal[k] + 2;
        const bool continues =
            k + 1 < pairs.size() && run > 0 && pairNormal[k + 1] == pairNormal[k] + 3;
        run = triple ? (continues ? run + 1 : 1) : 0;
        tripleAt[k] = run >= 8 ? 1 : 0;
    }
    assignPairsToChunks(p);
    boundOf.resize(p.hasFriction() ? n : 0);
    for (std::size_t i = 0; i < boundOf.size(); ++i) {
        const int k = p.frictionNormal[i];
        boundOf[i] = !partner.empty() && partner[i] >= 0 ? kPinnedRow : k >= 0 ? k : kFixedBounds;
    }
    bool possible = !chunkPairBegin.empty() && strayPairs.empty() &&
                    kMatrixFreeChunkRows % 3 == 0 && 3 * pairs.size() == n;
    for (std::size_t k = 0; possible && k < pairs.size(); ++k) {
        const auto row = static_cast<std::int32_t>(3 * k);
        possible = pairNormal[k] == row && pairFirst[k] == row + 1 && pairSecond[k] == row + 2 &&
                   boundOf[static_cast<std::size_t>(row)] == kFixedBounds;
    }
    contactRowsPossible = possible;
    contactRows = possible;
}

void Workspace::reserveContactTriples(const LcpProblem& p, const exec::Executor* ex) {
    // What the general plan (reserve) derives for this layout, written per contact: contact k's
    // disc pair is rows (3k + 1, 3k + 2) bounded by row 3k, its normal's bounds are the
    // problem's, every pair is in a run of consecutive triples.
    const auto n = static_cast<std::size_t>(p.n);
    const std::size_t count = n / 3;
    pairs.resize(count);
    partner.resize(n);
    prev.resize(n);
    pairFirst.resize(count);
    pairSecond.resize(count);
    pairNormal.resize(count);
    pairMu.resize(count);
    tripleAt.resize(count);
    boundOf.resize(n);
    exec::forRanges(
        ex, static_cast<std::ptrdiff_t>(count), kPlanChunkRows / 3,
        [&](std::ptrdiff_t first, std::ptrdiff_t last) {
            for (auto k = static_cast<std::size_t>(first); k < static_cast<std::size_t>(last);
                 ++k) {
                const auto row = static_cast<std::int32_t>(3 * k);
                const float mu = p.mu[3 * k + 1];
                pairs[k] = {row + 1, row + 2, row, mu};
                pairFirst[k] = row + 1;
                pairSecond[k] = row + 2;
                pairNormal[k] = row;
                pairMu[k] = mu;
                // A run of consecutive triples from k on is count - k pairs long.
                tripleAt[k] = count - k >= 8 ? 1 : 0;
                partner[3 * k] = -1;
                partner[3 * k + 1] = row + 2;
                partner[3 * k + 2] = row + 1;
                boundOf[3 * k] = kFixedBounds;
                boundOf[3 * k + 1] = kPinnedRow;
                boundOf[3 * k + 2] = kPinnedRow;
            }
        },
        static_cast<std::ptrdiff_t>(8 * n));
    assignPairsToChunks(p);
    contactRowsPossible =
        !chunkPairBegin.empty() && strayPairs.empty() && kMatrixFreeChunkRows % 3 == 0;
    contactRows = contactRowsPossible;
}

void Workspace::assignPairsToChunks(const LcpProblem& p) {
    const auto none = [&] {
        chunkPairBegin.clear();
        chunkPairEnd.clear();
        strayPairs.clear();
    };
    none();
    if (!p.matrixFree() || pairs.empty()) {
        return;
    }
    const std::ptrdiff_t chunks = exec::chunkCount(p.n, kMatrixFreeChunkRows);
    std::size_t k = 0;
    for (std::ptrdiff_t c = 0; c < chunks; ++c) {
        const std::ptrdiff_t rowEnd = std::min<std::ptrdiff_t>((c + 1) * kMatrixFreeChunkRows, p.n);
        chunkPairBegin.push_back(static_cast<std::int32_t>(k));
        while (k < pairs.size() && pairs[k].first < rowEnd && pairs[k].second < rowEnd) {
            ++k;
        }
        chunkPairEnd.push_back(static_cast<std::int32_t>(k));
        for (; k < pairs.size() && pairs[k].first < rowEnd; ++k) {
            if (pairs[k].second < rowEnd) {
                none();  // an in-chunk pair after a stray: not one run
                return;
            }
            strayPairs.push_back(static_cast<std::int32_t>(k));
        }
    }
    if (k != pairs.size() || static_cast<std::ptrdiff_t>(strayPairs.size()) > chunks) {
        none();
        return;
    }
    // A chunk's pairs go in groups of eight from its first; a group of triples loads its rows
    // from its first normal on. Where that normal ends the chunk before (its friction rows open
    // this one), the chunk would read a row the other chunk writes at the same time: that group
    // is gathered instead (the same values, the same bits).
    for (std::size_t c = 0; c < chunkPairBegin.size(); ++c) {
        const auto first = static_cast<std::size_t>(chunkPairBegin[c]);
        if (first < static_cast<std::size_t>(chunkPairEnd[c]) &&
            pairNormal[first] < static_cast<std::ptrdiff_t>(c) * kMatrixFreeChunkRows) {
            tripleAt[first] = 0;
        }
    }
}

}  // namespace ww::lcp::cpu
