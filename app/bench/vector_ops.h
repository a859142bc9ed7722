// The vector operations of Krüger & Westermann's Table 44-1 (GPU Gems 2, ch. 44.3) on the
// CPU and the GPU, each returning (or leaving on the GPU) its result so the bench times the
// same operation on the same data on both and the tests can check it:
//   vector reduce   s = sum_i a_i            (the chapter's reduction, section 44.3.2)
//   dot product     s = sum_i a_i b_i        (a reduction of a product: CG's inner product)
//   vector-vector   b <- a + beta b          (CG's direction update, section 44.3.1)
// Reductions: float within fixed blocks, block results combined in a fixed order, so a result
// does not depend on the thread count (CPU) or on the order workgroups ran in (GPU).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "solver/core/result.h"
#include "solver/exec/executor.h"
#include "solver/gpu/gl_objects.h"
#include "solver/gpu/shader_library.h"

namespace ww::bench {

/// sum_i a_i on the CG kernels' threads (float blocks of cg::detail::kBlock, added in double).
double vectorSum(const exec::Executor& ex, std::span<const float> a);
/// sum_i a_i b_i, the CG kernels' dot product.
double vectorDot(const exec::Executor& ex, std::span<const float> a, std::span<const float> b);
/// b <- a + beta b, the CG kernels' direction update.
void vectorAxpby(const exec::Executor& ex, std::span<const float> a, std::span<float> b,
                 float beta);

/// The same three operations on two vectors a and b resident on the GPU. Each call is one
/// dispatch; scalar results stay on the GPU (the chapter's 1x1 float texture) until read.
class GpuVectorOps {
  public:
    /// Uploads a and b (same length); needs a current GL 4.3 context.
    static Result<GpuVectorOps> create(const gpu::ShaderLibrary& library, std::span<const float> a,
                                       std::span<const float> b);

    void sum();                ///< s = sum a
    void dot();                ///< s = a . b
    void axpby(float beta);    ///< b <- a + beta b
    float readScalar() const;  ///< reads s back (synchronizes)
    std::vector<float> readB() const;
    std::size_t size() const { return m_n; }

  private:
    GpuVectorOps() = default;
    std::size_t m_n = 0;
    gpu::Program m_sum;
    gpu::Program m_dot;
    gpu::Program m_axpby;
    gpu::Buffer m_scalars;
    gpu::Buffer m_partials;
    gpu::Buffer m_a;
    gpu::Buffer m_b;
};

}  // namespace ww::bench
