// Sort-and-sweep broad phase (see broad_phase.h).
#include "solver/rigid/broad_phase.h"

#include <algorithm>
#include <bit>
#include <cstdint>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace ww::rigid {
namespace {

// The sweep's chunks of the x order, and its work a body (a few neighbours' bounds tested).
constexpr std::ptrdiff_t kSweepChunk = 256;
constexpr std::ptrdiff_t kSweepWorkPerBody = 200;
/// Bodies per chunk of the bounds' loop.
constexpr std::ptrdiff_t kBoundsChunk = 1024;

bool overlaps(const Aabb& a, const Aabb& b) {
    return a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y &&
           a.lo.z <= b.hi.z && b.lo.z <= a.hi.z;
}

void addPlanePairs(const std::vector<Body>& bodies, std::vector<std::pair<int, int>>& pairs) {
    const int n = static_cast<int>(bodies.size());
    for (int p = 0; p < n; ++p) {
        if (bodies[p].kind != BodyKind::kPlane) {
            continue;
        }
        for (int i = 0; i < n; ++i) {
            if (i != p && !bodies[i].isStatic() && bodies[i].kind != BodyKind::kPlane) {
                pairs.emplace_back(std::min(i, p), std::max(i, p));
            }
        }
    }
}

}  // namespace

float speculativeMargin(const Body& b, float margin, float dt) {
    // A spinning brick's corners outrun its centre (a brick at 14 m/s turning at 12 rad/s
    // sweeps its corners ~0.4 m a step, where |v| dt is 0.23 m).
    return margin + fastestPointSpeed(b) * dt;
}

void BroadPhase::findPairs(const std::vector<Body>& bodies, float margin, float dt,
                           std::vector<std::pair<int, int>>& pairs, const exec::Executor* ex) {
    pairs.clear();
    const int n = static_cast<int>(bodies.size());
    m_bounds.resize(bodies.size());
    // Each body's box on the executor (a rotated box's extent per body), and how many there are.
    const int bounded = exec::reduceChunks(
        ex, exec::chunkCount(n, kBoundsChunk), 0,
        [&](std::ptrdiff_t c) {
            const int first = static_cast<int>(c * kBoundsChunk);
            const int last = std::min(n, first + static_cast<int>(kBoundsChunk));
            int boxes = 0;
            for (int i = first; i < last; ++i) {
                if (bodies[i].kind != BodyKind::kPlane) {
                    m_bounds[i] = boundsOf(bodies[i], speculativeMargin(bodies[i], margin, dt));
                    ++boxes;
                }
            }
            return boxes;
        },
        [](int acc, int boxes) { return acc + boxes; }, static_cast<std::ptrdiff_t>(40) * n);
    if (static_cast<int>(m_order.size()) != bounded) {  // first call, or after invalidate()
        m_order.clear();
        for (int i = 0; i < n; ++i) {
            if (bodies[i].kind != BodyKind::kPlane) {
                m_order.push_back(i);
            }
        }
    }
    for (std::size_t k = 1; k < m_order.size(); ++k) {
        const int idx = m_order[k];
        const float key = m_bounds[idx].lo.x;
        std::size_t j = k;
        while (j > 0 && m_bounds[m_order[j - 1]].lo.x > key) {
            m_order[j] = m_order[j - 1];
            --j;
        }
        m_order[j] = idx;
    }
    // The sweep in fixed chunks of the order, each into its own list, joined in chunk order.
    const auto count = static_cast<std::ptrdiff_t>(m_order.size());
    const std::size_t padded = m_order.size() + kSweepLanes;  // whole vector loads at the end
    for (std::vector<float>& plane : m_sweepBounds) {
        plane.resize(padded);
    }
    m_sweepStatic.resize(padded);
    exec::forRanges(
        ex, count, kBoundsChunk,
        [&](std::ptrdiff_t first, std::ptrdiff_t last) {
            for (auto k = static_cast<std::size_t>(first); k < static_cast<std::size_t>(last);
                 ++k) {
                const auto i = static_cast<std::size_t>(m_order[k]);
                const Aabb& b = m_bounds[i];
                const float planes[6] = {b.lo.x, b.hi.x, b.lo.y, b.hi.y, b.lo.z, b.hi.z};
                for (std::size_t c = 0; c < 6; ++c) {
                    m_sweepBounds[c][k] = planes[c];
                }
                m_sweepStatic[k] = bodies[i].isStatic() ? -1 : 0;
            }
        },
        8 * count);
    const std::ptrdiff_t chunks = exec::chunkCount(count, kSweepChunk);
    if (m_chunkPairs.size() < static_cast<std::size_t>(chunks)) {
        m_chunkPairs.resize(static_cast<std::size_t>(chunks));
    }
    exec::forChunks(
        ex, chunks,
        [&](std::ptrdiff_t chunk) {
            std::vector<std::pair<int, int>>& out = m_chunkPairs[static_cast<std::size_t>(chunk)];
            out.clear();
            const auto first = static_cast<std::size_t>(chunk * kSweepChunk);
            const auto last = static_cast<std::size_t>(std::min(count, (chunk + 1) * kSweepChunk));
            for (std::size_t k = first; k < last; ++k) {
                sweepFrom(k, out);
            }
        },
        kSweepWorkPerBody * count);
    for (std::ptrdiff_t c = 0; c < chunks; ++c) {
        const auto& out = m_chunkPairs[static_cast<std::size_t>(c)];
        pairs.insert(pairs.end(), out.begin(), out.end());
    }
    addPlanePairs(bodies, pairs);
    // Sorted by the first body with a counting sort, then each body's few pairs by the second:
    // O(bodies + pairs) where a comparison sort of the whole list took a tenth of a millisecond.
    m_firstStart.assign(static_cast<std::size_t>(n) + 1, 0);
    for (const auto& [i, j] : pairs) {
        ++m_firstStart[static_cast<std::size_t>(i) + 1];
    }
    for (int i = 0; i < n; ++i) {
        m_firstStart[static_cast<std::size_t>(i) + 1] += m_firstStart[static_cast<std::size_t>(i)];
    }
    m_sorted.resize(pairs.size());
    for (const auto& pr : pairs) {
        m_sorted[static_cast<std::size_t>(m_firstStart[static_cast<std::size_t>(pr.first)]++)] = pr;
    }
    for (auto run = m_sorted.begin(); run != m_sorted.end();) {
        auto end = run + 1;
        while (end != m_sorted.end() && end->first == run->first) {
            ++end;
        }
        std::sort(run, end);
        run = end;
    }
    pairs.swap(m_sorted);
}

