// C++ mirror of shaders/lcp_layout.glsl (std430). Keep the two in sync: the static_asserts
// pin every size and offset the shaders rely on.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ww::lcp::gpu_layout {

inline constexpr std::uint32_t kConverged = 0;
inline constexpr std::uint32_t kIterationLimit = 1;
inline constexpr std::uint32_t kDiverged = 2;
inline constexpr std::uint32_t kNone = 0xffffffffu;
/// Largest block one workgroup solves (shared memory: 3 * 1024 floats = 12 KB).
inline constexpr int kBlockMaxN = 1024;
inline constexpr int kBlockThreads = 256;
/// Workgroup size for batches whose largest block has at most 4 * 32 rows.
inline constexpr int kBlockThreadsSmall = 32;
inline constexpr int kStepThreads = 64;
/// Mesa's llvmpipe silently ends shader loops after about 65535 trips in one invocation,
/// counted over all its loops and their entries (found here: single-dispatch solves stopped
/// after iterations * (n / 4 + ~8) ~ 65535 trips, with garbage marked converged). Per iteration
/// the single-dispatch kernel makes ceil(n / kBlockColumnsPerTrip) column trips, up to
/// ceil(n / 32) trips copying the iterate, and a few more; a block goes through one dispatch
/// only while (maxIterations + 1) times that stays below kLoopTripLimit, and longer solves use
/// the dispatch-per-iteration path. (A real GPU has no such limit, but the bound also keeps one
/// dispatch short of a driver's watchdog.)
inline constexpr int kBlockColumnsPerTrip = 4;
inline constexpr long kLoopTripLimit = 60000;
inline long blockTripsPerIteration(int n) {
    const long ln = n;
    return (ln + kBlockColumnsPerTrip - 1) / kBlockColumnsPerTrip + (ln + 31) / 32 + 8;
}
inline bool fitsOneDispatch(int n, int maxIterations) {
    return n <= kBlockMaxN &&
           (static_cast<long>(maxIterations) + 1) * blockTripsPerIteration(n) < kLoopTripLimit;
}

/// Row::pair: a disc pair sits at rows (i, i + 1) with i even (lcp_gpu.cpp permutes a block's
/// rows so), inside one vec4, so that the invocation owning the vec4 projects both rows.
inline constexpr std::int32_t kPairNone = 0;
inline constexpr std::int32_t kPairFirst = 1;
inline constexpr std::int32_t kPairSecond = 2;

struct Row {
    float b;
    float lo;
    float hi;
    float invDiag;  ///< 1 / A_ii; a disc pair's rows both 1 / max(A_ff, A_gg)
    float mu;
    std::int32_t normal;
    std::int32_t pair;  ///< kPairNone, kPairFirst (its partner is the next row), kPairSecond
    float pad1;
};
static_assert(sizeof(Row) == 32 && offsetof(Row, invDiag) == 12 && offsetof(Row, normal) == 20 &&
              offsetof(Row, pair) == 24);

struct BlockDesc {
    std::uint32_t n;
    std::uint32_t rowBlocks;
    std::uint32_t matrixOffset;
    std::uint32_t vectorOffset;
    std::uint32_t historyOffset;
    std::uint32_t maxIterations;
    float divergenceFloor;
    std::uint32_t pad0;
};
static_assert(sizeof(BlockDesc) == 32 && offsetof(BlockDesc, maxIterations) == 20 &&
              offsetof(BlockDesc, divergenceFloor) == 24);

struct BlockResult {
    std::uint32_t iterations;
    float residual;
    std::uint32_t status;
    std::uint32_t pad0;
};
static_assert(sizeof(BlockResult) == 16 && offsetof(BlockResult, status) == 8);

struct Control {
    std::uint32_t stopAt;
    std::uint32_t status;
    float minResidual[2];
    std::uint32_t restartAt[2];
    std::uint32_t pad0;
    std::uint32_t pad1;
};
static_assert(sizeof(Control) == 32 && offsetof(Control, minResidual) == 8 &&
              offsetof(Control, restartAt) == 16);

}  // namespace ww::lcp::gpu_layout
