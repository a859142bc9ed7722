// Test access to RowOperator's private layouts: tests compare the layouts of two builds and
// corrupt them on purpose to see validate() and the GPU upload refuse a stale operator.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "solver/lcp/row_operator.h"

namespace ww::lcp {

struct RowOperatorProbe {
    static constexpr int kByBodyPad = RowOperator::kByBodyPad;
    static std::vector<std::int32_t>& body(RowOperator& op) { return op.m_body; }
    static std::vector<float>& k(RowOperator& op) { return op.m_k; }
    static std::vector<float>& bodyMass(RowOperator& op) { return op.m_bodyMass; }
    static std::vector<std::int32_t>& bodyStart(RowOperator& op) { return op.m_bodyStart; }
    static std::vector<std::int32_t>& bodyEntries(RowOperator& op) { return op.m_bodyEntries; }
    static std::vector<float>& kByBody(RowOperator& op) { return op.m_kByBody; }
    static const std::vector<std::int32_t>& entryRow(const RowOperator& op) {
        return op.m_entryRow;
    }
    static const std::vector<std::int32_t>& runRow(const RowOperator& op) { return op.m_runRow; }
    static const std::vector<float>& jByPlane(const RowOperator& op) { return op.m_jByPlane; }
    static const std::vector<float>& jByTriple(const RowOperator& op) { return op.m_jByTriple; }
    static const std::vector<std::int32_t>& bodyByTriple(const RowOperator& op) {
        return op.m_bodyByTriple;
    }
    static const std::vector<float>& diagonals(const RowOperator& op) { return op.m_diagonals; }
    static const std::vector<float>& contactArms(const RowOperator& op) { return op.m_contactArms; }
    static const std::vector<float>& armByRun(const RowOperator& op) { return op.m_armByRun; }
    /// Overwrites every layout buildBodyIndex derives (NaN floats, -7 indices) and forgets the
    /// indexed bodies, so that a rebuild that skips a part shows.
    static void poisonLayouts(RowOperator& op) {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        for (std::vector<float>* v : {&op.m_diagonals, &op.m_jByTriple, &op.m_contactArms,
                                      &op.m_armByRun, &op.m_kByBody, &op.m_jByPlane}) {
            std::fill(v->begin(), v->end(), nan);
        }
        for (std::vector<std::int32_t>* v :
             {&op.m_runRow, &op.m_bodyByTriple, &op.m_bodyEntries, &op.m_entryRow}) {
            std::fill(v->begin(), v->end(), -7);
        }
        op.m_indexedBodies = -1;
    }
};

}  // namespace ww::lcp
