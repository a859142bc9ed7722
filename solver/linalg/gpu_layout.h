// The GPU storage layout of dense matrices (docs/linalg.md has the picture): rows are grouped
// in blocks of 4 and each block column is one vec4 texel, as the paper packs 4 consecutive
// rows into one RGBA texel; texels are stored column by column, so that the threads of a
// matrix-vector product (one per row block) read consecutive vec4s at every column j:
//     texel(rb, j) = (A[4rb][j], A[4rb+1][j], A[4rb+2][j], A[4rb+3][j])
//     float index of A[i][j] = (j * rowBlocks + i / 4) * 4 + i % 4
// Rows beyond `rows` in the last block are zero. Vectors are float arrays padded with zeros
// to a multiple of 4, so that a vector of length rows is also rowBlocks vec4s.
#pragma once

#include <cstddef>

namespace ww::linalg {

inline int rowBlocksOf(int rows) {
    return (rows + 3) / 4;
}
inline std::size_t paddedLength(int n) {
    return static_cast<std::size_t>(rowBlocksOf(n)) * 4;
}
/// Floats the GPU copy of a rows x cols matrix occupies.
inline std::size_t gpuMatrixFloats(int rows, int cols) {
    return static_cast<std::size_t>(rowBlocksOf(rows)) * 4 * static_cast<std::size_t>(cols);
}
inline std::size_t gpuIndex(int rowBlocks, int i, int j) {
    return (static_cast<std::size_t>(j) * rowBlocks + static_cast<std::size_t>(i / 4)) * 4 +
           static_cast<std::size_t>(i % 4);
}

/// Packs the row-major rows x cols matrix `a` into `out` (gpuMatrixFloats entries).
void packRowBlocks(const float* a, int rows, int cols, float* out);
/// The inverse of packRowBlocks.
void unpackRowBlocks(const float* packed, int rows, int cols, float* a);

}  // namespace ww::linalg
