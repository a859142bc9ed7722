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

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

#include "solver/exec/executor.h"

namespace ww::lcp {

class RowOperator {
  public:
    static constexpr int kJacobianFloats = 12;  ///< per row: J_A (lin, ang), J_B (lin, ang)
    static constexpr int kBodyFloats = 6;       ///< per body in u: linear xyz, angular xyz
    static constexpr int kMassFloats = 7;       ///< per body: the mass, then I's xx xy xz yy yz zz
    /// Contacts per group of the triple layout (see the private section): a pass that splits
    /// rows among threads cuts at multiples of 3 * kTripleGroup rows so that only a block's
    /// last rows take the scalar loop.
    static constexpr int kTripleGroup = 8;

    // --- The rows, as a caller writes them (then buildBodyIndex) ---

    /// Sizes the operator for `rows` rows on body slots 0 .. bodies - 1 (row contents
    /// unspecified, the body index stale until buildBodyIndex).
    void resize(int rows, int bodies);
    int rows() const { return static_cast<int>(m_body.size() / 2); }
    int bodies() const { return m_bodies; }
    bool empty() const { return m_body.empty(); }
    /// Added to every diagonal entry.
    float cfm() const { return m_cfm; }
    void setCfm(float cfm) { m_cfm = cfm; }
    /// The body slot of row i's side (0: A, 1: B); -1 = none (static ground, or no second body).
    std::int32_t body(int row, int side) const {
        return m_body[2 * static_cast<std::size_t>(row) + static_cast<std::size_t>(side)];
    }
    void setBodies(int row, std::int32_t bodyA, std::int32_t bodyB) {
        m_body[2 * static_cast<std::size_t>(row)] = bodyA;
        m_body[2 * static_cast<std::size_t>(row) + 1] = bodyB;
    }
    /// Row i's J blocks: J_A (linear xyz, angular xyz), then J_B. Throws std::logic_error for a
    /// row the operator does not hold (before rowsHeldFrom(): resizeContactForm).
    std::span<float, kJacobianFloats> jacobian(int row) {
        return std::span<float, kJacobianFloats>(jRow(heldRow(row)), kJacobianFloats);
    }
    std::span<const float, kJacobianFloats> jacobian(int row) const {
        return std::span<const float, kJacobianFloats>(jRow(heldRow(row)), kJacobianFloats);
    }
    /// Row i's K blocks, K_A = W_A J_A^T then K_B, in J's order (held as J is).
    std::span<float, kJacobianFloats> weighted(int row) {
        return std::span<float, kJacobianFloats>(kRow(heldRow(row)), kJacobianFloats);
    }
    std::span<const float, kJacobianFloats> weighted(int row) const {
        return std::span<const float, kJacobianFloats>(kRow(heldRow(row)), kJacobianFloats);
    }
    /// Each body slot's mass matrix M_b = W_b^-1 (optional: the products do not read it;
    /// lanczosLambdaMax, lanczos.h, needs it for its inner product). allocateBodyMasses sizes
    /// them for bodies(); clearBodyMasses drops them.
    void allocateBodyMasses() {
        m_bodyMass.resize(kMassFloats * static_cast<std::size_t>(m_bodies));
    }
    void clearBodyMasses() { m_bodyMass.clear(); }
    bool hasBodyMasses() const {
        return !m_bodyMass.empty() &&
               m_bodyMass.size() == kMassFloats * static_cast<std::size_t>(m_bodies);
    }
    std::span<float, kMassFloats> bodyMass(int b) {
        return std::span<float, kMassFloats>(
            m_bodyMass.data() + kMassFloats * static_cast<std::size_t>(b), kMassFloats);
    }
    std::span<const float, kMassFloats> bodyMass(int b) const {
        return std::span<const float, kMassFloats>(
            m_bodyMass.data() + kMassFloats * static_cast<std::size_t>(b), kMassFloats);
    }

