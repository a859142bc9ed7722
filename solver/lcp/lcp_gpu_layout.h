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

struct Row {
    float b;
    float lo;
    float hi;
    float invDiag;
    float mu;
    std::int32_t normal;
    float pad0;
    float pad1;
};
static_assert(sizeof(Row) == 32 && offsetof(Row, invDiag) == 12 && offsetof(Row, normal) == 20);

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
};
static_assert(sizeof(Control) == 16 && offsetof(Control, minResidual) == 8);

}  // namespace ww::lcp::gpu_layout
