// Matrix-free A = J W J^T + cfm I (row_operator.h).
#include "solver/lcp/row_operator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "solver/lcp/lanes.h"

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

#if defined(__AVX2__) && defined(__FMA__)
// The 8 x 8 transpose: out[k] lane q is in[q] lane k (out[0 .. count), count 6 or 8).
inline void transpose8(const __m256 (&in)[8], __m256* out, int count = 8) {
    const __m256 t0 = _mm256_unpacklo_ps(in[0], in[1]);  // 00 10 01 11 | 04 14 05 15
    const __m256 t1 = _mm256_unpackhi_ps(in[0], in[1]);  // 02 12 03 13 | 06 16 07 17
    const __m256 t2 = _mm256_unpacklo_ps(in[2], in[3]);
    const __m256 t3 = _mm256_unpackhi_ps(in[2], in[3]);
    const __m256 t4 = _mm256_unpacklo_ps(in[4], in[5]);
    const __m256 t5 = _mm256_unpackhi_ps(in[4], in[5]);
    const __m256 t6 = _mm256_unpacklo_ps(in[6], in[7]);
    const __m256 t7 = _mm256_unpackhi_ps(in[6], in[7]);
    // Column k of rows 0-3 in s(k % 4) and of rows 4-7 in s(k % 4 + 4), low halves for k < 4
    // (the permutes' selectors are immediates: spelled out, not a loop).
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44);
    const __m256 s1 = _mm256_shuffle_ps(t0, t2, 0xee);
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44);
    const __m256 s3 = _mm256_shuffle_ps(t1, t3, 0xee);
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44);
    const __m256 s5 = _mm256_shuffle_ps(t4, t6, 0xee);
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44);
    const __m256 s7 = _mm256_shuffle_ps(t5, t7, 0xee);
    out[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    out[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    out[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    out[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    out[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    out[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    if (count > 6) {
        out[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
        out[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
    }
}

#endif

}  // namespace

void RowOperator::resize(int rowCount, int bodyCount) {
    const auto n = static_cast<std::size_t>(rowCount);
    m_bodies = bodyCount;
    m_body.resize(2 * n);
    m_rowsFrom = 0;
    m_j.resize(kJ * n);
    m_k.resize(kJ * n);
}

void RowOperator::resizeContactForm(int rowCount, int bodyCount) {
    const auto n = static_cast<std::size_t>(rowCount);
    m_bodies = bodyCount;
    m_body.resize(2 * n);
    m_rowsFrom = 3 * kTripleGroup * (n / (3 * kTripleGroup));
    m_j.resize(kJ * (n - m_rowsFrom));
    m_k.resize(kJ * (n - m_rowsFrom));
    m_rowsWritten = false;
}

void RowOperator::holdAllRows() {
    if (m_rowsFrom == 0) {
        return;
    }
    const std::size_t held = m_j.size();
    const std::size_t at = kJ * m_rowsFrom;
    for (std::vector<float>* v : {&m_j, &m_k}) {
        v->resize(at + held);
        std::copy_backward(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(held), v->end());
    }
    m_rowsFrom = 0;
}

void RowOperator::throwRowNotHeld(int row) const {
    throw std::logic_error("row " + std::to_string(row) +
                           " of the matrix-free operator has no J and K: it was sized for the "
                           "contact form without rows (resizeContactForm), which holds rows " +
                           std::to_string(m_rowsFrom) + " and on; call holdAllRows first");
}

void RowOperator::buildBodyIndex(const exec::Executor* ex) {
    if (m_rowsFrom != 0) {
        throw std::logic_error(
            "buildBodyIndex reads every row's J and K, and this operator holds them only from "
            "row " +
            std::to_string(m_rowsFrom) +
            " (resizeContactForm): call holdAllRows and write every row first");
    }
    // The index is a function of the rows' bodies alone: when they are those of the last build
    // (a resting block, step after step), it stands, and only the layouts below are refilled.
    refreshBodyIndex(ex);
    m_rowsWritten = true;
    fillLayouts(ex);
}

void RowOperator::refreshBodyIndex(const exec::Executor* ex) {
    if (m_indexedBodies != m_bodies || !exec::equalChunked(ex, m_body, m_indexedBody)) {
        sortEntriesByBody();
        exec::copyChunked(ex, m_body, m_indexedBody);
        m_indexedBodies = m_bodies;
    }
}

void RowOperator::sortEntriesByBody() {
    // A counting sort of the entries by body. Its two loops are serial, and each increment
    // waits for the previous one to the same body (a contact's rows name the same two bodies):
    // a contact whose three rows share two distinct bodies is counted and filled three entries
    // at a time, in the same order.
    const auto valid = [&](std::int32_t b) { return b >= 0 && b < m_bodies; };
    const std::size_t sixes = m_body.size() / 6;
    const auto sharedPair = [&](std::size_t t) {
        const std::int32_t* bt = m_body.data() + 6 * t;
        return bt[0] == bt[2] && bt[0] == bt[4] && bt[1] == bt[3] && bt[1] == bt[5] &&
               bt[0] != bt[1];
    };
    m_bodyStart.assign(static_cast<std::size_t>(m_bodies) + 1, 0);
    for (std::size_t t = 0; t < sixes; ++t) {
        const std::int32_t* bt = m_body.data() + 6 * t;
        const int times = sharedPair(t) ? 1 : 3;
        const std::int32_t step = sharedPair(t) ? 3 : 1;
        for (int q = 0; q < times; ++q) {
            for (int side = 0; side < 2; ++side) {
                if (valid(bt[2 * q + side])) {
                    m_bodyStart[static_cast<std::size_t>(bt[2 * q + side]) + 1] += step;
                }
            }
        }
    }
    for (std::size_t e = 6 * sixes; e < m_body.size(); ++e) {
        if (valid(m_body[e])) {
            ++m_bodyStart[static_cast<std::size_t>(m_body[e]) + 1];
        }
    }
    for (int b = 0; b < m_bodies; ++b) {
        m_bodyStart[b + 1] += m_bodyStart[b];
    }
    m_bodyEntries.resize(static_cast<std::size_t>(m_bodyStart[m_bodies]));
    std::vector<std::int32_t> fill(m_bodyStart.begin(), m_bodyStart.end() - 1);
    // Entries in increasing 2 * row + side: rows ascending per body (the summation order).
    const auto place = [&](std::size_t e) {
        const std::int32_t b = m_body[e];
        if (valid(b)) {
            m_bodyEntries[static_cast<std::size_t>(fill[b]++)] = static_cast<std::int32_t>(e);
        }
    };
    for (std::size_t t = 0; t < sixes; ++t) {
        if (!sharedPair(t)) {
            for (std::size_t e = 6 * t; e < 6 * t + 6; ++e) {
                place(e);
            }
            continue;
        }
        for (std::size_t side = 0; side < 2; ++side) {
            const std::int32_t b = m_body[6 * t + side];
            if (valid(b)) {
                std::int32_t* out = m_bodyEntries.data() + fill[b];
                fill[b] += 3;
                for (std::size_t q = 0; q < 3; ++q) {
                    out[q] = static_cast<std::int32_t>(6 * t + 2 * q + side);
                }
            }
        }
    }
    for (std::size_t e = 6 * sixes; e < m_body.size(); ++e) {
        place(e);
    }
}

void RowOperator::tripleFlags(std::size_t t, std::uint32_t& notTriple,
                              std::uint32_t& sameBody) const {
    const std::int32_t* bt = m_body.data() + 6 * t;
    notTriple |=
        static_cast<std::uint32_t>(bt[0] != bt[2]) | static_cast<std::uint32_t>(bt[0] != bt[4]) |
        static_cast<std::uint32_t>(bt[1] != bt[3]) | static_cast<std::uint32_t>(bt[1] != bt[5]);
    for (std::size_t i = 3 * t; i < 3 * t + 3; ++i) {
        const std::int32_t a = m_body[2 * i];
        const std::int32_t b = m_body[2 * i + 1];
        // All ones when both sides have a body, else zero.
        const std::uint32_t both =
            0u - static_cast<std::uint32_t>(static_cast<int>(a >= 0) & static_cast<int>(b >= 0));
        std::uint32_t differ = 0;
        for (std::size_t cpt = 0; cpt < 3; ++cpt) {
            // -x and y equal bit for bit: x's bits with the sign flipped are y's.
            differ |= std::bit_cast<std::uint32_t>(jRow(i)[cpt]) ^ 0x80000000u ^
                      std::bit_cast<std::uint32_t>(jRow(i)[kU + cpt]);
        }
        notTriple |= differ & both;
        sameBody |= static_cast<std::uint32_t>(static_cast<int>(a >= 0) & static_cast<int>(a == b));
    }
}

void RowOperator::fillLayouts(const exec::Executor* ex) {
    const auto n = static_cast<std::size_t>(rows());
    // The copies below (K by entry and J by plane) run in fixed chunks of entries and rows; so
    // do the checks for triples: each contact's three rows on one body pair, the linear parts
    // of J_B and J_A negatives bit for bit, and (tripleRuns) no row on one body twice.
    constexpr std::ptrdiff_t kChunk = 2048;
    constexpr std::size_t kChunkContacts = 672;  // 2016 rows
    struct Layout {
        bool triples = true, runs = true;
    };
    const auto checkContacts = [&](std::ptrdiff_t c) {
        // Integer flags OR-reduced (tripleFlags), without a branch a row: a chain of && branched
        // on every comparison.
        std::uint32_t notTriple = 0;
        std::uint32_t sameBody = 0;
        const std::size_t last =
            std::min(n / 3, (static_cast<std::size_t>(c) + 1) * kChunkContacts);
        for (std::size_t t = static_cast<std::size_t>(c) * kChunkContacts; t < last; ++t) {
            tripleFlags(t, notTriple, sameBody);
        }
        return Layout{notTriple == 0, notTriple == 0 && sameBody == 0};
    };
    const Layout layout = n % 3 != 0
                              ? Layout{false, false}
                              : exec::reduceChunks(
                                    ex,
                                    exec::chunkCount(static_cast<std::ptrdiff_t>(n / 3),
                                                     static_cast<std::ptrdiff_t>(kChunkContacts)),
                                    Layout{}, checkContacts,
                                    [](Layout a, const Layout& b) {
                                        return Layout{a.triples && b.triples, a.runs && b.runs};
                                    },
                                    static_cast<std::ptrdiff_t>(4 * n));
    m_triples = layout.triples;
    m_tripleRuns = m_triples && layout.runs;
    // The contact form's candidates; byPlane below checks each contact's rows and keeps its
    // arms (contactArms), before the entries' layout is chosen.
    const bool formCandidate = m_tripleRuns && hasBodyInverseMasses();
    m_contactArms.resize(formCandidate ? 8 * (n / 3) : 0);
    m_entryRow.resize(m_tripleRuns ? 0 : m_bodyEntries.size());
    m_runRow.resize(m_tripleRuns ? m_bodyEntries.size() / 3 : 0);
    const auto entries = static_cast<std::ptrdiff_t>(m_bodyEntries.size());
    // K blocks whose eight floats from the block's start lie within m_k: all but side B of the
    // last row.
    const std::size_t wideFrom = m_k.size() >= 8 ? m_k.size() - 8 : 0;
    const auto byBody = [&](std::ptrdiff_t c) {
        const auto last = static_cast<std::size_t>(std::min(entries, (c + 1) * kChunk));
        for (auto e = static_cast<std::size_t>(c * kChunk); e < last; ++e) {
            const auto entry = static_cast<std::size_t>(m_bodyEntries[e]);
            if (!m_tripleRuns) {
                m_entryRow[e] = static_cast<std::int32_t>(entry >> 1);
            } else if (e % 3 == 0) {
                m_runRow[e / 3] = static_cast<std::int32_t>(entry >> 1);
            }
            const std::size_t at = kJ * (entry >> 1) + kU * (entry & 1);
            const float* from = m_k.data() + at;
            float* to = m_kByBody.data() + kU * e;
            if (e + 1 < last && at <= wideFrom) {
                // Eight floats in one load and one store: the two past the block land on the
                // next entry's, which this chunk writes next (not the chunk's last entry).
                std::memcpy(to, from, 8 * sizeof(float));
            } else {
                // Six assignments, not std::copy_n: GCC turns that into a call to memmove per
                // 24-byte block.
                for (int q = 0; q < kU; ++q) {
                    to[q] = from[q];
                }
            }
        }
    };
    constexpr std::size_t kGroupRows = 3 * kTripleGroup;
    m_jByPlane.resize(m_triples ? 0 : kJ * n);
    // A candidate's groups hold the contact form's frame and arms; should a contact not be of
    // that form, they are filled again below with J's angular parts.
    m_groupFloats = formCandidate ? kContactGroupFloats : kTripleGroupFloats;
    m_jByTriple.resize(m_triples ? m_groupFloats * (n / kGroupRows) : 0);
    m_bodyByTriple.resize(m_triples ? 2 * kTripleGroup * (n / kGroupRows) : 0);
    // Invalid (NaN never equals cfm) until every row's is written.
    m_diagonalsCfm = std::numeric_limits<float>::quiet_NaN();
    m_diagonals.resize(n);
    // Returns whether the chunk's contacts are all of the contact form (formCandidate only).
    const auto byPlane = [&](std::ptrdiff_t c) {
        const auto first = static_cast<std::size_t>(c * kChunk);
        const std::size_t last = std::min(n, static_cast<std::size_t>((c + 1) * kChunk));
        if (!m_triples) {
            for (std::size_t cpt = 0; cpt < static_cast<std::size_t>(kJ); ++cpt) {
                for (std::size_t i = first; i < last; ++i) {
                    m_jByPlane[cpt * n + i] = m_j[kJ * i + cpt];
                }
            }
            for (std::size_t i = first; i < last; ++i) {
                m_diagonals[i] = computeDiagonal(static_cast<int>(i));
            }
            return false;
        }
        // The whole groups whose first row falls in this chunk, with their rows' diagonals
        // and contact arms; then the rows after the last whole group.
        bool form = true;
        const std::size_t groups = n / kGroupRows;
        for (std::size_t g = (first + kGroupRows - 1) / kGroupRows;
             g < groups && g * kGroupRows < last; ++g) {
            form = fillTripleGroup(g, formCandidate) && form;
        }
        for (std::size_t i = std::max(first, kGroupRows * groups); i < last; ++i) {
            m_diagonals[i] = computeDiagonal(static_cast<int>(i));
            if (formCandidate && i % 3 == 0) {
                form = contactArms(i / 3, m_contactArms.data() + 8 * (i / 3)) && form;
            }
        }
        return form;
    };
    const std::ptrdiff_t entryChunks = exec::chunkCount(entries, kChunk);
    const std::ptrdiff_t rowChunks = exec::chunkCount(static_cast<std::ptrdiff_t>(n), kChunk);
    // 12 loads and stores a row and its diagonal's ~30 operations.
    // The rows' layouts first: the entries' layout depends on whether the contact form holds.
    m_contactForm = exec::reduceChunks(
                        ex, rowChunks, true, byPlane, [](bool a, bool b) { return a && b; },
                        40 * static_cast<std::ptrdiff_t>(n)) &&
                    formCandidate;
    if (!m_contactForm) {
        m_contactArms.clear();
    }
    if (formCandidate && !m_contactForm) {
        m_groupFloats = kTripleGroupFloats;
        m_jByTriple.resize(kTripleGroupFloats * (n / kGroupRows));
        constexpr std::ptrdiff_t kChunkGroups = kChunk / kGroupRows;
        const auto groups = static_cast<std::ptrdiff_t>(n / kGroupRows);
        exec::forChunks(
            ex, exec::chunkCount(groups, kChunkGroups),
            [&](std::ptrdiff_t c) {
                for (std::ptrdiff_t g = c * kChunkGroups;
                     g < std::min(groups, (c + 1) * kChunkGroups); ++g) {
                    fillTripleGroup(static_cast<std::size_t>(g), false);
                }
            },
            40 * static_cast<std::ptrdiff_t>(n));
    }
    m_kByBody.resize(m_contactForm ? 0 : kU * m_bodyEntries.size() + kByBodyPad);
    std::fill(m_kByBody.end() - (m_contactForm ? 0 : kByBodyPad), m_kByBody.end(), 0.0f);
    if (m_contactForm) {
        fillContactRuns(ex);
    } else {
        m_armByRun.clear();
        // About 8 loads and stores an entry.
        exec::forChunks(ex, entryChunks, byBody, 8 * entries);
    }
    m_diagonalsCfm = m_cfm;
}

void RowOperator::fillContactRuns(const exec::Executor* ex) {
    // Runs of three entries (the contact form has tripleRuns): each run's first row and its
    // contact arm and sign, (r_A, 1) or (-r_B, -1); no K.
    constexpr std::ptrdiff_t kChunkRuns = 1024;
    const std::size_t runs = m_bodyEntries.size() / 3;
    m_runRow.resize(runs);
    m_armByRun.resize(4 * runs);
    exec::forRanges(
        ex, static_cast<std::ptrdiff_t>(runs), kChunkRuns,
        [&](std::ptrdiff_t first, std::ptrdiff_t last) {
            for (auto q = static_cast<std::size_t>(first); q < static_cast<std::size_t>(last);
                 ++q) {
                const auto entry = static_cast<std::size_t>(m_bodyEntries[3 * q]);
                m_runRow[q] = static_cast<std::int32_t>(entry >> 1);
                std::memcpy(m_armByRun.data() + 4 * q,
                            m_contactArms.data() + 8 * ((entry >> 1) / 3) + 4 * (entry & 1),
                            4 * sizeof(float));
            }
        },
        static_cast<std::ptrdiff_t>(8 * runs));
}

void RowOperator::beginContactForm() {
    const auto n = static_cast<std::size_t>(rows());
    const std::size_t groups = n / (3 * kTripleGroup);
    m_contactForm = false;  // until finishContactForm
    m_groupFloats = kContactGroupFloats;
    m_jByTriple.resize(kContactGroupFloats * groups);
    m_bodyByTriple.resize(2 * kTripleGroup * groups);
    m_contactArms.resize(8 * (n / 3));
    m_diagonals.resize(n);
    m_diagonalsCfm = std::numeric_limits<float>::quiet_NaN();  // until every row's is written
}

bool RowOperator::fillContactGroup(std::size_t g, const float* j, const float* k) {
#if defined(__AVX2__) && defined(__FMA__)
    if (!hasBodyInverseMasses() || m_groupFloats != kContactGroupFloats ||
        kContactGroupFloats * (g + 1) > m_jByTriple.size()) {
        return false;
    }
    bool formOk = true;
    return fillTripleGroupAvx2(g, true, formOk, j, k) && formOk;
#else
    (void)g;
    (void)j;
    (void)k;
    return false;
#endif
}

bool RowOperator::finishContactForm(const exec::Executor* ex) {
    const auto n = static_cast<std::size_t>(rows());
    if (n % 3 != 0 || !hasBodyInverseMasses() || m_groupFloats != kContactGroupFloats ||
        m_contactArms.size() != 8 * (n / 3) || m_diagonals.size() != n) {
        return false;
    }
    // The rows after the last whole group, checked as fillLayouts checks them (tripleFlags,
    // then the contact form's frame and arms: contactArms), with their diagonals.
    const std::size_t tail = 3 * kTripleGroup * (n / (3 * kTripleGroup));
    for (std::size_t t = tail / 3; t < n / 3; ++t) {
        std::uint32_t notTriple = 0;
        std::uint32_t sameBody = 0;
        tripleFlags(t, notTriple, sameBody);
        if ((notTriple | sameBody) != 0 || !contactArms(t, m_contactArms.data() + 8 * t)) {
            return false;
        }
        for (std::size_t i = 3 * t; i < 3 * t + 3; ++i) {
            m_diagonals[i] = computeDiagonal(static_cast<int>(i));
        }
    }
    refreshBodyIndex(ex);
    m_triples = true;
    m_tripleRuns = true;
    m_contactForm = true;
    m_rowsWritten = false;
    m_entryRow.clear();
    m_kByBody.clear();
    m_jByPlane.clear();
    fillContactRuns(ex);
    m_diagonalsCfm = m_cfm;
    return true;
}

bool RowOperator::fillTripleGroup(std::size_t g, bool arms) {
    constexpr std::size_t kGroupRows = 3 * kTripleGroup;
#if defined(__AVX2__) && defined(__FMA__)
    bool formOk = true;
    if (fillTripleGroupAvx2(g, arms, formOk)) {
        return formOk;
    }
#endif
    for (std::size_t lane = 0; lane < kTripleGroup; ++lane) {
        const std::size_t row = kGroupRows * g + 3 * lane;
        m_bodyByTriple[2 * kTripleGroup * g + lane] = m_body[2 * row];
        m_bodyByTriple[2 * kTripleGroup * g + kTripleGroup + lane] = m_body[2 * row + 1];
    }
    float* out = m_jByTriple.data() + m_groupFloats * g;
    // With the arms, the frame alone (L), the arms after it below.
    for (std::size_t cpt = 0; cpt < (arms ? 3 : kTripleComponents); ++cpt) {
        for (std::size_t r = 0; r < 3; ++r) {
            for (std::size_t lane = 0; lane < kTripleGroup; ++lane) {
                const std::size_t row = kGroupRows * g + 3 * lane + r;
                const float* jr = jRow(row);
                // L (J_A's linear part, or J_B's negated), J_A's angular, J_B's.
                const float v = cpt >= 6               ? jr[cpt + 3]
                                : cpt >= 3             ? jr[cpt]
                                : m_body[2 * row] >= 0 ? jr[cpt]
                                                       : -jr[kU + cpt];
                out[(3 * cpt + r) * kTripleGroup + lane] = v;
            }
        }
    }
    bool form = true;
    for (std::size_t i = kGroupRows * g; i < kGroupRows * (g + 1); ++i) {
        m_diagonals[i] = computeDiagonal(static_cast<int>(i));
        if (arms && i % 3 == 0) {
            const std::size_t t = i / 3;
            float* arm = m_contactArms.data() + 8 * t;
            form = contactArms(t, arm) && form;
            const std::size_t lane = t % kTripleGroup;
            for (std::size_t c = 0; c < 3; ++c) {
                out[(9 + c) * kTripleGroup + lane] = arm[c];
                out[(12 + c) * kTripleGroup + lane] = arm[4 + c];
            }
        }
    }
    return form;
}

bool RowOperator::contactArms(std::size_t t, float* arms) const {
    const float* j[3] = {jRow(3 * t), jRow(3 * t + 1), jRow(3 * t + 2)};
    const bool hasA = m_body[6 * t] >= 0;
    const bool hasB = m_body[6 * t + 1] >= 0;
    constexpr float kTolerance = 1e-4f;
    float l[3][3];  // the frame: J_A's linear parts, or J_B's negated
    for (int k = 0; k < 3; ++k) {
        for (int c = 0; c < 3; ++c) {
            l[k][c] = hasA ? j[k][c] : -j[k][kU + c];
        }
    }
    const auto dot3 = [](const float* a, const float* b) {
        return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    };
    const auto cross3 = [](const float* a, const float* b, float* out) {
        out[0] = a[1] * b[2] - a[2] * b[1];
        out[1] = a[2] * b[0] - a[0] * b[2];
        out[2] = a[0] * b[1] - a[1] * b[0];
    };
    for (int a = 0; a < 3; ++a) {
        for (int b = a; b < 3; ++b) {
            if (!(std::fabs(dot3(l[a], l[b]) - (a == b ? 1.0f : 0.0f)) <= kTolerance)) {
                return false;
            }
        }
    }
    // r = 1/2 sum_k d_k x (r x d_k) for an orthonormal frame; side B's angular parts are
    // -(r_B x d_k). Then each angular part checked against r x d_k.
    for (int side = 0; side < 2; ++side) {
        float* arm = arms + 4 * side;
        arm[0] = arm[1] = arm[2] = 0.0f;
        arm[3] = side == 0 ? 1.0f : -1.0f;
        if (!(side == 0 ? hasA : hasB)) {
            continue;  // no runs read it
        }
        const float sign = side == 0 ? 0.5f : -0.5f;
        float r[3] = {0.0f, 0.0f, 0.0f};
        for (int k = 0; k < 3; ++k) {
            float m[3];
            cross3(l[k], j[k] + kU * side + 3, m);
            for (int c = 0; c < 3; ++c) {
                r[c] += sign * m[c];
            }
        }
        const float scale = 1.0f + std::max({std::fabs(r[0]), std::fabs(r[1]), std::fabs(r[2])});
        for (int k = 0; k < 3; ++k) {
            float m[3];
            cross3(r, l[k], m);
            for (int c = 0; c < 3; ++c) {
                const float want = side == 0 ? m[c] : -m[c];
                if (!(std::fabs(want - j[k][kU * side + 3 + c]) <= kTolerance * scale)) {
                    return false;
                }
            }
        }
        // What the runs read: (r_A, 1), or (-r_B, -1).
        for (int c = 0; c < 3; ++c) {
            arm[c] = side == 0 ? r[c] : -r[c];
        }
    }
    return true;
}

const float* RowOperator::impulsesOf(const float* x, std::vector<float>& impulses,
                                     const exec::Executor* ex) const {
    if (!m_contactForm) {
        return nullptr;
    }
    constexpr std::ptrdiff_t kChunkContacts = 512;  // whole groups of eight
    impulses.resize(impulseFloats());
    const std::ptrdiff_t contacts = rows() / 3;
    exec::forChunks(
        ex, exec::chunkCount(contacts, kChunkContacts),
        [&](std::ptrdiff_t c) {
            const std::ptrdiff_t first = c * kChunkContacts;
            contactImpulses(x, impulses.data(), static_cast<int>(first),
                            static_cast<int>(std::min(first + kChunkContacts, contacts)));
        },
        // Work: the floats streamed per contact (its frame's nine, its three x, P's four), so
        // that an island from ~6 000 rows (a 20 x 20 collapse's) runs this once-a-pass loop on
        // every thread rather than on the caller while the others wait.
        16 * contacts);
    return impulses.data();
}

void RowOperator::contactImpulses(const float* x, float* impulses, int firstContact,
                                  int lastContact) const {
    // P = x_0 d_0 + x_1 d_1 + x_2 d_2 in this order of fused operations, eight contacts at a
    // time in whole groups (the frame from m_jByTriple), one by one elsewhere: the same bits.
    int t = firstContact;
#if defined(__AVX2__) && defined(__FMA__)
    const int groups = rows() / (3 * kTripleGroup);
    for (; t < lastContact && t % kTripleGroup != 0; ++t) {
        contactImpulseScalar(x, impulses, t);
    }
    for (; t + kTripleGroup <= lastContact && t / kTripleGroup < groups; t += kTripleGroup) {
        __m256 xk[3];  // lane q of xk[k]: x of the group's contact q's row k
        lanes::splitThree(x + 3 * static_cast<std::size_t>(t), xk);
        groupImpulses(static_cast<std::size_t>(t / kTripleGroup), xk[0], xk[1], xk[2], impulses);
    }
#endif
    for (; t < lastContact; ++t) {
        contactImpulseScalar(x, impulses, t);
    }
}

#if defined(__AVX2__) && defined(__FMA__)
void RowOperator::groupImpulses(std::size_t g, __m256 xn, __m256 xf, __m256 xg,
                                float* impulses) const {
    const float* l = m_jByTriple.data() + m_groupFloats * g;
    const __m256 xk[3] = {xn, xf, xg};
    __m256 p[4];
    for (int c = 0; c < 3; ++c) {
        // Component c of row k's frame vector at (3 c + k) kTripleGroup.
        __m256 acc = _mm256_mul_ps(xk[0], _mm256_loadu_ps(l + (3 * c) * kTripleGroup));
        acc = _mm256_fmadd_ps(xk[1], _mm256_loadu_ps(l + (3 * c + 1) * kTripleGroup), acc);
        p[c] = _mm256_fmadd_ps(xk[2], _mm256_loadu_ps(l + (3 * c + 2) * kTripleGroup), acc);
    }
    p[3] = _mm256_setzero_ps();
    // Four components of eight contacts to eight contacts of four.
    const __m256 t0 = _mm256_unpacklo_ps(p[0], p[1]);
    const __m256 t1 = _mm256_unpackhi_ps(p[0], p[1]);
    const __m256 t2 = _mm256_unpacklo_ps(p[2], p[3]);
    const __m256 t3 = _mm256_unpackhi_ps(p[2], p[3]);
    const __m256 a0 = _mm256_shuffle_ps(t0, t2, 0x44);  // contact 0 | 4
    const __m256 a1 = _mm256_shuffle_ps(t0, t2, 0xee);  // 1 | 5
    const __m256 a2 = _mm256_shuffle_ps(t1, t3, 0x44);  // 2 | 6
    const __m256 a3 = _mm256_shuffle_ps(t1, t3, 0xee);  // 3 | 7
    float* out = impulses + kImpulseFloats * kTripleGroup * g;
    _mm256_storeu_ps(out, _mm256_permute2f128_ps(a0, a1, 0x20));
    _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(a2, a3, 0x20));
    _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(a0, a1, 0x31));
    _mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(a2, a3, 0x31));
}
#endif

void RowOperator::contactImpulseScalar(const float* x, float* impulses, int t) const {
    const auto ut = static_cast<std::size_t>(t);
    float* out = impulses + kImpulseFloats * ut;
    for (int c = 0; c < 3; ++c) {
        float d[3];
        for (int k = 0; k < 3; ++k) {
            d[k] = frameAt(ut, static_cast<std::size_t>(k), static_cast<std::size_t>(c));
        }
        const float* xr = x + 3 * ut;
        float acc = xr[0] * d[0];
        acc = std::fma(xr[1], d[1], acc);
        out[c] = std::fma(xr[2], d[2], acc);
    }
    out[3] = 0.0f;
}

void RowOperator::gatherContacts(const float* impulses, float* u, int firstBody,
                                 int lastBody) const {
    // Per body: f = sum of s P and t = sum of (s r) x P over its runs in order, then
    // u = (f / m, I^-1 t). Each run reads its contact's P and its own (s r, s).
    const auto finish = [&](int b, const float* f, const float* torque) {
        const auto ub = static_cast<std::size_t>(b);
        const float* w = m_bodyInvMass.data() + kMassFloats * ub;
        float* out = u + kU * ub;
        out[0] = w[0] * f[0];
        out[1] = w[0] * f[1];
        out[2] = w[0] * f[2];
        out[3] = w[1] * torque[0] + w[2] * torque[1] + w[3] * torque[2];
        out[4] = w[2] * torque[0] + w[4] * torque[1] + w[5] * torque[2];
        out[5] = w[3] * torque[0] + w[5] * torque[1] + w[6] * torque[2];
    };
    const auto runsOf = [&](int b) {
        const auto ub = static_cast<std::size_t>(b);
        return std::pair{static_cast<std::size_t>(m_bodyStart[ub] / 3),
                         static_cast<std::size_t>(m_bodyStart[ub + 1] / 3)};
    };
#if defined(__AVX2__) && defined(__FMA__)
    // (s r) x P rotated: D = R P.yzx - R.yzx P holds its z, x, y; rotated once at the end.
    // kGroup bodies' chains side by side (one body's is latency-bound), each in its own order.
    struct Sums {
        __m128 f, d;
    };
    const auto term = [&](std::size_t s, Sums& acc) {
        const auto contact = static_cast<std::size_t>(m_runRow[s] / 3);
        const __m128 p = _mm_loadu_ps(impulses + kImpulseFloats * contact);
        const __m128 r = _mm_loadu_ps(m_armByRun.data() + 4 * s);
        acc.f = _mm_fmadd_ps(_mm_shuffle_ps(r, r, 0xff), p, acc.f);
        const __m128 pyzx = _mm_shuffle_ps(p, p, _MM_SHUFFLE(3, 0, 2, 1));
        const __m128 ryzx = _mm_shuffle_ps(r, r, _MM_SHUFFLE(3, 0, 2, 1));
        acc.d = _mm_add_ps(acc.d, _mm_fmsub_ps(r, pyzx, _mm_mul_ps(ryzx, p)));
    };
    const auto store = [&](int b, const Sums& acc) {
        alignas(16) float fs[4], ds[4];
        _mm_store_ps(fs, acc.f);
        _mm_store_ps(ds, acc.d);
        const float torque[3] = {ds[1], ds[2], ds[0]};
        finish(b, fs, torque);
    };
    constexpr int kGroup = 4;
    int b = firstBody;
    for (; b + kGroup <= lastBody; b += kGroup) {
        Sums acc[kGroup];
        std::size_t at[kGroup], end[kGroup];
        std::size_t common = SIZE_MAX;
        for (int q = 0; q < kGroup; ++q) {
            acc[q] = {_mm_setzero_ps(), _mm_setzero_ps()};
            std::tie(at[q], end[q]) = runsOf(b + q);
            common = std::min(common, end[q] - at[q]);
        }
        for (std::size_t s = 0; s < common; ++s) {
            for (int q = 0; q < kGroup; ++q) {
                term(at[q] + s, acc[q]);
            }
        }
        for (int q = 0; q < kGroup; ++q) {
            for (std::size_t s = at[q] + common; s < end[q]; ++s) {
                term(s, acc[q]);
            }
            store(b + q, acc[q]);
        }
    }
    for (; b < lastBody; ++b) {
        Sums acc{_mm_setzero_ps(), _mm_setzero_ps()};
        const auto [first, last] = runsOf(b);
        for (std::size_t s = first; s < last; ++s) {
            term(s, acc);
        }
        store(b, acc);
    }
#else
    for (int b = firstBody; b < lastBody; ++b) {
        float f[3] = {0.0f, 0.0f, 0.0f};
        float torque[3] = {0.0f, 0.0f, 0.0f};
        const auto [first, last] = runsOf(b);
        for (std::size_t s = first; s < last; ++s) {
            const float* p = impulses + kImpulseFloats * static_cast<std::size_t>(m_runRow[s] / 3);
            const float* r = m_armByRun.data() + 4 * s;
            for (int c = 0; c < 3; ++c) {
                f[c] += r[3] * p[c];
            }
            torque[0] += r[1] * p[2] - r[2] * p[1];
            torque[1] += r[2] * p[0] - r[0] * p[2];
            torque[2] += r[0] * p[1] - r[1] * p[0];
        }
        finish(b, f, torque);
    }
#endif
}

float RowOperator::localStepBound(int body) const {
    if (!m_rowsWritten) {
        throw std::logic_error(
            "localStepBound reads J and K: this operator was built in the contact form without "
            "rows (RowOperator::finishContactForm)");
    }
    // T = sum over the body's entries of K_e J_e^T / (J_e . K_e): W^(1/2) H W^(-1/2) for H the
    // sum of the projectors onto W^(1/2) J_e^T, so T has H's eigenvalues, the nonzero ones of
    // the body's part G_b = J_b W_b J_b^T of A scaled by its own diagonal. tr(T) is the entry
    // count; lambda_max <= (tr T^32)^(1/32) <= 6^(1/32) lambda_max (at most six nonzero
    // eigenvalues), computed by five squarings of T / tr(T) in double.
    double t[36] = {};
    const auto b = static_cast<std::size_t>(body);
    for (std::int32_t at = m_bodyStart[b]; at < m_bodyStart[b + 1]; ++at) {
        const auto entry = static_cast<std::size_t>(m_bodyEntries[static_cast<std::size_t>(at)]);
        const float* j = jRow(entry >> 1) + kU * (entry & 1);
        const float* k = kRow(entry >> 1) + kU * (entry & 1);
        const double g = dot6(j, k);
        if (!(g > 0.0)) {
            continue;  // a row side without inertia (or not finite: validation reports it)
        }
        for (int r = 0; r < 6; ++r) {
            const double kr = static_cast<double>(k[r]) / g;
            for (int c = 0; c < 6; ++c) {
                t[6 * r + c] += kr * j[c];
            }
        }
    }
    double trace = 0.0;
    for (int r = 0; r < 6; ++r) {
        trace += t[7 * r];
    }
    if (!(trace > 0.0)) {
        return 0.0f;
    }
    for (double& v : t) {
        v /= trace;
    }
    for (int squaring = 0; squaring < 5; ++squaring) {
        double u[36] = {};
        for (int r = 0; r < 6; ++r) {
            for (int q = 0; q < 6; ++q) {
                const double trq = t[6 * r + q];
                for (int c = 0; c < 6; ++c) {
                    u[6 * r + c] += trq * t[6 * q + c];
                }
            }
        }
        std::copy(u, u + 36, t);
    }
    double trace32 = 0.0;
    for (int r = 0; r < 6; ++r) {
        trace32 += t[7 * r];
    }
    return static_cast<float>(trace * std::pow(std::max(trace32, 0.0), 1.0 / 32.0));
}

float RowOperator::useLocalStepDiagonals(const exec::Executor* ex) {
    if (!m_rowsWritten) {
        throw std::logic_error(
            "local step scales read J and K: this operator was built in the contact form "
            "without rows (RowOperator::finishContactForm); assemble it with its rows");
    }
    const auto n = static_cast<std::size_t>(rows());
    m_localBound.resize(static_cast<std::size_t>(m_bodies));
    constexpr std::ptrdiff_t kChunkBodies = 256;
    constexpr std::ptrdiff_t kChunkRows = 2048;
    // ~4000 operations a body (its entries' outer products and five 6 x 6 squarings).
    const float worst = exec::reduceChunks(
        ex, exec::chunkCount(m_bodies, kChunkBodies), 0.0f,
        [&](std::ptrdiff_t c) {
            float most = 0.0f;
            const auto last =
                static_cast<int>(std::min<std::ptrdiff_t>(m_bodies, (c + 1) * kChunkBodies));
            for (auto b = static_cast<int>(c * kChunkBodies); b < last; ++b) {
                const float bound = localStepBound(b);
                m_localBound[static_cast<std::size_t>(b)] = bound;
                most = std::max(most, bound);
            }
            return most;
        },
        [](float a, float b) { return std::max(a, b); },
        4000 * static_cast<std::ptrdiff_t>(m_bodies));
    m_diagonals.resize(n);
    exec::forChunks(
        ex, exec::chunkCount(static_cast<std::ptrdiff_t>(n), kChunkRows),
        [&](std::ptrdiff_t c) {
            const std::size_t last = std::min(n, static_cast<std::size_t>((c + 1) * kChunkRows));
            for (auto i = static_cast<std::size_t>(c * kChunkRows); i < last; ++i) {
                const float* ji = jRow(i);
                const float* ki = kRow(i);
                float d = m_cfm;
                for (std::size_t side = 0; side < 2; ++side) {
                    const std::int32_t b = m_body[2 * i + side];
                    if (b >= 0) {
                        d += m_localBound[static_cast<std::size_t>(b)] *
                             dot6(ji + kU * side, ki + kU * side);
                    }
                }
                m_diagonals[i] = d;
            }
        },
        30 * static_cast<std::ptrdiff_t>(n));
    m_diagonalsCfm = m_cfm;
    return worst;
}

std::string RowOperator::validate(int n, const exec::Executor* ex) const {
    const auto un = static_cast<std::size_t>(n);
    const std::size_t held = un - std::min(un, m_rowsFrom);
    if (m_body.size() != 2 * un || m_j.size() != kJ * held || m_k.size() != kJ * held) {
        return "the matrix-free operator has " + std::to_string(m_body.size() / 2) +
               " rows of bodies, " + std::to_string(m_j.size() / kJ) + " of J and " +
               std::to_string(m_k.size() / kJ) + " of K; expected " + std::to_string(held) +
               " of " + std::to_string(n);
    }
    if (m_rowsFrom > un || (m_rowsWritten && m_rowsFrom != 0) ||
        (m_rowsFrom != 0 && m_rowsFrom != 3 * kTripleGroup * (un / (3 * kTripleGroup)))) {
        return "the matrix-free operator holds J and K from row " + std::to_string(m_rowsFrom) +
               " of " + std::to_string(n) +
               ", which is neither all rows nor those after its whole groups";
    }
    if (m_bodies < 0) {
        return "the matrix-free operator has a negative body count";
    }
    if (!m_rowsWritten && (!m_contactForm || !diagonalsKept())) {
        return "the matrix-free operator was built in the contact form without rows, and its "
               "contact form or diagonals are gone (cfm changed since finishContactForm?): "
               "assemble it again";
    }
    if (!m_bodyMass.empty() &&
        m_bodyMass.size() != kMassFloats * static_cast<std::size_t>(m_bodies)) {
        return "the matrix-free operator has " + std::to_string(m_bodyMass.size()) +
               " mass floats for " + std::to_string(m_bodies) + " bodies; expected " +
               std::to_string(kMassFloats) + " per body, or none";
    }
    // The O(rows) checks in fixed chunks, each finding its first bad entry or body: the
    // earliest is reported, as a serial scan would.
    constexpr std::ptrdiff_t kChunk = 4096;
    const auto earliest = [](std::ptrdiff_t x, std::ptrdiff_t y) { return std::min(x, y); };
    const auto entries = static_cast<std::ptrdiff_t>(m_body.size());
    const std::ptrdiff_t badBody = exec::reduceChunks(
        ex, exec::chunkCount(entries, kChunk), entries,
        [&](std::ptrdiff_t c) {
            const std::ptrdiff_t last = std::min(entries, (c + 1) * kChunk);
            // The whole chunk tested first, -1 <= b < m_bodies as one unsigned compare OR-reduced
            // in an integer (vectorized; GCC does not vectorize a bool's &=), then searched only
            // if an entry is out of range.
            const auto limit = static_cast<std::uint32_t>(m_bodies);
            std::uint32_t out = 0;
            for (std::ptrdiff_t e = c * kChunk; e < last; ++e) {
                out |= static_cast<std::uint32_t>(
                    static_cast<std::uint32_t>(m_body[static_cast<std::size_t>(e)]) + 1u > limit);
            }
            if (out == 0) {
                return entries;
            }
            for (std::ptrdiff_t e = c * kChunk; e < last; ++e) {
                const std::int32_t b = m_body[static_cast<std::size_t>(e)];
                if (b < -1 || b >= m_bodies) {
                    return e;
                }
            }
            return entries;
        },
        earliest, entries);
    if (badBody < entries) {
        const std::int32_t b = m_body[static_cast<std::size_t>(badBody)];
        return "row " + std::to_string(badBody / 2) + " names body " + std::to_string(b) +
               ", outside [-1, " + std::to_string(m_bodies) + ")";
    }
    if (m_bodyStart.size() != static_cast<std::size_t>(m_bodies) + 1 || m_bodyStart.front() != 0 ||
        m_bodyEntries.size() != static_cast<std::size_t>(m_bodyStart.back()) ||
        m_entryRow.size() != (m_tripleRuns ? 0 : m_bodyEntries.size()) ||
        m_runRow.size() != (m_tripleRuns ? m_bodyEntries.size() / 3 : 0) ||
        m_kByBody.size() != (m_contactForm ? 0 : kU * m_bodyEntries.size() + kByBodyPad) ||
        m_armByRun.size() != (m_contactForm ? 4 * (m_bodyEntries.size() / 3) : 0) ||
        (m_contactForm && (!m_tripleRuns || !hasBodyInverseMasses())) ||
        m_jByPlane.size() != (m_triples ? 0 : kJ * un) ||
        m_jByTriple.size() !=
            (m_triples ? m_groupFloats * (un / (3 * kTripleGroup)) : std::size_t{0}) ||
        m_groupFloats !=
            (m_contactForm ? std::size_t{kContactGroupFloats} : std::size_t{kTripleGroupFloats}) ||
        m_bodyByTriple.size() !=
            (m_triples ? 2 * kTripleGroup * (un / (3 * kTripleGroup)) : std::size_t{0})) {
        return "the matrix-free operator's body index is stale (call buildBodyIndex)";
    }
    for (int b = 0; b < m_bodies; ++b) {
        if (m_bodyStart[b + 1] < m_bodyStart[b]) {
            return "the matrix-free operator's body index is stale (call buildBodyIndex)";
        }
    }
    // The index is what sortEntriesByBody made of m_indexedBody (buildBodyIndex keeps that
    // copy, and only it writes the index): it holds while the rows name those bodies. One
    // sequential compare, where walking the index reads a row's bodies per entry, scattered.
    if (m_indexedBodies != m_bodies || !exec::equalChunked(ex, m_body, m_indexedBody)) {
        return "the matrix-free operator's body index is stale (call buildBodyIndex)";
    }
    return {};
}

void RowOperator::gatherBodies(const float* x, float* u, int firstBody, int lastBody,
                               const float* impulses) const {
    if (m_contactForm) {
        if (impulses == nullptr) {
            throw std::invalid_argument(
                "RowOperator::gatherBodies: a contact-form operator gathers from the contacts' "
                "impulses (contactImpulses), none given");
        }
        gatherContacts(impulses, u, firstBody, lastBody);
    } else if (m_tripleRuns) {
        gatherUnits<3>(x, u, firstBody, lastBody);
    } else {
        gatherUnits<1>(x, u, firstBody, lastBody);
    }
}

template <int kRun>
void RowOperator::gatherUnits(const float* x, float* u, int firstBody, int lastBody) const {
    // Units of kRun entries: single entries (their rows from entryRow), or a contact's runs of
    // three (rows runRow[s], + 1, + 2). Either way each entry's term in the body's order.
    const auto rowOf = [&](std::size_t unit, int at) {
        return kRun == 1 ? m_entryRow[unit] : m_runRow[unit] + at;
    };
#if defined(__AVX2__) && defined(__FMA__)
    // One body's six sums in lanes 0-5 of a vector: per entry one load of its K block (eight
    // floats: lanes 6 and 7, the next block's or kByBody's padding, are summed but never
    // stored), one broadcast and one fused multiply-add, the scalar loop's operations lane by
    // lane.
    // Eight bodies at a time, each its own chain of fused multiply-adds in its own order: one
    // body's chain is latency-bound (a wall brick has ~70 entries), eight in flight are not.
    const __m256i six = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0);
    const auto term = [&](std::int32_t s, __m256 acc) {
        const auto us = static_cast<std::size_t>(s);
        for (int at = 0; at < kRun; ++at) {
            const __m256 kr = _mm256_loadu_ps(m_kByBody.data() + kU * (kRun * us + at));
            acc = _mm256_fmadd_ps(kr, _mm256_set1_ps(x[rowOf(us, at)]), acc);
        }
        return acc;
    };
    // kGroup bodies' chains side by side: their common number of units together, the rest of
    // each body's units after them (each body's own order either way).
    const auto group = [&]<int kGroup>(int first) {
        __m256 acc[kGroup];
        std::int32_t e[kGroup], end[kGroup];
        std::int32_t common = (m_bodyStart[first + 1] - m_bodyStart[first]) / kRun;
        for (int q = 0; q < kGroup; ++q) {
            acc[q] = _mm256_setzero_ps();
            e[q] = m_bodyStart[first + q] / kRun;
            end[q] = m_bodyStart[first + q + 1] / kRun;
            common = std::min(common, end[q] - e[q]);
        }
        for (std::int32_t s = 0; s < common; ++s) {
            for (int q = 0; q < kGroup; ++q) {
                acc[q] = term(e[q] + s, acc[q]);
            }
        }
        for (int q = 0; q < kGroup; ++q) {
            for (std::int32_t s = e[q] + common; s < end[q]; ++s) {
                acc[q] = term(s, acc[q]);
            }
            _mm256_maskstore_ps(u + static_cast<std::size_t>(kU) * (first + q), six, acc[q]);
        }
    };
    int b = firstBody;
    for (; b + 8 <= lastBody; b += 8) {
        group.template operator()<8>(b);
    }
    for (; b + 4 <= lastBody; b += 4) {
        group.template operator()<4>(b);
    }
    for (; b < lastBody; ++b) {
        __m256 acc = _mm256_setzero_ps();
        for (std::int32_t s = m_bodyStart[b] / kRun; s < m_bodyStart[b + 1] / kRun; ++s) {
            acc = term(s, acc);
        }
        _mm256_maskstore_ps(u + static_cast<std::size_t>(kU) * b, six, acc);
    }
#else
    for (int b = firstBody; b < lastBody; ++b) {
        float acc[kU] = {0, 0, 0, 0, 0, 0};
        for (std::int32_t e = m_bodyStart[b]; e < m_bodyStart[b + 1]; ++e) {
            const auto ue = static_cast<std::size_t>(e);
            const float* kr = m_kByBody.data() + kU * ue;
            const float xi = x[rowOf(ue / kRun, static_cast<int>(ue % kRun))];
            for (int c = 0; c < kU; ++c) {
                acc[c] += kr[c] * xi;
            }
        }
        std::copy_n(acc, kU, u + static_cast<std::size_t>(kU) * b);
    }
#endif
}

namespace {

// J_side . u_body of a row in applyRows's scalar loop. With FMA, in the order GCC contracts dot6
// into, which the eight-row vector loop repeats lane by lane: fma(j0, u0, j1 u1), then j2 .. j5
// added by fused multiply-adds.
inline float dotSide(const float* ji, const float* ub) {
#if defined(__AVX2__) && defined(__FMA__)
    float d = ji[1] * ub[1];
    d = std::fma(ji[0], ub[0], d);
    for (int c = 2; c < kU; ++c) {
        d = std::fma(ji[c], ub[c], d);
    }
    return d;
#else
    return dot6(ji, ub);
#endif
}

}  // namespace

#if defined(__AVX2__) && defined(__FMA__)
namespace {

// The eight body sums u_b named by side8 (-1: none, zeros), transposed so that vector c holds
// component c of the eight (lanes 6, 7 of each block are not loaded: u may end there; a side
// without a body loads nothing: u may be empty).
inline void transposedSums(const float* u, const std::int32_t* side8, __m256 (&uc)[kU]) {
    const __m256i six = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0);
    __m256 r[8];
    for (int q = 0; q < 8; ++q) {
        const std::int32_t bq = side8[q];
        r[q] = bq < 0 ? _mm256_setzero_ps()
                      : _mm256_maskload_ps(u + static_cast<std::size_t>(kU) * bq, six);
    }
    transpose8(r, uc, kU);
}

// Float k of eight rows of twelve (row q at base + q * stride) into c[k]: two 8 x 8
// transposes, of floats 0-7 and of floats 4-11.
inline void transposeRows12(const float* base, std::size_t stride, __m256 (&c)[kJ]) {
    __m256 r[8];
    for (int q = 0; q < 8; ++q) {
        r[q] = _mm256_loadu_ps(base + static_cast<std::size_t>(q) * stride);
    }
    transpose8(r, c);  // floats 0-7
    for (int q = 0; q < 8; ++q) {
        r[q] = _mm256_loadu_ps(base + static_cast<std::size_t>(q) * stride + 4);
    }
    __m256 upper[8];
    transpose8(r, upper);  // floats 4-11
    for (int k = 8; k < kJ; ++k) {
        c[k] = upper[k - 4];
    }
}

// dot6 of side `at` (0 or kU) of eight rows given by component, in computeDiagonal's order
// (a1 b1, then a0 b0 added, then a2 b2 ... a5 b5, each fused).
inline __m256 dot6Side8(const __m256 (&j)[kJ], const __m256 (&k)[kJ], int at) {
    __m256 d = _mm256_mul_ps(j[at + 1], k[at + 1]);
    d = _mm256_fmadd_ps(j[at], k[at], d);
    for (int c = 2; c < kU; ++c) {
        d = _mm256_fmadd_ps(j[at + c], k[at + c], d);
    }
    return d;
}

// contactArms for eight contacts (lane q: contact q), their frame and angular parts by row and
// component: true when every lane's rows are of the contact form, its arms then in `arms` (eight
// floats a contact: r_A, 1, -r_B, -1; zeros for a side without a body) and by component in
// `planes` (r_A's xyz, then -r_B's, eight lanes each).
inline bool contactArmsAvx2(const __m256 (&frame)[3][3], const __m256 (&angA)[3][3],
                            const __m256 (&angB)[3][3], __m256 hasA, __m256 hasB, float* arms,
                            float* planes) {
    const __m256 tolerance = _mm256_set1_ps(1e-4f);
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const auto abs = [&](__m256 v) { return _mm256_and_ps(v, absMask); };
    const auto within = [&](__m256 v, __m256 bound) {
        return _mm256_cmp_ps(abs(v), bound, _CMP_LE_OQ);  // false with a NaN
    };
    const auto cross = [](const __m256(&a)[3], const __m256(&b)[3], __m256(&out)[3]) {
        out[0] = _mm256_fmsub_ps(a[1], b[2], _mm256_mul_ps(a[2], b[1]));
        out[1] = _mm256_fmsub_ps(a[2], b[0], _mm256_mul_ps(a[0], b[2]));
        out[2] = _mm256_fmsub_ps(a[0], b[1], _mm256_mul_ps(a[1], b[0]));
    };
    __m256 ok = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    for (int a = 0; a < 3; ++a) {
        for (int b = a; b < 3; ++b) {
            __m256 d = _mm256_mul_ps(frame[a][0], frame[b][0]);
            d = _mm256_fmadd_ps(frame[a][1], frame[b][1], d);
            d = _mm256_fmadd_ps(frame[a][2], frame[b][2], d);
            d = a == b ? _mm256_sub_ps(d, one) : d;
            ok = _mm256_and_ps(ok, within(d, tolerance));
        }
    }
    __m256 arm[2][3];
    for (int side = 0; side < 2; ++side) {
        const __m256(&ang)[3][3] = side == 0 ? angA : angB;
        // r = 1/2 sum_k d_k x (r x d_k); side B's angular parts are -(r_B x d_k).
        __m256 r[3] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
        for (int k = 0; k < 3; ++k) {
            __m256 m[3];
            cross(frame[k], ang[k], m);
            for (int c = 0; c < 3; ++c) {
                r[c] = _mm256_add_ps(r[c], m[c]);
            }
        }
        const __m256 half = _mm256_set1_ps(side == 0 ? 0.5f : -0.5f);
        for (int c = 0; c < 3; ++c) {
            r[c] = _mm256_mul_ps(r[c], half);
        }
        const __m256 bound = _mm256_mul_ps(
            tolerance,
            _mm256_add_ps(one, _mm256_max_ps(abs(r[0]), _mm256_max_ps(abs(r[1]), abs(r[2])))));
        __m256 sideOk = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
        for (int k = 0; k < 3; ++k) {
            __m256 m[3];
            cross(r, frame[k], m);
            for (int c = 0; c < 3; ++c) {
                const __m256 want = side == 0 ? m[c] : _mm256_sub_ps(_mm256_setzero_ps(), m[c]);
                sideOk = _mm256_and_ps(sideOk, within(_mm256_sub_ps(want, ang[k][c]), bound));
            }
        }
        const __m256 has = side == 0 ? hasA : hasB;
        // A side without a body is not read: only the sides with one must hold.
        ok = _mm256_and_ps(
            ok, _mm256_or_ps(sideOk,
                             _mm256_andnot_ps(has, _mm256_castsi256_ps(_mm256_set1_epi32(-1)))));
        // What the runs read: (r_A, 1), or (-r_B, -1); zeros without a body.
        for (int c = 0; c < 3; ++c) {
            const __m256 v = side == 0 ? r[c] : _mm256_sub_ps(_mm256_setzero_ps(), r[c]);
            arm[side][c] = _mm256_and_ps(v, has);
        }
    }
    if (_mm256_movemask_ps(ok) != 0xff) {
        return false;
    }
    for (int side = 0; side < 2; ++side) {
        for (int c = 0; c < 3; ++c) {
            _mm256_storeu_ps(planes + (3 * side + c) * 8, arm[side][c]);
        }
    }
    // Eight fields of eight contacts to eight contacts of eight fields.
    const __m256 in[8] = {arm[0][0], arm[0][1], arm[0][2], one,
                          arm[1][0], arm[1][1], arm[1][2], _mm256_set1_ps(-1.0f)};
    __m256 out[8];
    transpose8(in, out);
    for (int q = 0; q < 8; ++q) {
        _mm256_storeu_ps(arms + 8 * q, out[q]);
    }
    return true;
}

// J_side . u of eight rows, lane by lane dotSide's operations: j holds component c of the
// eight rows at j + c * stride.
inline __m256 dotSide8(const float* j, std::size_t stride, const __m256 (&uc)[kU]) {
    __m256 d = _mm256_mul_ps(_mm256_loadu_ps(j + stride), uc[1]);
    d = _mm256_fmadd_ps(_mm256_loadu_ps(j), uc[0], d);
    for (int c = 2; c < kU; ++c) {
        d = _mm256_fmadd_ps(_mm256_loadu_ps(j + static_cast<std::size_t>(c) * stride), uc[c], d);
    }
    return d;
}

// dotSide8 for side B of a triple group: its linear part is -L (L at j, j + stride, j + 2
// stride), its angular part at j + 6 stride ...: the same operations on the negated values,
// exactly (-(a b) = (-a) b, and fnmadd(a, b, c) = fma(-a, b, c)).
inline __m256 dotSideB8(const float* j, std::size_t stride, const __m256 (&uc)[kU]) {
    __m256 d =
        _mm256_xor_ps(_mm256_mul_ps(_mm256_loadu_ps(j + stride), uc[1]), _mm256_set1_ps(-0.0f));
    d = _mm256_fnmadd_ps(_mm256_loadu_ps(j), uc[0], d);
    d = _mm256_fnmadd_ps(_mm256_loadu_ps(j + 2 * stride), uc[2], d);
    for (int c = 3; c < kU; ++c) {
        d = _mm256_fmadd_ps(_mm256_loadu_ps(j + static_cast<std::size_t>(c + 3) * stride), uc[c],
                            d);
    }
    return d;
}

}  // namespace

bool RowOperator::fillTripleGroupAvx2(std::size_t g, bool arms, bool& formOk, const float* jRows,
                                      const float* kRows) {
    constexpr std::size_t kG = kTripleGroup;
    const std::size_t row0 = 3 * kG * g;
    // The group's bodies: each contact's first row's sides (evens and odds of six-int strides).
    alignas(32) std::int32_t sides[2][kG];
    for (std::size_t lane = 0; lane < kG; ++lane) {
        sides[0][lane] = m_body[2 * (row0 + 3 * lane)];
        sides[1][lane] = m_body[2 * (row0 + 3 * lane) + 1];
        if (sides[0][lane] >= 0 && sides[0][lane] == sides[1][lane]) {
            return false;  // the diagonal's cross terms: the scalar path
        }
    }
    std::copy_n(sides[0], kG, m_bodyByTriple.data() + 2 * kG * g);
    std::copy_n(sides[1], kG, m_bodyByTriple.data() + 2 * kG * g + kG);
    const __m256i none = _mm256_set1_epi32(-1);
    const __m256 hasA = _mm256_castsi256_ps(
        _mm256_cmpgt_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(sides[0])), none));
    const __m256 hasB = _mm256_castsi256_ps(
        _mm256_cmpgt_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(sides[1])), none));
    const __m256 sign = _mm256_set1_ps(-0.0f);
    const __m256 cfm8 = _mm256_set1_ps(m_cfm);
    float* out = m_jByTriple.data() + m_groupFloats * g;
    __m256 diag[3];
    __m256 frame[3][3], angA[3][3], angB[3][3];  // [row][component]
    for (std::size_t r = 0; r < 3; ++r) {
        // Lane q: the group's contact q's row r (row0 + 3 q + r), rows 3 kJ floats apart.
        __m256 j[kJ];
        __m256 k[kJ];
        transposeRows12(jRows + kJ * r, 3 * kJ, j);
        transposeRows12(kRows + kJ * r, 3 * kJ, k);
        // Component c of row r at (3 c + r) kG: L (J_A's linear part where side A has a body,
        // else J_B's negated), J_A's angular part, J_B's angular part.
        for (int c = 0; c < 3; ++c) {
            const __m256 l = _mm256_blendv_ps(_mm256_xor_ps(j[kU + c], sign), j[c], hasA);
            _mm256_storeu_ps(out + (3 * c + r) * kG, l);
            if (!arms) {  // the contact form's arms take the angular parts' place
                _mm256_storeu_ps(out + (3 * (c + 3) + r) * kG, j[3 + c]);
                _mm256_storeu_ps(out + (3 * (c + 6) + r) * kG, j[kU + 3 + c]);
            }
            frame[r][c] = l;
            angA[r][c] = j[3 + c];
            angB[r][c] = j[kU + 3 + c];
        }
        // computeDiagonal: cfm, plus side A's J . K where it has a body, plus side B's.
        __m256 d = _mm256_blendv_ps(cfm8, _mm256_add_ps(cfm8, dot6Side8(j, k, 0)), hasA);
        diag[r] = _mm256_blendv_ps(d, _mm256_add_ps(d, dot6Side8(j, k, kU)), hasB);
    }
    // Back to row order (lane q of diag[r] is row 3 q + r), as applyTripleGroups stores w.
    lanes::storeThree(m_diagonals.data() + row0, diag[0], diag[1], diag[2]);
    formOk = !arms || contactArmsAvx2(frame, angA, angB, hasA, hasB,
                                      m_contactArms.data() + 8 * kG * g, out + 9 * kG);
    return true;
}

