// Dense float32 matrices and vectors on the CPU, and the operation set of Moravanszky,
// "Dense Matrix Algebra on the GPU" (ShaderX2, 2003), section 3:
//   copy      y = a                 add        y = a + b          accumulate  y += a
//   scale     y = c a               maxScalar  y = max(a, c)
//   mad       y += c a              madTo      y = a + c b        madElem     y += a .* b
//   madad     y = a + (b + c) .* d
//   dot       a . b                 norm2      a . a
//   matVec    y = A x               matTVec    y = A^T x
//   matMat    C = A B               matTMat    C = A^T B
// Matrices are row-major and contiguous. Matrix-vector products use SIMD (AVX2+FMA when the
// build targets it) and the executor's threads for large matrices (chunks of a fixed number of
// rows or columns, so results do not depend on the thread count); a scalar reference path sits
// beside each fast path (the *Scalar functions) for tests.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "solver/exec/executor.h"

namespace ww::linalg {

/// A rows x cols float32 matrix, row-major: element (i, j) is data[i * cols + j].
struct Matrix {
    int rows = 0;
    int cols = 0;
    std::vector<float> data;

    Matrix() = default;
    Matrix(int r, int c) : rows(r), cols(c), data(static_cast<std::size_t>(r) * c, 0.0f) {}
    float& operator()(int i, int j) { return data[static_cast<std::size_t>(i) * cols + j]; }
    float operator()(int i, int j) const { return data[static_cast<std::size_t>(i) * cols + j]; }
    const float* row(int i) const { return data.data() + static_cast<std::size_t>(i) * cols; }
    std::span<const float> span() const { return data; }
    std::span<float> span() { return data; }
};

using Vector = std::vector<float>;

/// Rows per chunk of a parallel matVec (four 4-row SIMD kernels): small enough to balance the
/// threads, large enough that a chunk costs far more than handing it over.
inline constexpr int kMatVecChunkRows = 16;

// Elementwise operations (spans of equal length; checked with assert).
void copy(std::span<const float> a, std::span<float> y);
void add(std::span<const float> a, std::span<const float> b, std::span<float> y);
void accumulate(std::span<const float> a, std::span<float> y);
void scale(std::span<const float> a, float c, std::span<float> y);
void maxScalar(std::span<const float> a, float c, std::span<float> y);
/// y += c * a
void mad(std::span<const float> a, float c, std::span<float> y);
/// y = a + c * b
void madTo(std::span<const float> a, std::span<const float> b, float c, std::span<float> y);
/// y += a .* b
void madElem(std::span<const float> a, std::span<const float> b, std::span<float> y);
/// y = a + (b + c) .* d
void madad(std::span<const float> a, std::span<const float> b, std::span<const float> c,
           std::span<const float> d, std::span<float> y);
/// Float accumulation in 16 independent lanes (vectorized), summed at the end.
float dot(std::span<const float> a, std::span<const float> b);
float norm2(std::span<const float> a);

/// y = A x on the calling thread, with A rows x cols given as a row-major pointer (rows may be
/// a sub-range).
void matVec(const float* a, int rows, int cols, const float* x, float* y);
/// y = A x on the executor's threads (chunks of kMatVecChunkRows rows; serial below
/// exec::kMinParallelWork multiply-adds).
void matVec(const exec::Executor& ex, const float* a, int rows, int cols, const float* x, float* y);
void matVec(const exec::Executor& ex, const Matrix& a, std::span<const float> x,
            std::span<float> y);
/// y = A^T x (x has A.rows entries, y has A.cols).
void matTVec(const exec::Executor& ex, const Matrix& a, std::span<const float> x,
             std::span<float> y);
/// C = A B and C = A^T B; c is resized.
void matMat(const exec::Executor& ex, const Matrix& a, const Matrix& b, Matrix& c);
void matTMat(const exec::Executor& ex, const Matrix& a, const Matrix& b, Matrix& c);

/// Scalar one-row-at-a-time reference of matVec (no SIMD intrinsics, no threads).
void matVecScalar(const float* a, int rows, int cols, const float* x, float* y);

/// Empty if the shapes of y = op(A) x / C = op(A) B agree, else a message naming them.
std::string checkMatVec(int rows, int cols, std::size_t xSize, std::size_t ySize);

}  // namespace ww::linalg
