// The SPD operators the conjugate-gradient solvers accept (Krüger & Westermann, GPU Gems 2
// ch. 44, sec. 44.2: full, banded and random sparse matrices; Göddeke's nine-banded storage).
//
//   StencilOperator  A = I - alpha L on an nx x ny grid, matrix-free, where
//                    (L u)_ij = sum_{valid neighbours n} (u_n - u_ij)      (Neumann: ghost = u_ij)
//                    (L u)_ij = u_i-1,j + u_i+1,j + u_i,j-1 + u_i,j+1 - 4 u_ij  (Dirichlet: ghost
//                    0) so (A u)_ij = (1 + alpha k_ij) u_ij - alpha sum_n u_n with k_ij = 4
//                    (Dirichlet) or the number of in-grid neighbours (Neumann); mixed walls
//                    (Boundary::kMixed): Dirichlet ghosts beyond x = 0, nx - 1, Neumann beyond
//                    y = 0, ny - 1, so k_ij = 4 minus the cell's mirrored y neighbours.
//   BandedOperator   A(i, i + offset_d) = band_d[i]; entries whose column leaves [0, n) are
//                    ignored (the chapter's zero padding).
//   CsrMatrix        general sparse, compressed rows with sorted columns.
//   DenseOperator    row-major n x n.
//
// Every operator offers a fast float path (vectorized, on the executor's threads) and a
// scalar double-precision reference path (applyReference) that the tests compare against.
// applyDot() fuses y = A x with the dot product x.y that CG needs next; its reduction sums
// fixed blocks in a fixed order, so results do not depend on the number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "solver/cg/cg_types.h"
#include "solver/cg/vector_kernels.h"
#include "solver/core/result.h"

namespace ww::cg {

/// One entry of a sparse matrix given by coordinates (0-based).
struct Triplet {
    int row = 0;
    int col = 0;
    float value = 0.0f;
};

/// r . r and b . b of a residual r = b - A x.
struct ResidualSums {
    double rr = 0.0;
    double bb = 0.0;
};

/// The two CG passes for operators that store their matrix: p <- r + beta p, q = A p,
/// returns p . q; then x += alpha p, r -= alpha q, returns r . r (40 bytes per unknown plus
/// the matrix). Derived provides size() and applyDot(x, y). The residuals CG starts and ends
/// with take separate passes here (A x, then b - A x, then b . b).
template <typename Derived>
class StoredCgPasses {
  public:
    ResidualSums residual(const exec::Executor& ex, const float* b, const float* x,
                          float* r) const {
        const auto& self = static_cast<const Derived&>(*this);
        (void)self.applyDot(ex, x, r);
        const double rr = detail::residualFrom(ex, b, r, self.size());
        return {rr, detail::dot(ex, b, b, self.size())};
    }
    double residualNorm(const exec::Executor& ex, const float* b, const float* x,
                        float* scratch) const {
        const auto& self = static_cast<const Derived&>(*this);
        (void)self.applyDot(ex, x, scratch);
        return detail::residualFrom(ex, b, scratch, self.size());
    }
    double directionApplyDot(const exec::Executor& ex, const float* r, float* p, float beta,
                             float* q) const {
        const auto& self = static_cast<const Derived&>(*this);
        detail::direction(ex, r, p, beta, self.size());
        return self.applyDot(ex, p, q);
    }
    double updateSolution(const exec::Executor& ex, float* x, float* r, const float* p, float* q,
                          float alpha) const {
        return detail::updateSolution(ex, x, r, p, q, alpha,
                                      static_cast<const Derived&>(*this).size());
    }
};

class StencilOperator {
  public:
    /// Unknowns per chunk of rows in directionApplyDot (64 KB of each vector).
    static constexpr std::size_t kStencilChunkElems = 16384;

    /// (I - alpha L) on an nx x ny grid (row-major, x fastest); nx, ny >= 2, alpha >= 0.
    StencilOperator(int nx, int ny, float alpha, Boundary boundary);

    std::size_t size() const { return static_cast<std::size_t>(m_nx) * m_ny; }
    int nx() const { return m_nx; }
    int ny() const { return m_ny; }
    float alpha() const { return m_alpha; }
    Boundary boundary() const { return m_boundary; }

    /// y = A x.
    void apply(const exec::Executor& ex, std::span<const float> x, std::span<float> y) const;
    /// y = A x; returns x . y.
    double applyDot(const exec::Executor& ex, const float* x, float* y) const;
    /// CG pass 1: p <- r + beta p (beta = 0: p = r, p not read) and returns p . A p. Rows of
    /// p are updated just ahead of the stencil that reads them; A p is formed row by row and
    /// not stored (q is unused).
    double directionApplyDot(const exec::Executor& ex, const float* r, float* p, float beta,
                             float* q) const;
    /// CG pass 2: x += alpha p, r -= alpha A p (A p recomputed row by row); returns r . r.
    /// Passes 1 and 2 move 12 + 20 = 32 bytes per unknown.
    double updateSolution(const exec::Executor& ex, float* x, float* r, const float* p, float* q,
                          float alpha) const;
    /// CG's start: r = b - A x in one pass (read x and b, write r: 12 bytes per unknown);
    /// returns r . r and b . b.
    ResidualSums residual(const exec::Executor& ex, const float* b, const float* x, float* r) const;
    /// CG's closing check: ||b - A x||^2 without storing the residual (8 bytes per unknown;
    /// the scratch is unused).
    double residualNorm(const exec::Executor& ex, const float* b, const float* x,
                        float* scratch) const;
    /// y = A x in double precision, plain loops.
    void applyReference(std::span<const double> x, std::span<double> y) const;
    std::vector<Triplet> triplets() const;