void RowOperator::applyTripleGroups(const float* x, const float* u, float* w, int firstGroup,
                                    int lastGroup) const {
    // Per group: the 24 rows' x split into each contact's first, second and third rows (a
    // blend and a lane permutation each), the two sides' body sums transposed once for the
    // three rows, and w put back in row order by the inverse permutations and blends.
    const __m256 cfm8 = _mm256_set1_ps(m_cfm);
    const __m256i none = _mm256_set1_epi32(-1);
    constexpr int kG = kTripleGroup;
    for (int g = firstGroup; g < lastGroup; ++g) {
        const auto row0 = static_cast<std::size_t>(3 * kG) * static_cast<std::size_t>(g);
        const std::int32_t* sides = m_bodyByTriple.data() + 2 * kG * static_cast<std::size_t>(g);
        __m256 wk[3];  // lane q of wk[k]: row 3 q + k of the group, cfm x to start
        lanes::splitThree(x + row0, wk);
        for (__m256& v : wk) {
            v = _mm256_mul_ps(cfm8, v);
        }
        const float* jg = m_jByTriple.data() + m_groupFloats * static_cast<std::size_t>(g);
        for (int side = 0; side < 2; ++side) {
            __m256 uc[kU];
            const std::int32_t* side8 = sides + kG * side;
            transposedSums(u, side8, uc);
            const __m256 present = _mm256_castsi256_ps(_mm256_cmpgt_epi32(
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(side8)), none));
            for (int r = 0; r < 3; ++r) {
                // Component c of row r at jr + c * 3 kG: L for c = 0-2, then side A's angular
                // part (c = 3-5) or, three components on, side B's.
                const float* jr = jg + static_cast<std::size_t>(r * kG);
                const __m256 d = side == 0 ? dotSide8(jr, 3 * kG, uc) : dotSideB8(jr, 3 * kG, uc);
                wk[r] = _mm256_blendv_ps(wk[r], _mm256_add_ps(wk[r], d), present);
            }
        }
        lanes::storeThree(w + row0, wk[0], wk[1], wk[2]);
    }
}