    /// Each body slot's inverse mass W_b: 1 / m, then I^-1's xx xy xz yy yz zz (optional).
    /// Given, with every row's K equal to W J^T (the caller's promise: the products do not
    /// check it), the gathers may work in contact space (contactForm). allocateBodyInverseMasses
    /// sizes them for bodies(); clearBodyInverseMasses drops them.
    void allocateBodyInverseMasses() {
        m_bodyInvMass.resize(kMassFloats * static_cast<std::size_t>(m_bodies));
    }
    void clearBodyInverseMasses() { m_bodyInvMass.clear(); }
    bool hasBodyInverseMasses() const {
        return !m_bodyInvMass.empty() &&
               m_bodyInvMass.size() == kMassFloats * static_cast<std::size_t>(m_bodies);
    }
    std::span<float, kMassFloats> bodyInverseMass(int b) {
        return std::span<float, kMassFloats>(
            m_bodyInvMass.data() + kMassFloats * static_cast<std::size_t>(b), kMassFloats);
    }

    // --- The body index and the product layouts ---

    /// Builds the body index (which rows act on each body) and the layouts the products read,
    /// from the rows (call after the rows are written, and again after any of them changes).
    /// With an executor the copies run on its threads (the same result).
    void buildBodyIndex(const exec::Executor* ex = nullptr);
    /// Body b's entries are bodyEntries()[bodyStart()[b] .. bodyStart()[b + 1]), each
    /// 2 * row + side (0 = A, 1 = B), rows ascending: the summation order of u_b.
    std::span<const std::int32_t> bodyStart() const { return m_bodyStart; }
    std::span<const std::int32_t> bodyEntries() const { return m_bodyEntries; }
    /// True when the rows come in threes on one body pair (a contact's normal and two
    /// tangents), each row's linear J_B being J_A's negated bit for bit where both sides have a
    /// body: the products then read J by groups of contacts (see the private section).
    bool triples() const { return m_triples; }
    /// True with triples when no row names one body on both sides: every body's entries come
    /// in runs of a contact's three rows.
    bool tripleRuns() const { return m_tripleRuns; }

    // --- The contact form without rows (an assembler's fast path) ---
    //
    // A contact assembler may hand the contact form its rows as it makes them, a group of
    // kTripleGroup contacts at a time, instead of writing J and K into the operator for
    // buildBodyIndex to read back: after resizeContactForm (or resize),
    // allocateBodyInverseMasses and beginContactForm, for each whole group g (contacts 8g ..
    // 8g + 7, rows 24g .. 24g + 23) setBodies of its rows, then fillContactGroup(g, j, k) with
    // the group's 24 rows of J at j and of K at k (kJacobianFloats a row, laid out as jacobian()
    // and weighted() are). The rows after the last whole group are written into the operator as
    // usual. Then finishContactForm. The layouts, diagonals and products are those
    // buildBodyIndex makes from the same rows, bit for bit.

    /// Sizes the contact form's group layouts for rows() rows.
    void beginContactForm();
    /// resize for that build: J and K held only for the rows after the last whole group
    /// (rowsHeldFrom() = 3 kTripleGroup (rows / (3 kTripleGroup))), the groups' 288 bytes a
    /// contact never allocated. jacobian() and weighted() of a row before that throw.
    void resizeContactForm(int rows, int bodies);
    /// J and K held for every row again (the groups' rows unspecified, the rows held before
    /// kept): where a contact-form build falls back to writing every row for buildBodyIndex.
    void holdAllRows();
    /// The first row whose J and K the operator holds (0 after resize or holdAllRows).
    int rowsHeldFrom() const { return static_cast<int>(m_rowsFrom); }
    /// Group g's layouts and its rows' diagonals from its rows at j and k; false when one of its
    /// contacts is not of the contact form (see contactForm), or a row names one body on both
    /// sides, or the build has no AVX2 (then write every row and call buildBodyIndex).
    bool fillContactGroup(std::size_t g, const float* j, const float* k);
    /// The body index and the rest of the layouts; false when the rows after the last whole
    /// group are not of the contact form (then write every row and call buildBodyIndex). On
    /// success hasRows() is false: J and K of the groups' rows were never written, and what
    /// reads them (Gauss-Seidel, the GPU upload, local step scales, applyRowOperatorDouble, a
    /// diagonal for another cfm) refuses the operator.
    bool finishContactForm(const exec::Executor* ex = nullptr);
    /// False for an operator made by finishContactForm: its whole groups' J and K are not held.
    bool hasRows() const { return m_rowsWritten; }

