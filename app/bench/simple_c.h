// Moravánszky's "simple C" baseline (Figure 3): the operations as plain scalar loops over
// row-major n x n floats, compiled without auto-vectorization (simple_c.cpp is built with
// GCC's -fno-tree-vectorize -fno-tree-slp-vectorize -fno-tree-loop-distribute-patterns), so
// the column shows what straightforward C code does on this CPU, on one core.
#pragma once

#include <span>

namespace ww::bench::simple {

void copy(const float* a, float* c, int count);
void add(const float* a, const float* b, float* c, int count);
/// y = A x
void matVec(const float* a, const float* x, float* y, int n);
/// y = A^T x
void matTVec(const float* a, const float* x, float* y, int n);
/// C = A B (row by row: c_i += a_ik b_k for k = 0 .. n-1)
void matMat(const float* a, const float* b, float* c, int n);
/// C = A^T B
void matTMat(const float* a, const float* b, float* c, int n);
/// `iterations` CG iterations on A x = b from x = 0 (A symmetric positive definite).
void conjugateGradients(const float* a, const float* b, float* x, int n, int iterations);
/// `iterations` projected Jacobi sweeps x <- clamp(x - omega (A x + b) / a_ii, lo, hi) from 0.
void projectedJacobi(const float* a, const float* b, const float* lo, const float* hi, float omega,
                     float* x, int n, int iterations);

}  // namespace ww::bench::simple