void BroadPhase::sweepFrom(std::size_t k, std::vector<std::pair<int, int>>& out) const {
    // Body k of the order against those after it, up to the first whose lower x passes k's
    // upper x (the order is by lower x): overlaps(), and not both static. The pairs found go to
    // `out` in any order (findPairs sorts them).
    const std::size_t size = m_order.size();
    const float* lox = m_sweepBounds[0].data();
    const float* hix = m_sweepBounds[1].data();
    const float* loy = m_sweepBounds[2].data();
    const float* hiy = m_sweepBounds[3].data();
    const float* loz = m_sweepBounds[4].data();
    const float* hiz = m_sweepBounds[5].data();
    const bool staticK = m_sweepStatic[k] != 0;
    const auto emit = [&](std::size_t q) {
        const int i = m_order[k];
        const int j = m_order[q];
        out.emplace_back(std::min(i, j), std::max(i, j));
    };
    std::size_t q = k + 1;
#if defined(__AVX2__)
    // Eight candidates a step: the comparisons of the scalar loop below, lane by lane (ordered:
    // false with a NaN, as there). Lanes past the first that stops the sweep fail the x test
    // too (the order is by lower x), so the step's pairs are those of its overlap mask.
    const __m256 kLoX = _mm256_set1_ps(lox[k]);
    const __m256 kHiX = _mm256_set1_ps(hix[k]);
    const __m256 kLoY = _mm256_set1_ps(loy[k]);
    const __m256 kHiY = _mm256_set1_ps(hiy[k]);
    const __m256 kLoZ = _mm256_set1_ps(loz[k]);
    const __m256 kHiZ = _mm256_set1_ps(hiz[k]);
    for (; q < size; q += kSweepLanes) {
        const __m256 qLoX = _mm256_loadu_ps(lox + q);
        const unsigned valid = size - q >= kSweepLanes ? 0xffu : (1u << (size - q)) - 1u;
        const unsigned stop =
            static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(qLoX, kHiX, _CMP_GT_OQ))) &
            valid;
        __m256 hit = _mm256_cmp_ps(kLoX, _mm256_loadu_ps(hix + q), _CMP_LE_OQ);
        hit = _mm256_and_ps(hit, _mm256_cmp_ps(qLoX, kHiX, _CMP_LE_OQ));
        hit = _mm256_and_ps(hit, _mm256_cmp_ps(kLoY, _mm256_loadu_ps(hiy + q), _CMP_LE_OQ));
        hit = _mm256_and_ps(hit, _mm256_cmp_ps(_mm256_loadu_ps(loy + q), kHiY, _CMP_LE_OQ));
        hit = _mm256_and_ps(hit, _mm256_cmp_ps(kLoZ, _mm256_loadu_ps(hiz + q), _CMP_LE_OQ));
        hit = _mm256_and_ps(hit, _mm256_cmp_ps(_mm256_loadu_ps(loz + q), kHiZ, _CMP_LE_OQ));
        unsigned bits = static_cast<unsigned>(_mm256_movemask_ps(hit)) & valid;
        if (staticK) {
            const __m256 staticQ = _mm256_castsi256_ps(
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m_sweepStatic.data() + q)));
            bits &= ~static_cast<unsigned>(_mm256_movemask_ps(staticQ));
        }
        for (; bits != 0; bits &= bits - 1) {
            emit(q + static_cast<std::size_t>(std::countr_zero(bits)));
        }
        if (stop != 0) {
            return;
        }
    }
#endif
    for (; q < size; ++q) {
        if (lox[q] > hix[k]) {
            return;
        }
        if ((staticK && m_sweepStatic[q] != 0) ||
            !(lox[k] <= hix[q] && lox[q] <= hix[k] && loy[k] <= hiy[q] && loy[q] <= hiy[k] &&
              loz[k] <= hiz[q] && loz[q] <= hiz[k])) {
            continue;
        }
        emit(q);
    }
}

void BroadPhase::findPairsBruteForce(const std::vector<Body>& bodies, float margin, float dt,
                                     std::vector<std::pair<int, int>>& pairs) {
    pairs.clear();
    const int n = static_cast<int>(bodies.size());
    for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) {
            const Body& a = bodies[i];
            const Body& b = bodies[j];
            if (a.kind == BodyKind::kPlane || b.kind == BodyKind::kPlane ||
                (a.isStatic() && b.isStatic())) {
                continue;
            }
            if (overlaps(boundsOf(a, speculativeMargin(a, margin, dt)),
                         boundsOf(b, speculativeMargin(b, margin, dt)))) {
                pairs.emplace_back(i, j);
            }
        }
    }
    addPlanePairs(bodies, pairs);
    std::sort(pairs.begin(), pairs.end());
}

}  // namespace ww::rigid