    // --- The products ---

    /// A_ii = J_iA . K_iA + J_iB . K_iB + cfm (when both sides name one body, the cross terms
    /// J_iA . K_iB + J_iB . K_iA too): kept by buildBodyIndex while they match the rows and cfm.
    /// Throws std::logic_error where it would have to compute the diagonal of a row whose J and
    /// K are not held (resizeContactForm, then cfm changed).
    float diagonal(int i) const {
        return diagonalsKept() ? m_diagonals[static_cast<std::size_t>(i)]
                               : computeDiagonal(static_cast<int>(heldRow(i)));
    }
    /// Every row's diagonal() at once while the kept ones are current (empty otherwise: read
    /// diagonal(i)), for loops over all rows.
    std::span<const float> keptDiagonals() const {
        return diagonalsKept() ? std::span<const float>(m_diagonals) : std::span<const float>();
    }
    /// A_ii computed from J and K.
    float computeDiagonal(int i) const;
    /// Local step scales (docs/rigid.md, "Local step scales"): replaces every row's diagonal
    /// A_ii, as diagonal() returns it and the solvers divide their steps by it, with
    /// P_ii = cfm + sum over the row's bodies b of lambda_b (J K)_ii,b, where lambda_b bounds the
    /// top eigenvalue of body b's part of A scaled by its own diagonal (localStepBound). Then
    /// P >= A (A is the sum of the bodies' parts), so Jacobi steps omega / P_ii converge for any
    /// omega in (0, 2) without a global lambda_max(D^-1 A): a body with few contacts (debris,
    /// a landing brick) steps as far as its own contacts allow, not as far as the most crowded
    /// body of the block does. Call after buildBodyIndex (which restores A's diagonals); returns
    /// the largest lambda_b.
    float useLocalStepDiagonals(const exec::Executor* ex = nullptr);
    /// An upper bound (within a factor 6^(1/32)) on lambda_max of body `body`'s part of A,
    /// G_b = J_b W_b J_b^T, scaled by its own diagonal; 0 for a body without entries.
    float localStepBound(int body) const;
    /// Empty when consistent with n rows (sizes, body slots in range, index matching the rows),
    /// otherwise the reason (the first bad row). With an executor the O(rows) checks run on
    /// its threads.
    std::string validate(int n, const exec::Executor* ex = nullptr) const;
    /// True when the gathers work in contact space: with tripleRuns and body inverse masses,
    /// every contact's rows of the form J = (d_k, r_A x d_k, -d_k, -(r_B x d_k)) for a frame
    /// d_0, d_1, d_2 orthonormal to 1e-4 and arms that reproduce J's angular parts to 1e-4
    /// (relative). A body sums the contacts' impulses P = sum_k x_k d_k and their moments
    /// r x P instead of three K blocks times x per contact side: a third of the bytes, so that
    /// a big wall's gather is not bound by them. A contact's rows read its relative velocity
    /// v_A + w_A x r_A - v_B - w_B x r_B once, then d_k . v each: 15 floats a contact (frame
    /// and arms) where J's angular parts take 27. The sums round differently from K's and J's
    /// (within a few ulps of the product), the same on any thread count.
    bool contactForm() const { return m_contactForm; }
    static constexpr int kImpulseFloats = 4;  ///< per contact: P's xyz, and a zero
    /// Floats of the impulses a contact-form gather reads (kImpulseFloats per contact), or 0.
    std::size_t impulseFloats() const {
        return m_contactForm ? kImpulseFloats * static_cast<std::size_t>(rows() / 3) : 0;
    }
    /// Contact form: P_t = sum_k x_{3t+k} d_{t,k} of the contacts [firstContact, lastContact)
    /// into impulses (kImpulseFloats each), what gatherBodies reads in place of x.
    void contactImpulses(const float* x, float* impulses, int firstContact, int lastContact) const;
    /// Contact form: every contact's impulses of x into `impulses` (sized here), in chunks on
    /// the executor's threads (the same bits), returning their data for gatherBodies; nullptr
    /// otherwise (the gathers read x).
    const float* impulsesOf(const float* x, std::vector<float>& impulses,
                            const exec::Executor* ex = nullptr) const;
    /// u_b for the bodies [firstBody, lastBody) (u holds kBodyFloats per body). In contact form
    /// from `impulses` (impulsesOf x, required), else from x.
    void gatherBodies(const float* x, float* u, int firstBody, int lastBody,
                      const float* impulses = nullptr) const;
    /// (A x)_i for the rows [firstRow, lastRow), from u of gatherBodies (w indexed by row).
    void applyRows(const float* x, const float* u, float* w, int firstRow, int lastRow) const;
    /// Contact form (AVX2 builds): applyRows of the whole groups of kTripleGroup contacts
    /// [firstGroup, lastGroup) by field, what a pass over contacts loads: group g's 3 *
    /// kTripleGroup floats at w + 3 * kTripleGroup * g hold its contacts' first rows, then their
    /// second, then their third; the same values as applyRows (whole groups: rows() /
    /// (3 * kTripleGroup)). Throws std::logic_error outside the contact form or without AVX2.
    void applyGroupsByField(const float* x, const float* u, float* w, int firstGroup,
                            int lastGroup) const;
    /// w = A x on the calling thread (u: scratch of kBodyFloats * bodies; the contact form's
    /// impulses are allocated here: for tests and small problems).
    void apply(const float* x, float* u, float* w) const;
    /// Multiply-adds of one product: what a Jacobi iteration costs beside the projection.
    double macs() const { return 24.0 * rows(); }
    /// Bytes the operator holds (for budgets and memory reports).
    std::size_t bytes() const;
    /// Bytes one product (gatherBodies over every body, then applyRows over every row) must
    /// move at the least: each array it reads from the layouts (K by body entry, the entries'
    /// rows, the body offsets, J by triple group or by plane, the rows' bodies) and x, once
    /// each. u (kBodyFloats per body) and w are left out: a pass keeps them in cache. Call
    /// after buildBodyIndex; the benchmark's memory-bandwidth bound for a pass.
    std::size_t productBytes() const;

#if defined(__AVX2__) && defined(__FMA__)
    /// Contact form: the impulses of whole group g's kTripleGroup contacts (g < rows() /
    /// (3 * kTripleGroup)), lane q of xn, xf, xg holding x of contact kTripleGroup g + q's
    /// rows 0, 1, 2, into impulses (all contacts', as contactImpulses writes them): the same
    /// operations as contactImpulses, for a pass that has the new x in registers.
    void groupImpulses(std::size_t g, __m256 xn, __m256 xf, __m256 xg, float* impulses) const;
#endif