void RowOperator::applyContactGroups(const float* x, const float* u, float* w, int firstGroup,
                                     int lastGroup, bool byField) const {
    // Per group, x split and w merged as in applyTripleGroups; in between, each contact's
    // relative velocity v = (v_A + w_A x a_A) + (w_B x a_B - v_B), a_B = -r_B (a side without a
    // body: zero sums and zero arms, so zero), then each row's cfm x + d . v.
    const __m256 cfm8 = _mm256_set1_ps(m_cfm);
    constexpr int kG = kTripleGroup;
    for (int g = firstGroup; g < lastGroup; ++g) {
        const auto row0 = static_cast<std::size_t>(3 * kG) * static_cast<std::size_t>(g);
        const std::int32_t* sides = m_bodyByTriple.data() + 2 * kG * static_cast<std::size_t>(g);
        const float* fg = m_jByTriple.data() + m_groupFloats * static_cast<std::size_t>(g);
        __m256 v[3];
        for (int side = 0; side < 2; ++side) {
            __m256 uc[kU];
            transposedSums(u, sides + kG * side, uc);
            const float* arm = fg + static_cast<std::size_t>((9 + 3 * side) * kG);
            const __m256 a[3] = {_mm256_loadu_ps(arm), _mm256_loadu_ps(arm + kG),
                                 _mm256_loadu_ps(arm + 2 * kG)};
            const __m256 turn[3] = {_mm256_fmsub_ps(uc[4], a[2], _mm256_mul_ps(uc[5], a[1])),
                                    _mm256_fmsub_ps(uc[5], a[0], _mm256_mul_ps(uc[3], a[2])),
                                    _mm256_fmsub_ps(uc[3], a[1], _mm256_mul_ps(uc[4], a[0]))};
            for (int c = 0; c < 3; ++c) {
                v[c] = side == 0 ? _mm256_add_ps(uc[c], turn[c])
                                 : _mm256_add_ps(v[c], _mm256_sub_ps(turn[c], uc[c]));
            }
        }
        __m256 xk[3];  // lane q of xk[k]: x of row 3 q + k of the group
        lanes::splitThree(x + row0, xk);
        __m256 wk[3];
        for (int r = 0; r < 3; ++r) {
            // Component c of row r's direction at (3 c + r) kG.
            __m256 d = _mm256_mul_ps(cfm8, xk[r]);
            for (int c = 0; c < 3; ++c) {
                d = _mm256_fmadd_ps(
                    _mm256_loadu_ps(fg + static_cast<std::size_t>((3 * c + r) * kG)), v[c], d);
            }
            wk[r] = d;
        }
        if (byField) {
            for (int r = 0; r < 3; ++r) {
                _mm256_storeu_ps(w + row0 + static_cast<std::size_t>(r * kG), wk[r]);
            }
        } else {
            lanes::storeThree(w + row0, wk[0], wk[1], wk[2]);
        }
    }
}
#endif

