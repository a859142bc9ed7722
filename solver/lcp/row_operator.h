// The LCP matrix given matrix-free, for constraint rows that each act on at most two bodies
// (contacts, joints):
//   A = J W J^T + cfm I
// J has one row per unknown, with a 1x6 block (linear xyz, angular xyz) on each of the row's
// two bodies; W = diag(W_b) holds each body's 6x6 inverse mass. Each row stores its two J
// blocks and the same blocks premultiplied, K = W J^T, so a product costs O(rows) where the
// dense A costs n^2 (and n^2 floats of memory):
//   u_b     = sum over the rows i on body b, in increasing i, of K_{i,side} x_i   (6 per body)
//   (A x)_i = J_{iA} . u_{bodyA(i)} + J_{iB} . u_{bodyB(i)} + cfm x_i
// A side whose body is -1 (static ground, or no second body) contributes nothing. The fixed
// summation order (rows ascending per body, then the A side before the B side, linear before
// angular) makes the product independent of thread counts, and is the order every backend
// uses, so that their iterates agree to rounding.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "solver/exec/executor.h"

namespace ww::lcp {

struct RowOperator {
    static constexpr int kJacobianFloats = 12;  ///< per row: J_A (lin, ang), J_B (lin, ang)
    static constexpr int kBodyFloats = 6;       ///< per body in u: linear xyz, angular xyz

    int bodies = 0;                         ///< body slots 0 .. bodies - 1
    float cfm = 0.0f;                       ///< added to every diagonal entry
    std::vector<std::int32_t> body;         ///< 2 per row: body of side A, of side B; -1 = none
    std::vector<float> j;                   ///< kJacobianFloats per row: J_A, J_B
    std::vector<float> k;                   ///< kJacobianFloats per row: K_A = W J_A^T, K_B
    std::vector<std::int32_t> bodyStart;    ///< bodies + 1 offsets into bodyEntries
    std::vector<std::int32_t> bodyEntries;  ///< 2 * row + side (0 = A, 1 = B), rows ascending
    /// K in bodyEntries order (kBodyFloats per entry: the K block of that row side) and the
    /// entry's row: what gatherBodies streams, so that its loads are sequential instead of one
    /// scattered 24-byte K block per entry. Built by buildBodyIndex from k.
    std::vector<float> kByBody;
    /// kByBody ends with this many zeros after its entries, so that the gather reads each
    /// 6-float block with one plain 8-float load (lanes 6 and 7 are never stored).
    static constexpr int kByBodyPad = 2;
    std::vector<std::int32_t> entryRow;  ///< empty with tripleRuns
    /// True with triples when no row names one body on both sides: every body's entries then
    /// come in runs of three (a contact's rows 3t, 3t + 1, 3t + 2 on one side), and runRow
    /// holds the first row of each run in place of entryRow (a third of the indices to stream).
    bool tripleRuns = false;
    std::vector<std::int32_t> runRow;
    /// J as kJacobianFloats planes (plane c of row i at c * rows + i), so that applyRows loads
    /// one component of eight consecutive rows with one vector load. Built by buildBodyIndex.
    std::vector<float> jByPlane;
    /// True when the rows come in threes on one body pair (rows 3t, 3t + 1, 3t + 2 name the same
    /// bodies: a contact's normal and two tangents) and each row's linear J of side B is that of
    /// side A negated, bit for bit, where both sides have a body (a contact's J_B = (-d,
    /// -(r_B x d)) beside J_A = (d, r_A x d)): applyRows then loads and transposes the body sums
    /// once per contact instead of once per row, and reads the linear part of J once for both
    /// sides. Set by buildBodyIndex.
    bool triples = false;
    /// With triples, J by groups of kTripleGroup contacts (3 * kTripleGroup rows) in place of
    /// jByPlane, nine components a row: the linear part L shared by the sides (J_A's, or when
    /// side A has no body, J_B's negated), J_A's angular part, J_B's angular part. Group g
    /// holds, for each of the nine components c and row k of a contact, that component of its
    /// kTripleGroup contacts' k-th rows side by side (at g * kTripleGroupFloats + (3 c + k) *
    /// kTripleGroup). Rows after the last whole group take the scalar loop.
    static constexpr int kTripleGroup = 8;
    static constexpr int kTripleComponents = 9;
    static constexpr int kTripleGroupFloats = 3 * kTripleComponents * kTripleGroup;
    std::vector<float> jByTriple;
    /// With triples, the bodies of each whole group's contacts: side A's kTripleGroup, then
    /// side B's (2 * kTripleGroup a group), so that a group reads its bodies in two loads.
    std::vector<std::int32_t> bodyByTriple;
    /// Each body slot's mass matrix M_b = W_b^-1 (kMassFloats per slot: the mass, then the
    /// world-frame inertia tensor's xx, xy, xz, yy, yz, zz), or empty. The products do not read
    /// it; lanczosLambdaMax (lanczos.h) needs it for its inner product.
    static constexpr int kMassFloats = 7;
    std::vector<float> bodyMass;
    /// A_ii of every row as diagonal() computes it, with the cfm it was computed with. Built by
    /// buildBodyIndex: a solve reads each diagonal several times (validation, the lambda_max
    /// estimate, the step scales), each a row's two J . K products.
    std::vector<float> diagonals;
    float diagonalsCfm = 0.0f;