  private:
    friend struct RowOperatorProbe;  // tests: reads the layouts and corrupts them for validate

    /// True while m_diagonals holds every row's computeDiagonal (one per row, made with
    /// today's cfm).
    bool diagonalsKept() const {
        return m_diagonals.size() == static_cast<std::size_t>(rows()) && m_diagonalsCfm == m_cfm;
    }
    /// Row i of J and of K in m_j and m_k (which hold rows m_rowsFrom ..), unchecked.
    float* jRow(std::size_t row) {
        return m_j.data() + kJacobianFloats * (row - m_rowsFrom);
    }
    const float* jRow(std::size_t row) const {
        return m_j.data() + kJacobianFloats * (row - m_rowsFrom);
    }
    float* kRow(std::size_t row) {
        return m_k.data() + kJacobianFloats * (row - m_rowsFrom);
    }
    const float* kRow(std::size_t row) const {
        return m_k.data() + kJacobianFloats * (row - m_rowsFrom);
    }
    /// The row, checked to be one whose J and K are held (the public accessors' check).
    std::size_t heldRow(int row) const {
        const auto r = static_cast<std::size_t>(row);
        if (r < m_rowsFrom) {
            throwRowNotHeld(row);
        }
        return r;
    }
    [[noreturn]] void throwRowNotHeld(int row) const;
    /// buildBodyIndex's parts: the counting sort of the entries by body (m_bodyStart,
    /// m_bodyEntries), and the layouts and diagonals filled from the index and the rows.
    void sortEntriesByBody();
    /// The counting sort, where the rows' bodies are not those the index was last sorted from.
    void refreshBodyIndex(const exec::Executor* ex);
    /// ORs into notTriple when contact t's three rows are not on one body pair, or where a row
    /// has both bodies, J_B's linear part is not J_A's negated bit for bit; into sameBody when a
    /// row names one body on both sides (fillLayouts' and finishContactForm's checks).
    void tripleFlags(std::size_t t, std::uint32_t& notTriple, std::uint32_t& sameBody) const;
    void fillLayouts(const exec::Executor* ex);