void RowOperator::applyGroupsByField(const float* x, const float* u, float* w, int firstGroup,
                                     int lastGroup) const {
#if defined(__AVX2__) && defined(__FMA__)
    if (m_contactForm) {
        applyContactGroups(x, u, w, firstGroup, lastGroup, true);
        return;
    }
#else
    (void)x, (void)u, (void)w, (void)firstGroup, (void)lastGroup;
#endif
    throw std::logic_error(
        "RowOperator::applyGroupsByField: only for a contact-form operator "
        "in an AVX2 build (check contactForm())");
}

void RowOperator::applyContactRowsScalar(const float* x, const float* u, float* w, int firstRow,
                                         int lastRow) const {
    for (int i = firstRow; i < lastRow; ++i) {
        const auto ui = static_cast<std::size_t>(i);
        const std::size_t t = ui / 3;
        const float* arm = m_contactArms.data() + 8 * t;
        float v[3];
        for (std::size_t side = 0; side < 2; ++side) {
            const std::int32_t b = m_body[6 * t + side];
            float s[kU] = {0, 0, 0, 0, 0, 0};
            if (b >= 0) {
                std::copy_n(u + static_cast<std::size_t>(kU) * static_cast<std::size_t>(b), kU, s);
            }
            const float* a = arm + 4 * side;
            const float turn[3] = {std::fma(s[4], a[2], -(s[5] * a[1])),
                                   std::fma(s[5], a[0], -(s[3] * a[2])),
                                   std::fma(s[3], a[1], -(s[4] * a[0]))};
            for (int c = 0; c < 3; ++c) {
                v[c] = side == 0 ? s[c] + turn[c] : v[c] + (turn[c] - s[c]);
            }
        }
        float wi = m_cfm * x[i];
        for (std::size_t c = 0; c < 3; ++c) {
            wi = std::fma(frameAt(t, ui % 3, c), v[c], wi);
        }
        w[i] = wi;
    }
}