  private:
    /// out = row j of A x; returns x . out over the row.
    float applyRowDot(const float* x, float* out, int j) const;
    /// Neighbours of cell (i, j) that are Neumann ghosts (mirrors of the cell, so L drops them).
    int mirroredNeighbours(int i, int j) const;
    int m_nx;
    int m_ny;
    float m_alpha;
    Boundary m_boundary;
    std::vector<float> m_zeroRow;  ///< the Dirichlet ghost row
};

class BandedOperator : public StoredCgPasses<BandedOperator> {
  public:
    /// bands[d][i] = A(i, i + offsets[d]); every band has length n.
    static Result<BandedOperator> create(std::size_t n, std::vector<int> offsets,
                                         std::vector<std::vector<float>> bands);
    /// The same matrix as `op` in five-banded storage.
    static BandedOperator fromStencil(const StencilOperator& op);
    /// Göddeke's nine-banded case: I + alpha K on an nx x ny grid with K the bilinear (Q1)
    /// finite-element stiffness stencil (8/3 centre, -1/3 for all eight neighbours), Dirichlet
    /// rows truncated. SPD and strictly diagonally dominant, so Jacobi converges.
    static BandedOperator nineBandedQ1(int nx, int ny, float alpha);

    std::size_t size() const { return m_n; }
    const std::vector<int>& offsets() const { return m_offsets; }
    /// All bands one after the other: band d occupies [d n, (d + 1) n).
    const std::vector<float>& bandData() const { return m_bands; }
    std::span<const float> band(std::size_t d) const { return {m_bands.data() + d * m_n, m_n}; }
    /// Index of the band with offset 0, or -1.
    int diagonalBand() const { return m_diagonal; }

    void apply(const exec::Executor& ex, std::span<const float> x, std::span<float> y) const;
    double applyDot(const exec::Executor& ex, const float* x, float* y) const;
    void applyReference(std::span<const double> x, std::span<double> y) const;
    std::vector<Triplet> triplets() const;

    /// One Jacobi sweep x_out = x_in + (b - A x_in) * invDiag (Göddeke: 20 flops per row
    /// for nine bands). invDiag holds 1 / A(i, i).
    void jacobiSweep(const exec::Executor& ex, const float* b, const float* invDiag,
                     const float* xIn, float* xOut) const;
    void jacobiSweepReference(const float* b, const float* xIn, float* xOut) const;
    std::vector<float> inverseDiagonal() const;

  private:
    /// y[i0, i1) = (A x)[i0, i1), i1 - i0 <= detail::kBlock.
    void applyBlock(std::size_t i0, std::size_t i1, const float* x, float* y) const;
    std::size_t m_n = 0;
    std::vector<int> m_offsets;
    std::vector<float> m_bands;
    int m_diagonal = -1;
};

class CsrMatrix : public StoredCgPasses<CsrMatrix> {
  public:
    /// Builds an n x n matrix from coordinates; duplicates are summed, columns sorted.
    /// Fails (kInput) on out-of-range indices or mismatched array lengths.
    static Result<CsrMatrix> fromTriplets(int n, std::span<const int> rows,
                                          std::span<const int> cols, std::span<const float> values);
    static Result<CsrMatrix> fromTriplets(int n, std::span<const Triplet> entries);

    std::size_t size() const { return m_n; }
    std::size_t nonZeros() const { return m_values.size(); }
    const std::vector<std::uint32_t>& rowPointers() const { return m_rowPtr; }
    const std::vector<std::uint32_t>& columns() const { return m_cols; }
    const std::vector<float>& values() const { return m_values; }
    /// True if A equals its transpose exactly (structure and values).
    bool isSymmetric() const;

    void apply(const exec::Executor& ex, std::span<const float> x, std::span<float> y) const;
    double applyDot(const exec::Executor& ex, const float* x, float* y) const;
    void applyReference(std::span<const double> x, std::span<double> y) const;
    std::vector<Triplet> triplets() const;

  private:
    std::size_t m_n = 0;
    std::vector<std::uint32_t> m_rowPtr;
    std::vector<std::uint32_t> m_cols;
    std::vector<float> m_values;
};

class DenseOperator : public StoredCgPasses<DenseOperator> {
  public:
    /// Row-major n x n values (n * n of them).
    static Result<DenseOperator> create(std::size_t n, std::vector<float> rowMajor);

    std::size_t size() const { return m_n; }
    const std::vector<float>& values() const { return m_values; }

    void apply(const exec::Executor& ex, std::span<const float> x, std::span<float> y) const;
    double applyDot(const exec::Executor& ex, const float* x, float* y) const;
    void applyReference(std::span<const double> x, std::span<double> y) const;
    std::vector<Triplet> triplets() const;

  private:
    std::size_t m_n = 0;
    std::vector<float> m_values;
};

}  // namespace ww::cg