    int rows() const { return static_cast<int>(body.size() / 2); }
    bool empty() const { return body.empty(); }
    /// Sizes body, j and k for `rows` rows of `bodies` slots (contents unspecified).
    void resize(int rows, int bodies);
    /// Fills bodyStart, bodyEntries, kByBody, triples and tripleRuns, entryRow or runRow, and
    /// jByPlane or jByTriple with bodyByTriple, from body, j and k (call after the rows are
    /// written, and again after any of them changes). With an executor the copies run on its
    /// threads (the same result).
    void buildBodyIndex(const exec::Executor* ex = nullptr);
    /// A_ii = J_iA . K_iA + J_iB . K_iB + cfm (when both sides name one body, the cross terms
    /// J_iA . K_iB + J_iB . K_iA too): from `diagonals` while they match the rows and cfm.
    float diagonal(int i) const {
        return diagonals.size() * kJacobianFloats == j.size() && diagonalsCfm == cfm
                   ? diagonals[static_cast<std::size_t>(i)]
                   : computeDiagonal(i);
    }
    /// A_ii computed from J and K.
    float computeDiagonal(int i) const;
    /// Empty when consistent with n rows (sizes, body slots in range, index matching body),
    /// otherwise the reason.
    std::string validate(int n) const;

    /// u_b for the bodies [firstBody, lastBody) (u holds kBodyFloats per body).
    void gatherBodies(const float* x, float* u, int firstBody, int lastBody) const;
    /// (A x)_i for the rows [firstRow, lastRow), from u of gatherBodies (w indexed by row).
    void applyRows(const float* x, const float* u, float* w, int firstRow, int lastRow) const;
    /// gatherBodies over units of kRun entries (1: entryRow, 3: runRow).
    template <int kRun>
    void gatherUnits(const float* x, float* u, int firstBody, int lastBody) const;
    /// applyRows's loop one row at a time (the rows outside whole vector steps).
    void applyRowsScalar(const float* x, const float* u, float* w, int firstRow, int lastRow) const;
#if defined(__AVX2__) && defined(__FMA__)
    /// applyRows for the whole triple groups [firstGroup, lastGroup) (triples only).
    void applyTripleGroups(const float* x, const float* u, float* w, int firstGroup,
                           int lastGroup) const;
#endif
    /// w = A x on the calling thread (u: scratch of kBodyFloats * bodies).
    void apply(const float* x, float* u, float* w) const;
    /// Multiply-adds of one product: what a Jacobi iteration costs beside the projection.
    double macs() const {
        return 24.0 * rows();
    }
    /// Bytes the operator holds (for budgets and memory reports).
    std::size_t bytes() const;
};

/// (A x) in double precision through J and K (for residuals and tests).
void applyRowOperatorDouble(const RowOperator& op, std::span<const float> x,
                            std::vector<double>& w);
/// The dense n x n row-major A the operator represents (tests, small problems).
std::vector<float> denseFromRowOperator(const RowOperator& op);

}  // namespace ww::lcp