    /// With triples: group g's part of m_jByTriple and m_bodyByTriple, and its rows' diagonals;
    /// with `arms`, its contacts' arms into m_contactArms and whether they are all of the
    /// contact form (else true).
    bool fillTripleGroup(std::size_t g, bool arms);
#if defined(__AVX2__) && defined(__FMA__)
    /// fillTripleGroup eight rows at a time (the same values, bit for bit; the arms checked to
    /// the same tolerance, within roundings); false, having written nothing, when a row of the
    /// group names one body on both sides.
    bool fillTripleGroupAvx2(std::size_t g, bool arms, bool& formOk) {
        const std::size_t row0 = 3 * static_cast<std::size_t>(kTripleGroup) * g;
        return fillTripleGroupAvx2(g, arms, formOk, jRow(row0), kRow(row0));
    }
    /// The same from the group's rows of J at j and of K at k (row-major, as m_j and m_k).
    bool fillTripleGroupAvx2(std::size_t g, bool arms, bool& formOk, const float* j,
                             const float* k);
#endif
    /// contactImpulses for contact t alone (the same bits as the eight-contact steps).
    void contactImpulseScalar(const float* x, float* impulses, int t) const;
    /// gatherBodies in contact form: per run of three entries, the run's contact impulse and
    /// arm (m_armByRun).
    void gatherContacts(const float* impulses, float* u, int firstBody, int lastBody) const;
    /// The contact form's check and arms of contact t (scalar): false when its rows are not of
    /// that form.
    bool contactArms(std::size_t t, float* arms) const;
    /// Component c of the frame vector of contact t's row k (L: J_A's linear part, or J_B's
    /// negated where side A has no body): from the group layout for a contact of a whole group
    /// (the same value; there the rows may not be held), else from J.
    float frameAt(std::size_t t, std::size_t k, std::size_t c) const {
        const std::size_t g = t / kTripleGroup;
        if (m_triples && g < m_jByTriple.size() / m_groupFloats) {
            return m_jByTriple[m_groupFloats * g + (3 * c + k) * kTripleGroup + t % kTripleGroup];
        }
        const float* jr = jRow(3 * t + k);
        return m_body[6 * t] >= 0 ? jr[c] : -jr[kBodyFloats + c];
    }
    /// fillLayouts' contact-form pass over the entries: each run's first row and arm.
    void fillContactRuns(const exec::Executor* ex);
    /// gatherBodies over units of kRun entries (1: m_entryRow, 3: m_runRow).
    template <int kRun>
    void gatherUnits(const float* x, float* u, int firstBody, int lastBody) const;
    /// applyRows's loop one row at a time (the rows outside whole vector steps).
    void applyRowsScalar(const float* x, const float* u, float* w, int firstRow, int lastRow) const;
#if defined(__AVX2__) && defined(__FMA__)
    /// applyRows for the whole triple groups [firstGroup, lastGroup) (triples only).
    void applyTripleGroups(const float* x, const float* u, float* w, int firstGroup,
                           int lastGroup) const;
    /// applyTripleGroups in the contact form: each contact's relative velocity
    /// v_A + w_A x r_A - v_B - w_B x r_B from the frame and arms, then its three rows' d_k . v;
    /// w in row order, or (byField) as applyGroupsByField stores it.
    void applyContactGroups(const float* x, const float* u, float* w, int firstGroup, int lastGroup,
                            bool byField = false) const;
#endif
    /// applyRowsScalar in the contact form: the same operations as applyContactGroups' lanes.
    void applyContactRowsScalar(const float* x, const float* u, float* w, int firstRow,
                                int lastRow) const;

