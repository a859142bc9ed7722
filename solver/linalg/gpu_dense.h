// GPU twins of Matrix and Vector (SSBOs in the vec4 row-block layout of gpu_layout.h and
// docs/linalg.md) and the paper's operation set as compute shaders (shaders/linalg_*.comp):
// elementwise ops, dot/norm2, A x, A^T x, A B, A^T B. Every operation only enqueues GPU work;
// nothing is read back unless the caller calls download(). Sizes are checked: a dimension
// mismatch is an kInput error naming both shapes, a size beyond the GPU's limits kGpuLimit.
#pragma once

#include <span>

#include "solver/core/result.h"
#include "solver/gpu/gl_objects.h"
#include "solver/linalg/dense.h"

namespace ww::gpu {
class ShaderLibrary;
}

namespace ww::linalg {

/// A float vector on the GPU, zero-padded to a multiple of 4 entries.
class GpuVector {
  public:
    GpuVector() = default;
    static Result<GpuVector> create(int n);  ///< zero-filled
    static Result<GpuVector> fromHost(std::span<const float> values);
    Status upload(std::span<const float> values);
    /// Reads back (synchronizes).
    Vector download() const;
    int size() const { return m_n; }
    const gpu::Buffer& buffer() const { return m_buffer; }

  private:
    /// n entries: `values` (at most n) then zeros, allocated with their contents.
    static Result<GpuVector> fromHost(std::span<const float> values, int n);

    int m_n = 0;
    gpu::Buffer m_buffer;
};

/// A rows x cols float matrix on the GPU in the vec4 row-block layout.
class GpuMatrix {
  public:
    GpuMatrix() = default;
    static Result<GpuMatrix> create(int rows, int cols);  ///< zero-filled
    static Result<GpuMatrix> fromHost(const Matrix& m);
    /// m must have this matrix's shape.
    Status upload(const Matrix& m);
    Matrix download() const;
    int rows() const { return m_rows; }
    int cols() const { return m_cols; }
    int rowBlocks() const { return (m_rows + 3) / 4; }
    /// The packed storage seen as one flat vector (for the elementwise operations; two
    /// matrices of the same shape share the layout, so elementwise ops act entry by entry).
    GpuVector& storage() { return m_storage; }
    const GpuVector& storage() const { return m_storage; }

  private:
    int m_rows = 0;
    int m_cols = 0;
    GpuVector m_storage;
};

/// The compiled kernels; create once per context.
class GpuOps {
  public:
    static Result<GpuOps> create(const gpu::ShaderLibrary& shaders);

    Status copy(const GpuVector& a, GpuVector& y);
    Status add(const GpuVector& a, const GpuVector& b, GpuVector& y);
    Status accumulate(const GpuVector& a, GpuVector& y);
    Status scale(const GpuVector& a, float s, GpuVector& y);
    Status maxScalar(const GpuVector& a, float s, GpuVector& y);
    Status mad(const GpuVector& a, float s, GpuVector& y);                        ///< y += s a
    Status madTo(const GpuVector& a, const GpuVector& b, float s, GpuVector& y);  ///< a + s b
    Status madElem(const GpuVector& a, const GpuVector& b, GpuVector& y);         ///< y += a.*b
    Status madad(const GpuVector& a, const GpuVector& b, const GpuVector& c, const GpuVector& d,
                 GpuVector& y);  ///< y = a + (b + c) .* d
    /// result (size >= 1) [0] = a . b; stays on the GPU.
    Status dot(const GpuVector& a, const GpuVector& b, GpuVector& result);
    Status norm2(const GpuVector& a, GpuVector& result) { return dot(a, a, result); }
    Status matVec(const GpuMatrix& a, const GpuVector& x, GpuVector& y);
    Status matTVec(const GpuMatrix& a, const GpuVector& x, GpuVector& y);
    Status matMat(const GpuMatrix& a, const GpuMatrix& b, GpuMatrix& c);
    Status matTMat(const GpuMatrix& a, const GpuMatrix& b, GpuMatrix& c);

  private:
    Status elementwise(unsigned op, float s, GpuVector& y, const GpuVector& a,
                       const GpuVector* b = nullptr, const GpuVector* c = nullptr,
                       const GpuVector* d = nullptr);
    gpu::Program m_elementwise, m_dot, m_matVec, m_matTVec, m_matMat, m_matTMat;
};

}  // namespace ww::linalg