void RowOperator::applyRows(const float* x, const float* u, float* w, int firstRow,
                            int lastRow) const {
#if defined(__AVX2__) && defined(__FMA__)
    if (m_triples) {
        // Whole groups of contacts inside [firstRow, lastRow), the rows around them one by one.
        constexpr int kGroupRows = 3 * kTripleGroup;
        const int groups = rows() / kGroupRows;
        const int firstGroup = std::min(groups, (firstRow + kGroupRows - 1) / kGroupRows);
        const int lastGroup = std::max(firstGroup, std::min(groups, lastRow / kGroupRows));
        if (firstGroup == lastGroup) {
            applyRowsScalar(x, u, w, firstRow, lastRow);
            return;
        }
        applyRowsScalar(x, u, w, firstRow, kGroupRows * firstGroup);
        if (m_contactForm) {
            applyContactGroups(x, u, w, firstGroup, lastGroup);
        } else {
            applyTripleGroups(x, u, w, firstGroup, lastGroup);
        }
        applyRowsScalar(x, u, w, kGroupRows * lastGroup, lastRow);
        return;
    }
    // Eight rows per step from the planes of J, each lane the scalar tail's operations: w = cfm
    // x, then w + dotSide per side present, so a row's w does not depend on where it falls.
    const auto n = static_cast<std::size_t>(rows());
    const __m256 cfm8 = _mm256_set1_ps(m_cfm);
    const __m256i evens = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const __m256i none = _mm256_set1_epi32(-1);
    int i = firstRow;
    for (; i + 8 <= lastRow; i += 8) {
        const auto ui = static_cast<std::size_t>(i);
        // body[2i .. 2i + 16) -> side A of the eight rows, side B of the eight rows.
        const __m256i p0 = _mm256_permutevar8x32_epi32(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m_body.data() + 2 * ui)), evens);
        const __m256i p1 = _mm256_permutevar8x32_epi32(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m_body.data() + 2 * ui + 8)),
            evens);
        alignas(32) std::int32_t side8[2][8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(side8[0]),
                           _mm256_permute2x128_si256(p0, p1, 0x20));
        _mm256_store_si256(reinterpret_cast<__m256i*>(side8[1]),
                           _mm256_permute2x128_si256(p0, p1, 0x31));
        __m256 wi = _mm256_mul_ps(cfm8, _mm256_loadu_ps(x + i));
        for (int side = 0; side < 2; ++side) {
            __m256 uc[kU];
            transposedSums(u, side8[side], uc);
            const float* jp = m_jByPlane.data() + static_cast<std::size_t>(kU * side) * n + ui;
            const __m256 present = _mm256_castsi256_ps(_mm256_cmpgt_epi32(
                _mm256_load_si256(reinterpret_cast<const __m256i*>(side8[side])), none));
            wi = _mm256_blendv_ps(wi, _mm256_add_ps(wi, dotSide8(jp, n, uc)), present);
        }
        _mm256_storeu_ps(w + i, wi);
    }
