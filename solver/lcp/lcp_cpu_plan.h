// The CPU LCP solver's plan of a problem (lcp_cpu.cpp): the fixed chunk sizes of its passes
// and the workspace that reserve() fills once per problem (buffers, the disc pairs as arrays,
// which pairs run with which row chunk, each row's bounds source, the contact-row layout). The
// passes read the plan; the arithmetic they run is lcp_cpu_kernels.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "solver/exec/executor.h"
#include "solver/lcp/lcp_common.h"
#include "solver/lcp/lcp_cpu_kernels.h"
#include "solver/lcp/lcp_solver.h"

namespace ww::lcp::cpu {

// Body chunks of the matrix-free gather and row chunks of a pass: fixed sizes, so that which
// thread runs which chunk never changes a result. A gather chunk is small (a wall brick has ~70
// entries, so 32 bodies are ~2 us of work) so that the threads share a pass's gather evenly:
// 256-body chunks split a 402-body island 256 : 146 over two threads, and over more threads
// than chunks left most of them idle (20 x 20 collapse, two threads: solve p50 4.37 -> 4.0 ms).
constexpr std::ptrdiff_t kGatherChunkBodies = 32;
// Rows per chunk of a matrix-free pass: 42 whole triple groups (RowOperator::kTripleGroup
// contacts of three rows), so that only a block's last rows take applyRows's scalar loop.
constexpr std::ptrdiff_t kMatrixFreeChunkRows = 1008;
static_assert(kMatrixFreeChunkRows % (3 * RowOperator::kTripleGroup) == 0);
// Rows whose bounds a Jacobi pass computes at a time, into a buffer on the stack (~2 KiB).
constexpr std::ptrdiff_t kBoundRows = 240;
/// Contacts a group of Workspace::contactConsts holds (the vector pass's width).
constexpr std::size_t kContactGroup = 8;
/// Floats a group of Workspace::contactConsts holds: eight fields of kContactGroup contacts.
constexpr std::size_t kContactConstFloats = 8 * kContactGroup;

struct Workspace {
    std::vector<float> cur, next, good, w, invDiag, lo, hi;
    /// Jacobi: x^t copied by the pass at a checked iterate (the row stage's `keep`), swapped with
    /// good once the check accepts it.
    std::vector<float> kept;
    std::vector<float> u;         ///< matrix-free: W J^T x per body (RowOperator::kBodyFloats each)
    std::vector<float> impulses;  ///< matrix-free in contact form: RowOperator::impulsesOf
    std::vector<float> weights;   ///< Chebyshev weights per iteration (empty: plain Jacobi)
    std::vector<FrictionPair> pairs;  ///< disc pairs of the problem being solved
    std::vector<int> partner;         ///< per row: the other row of its disc pair, or -1
    /// Accelerated Jacobi with disc pairs: x^{t-1} of every row, copied by each chunk of the
    /// row pass before it overwrites next (the pair pass reads the pairs' rows from it).
    std::vector<float> prev;
    /// The pairs' fields as arrays (first row, second row, normal row, mu), for the vector pass.
    std::vector<std::int32_t> pairFirst, pairSecond, pairNormal;
    std::vector<float> pairMu;
    /// Per pair k: 1 when pairs k .. k + 7 are 8 consecutive contacts laid out as (normal,
    /// first, second) row triples, so the vector pass loads them instead of gathering; 0 for a
    /// chunk's first group whose first normal lies in the chunk before (assignPairsToChunks).
    std::vector<std::uint8_t> tripleAt;
    /// Matrix-free Jacobi with disc pairs: the pairs whose two rows both lie in row chunk c of
    /// the pass are [chunkPairBegin[c], chunkPairEnd[c]), and that chunk updates them right
    /// after its rows while their w and x are in its cache (no stage of their own). The few
    /// pairs whose rows straddle two chunks (strayPairs) are updated after the rows. Empty: the
    /// pairs get a stage of their own (dense problems, or
    /// pairs whose rows lie far apart).
    std::vector<std::int32_t> chunkPairBegin, chunkPairEnd, strayPairs;
    /// Per row, where a Jacobi pass takes its bounds (rowBounds): kFixedBounds (the problem's
    /// lo, hi), kPinnedRow (a disc pair's row, pinned to its current value for the pair pass),
    /// or the index of the normal row a friction row's interval scales with.
    std::vector<std::int32_t> boundOf;
    /// Matrix-free Jacobi whose rows are contacts (row 3k a normal with the problem's bounds,
    /// rows 3k + 1, 3k + 2 its disc pair k) and whose pairs all run with their row chunk: each
    /// chunk then updates a contact's three rows together (contactRange), reading x^{t-1}
    /// before it writes x^{t+1}, so neither prev nor the pinned rows' bounds are needed.
    bool contactRows = false;
    /// With contactRows, per whole group of kContactGroup contacts (contacts 8 g .. 8 g + 7,
    /// rows 24 g .. 24 g + 23), what a Jacobi pass reads and never writes, field by field, each
    /// field the group's eight contacts side by side: b of the normal, first and second rows,
    /// their step scales (invDiag), then the normal rows' lo and hi. The vector pass loads each
    /// field with one plain load where the row-major arrays take three loads and two blends and
    /// a lane permutation (strideThree). Filled with the step scales, once a solve.
    std::vector<float> contactConsts;
    bool contactRowsPossible = false;  ///< the layout allows contactRows (set by reserve)
    /// Jacobi: each chunk's part of a pass's residual and probe (rows, then the pairs where
    /// they have a stage of their own), combined in chunk order between the pass's stages.
    std::vector<kernels::RowsResult> chunkPartials;
    /// Where the matrix-free gather's body chunks of a product outside the Jacobi passes
    /// (residualOf) ran last time: their bodies stay in that core's cache.
    exec::LoopAffinity gatherAffinity;
    /// Sizes the buffers for p and plans its pass: the disc pairs and their arrays, which pairs
    /// run with which row chunk, each row's bounds source, and whether the rows are contacts.
    /// With `ex`, a problem made of contact triples (a rigid world's block) is planned on its
    /// threads (the same plan).
    void reserve(const LcpProblem& p, const exec::Executor* ex = nullptr);
    static constexpr std::int32_t kFixedBounds = kernels::kFixedBounds;
    static constexpr std::int32_t kPinnedRow = kernels::kPinnedRow;

  private:
    // reserve's plan for a problem whose rows are all contact triples (allContactTriples).
    void reserveContactTriples(const LcpProblem& p, const exec::Executor* ex);
    // chunkPairBegin, chunkPairEnd and strayPairs for the matrix-free pass's row chunks; left
    // empty unless each chunk's pairs are one run followed by at most its strays, and there
    // are no more strays than chunks (pairs come sorted by their first row: frictionPairs).
    void assignPairsToChunks(const LcpProblem& p);
};

}  // namespace ww::lcp::cpu
