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
/// lcp_jacobi_step.comp's workgroup: row blocks (x) times column slices (y), given to the
/// shader as LCP_STEP_ROW_BLOCKS and LCP_STEP_SLICES.
inline constexpr int kStepRowBlocks = 16;
inline constexpr int kStepSlices = 16;
/// Mesa's llvmpipe silently ends shader loops after about 65535 trips in one invocation,
/// counted over all its loops and their entries (a single-dispatch solve past the bound stops
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

// ---- Matrix-free batches (shaders/lcp_mf_*.comp) ----------------------------------------
// The matrix-free blocks of a batch (RowOperator, row_operator.h) concatenated: rows, bodies
// and body entries get batch-wide indices (each block's offset added), so that one dispatch
// covers every block. Arrays the kernels read per row are planes of vec4 (plane c of row i
// at c * rows + i): consecutive invocations read consecutive 16-byte words.

/// Invocations per workgroup of the matrix-free kernels.
inline constexpr int kMfThreads = 256;
/// Invocations per body of the gather pass (lcp_mf_gather.comp): a power of two dividing
/// kMfThreads. A wall's brick has 40-100 entries; 8 lanes make its chain of loads 5-13 long.
inline constexpr int kMfGatherLanes = 8;
static_assert(kMfThreads % kMfGatherLanes == 0 && (kMfGatherLanes & (kMfGatherLanes - 1)) == 0);
/// J of a row as three vec4 planes: (J_A lin xyz, J_A ang x), (J_A ang yz, J_B lin xy),
/// (J_B lin z, J_B ang xyz); row i of plane c at c * rows + i.
inline constexpr int kMfJacobianPlanes = 3;
/// u of a body as two vec4 planes: (lin xyz, ang x), (ang yz, 0, 0); body b of plane c at
/// c * bodies + b.
inline constexpr int kMfBodyPlanes = 2;
/// x as three float planes of `rows` each: even iterates, odd iterates, the last good one
/// (the answer of every block after lcp_mf_finish.comp).
inline constexpr int kMfIteratePlanes = 3;
inline constexpr int kMfGoodPlane = 2;

/// The matrix-free batch's dispatch control (shaders/lcp_mf_rows.comp, binding 7): the
/// workgroup counts of the gather and row passes, read by glDispatchComputeIndirect, and the
/// blocks still running. The leader row of the last block to stop zeroes both X counts.
struct MfControl {
    std::uint32_t gather[3];
    std::uint32_t rows[3];
    std::uint32_t running;
    std::uint32_t pad;
};
static_assert(sizeof(MfControl) == 32 && offsetof(MfControl, rows) == 12 &&
              offsetof(MfControl, running) == 24);

/// One row of a matrix-free batch; every index is batch-wide.
struct MfRow {
    float b;
    float lo;
    float hi;
    float scale;  ///< omega / A_ii; both rows of a disc pair omega / max(A_ff, A_gg)
    float mu;
    std::int32_t normal;   ///< the friction row's normal row, or -1
    std::int32_t partner;  ///< the other row of its disc pair, or -1
    std::uint32_t block;
    std::int32_t bodyA;  ///< body slot of side A, or -1 (static / none)
    std::int32_t bodyB;
    float pad0;
    float pad1;
};
static_assert(sizeof(MfRow) == 48 && offsetof(MfRow, scale) == 12 &&
              offsetof(MfRow, normal) == 20 && offsetof(MfRow, partner) == 24 &&
              offsetof(MfRow, block) == 28 && offsetof(MfRow, bodyA) == 32 &&
              offsetof(MfRow, bodyB) == 36);

/// A body's range of entries (the rows acting on it, in increasing row order).
struct MfBody {
    std::int32_t entryBegin;
    std::int32_t entryEnd;
    std::uint32_t block;
    std::uint32_t pad0;
};
static_assert(sizeof(MfBody) == 16 && offsetof(MfBody, block) == 8);

/// One (row, side) acting on a body: K_{row,side} = W J_{row,side}^T and the row.
struct MfEntry {
    float k0[4];  ///< K lin xyz, ang x
    float k1[2];  ///< K ang yz
    std::uint32_t row;
    std::uint32_t pad0;
};
static_assert(sizeof(MfEntry) == 32 && offsetof(MfEntry, k1) == 16 && offsetof(MfEntry, row) == 24);

/// A block of a matrix-free batch: its description (host-written) and its stopping state
/// (GPU-written: the row pass decides stopAt/status as lcp_jacobi_step.comp does).
struct MfBlock {
    std::uint32_t rowOffset;
    std::uint32_t rows;
    std::uint32_t residualOffset;  ///< r(x^t) of the block at residualOffset + t (float bits)
    std::uint32_t maxIterations;
    float divergenceFloor;
    float cfm;
    std::uint32_t stopAt;  ///< kNone, or the iteration whose iterate is the answer
    std::uint32_t status;
    float minResidual[2];        ///< smallest checked residual, written by pass t into [t % 2]
    std::uint32_t restartAt[2];  ///< Chebyshev schedule start, written by pass t into [t % 2]
    float residual;              ///< r(x^stopAt)
    std::uint32_t pad0;
    std::uint32_t pad1;
    std::uint32_t pad2;
};
static_assert(sizeof(MfBlock) == 64 && offsetof(MfBlock, divergenceFloor) == 16 &&
              offsetof(MfBlock, cfm) == 20 && offsetof(MfBlock, stopAt) == 24 &&
              offsetof(MfBlock, minResidual) == 32 && offsetof(MfBlock, restartAt) == 40 &&
              offsetof(MfBlock, residual) == 48);

/// Dispatches of a matrix-free batch whose longest block runs `maxIterations`: a gather and a
/// row pass per iterate t = 0 .. maxIterations, the row pass that checks the last iterate, and
/// the pass that collects the answers.
inline long mfDispatches(int maxIterations) {
    return 2L * (maxIterations + 1) + 2;
}

}  // namespace ww::lcp::gpu_layout