    static constexpr int kTripleComponents = 9;
    static constexpr int kTripleGroupFloats = 3 * kTripleComponents * kTripleGroup;
    /// A group's floats in the contact form: the frame (L's nine components) and the arms (six).
    static constexpr int kContactGroupFloats = (kTripleComponents + 6) * kTripleGroup;
    /// m_kByBody ends with this many zeros after its entries, so that the gather reads each
    /// 6-float block with one plain 8-float load (lanes 6 and 7 are never stored).
    static constexpr int kByBodyPad = 2;

    // The rows (what the caller writes): one layout, row-major.
    int m_bodies = 0;
    float m_cfm = 0.0f;
    std::vector<std::int32_t> m_body;  ///< 2 per row: body of side A, of side B; -1 = none
    std::vector<float> m_j;            ///< kJacobianFloats per held row: J_A, J_B
    std::vector<float> m_k;            ///< kJacobianFloats per held row: K_A = W J_A^T, K_B
    /// The first row m_j and m_k hold (0 but after resizeContactForm).
    std::size_t m_rowsFrom = 0;
    std::vector<float> m_bodyMass;     ///< kMassFloats per body slot, or empty
    std::vector<float> m_bodyInvMass;  ///< kMassFloats per body slot (W_b), or empty

    // What buildBodyIndex derives from them.
    std::vector<std::int32_t> m_bodyStart;  ///< bodies + 1 offsets into m_bodyEntries
    /// m_body and m_bodies as the index was last sorted from (-1: never).
    std::vector<std::int32_t> m_indexedBody;
    int m_indexedBodies = -1;
    std::vector<std::int32_t> m_bodyEntries;  ///< 2 * row + side, rows ascending per body
    /// K in m_bodyEntries order (kBodyFloats per entry: the K block of that row side): what
    /// gatherBodies streams, so that its loads are sequential instead of one scattered 24-byte
    /// K block per entry; kByBodyPad zeros at the end.
    std::vector<float> m_kByBody;
    std::vector<std::int32_t> m_entryRow;  ///< each entry's row; empty with m_tripleRuns
    bool m_tripleRuns = false;
    /// With m_tripleRuns, the first row of each run of three entries (a contact's rows 3t,
    /// 3t + 1, 3t + 2 on one side), in place of m_entryRow: a third of the indices to stream.
    std::vector<std::int32_t> m_runRow;
    /// Contact form: each contact's arms as its runs read them, (r_A, 1, -r_B, -1); and each
    /// run's, in m_runRow's order (in place of m_kByBody, which stays empty).
    bool m_contactForm = false;
    /// False after finishContactForm: the whole groups' rows of m_j and m_k were not written.
    bool m_rowsWritten = true;
    std::vector<float> m_contactArms;
    std::vector<float> m_armByRun;
    /// J as kJacobianFloats planes (plane c of row i at c * rows + i), so that applyRows loads
    /// one component of eight consecutive rows with one vector load (without triples).
    std::vector<float> m_jByPlane;
    /// With triples, applyRows loads and transposes the body sums once per contact instead of
    /// once per row, and reads the linear part of J once for both sides.
    bool m_triples = false;
    /// With triples, J by groups of kTripleGroup contacts (3 * kTripleGroup rows) in place of
    /// m_jByPlane, nine components a row: the linear part L shared by the sides (J_A's, or when
    /// side A has no body, J_B's negated), J_A's angular part, J_B's angular part. Group g
    /// holds, for each of the nine components c and row k of a contact, that component of its
    /// kTripleGroup contacts' k-th rows side by side (at g * kTripleGroupFloats + (3 c + k) *
    /// kTripleGroup). Rows after the last whole group take the scalar loop.
    ///
    /// In the contact form a group holds the frame as above (components 0-2), then its
    /// contacts' arms as the runs read them, r_A's xyz and -r_B's xyz (zeros for a side without
    /// a body), each component of the kTripleGroup contacts side by side: kContactGroupFloats a
    /// group, what applyRows reads there in place of the angular parts.
    std::vector<float> m_jByTriple;
    std::size_t m_groupFloats = kTripleGroupFloats;  ///< m_jByTriple's floats a group
    /// With triples, the bodies of each whole group's contacts: side A's kTripleGroup, then
    /// side B's (2 * kTripleGroup a group), so that a group reads its bodies in two loads.
    std::vector<std::int32_t> m_bodyByTriple;
    /// A_ii of every row as computeDiagonal computes it, with the cfm it was computed with: a
    /// solve reads each diagonal several times (validation, the lambda_max estimate, the step
    /// scales), each a row's two J . K products.
    std::vector<float> m_diagonals;
    std::vector<float> m_localBound;  ///< useLocalStepDiagonals' lambda_b per body
    float m_diagonalsCfm = 0.0f;
};

// Inline: fillLayouts computes every row's diagonal in its row loop.
inline float RowOperator::computeDiagonal(int i) const {
    // With FMA the order is spelled out (a1 b1, then a0 b0, a2 b2 ... a5 b5 fused in), as GCC
    // contracts the plain sum when optimizing: the layouts' eight-row form repeats it lane by
    // lane, whatever the build's optimization level.
    const auto dot6 = [](const float* a, const float* b) {
#if defined(__AVX2__) && defined(__FMA__)
        float d = a[1] * b[1];
        d = std::fma(a[0], b[0], d);
        for (int c = 2; c < kBodyFloats; ++c) {
            d = std::fma(a[c], b[c], d);
        }
        return d;
#else
        return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
#endif
    };
    const auto ui = static_cast<std::size_t>(i);
    const float* ji = jRow(ui);
    const float* ki = kRow(ui);
    float d = m_cfm;
    const std::int32_t a = m_body[2 * ui];
    const std::int32_t b = m_body[2 * ui + 1];
    if (a >= 0) {
        d += dot6(ji, ki);
    }
    if (b >= 0) {
        d += dot6(ji + kBodyFloats, ki + kBodyFloats);
    }
    if (a >= 0 && a == b) {
        d += dot6(ji, ki + kBodyFloats) + dot6(ji + kBodyFloats, ki);
    }
    return d;
}

/// (A x) in double precision through J and K (for residuals and tests).
void applyRowOperatorDouble(const RowOperator& op, std::span<const float> x,
                            std::vector<double>& w);
/// The dense n x n row-major A the operator represents (tests, small problems).
std::vector<float> denseFromRowOperator(const RowOperator& op);

}  // namespace ww::lcp
