// Packing between row-major matrices and the vec4 row-block layout (see gpu_layout.h).
#include "solver/linalg/gpu_layout.h"

#include <algorithm>

namespace ww::linalg {

void packRowBlocks(const float* a, int rows, int cols, float* out) {
    const int rb = rowBlocksOf(rows);
    std::fill(out, out + gpuMatrixFloats(rows, cols), 0.0f);
    // Row-major reads; each output texel gets one lane per row of its block.
    for (int i = 0; i < rows; ++i) {
        const float* ai = a + static_cast<std::size_t>(i) * cols;
        for (int j = 0; j < cols; ++j) {
            out[gpuIndex(rb, i, j)] = ai[j];
        }
    }
}

void unpackRowBlocks(const float* packed, int rows, int cols, float* a) {
    const int rb = rowBlocksOf(rows);
    for (int i = 0; i < rows; ++i) {
        float* ai = a + static_cast<std::size_t>(i) * cols;
        for (int j = 0; j < cols; ++j) {
            ai[j] = packed[gpuIndex(rb, i, j)];
        }
    }
}

}  // namespace ww::linalg