#else
    int i = firstRow;
#endif
    applyRowsScalar(x, u, w, i, lastRow);
}

void RowOperator::applyRowsScalar(const float* x, const float* u, float* w, int firstRow,
                                  int lastRow) const {
    if (m_contactForm) {
        applyContactRowsScalar(x, u, w, firstRow, lastRow);
        return;
    }
    for (int i = firstRow; i < lastRow; ++i) {
        const auto ui = static_cast<std::size_t>(i);
        const float* ji = jRow(ui);
        const std::int32_t a = m_body[2 * ui];
        const std::int32_t b = m_body[2 * ui + 1];
        float wi = m_cfm * x[i];
        if (a >= 0) {
            wi += dotSide(ji, u + static_cast<std::size_t>(kU) * a);
        }
        if (b >= 0) {
            wi += dotSide(ji + kU, u + static_cast<std::size_t>(kU) * b);
        }
        w[i] = wi;
    }
}

void RowOperator::apply(const float* x, float* u, float* w) const {
    std::vector<float> impulses;
    gatherBodies(x, u, 0, m_bodies, impulsesOf(x, impulses));
    applyRows(x, u, w, 0, rows());
}

std::size_t RowOperator::bytes() const {
    return m_body.size() * sizeof(std::int32_t) +
           (m_j.size() + m_k.size() + m_kByBody.size() + m_jByPlane.size() + m_jByTriple.size() +
            m_diagonals.size() + m_bodyMass.size() + m_bodyInvMass.size() + m_contactArms.size() +
            m_armByRun.size()) *
               sizeof(float) +
           (m_bodyStart.size() + m_bodyEntries.size() + m_entryRow.size() + m_runRow.size() +
            m_bodyByTriple.size()) *
               sizeof(std::int32_t);
}

std::size_t RowOperator::productBytes() const {
    const auto n = static_cast<std::size_t>(rows());
    // With triples, the rows after the last whole group take the scalar loop over the rows' J
    // and bodies (in the contact form, J's frame and the contacts' arms).
    const std::size_t tail = m_triples ? n % (3 * kTripleGroup) : 0;
    const std::size_t jFloats =
        m_triples ? m_jByTriple.size() + kJacobianFloats * tail + (m_contactForm ? 8 * tail / 3 : 0)
                  : m_jByPlane.size();
    const std::size_t bodyInts = m_triples ? m_bodyByTriple.size() + 2 * tail : m_body.size();
    // The contact form's gather reads each run's arm and its contact's impulse, which the
    // impulses' pass wrote (x and the frame, which it also reads, are counted once above).
    const std::size_t impulses = 2 * impulseFloats() + m_armByRun.size();
    return (m_kByBody.size() + impulses + jFloats + n) * sizeof(float) +
           (m_runRow.size() + m_entryRow.size() + m_bodyStart.size() + bodyInts) *
               sizeof(std::int32_t);
}

void applyRowOperatorDouble(const RowOperator& op, std::span<const float> x,
                            std::vector<double>& w) {
    if (!op.hasRows()) {
        throw std::logic_error(
            "applyRowOperatorDouble reads J and K: this operator was built in the contact form "
            "without rows (RowOperator::finishContactForm)");
    }
    const int n = op.rows();
    std::vector<double> u(static_cast<std::size_t>(kU) * op.bodies(), 0.0);
    for (int i = 0; i < n; ++i) {
        for (int side = 0; side < 2; ++side) {
            const std::int32_t b = op.body(i, side);
            if (b < 0) {
                continue;
            }
            const float* kr = op.weighted(i).data() + kU * side;
            for (int c = 0; c < kU; ++c) {
                u[kU * static_cast<std::size_t>(b) + c] += static_cast<double>(kr[c]) * x[i];
            }
        }
    }
    w.assign(static_cast<std::size_t>(n), 0.0);
    for (int i = 0; i < n; ++i) {
        double wi = static_cast<double>(op.cfm()) * x[i];
        for (int side = 0; side < 2; ++side) {
            const std::int32_t b = op.body(i, side);
            if (b < 0) {
                continue;
            }
            const float* jr = op.jacobian(i).data() + kU * side;
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
    std::vector<float> u(static_cast<std::size_t>(kU) * op.bodies());
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
