// RowOperator (solver/lcp/row_operator.h): the vector product (eight rows a step, or eight
// contacts' 24 rows; eight bodies' gathers at a time) against the same product one row and one
// body at a time, which takes the scalar loops, and against the double-precision product.
#include "solver/lcp/row_operator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Eigenvalues>

#include "row_operator_generators.h"
#include "row_operator_probe.h"
#include "support/executor.h"

namespace ww::lcp {
namespace {

TEST(RowOperator, ProductDoesNotDependOnWhereARowOrBodyFalls) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    for (int k = 0; k < 8; ++k) {
        test::RowOperatorShape shape;
        shape.contacts = 20 + static_cast<int>(rng() % 70u);  // row counts not multiples of 8
        shape.friction = (k & 1) != 0;
        shape.grouped = (k & 2) != 0;
        shape.sameBody = (k & 4) == 0;
        const unsigned sub = static_cast<unsigned>(rng());
        SCOPED_TRACE("contacts " + std::to_string(shape.contacts) + " sub-seed " +
                     std::to_string(sub));
        const LcpProblem p = test::rowOperatorProblem(shape, sub);
        const RowOperator& op = p.op;
        const auto n = static_cast<std::size_t>(p.n);
        std::vector<float> x(n);
        std::uniform_real_distribution<float> value(-1.0f, 1.0f);
        for (float& v : x) {
            v = value(rng);
        }
        const auto uSize = static_cast<std::size_t>(RowOperator::kBodyFloats * op.bodies());
        std::vector<float> u(uSize), w(n), uOne(uSize), wOne(n);
        op.apply(x.data(), u.data(), w.data());
        for (int b = 0; b < op.bodies(); ++b) {
            op.gatherBodies(x.data(), uOne.data(), b, b + 1);
        }
        for (int i = 0; i < p.n; ++i) {
            op.applyRows(x.data(), uOne.data(), wOne.data(), i, i + 1);
        }
        // Bit for bit: every backend and thread count relies on one summation order per row
        // and per body, wherever the vector loops cut the rows and bodies.
        for (std::size_t c = 0; c < uSize; ++c) {
            ASSERT_EQ(u[c], uOne[c]) << "u entry " << c;
        }
        // Contacts of three adjacent rows take the triple groups (24 rows a step); a range cut
        // anywhere runs the rows before and after its whole groups one by one.
        ASSERT_EQ(op.triples(), shape.friction && !shape.grouped);
        // Without contacts on one body twice, every body's entries come in runs of three.
        if (!shape.sameBody) {
            ASSERT_EQ(op.tripleRuns(), op.triples());
        }
        std::vector<float> wCut(n, 0.0f);
        for (int first = 0; first < p.n;) {
            const int last = std::min(p.n, first + 1 + static_cast<int>(rng() % 40u));
            op.applyRows(x.data(), u.data(), wCut.data(), first, last);
            first = last;
        }
        std::vector<double> wd;
        applyRowOperatorDouble(op, x, wd);
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(w[i], wOne[i]) << "row " << i;
            ASSERT_EQ(w[i], wCut[i]) << "row " << i;
            // A row sums ~2 x 70 float products of O(1) terms (a body has up to ~2 n / bodies
            // rows): float rounding stays far below 1e-4 of the magnitude.
            EXPECT_NEAR(w[i], wd[i], 1e-4 * (1.0 + std::abs(wd[i]))) << "row " << i;
        }
    }
}

// Contacts of three rows on one body pair whose linear J of side B is not side A's negated
// (one row's changed by an ulp) cannot share it: the operator takes the eight-row path, and its
// product is the same as one row at a time.
TEST(RowOperator, TriplesWhoseSidesDoNotShareTheLinearPartTakeTheRowPath) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    LcpProblem p = test::rowOperatorProblem(test::RowOperatorShape{40, true}, seed);
    RowOperator& op = p.op;
    ASSERT_TRUE(op.triples());
    std::vector<int> both;
    for (int i = 0; i < p.n; ++i) {
        if (op.body(i, 0) >= 0 && op.body(i, 1) >= 0) {
            both.push_back(i);
        }
    }
    ASSERT_FALSE(both.empty());
    const int row = both[rng() % both.size()];
    float& linB = op.jacobian(row)[RowOperator::kBodyFloats + rng() % 3u];
    linB = std::nextafter(linB, 2.0f);
    op.buildBodyIndex();
    ASSERT_FALSE(op.triples());
    ASSERT_EQ(op.validate(p.n), "");
    std::vector<float> x(static_cast<std::size_t>(p.n));
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (float& v : x) {
        v = value(rng);
    }
    const auto uSize = static_cast<std::size_t>(RowOperator::kBodyFloats * op.bodies());
    std::vector<float> u(uSize), w(x.size()), wOne(x.size());
    op.apply(x.data(), u.data(), w.data());
    for (int i = 0; i < p.n; ++i) {
        op.applyRows(x.data(), u.data(), wOne.data(), i, i + 1);
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(w[i], wOne[i]) << "row " << i;
    }
}

TEST(RowOperator, RowsWithoutBodiesReadNoBodySums) {
    // Rows on no body at all (both sides -1) and no body slots: u is empty, and each row's
    // product is cfm x_i exactly (one float multiply), in the vector part and the tail.
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    RowOperator op;
    const int n = 19;
    op.resize(n, 0);
    for (int i = 0; i < n; ++i) {
        op.setBodies(i, -1, -1);
        for (float& v : op.jacobian(i)) {
            v = value(rng);
        }
        std::ranges::fill(op.weighted(i), 0.0f);
    }
    op.setCfm(0.5f + value(rng) * 0.25f);
    op.buildBodyIndex();
    ASSERT_EQ(op.validate(n), "");
    std::vector<float> x(static_cast<std::size_t>(n)), w(static_cast<std::size_t>(n), 7.0f), u;
    for (float& v : x) {
        v = value(rng);
    }
    op.apply(x.data(), u.data(), w.data());
    for (std::size_t i = 0; i < x.size(); ++i) {
        EXPECT_EQ(w[i], op.cfm() * x[i]) << "row " << i;
    }
}

// p's index against the one built again on three threads, array for array.
void checkBodyIndexOnThreads(const LcpProblem& p) {
    using Probe = RowOperatorProbe;
    // A fresh operator with the same rows, so that nothing of p's index is there before.
    RowOperator threaded;
    threaded.resize(p.op.rows(), p.op.bodies());
    threaded.setCfm(p.op.cfm());
    for (int i = 0; i < p.op.rows(); ++i) {
        threaded.setBodies(i, p.op.body(i, 0), p.op.body(i, 1));
        std::ranges::copy(p.op.jacobian(i), threaded.jacobian(i).begin());
        std::ranges::copy(p.op.weighted(i), threaded.weighted(i).begin());
    }
    threaded.buildBodyIndex(test::executor().get());
    RowOperator& serial = const_cast<RowOperator&>(p.op);
    ASSERT_FALSE(Probe::kByBody(serial).empty());
    ASSERT_TRUE(p.op.triples());  // contacts of three adjacent rows: J by triple groups
    ASSERT_EQ(Probe::runRow(p.op).empty(), !p.op.tripleRuns());
    ASSERT_FALSE(Probe::jByTriple(p.op).empty());
    EXPECT_TRUE(std::ranges::equal(threaded.bodyStart(), p.op.bodyStart()));
    EXPECT_TRUE(std::ranges::equal(threaded.bodyEntries(), p.op.bodyEntries()));
    EXPECT_EQ(Probe::kByBody(threaded), Probe::kByBody(serial));
    EXPECT_EQ(Probe::entryRow(threaded), Probe::entryRow(p.op));
    EXPECT_EQ(Probe::runRow(threaded), Probe::runRow(p.op));
    EXPECT_EQ(threaded.tripleRuns(), p.op.tripleRuns());
    EXPECT_EQ(Probe::jByPlane(threaded), Probe::jByPlane(p.op));
    EXPECT_EQ(Probe::jByTriple(threaded), Probe::jByTriple(p.op));
    EXPECT_EQ(Probe::bodyByTriple(threaded), Probe::bodyByTriple(p.op));
    EXPECT_EQ(Probe::diagonals(threaded), Probe::diagonals(p.op));
}

// The index built on three threads (chunks of entries and rows copied in parallel) is the
// one built on the caller alone, array for array (a random operator of 6000 rows, above the
// parallel threshold).
TEST(RowOperator, BodyIndexDoesNotDependOnTheThreadCount) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    for (const bool sameBody : {true, false}) {
        SCOPED_TRACE(sameBody ? "contacts on one body twice" : "runs of three");
        test::RowOperatorShape shape{2000, true};
        shape.sameBody = sameBody;
        const LcpProblem p = test::rowOperatorProblem(shape, seed);
        // 2000 contacts, a tenth of them on one body twice, or none: runs of three or not.
        ASSERT_EQ(p.op.tripleRuns(), !sameBody);
        checkBodyIndexOnThreads(p);
    }
}

// productBytes (the bench's bandwidth bound of a pass) counts, from the rows themselves, what one
// product must read once: K of every row side on a body (six floats, plus the gather's two
// floats of padding), the entries' rows (one index a run of three, else one an entry), the
// body offsets, J (27 floats a contact of a whole triple group and 12 a row of the rest, or 12
// a row by plane), the rows' bodies (two a contact of a whole group and two a row of the rest,
// or two a row) and x; in the contact form, the impulses and arms in place of K, and a whole
// group's frame and arms (15 floats a contact) in place of its J. Fails when the tail of rows
// outside whole groups, the runs' shorter index, or any array is miscounted.
TEST(RowOperator, ProductBytesCountWhatOneProductReads) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    struct Case {
        bool friction, sameBody, triples, runs, form;
    };
    for (const Case c :
         {Case{true, false, true, true, false}, Case{true, true, true, false, false},
          Case{false, false, false, false, false}, Case{true, false, true, true, true}}) {
        test::RowOperatorShape shape{2001, c.friction};  // 6003 rows: a tail of three rows
        shape.sameBody = c.sameBody;
        shape.inverseMasses = c.form;
        const LcpProblem p = test::rowOperatorProblem(shape, seed);
        const RowOperator& op = p.op;
        ASSERT_EQ(op.triples(), c.triples);
        ASSERT_EQ(op.tripleRuns(), c.runs);
        ASSERT_EQ(op.contactForm(), c.form);
        const std::size_t n = static_cast<std::size_t>(op.rows());
        std::size_t entries = 0;
        for (int i = 0; i < op.rows(); ++i) {
            entries += (op.body(i, 0) >= 0 ? 1 : 0) + (op.body(i, 1) >= 0 ? 1 : 0);
        }
        const std::size_t groupRows = 3 * RowOperator::kTripleGroup;
        const std::size_t grouped = c.triples ? n / groupRows * groupRows : 0;
        const std::size_t tail = n - grouped;
        // The contact form reads, in place of K by entry, each contact's impulse (written and
        // read) and each run's arm; for the rows, each contact's frame and arms (five floats a
        // row of a whole group) and the tail's J rows and arms.
        const std::size_t gather = c.form ? 2 * 4 * (n / 3) + 4 * (entries / 3) : 6 * entries + 2;
        const std::size_t jFloats = !c.triples ? 12 * n
                                    : c.form   ? 5 * grouped + 12 * tail + 8 * (tail / 3)
                                               : 9 * grouped + 12 * tail;
        const std::size_t floats = gather + n + jFloats;
        const std::size_t ints = (c.runs ? entries / 3 : entries) +
                                 static_cast<std::size_t>(op.bodies() + 1) +
                                 (c.triples ? 2 * grouped / 3 + 2 * tail : 2 * n);
        EXPECT_EQ(op.productBytes(), 4 * (floats + ints))
            << "friction " << c.friction << ", same body " << c.sameBody;
    }
}

// An operator built again after its rows changed (a step of a rigid world: new J and K on the
// same bodies, then a contact on other bodies) has the index and layouts of a fresh operator
// with those rows. The second build keeps the body index it sorted (the rows' bodies are the
// same) and refills the layouts; the third sorts again. Fails when the kept index outlives a
// change of the rows' bodies, or when the layouts are not refilled with the new values.
TEST(RowOperator, RebuiltIndexMatchesAFreshBuildAfterTheRowsChange) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    LcpProblem p = test::rowOperatorProblem(test::RowOperatorShape{2000, true}, seed);
    RowOperator& op = p.op;
    const auto* ex = test::executor().get();
    std::uniform_real_distribution<float> scale(0.5f, 2.0f);
    // New values on the same bodies (a linear J_B stays J_A's negation: the triple layout).
    for (int i = 0; i < op.rows(); ++i) {
        const float f = scale(rng);
        for (float& v : op.jacobian(i)) {
            v *= f;
        }
        for (float& v : op.weighted(i)) {
            v *= f;
        }
    }
    op.buildBodyIndex(ex);
    SCOPED_TRACE("same bodies, new values");
    checkBodyIndexOnThreads(p);
    // One contact's three rows moved onto other bodies.
    std::uniform_int_distribution<int> contact(0, op.rows() / 3 - 1);
    std::uniform_int_distribution<int> body(0, op.bodies() - 1);
    const int c = contact(rng);
    const int a = body(rng);
    int b = body(rng);
    b = b == a ? (a + 1) % op.bodies() : b;
    for (int r = 0; r < 3; ++r) {
        op.setBodies(3 * c + r, a, op.body(3 * c + r, 1) >= 0 ? b : -1);
    }
    op.buildBodyIndex(ex);
    SCOPED_TRACE("contact " + std::to_string(c) + " on other bodies");
    checkBodyIndexOnThreads(p);
    ASSERT_EQ(op.validate(p.n, ex), "");
}

// The diagonals kept by buildBodyIndex are computeDiagonal's bit for bit (rows on one body, on
// two, on the same body twice, and on none), and a cfm changed after the index was built is
// not read from them: diagonal() then computes with the new cfm.
TEST(RowOperator, KeptDiagonalsAreTheComputedOnesUntilCfmChanges) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    LcpProblem p = test::rowOperatorProblem(test::RowOperatorShape{300, true}, seed);
    RowOperator& op = p.op;
    std::uniform_int_distribution<int> row(0, p.n - 1);
    const int same = row(rng);
    const int none = row(rng);
    op.setBodies(same, op.body(same, 0), op.body(same, 0));
    if (none != same) {
        op.setBodies(none, -1, -1);
    }
    op.buildBodyIndex(test::executor().get());
    ASSERT_EQ(RowOperatorProbe::diagonals(op).size(), static_cast<std::size_t>(p.n));
    for (int i = 0; i < p.n; ++i) {
        ASSERT_EQ(op.diagonal(i), op.computeDiagonal(i)) << "row " << i;
    }
    const float cached = op.diagonal(same);
    op.setCfm(op.cfm() + 0.25f);
    EXPECT_EQ(op.diagonal(same), op.computeDiagonal(same));
    EXPECT_NE(op.diagonal(same), cached);
}

// The contact layout written eight rows at a time holds what the rows say, bit for bit: for
// each whole group of eight contacts, component c of each contact's row r at (3 c + r) * 8 +
// lane (L = J_A's linear part, or J_B's negated where side A has no body; J_A's angular part;
// J_B's angular part), the group's bodies, and every row's kept diagonal computeDiagonal's. A
// random problem with contacts against the static world on either side (the absent side's J
// random), contacts naming one body on both sides (their groups take the scalar path) and rows
// after the last whole group.
TEST(RowOperator, TripleLayoutHoldsEachRowsComponentsAndDiagonals) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    for (const bool sameBody : {false, true}) {
        test::RowOperatorShape shape;
        shape.contacts = 250 + static_cast<int>(rng() % 7u);  // not a multiple of 8
        shape.friction = true;
        shape.sameBody = sameBody;
        LcpProblem p = test::rowOperatorProblem(shape, static_cast<unsigned>(rng()));
        RowOperator& op = p.op;
        // A side without a body may hold any J (it is never read): random linear parts, so that
        // L must come from the side that has one.
        std::uniform_real_distribution<float> any(-1.0f, 1.0f);
        for (int i = 0; i < p.n; ++i) {
            for (int side = 0; side < 2; ++side) {
                if (op.body(i, side) < 0) {
                    for (int c = 0; c < 3; ++c) {
                        op.jacobian(
                            i)[static_cast<std::size_t>(RowOperator::kBodyFloats * side + c)] =
                            any(rng);
                    }
                }
            }
        }
        op.buildBodyIndex(test::executor().get());
        ASSERT_TRUE(op.triples());
        constexpr int kG = RowOperator::kTripleGroup;
        const std::vector<float>& jt = RowOperatorProbe::jByTriple(op);
        const std::vector<std::int32_t>& bt = RowOperatorProbe::bodyByTriple(op);
        const int groups = p.n / (3 * kG);
        ASSERT_EQ(jt.size(), static_cast<std::size_t>(groups) * 27 * kG);
        for (int g = 0; g < groups; ++g) {
            for (int lane = 0; lane < kG; ++lane) {
                const int first = 3 * (kG * g + lane);
                ASSERT_EQ(bt[static_cast<std::size_t>(2 * kG * g + lane)], op.body(first, 0));
                ASSERT_EQ(bt[static_cast<std::size_t>(2 * kG * g + kG + lane)], op.body(first, 1));
                for (int r = 0; r < 3; ++r) {
                    const auto j = op.jacobian(first + r);
                    for (int c = 0; c < 9; ++c) {
                        const float want = c >= 6   ? j[static_cast<std::size_t>(c + 3)]
                                           : c >= 3 ? j[static_cast<std::size_t>(c)]
                                           : op.body(first, 0) >= 0
                                               ? j[static_cast<std::size_t>(c)]
                                               : -j[static_cast<std::size_t>(6 + c)];
                        const float got =
                            jt[static_cast<std::size_t>(27 * kG * g + (3 * c + r) * kG + lane)];
                        ASSERT_EQ(std::bit_cast<std::uint32_t>(got),
                                  std::bit_cast<std::uint32_t>(want))
                            << "group " << g << " lane " << lane << " row " << r << " component "
                            << c;
                    }
                }
            }
        }
        for (int i = 0; i < p.n; ++i) {
            ASSERT_EQ(std::bit_cast<std::uint32_t>(op.diagonal(i)),
                      std::bit_cast<std::uint32_t>(op.computeDiagonal(i)))
                << "row " << i;
        }
    }
}

// The contact form (RowOperator::contactForm): contacts with friction on two bodies or one
// against the static world, each body's W given. Its product agrees with the double-precision
// product through K to a few float roundings, and whatever splits the impulses, the gathers and
// the rows are computed in (one contact, body or row at a time, or in ranges that cut the
// eight-contact groups) they are the same bits, and so are the whole groups' rows by field.
TEST(RowOperator, ContactFormAgreesWithTheRowsAndDoesNotDependOnTheSplit) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    for (int round = 0; round < 4; ++round) {
        test::RowOperatorShape shape;
        shape.contacts = 100 + static_cast<int>(rng() % 300u);
        shape.friction = true;
        shape.sameBody = false;
        shape.inverseMasses = true;
        LcpProblem p = test::rowOperatorProblem(shape, static_cast<unsigned>(rng()));
        const RowOperator& op = p.op;
        ASSERT_TRUE(op.contactForm());
        ASSERT_EQ(op.validate(p.n), "");
        std::uniform_real_distribution<float> value(-1.0f, 1.0f);
        std::vector<float> x(static_cast<std::size_t>(p.n));
        for (float& v : x) {
            v = value(rng);
        }
        const auto uSize = static_cast<std::size_t>(RowOperator::kBodyFloats * op.bodies());
        std::vector<float> u(uSize), w(x.size());
        op.apply(x.data(), u.data(), w.data());
        std::vector<double> reference;
        applyRowOperatorDouble(op, x, reference);
        double scale = 0.0;
        for (const double v : reference) {
            scale = std::max(scale, std::abs(v));
        }
        for (std::size_t i = 0; i < x.size(); ++i) {
            ASSERT_NEAR(w[i], reference[i], 1e-5 * scale) << "row " << i;
        }
        // The impulses in pieces of 1-11 contacts, then the gathers body by body.
        const int contacts = p.n / 3;
        std::vector<float> whole(op.impulseFloats()), pieces(op.impulseFloats());
        op.contactImpulses(x.data(), whole.data(), 0, contacts);
        for (int first = 0; first < contacts;) {
            const int last = std::min(contacts, first + 1 + static_cast<int>(rng() % 11u));
            op.contactImpulses(x.data(), pieces.data(), first, last);
            first = last;
        }
        for (std::size_t i = 0; i < whole.size(); ++i) {
            ASSERT_EQ(std::bit_cast<std::uint32_t>(pieces[i]),
                      std::bit_cast<std::uint32_t>(whole[i]))
                << "impulse float " << i;
        }
        std::vector<float> uOne(uSize);
        for (int b = 0; b < op.bodies(); ++b) {
            op.gatherBodies(x.data(), uOne.data(), b, b + 1, pieces.data());
        }
        for (std::size_t i = 0; i < uSize; ++i) {
            ASSERT_EQ(std::bit_cast<std::uint32_t>(uOne[i]), std::bit_cast<std::uint32_t>(u[i]))
                << "body float " << i;
        }
        // The rows in pieces of 1-40 rows: pieces inside a group of eight contacts take the
        // one-row loop, longer ones the groups, and a row is the same bits either way.
        std::vector<float> wPieces(x.size());
        for (int first = 0; first < p.n;) {
            const int last = std::min(p.n, first + 1 + static_cast<int>(rng() % 40u));
            op.applyRows(x.data(), u.data(), wPieces.data(), first, last);
            first = last;
        }
        for (std::size_t i = 0; i < x.size(); ++i) {
            ASSERT_EQ(std::bit_cast<std::uint32_t>(wPieces[i]), std::bit_cast<std::uint32_t>(w[i]))
                << "row " << i;
        }
#if defined(__AVX2__) && defined(__FMA__)
        // The whole groups by field, in two ranges: group g's row 3 q + r at 24 g + 8 r + q.
        constexpr int kG = RowOperator::kTripleGroup;
        const int groups = p.n / (3 * kG);
        std::vector<float> byField(x.size(), std::numeric_limits<float>::quiet_NaN());
        const int cut = static_cast<int>(rng() % static_cast<unsigned>(groups + 1));
        op.applyGroupsByField(x.data(), u.data(), byField.data(), 0, cut);
        op.applyGroupsByField(x.data(), u.data(), byField.data(), cut, groups);
        for (int g = 0; g < groups; ++g) {
            for (int q = 0; q < kG; ++q) {
                for (int r = 0; r < 3; ++r) {
                    const auto at = static_cast<std::size_t>(3 * kG * g + kG * r + q);
                    const auto row = static_cast<std::size_t>(3 * kG * g + 3 * q + r);
                    ASSERT_EQ(std::bit_cast<std::uint32_t>(byField[at]),
                              std::bit_cast<std::uint32_t>(w[row]))
                        << "group " << g << " contact " << q << " row " << r;
                }
            }
        }
        for (std::size_t i = static_cast<std::size_t>(3 * kG * groups); i < x.size(); ++i) {
            ASSERT_TRUE(std::isnan(byField[i])) << "row " << i << " after the groups written";
        }
#endif
    }
}

// The contact form is refused, and the product still agrees with the rows through K, when a
// contact's angular part is not its arm times its direction (one row's moved by 1e-3), when
// no W is given, or when a contact names one body on both sides; gathering a contact-form
// operator without impulses, or asking another for its rows by field, is refused.
TEST(RowOperator, ContactFormOnlyForRowsOfThatForm) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    test::RowOperatorShape shape;
    shape.contacts = 203;  // three contacts after the last group of eight
    shape.friction = true;
    shape.sameBody = false;
    shape.inverseMasses = true;
    const auto productMatches = [&](const LcpProblem& p) {
        std::vector<float> x(static_cast<std::size_t>(p.n));
        std::uniform_real_distribution<float> value(-1.0f, 1.0f);
        for (float& v : x) {
            v = value(rng);
        }
        std::vector<float> u(static_cast<std::size_t>(RowOperator::kBodyFloats * p.op.bodies()));
        std::vector<float> w(x.size());
        p.op.apply(x.data(), u.data(), w.data());
        std::vector<double> reference;
        applyRowOperatorDouble(p.op, x, reference);
        double worst = 0.0, scale = 0.0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            worst = std::max(worst, std::abs(w[i] - reference[i]));
            scale = std::max(scale, std::abs(reference[i]));
        }
        return worst <= 1e-5 * scale;
    };
    LcpProblem p = test::rowOperatorProblem(shape, static_cast<unsigned>(rng()));
    ASSERT_TRUE(p.op.contactForm());
    std::vector<float> u(static_cast<std::size_t>(RowOperator::kBodyFloats * p.op.bodies()));
    std::vector<float> x(static_cast<std::size_t>(p.n), 1.0f);
    EXPECT_THROW(p.op.gatherBodies(x.data(), u.data(), 0, p.op.bodies()), std::invalid_argument);
    std::vector<float> w(x.size());
    // One angular component of a row with a body on side A moved: a random row in the groups
    // of eight contacts, or one of the last contacts' rows.
    for (const bool tail : {false, true}) {
        LcpProblem moved = p;
        int row = tail ? p.n - 1 - static_cast<int>(rng() % 9u)
                       : static_cast<int>(rng() % static_cast<unsigned>(p.n - 9));
        while (moved.op.body(row, 0) < 0) {
            row = tail ? row - 3 : (row + 1) % (p.n - 9);
        }
        moved.op.jacobian(row)[3 + rng() % 3u] += 1e-3f;
        moved.op.buildBodyIndex();
        EXPECT_FALSE(moved.op.contactForm()) << "row " << row;
        EXPECT_TRUE(productMatches(moved)) << "row " << row;
    }
    LcpProblem noMasses = test::rowOperatorProblem(shape, static_cast<unsigned>(rng()));
    noMasses.op.clearBodyInverseMasses();
    noMasses.op.buildBodyIndex();
    EXPECT_FALSE(noMasses.op.contactForm());
    EXPECT_TRUE(productMatches(noMasses));
    // Rows by field are the contact form's only.
    EXPECT_THROW(noMasses.op.applyGroupsByField(x.data(), u.data(), w.data(), 0, 1),
                 std::logic_error);
    shape.sameBody = true;
    LcpProblem same = test::rowOperatorProblem(shape, static_cast<unsigned>(rng()));
    EXPECT_FALSE(same.op.contactForm());
    EXPECT_TRUE(productMatches(same));
}

// Validation on three threads names the same first bad row as on the caller alone: a random
// 6000-row problem with a zero J row (diagonal 0) and a row with lo > hi after it, both at fresh
// random places (the diagonal's message when it comes first or on the same row, the bounds'
// otherwise); and a row whose diagonal is infinite, named.
TEST(RowOperator, ValidationOnThreadsReportsTheFirstBadRow) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    LcpProblem p = test::rowOperatorProblem(test::RowOperatorShape{2000, true}, seed);
    ASSERT_EQ(p.validate(test::executor().get()), "");
    std::uniform_int_distribution<int> row(0, p.n - 1);
    const int zero = row(rng);
    const int crossed = row(rng);
    std::ranges::fill(p.op.jacobian(zero), 0.0f);
    p.op.setCfm(0.0f);
    p.op.buildBodyIndex();
    p.lo[static_cast<std::size_t>(crossed)] = 1.0f;
    p.hi[static_cast<std::size_t>(crossed)] = 0.0f;
    const std::string alone = p.validate();
    EXPECT_EQ(p.validate(test::executor().get()), alone);
    EXPECT_NE(
        alone.find(zero <= crossed ? "A(" + std::to_string(zero) + "," + std::to_string(zero) + ")"
                                   : "row " + std::to_string(crossed) + ": lo > hi"),
        std::string::npos)
        << alone;
    // A row whose diagonal overflows to infinity, alone: named too.
    LcpProblem huge = test::rowOperatorProblem(test::RowOperatorShape{2000, true}, seed + 1);
    const int big = row(rng);
    const std::size_t at = huge.op.body(big, 0) >= 0 ? 0 : RowOperator::kBodyFloats;
    huge.op.jacobian(big)[at] = 1e30f;
    huge.op.weighted(big)[at] = 1e30f;
    huge.op.buildBodyIndex();
    ASSERT_TRUE(std::isinf(huge.op.diagonal(big)));
    const std::string named = huge.validate(test::executor().get());
    EXPECT_NE(named.find("A(" + std::to_string(big) + "," + std::to_string(big) + ")"),
              std::string::npos)
        << named;
}

// The gather loads each body entry's six K floats with an eight-float load (lanes 6 and 7 hold
// the next entry's first floats, or kByBody's padding after the last): what those lanes sum
// must never reach u. With NaN in the padding the body sums are the same bits, and a gather of
// bodies [first, last) writes their six floats each and nothing around them.
TEST(RowOperator, GatherWritesOnlyItsBodiesSixSums) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    test::RowOperatorShape shape;
    shape.contacts = 40 + static_cast<int>(rng() % 60u);
    shape.friction = true;
    shape.grouped = false;
    shape.sameBody = false;
    const LcpProblem p = test::rowOperatorProblem(shape, static_cast<unsigned>(rng()));
    ASSERT_TRUE(p.op.tripleRuns());
    RowOperator op = p.op;
    std::vector<float>& kByBody = RowOperatorProbe::kByBody(op);
    constexpr int kPad = RowOperatorProbe::kByBodyPad;
    ASSERT_EQ(kByBody.size(), RowOperator::kBodyFloats * op.bodyEntries().size() + kPad);
    const auto n = static_cast<std::size_t>(p.n);
    std::vector<float> x(n);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (float& v : x) {
        v = value(rng);
    }
    constexpr std::size_t kU = RowOperator::kBodyFloats;
    const std::size_t uSize = kU * static_cast<std::size_t>(op.bodies());
    std::vector<float> clean(uSize);
    op.gatherBodies(x.data(), clean.data(), 0, op.bodies());
    std::fill(kByBody.end() - kPad, kByBody.end(), std::numeric_limits<float>::quiet_NaN());
    constexpr float kSentinel = -12345.0f;
    for (int trial = 0; trial < 20; ++trial) {
        const int first = static_cast<int>(rng() % static_cast<unsigned>(op.bodies()));
        const int last =
            first + 1 + static_cast<int>(rng() % static_cast<unsigned>(op.bodies() - first));
        std::vector<float> u(uSize + kU, kSentinel);  // one body's floats of room after the last
        op.gatherBodies(x.data(), u.data(), first, last);
        for (std::size_t c = 0; c < u.size(); ++c) {
            const bool inside = c >= kU * static_cast<std::size_t>(first) &&
                                c < kU * static_cast<std::size_t>(last);
            if (inside) {
                ASSERT_EQ(u[c], clean[c])
                    << "bodies [" << first << ", " << last << "), float " << c;
            } else {
                ASSERT_EQ(u[c], kSentinel)
                    << "bodies [" << first << ", " << last << "), float " << c;
            }
        }
    }
}

// Local step scales (useLocalStepDiagonals): each body's bound lambda_b lies between the exact
// top eigenvalue of its part of A scaled by its own diagonal (a 6 x 6 eigenproblem in double,
// Eigen) and 6^(1/32) times it, and the diagonal P they make bounds A from above: the top
// eigenvalue of P^(-1/2) A P^(-1/2) (double, Eigen) is at most 1 up to float rounding, so
// Jacobi steps omega / P_ii converge for omega < 2. Random blocks with friction, rows on one
// body twice and against the static world, cfm 1 %; the same on three threads.
TEST(RowOperator, LocalStepDiagonalsBoundAFromAbove) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    for (int k = 0; k < 6; ++k) {
        test::RowOperatorShape shape;
        shape.contacts = 20 + static_cast<int>(rng() % 60u);
        shape.friction = (k & 1) != 0;
        shape.grouped = (k & 2) != 0;
        LcpProblem p = test::rowOperatorProblem(shape, static_cast<unsigned>(rng()));
        RowOperator& op = p.op;
        op.buildBodyIndex();
        const auto n = static_cast<std::size_t>(p.n);
        // Each body's exact scaled top eigenvalue: S = D^(-1/2) J_b W_b J_b^T D^(-1/2) over
        // its entries (a row on the body twice counts as two entries, as the bound takes it).
        float worst = 0.0f;
        std::vector<double> exact(static_cast<std::size_t>(op.bodies()), 0.0);
        for (int b = 0; b < op.bodies(); ++b) {
            const auto entries = op.bodyEntries().subspan(
                static_cast<std::size_t>(op.bodyStart()[static_cast<std::size_t>(b)]),
                static_cast<std::size_t>(op.bodyStart()[static_cast<std::size_t>(b) + 1] -
                                         op.bodyStart()[static_cast<std::size_t>(b)]));
            Eigen::Matrix<double, 6, 6> t = Eigen::Matrix<double, 6, 6>::Zero();
            for (const std::int32_t e : entries) {
                const int row = e >> 1;
                const int side = e & 1;
                Eigen::Matrix<double, 6, 1> j;
                Eigen::Matrix<double, 6, 1> kk;
                for (int q = 0; q < 6; ++q) {
                    j[q] = op.jacobian(row)[static_cast<std::size_t>(6 * side + q)];
                    kk[q] = op.weighted(row)[static_cast<std::size_t>(6 * side + q)];
                }
                t += kk * j.transpose() / j.dot(kk);
            }
            // T = W^(1/2) H W^(-1/2): real eigenvalues, those of the symmetric H.
            const Eigen::EigenSolver<Eigen::Matrix<double, 6, 6>> es(t);
            exact[static_cast<std::size_t>(b)] = es.eigenvalues().real().maxCoeff();
            const double bound = op.localStepBound(b);
            const double lam = exact[static_cast<std::size_t>(b)];
            EXPECT_GE(bound, lam * (1.0 - 1e-5)) << "body " << b;
            EXPECT_LE(bound, lam * std::pow(6.0, 1.0 / 32.0) * (1.0 + 1e-5)) << "body " << b;
            worst = std::max(worst, static_cast<float>(bound));
        }
        LcpProblem threaded = p;
        EXPECT_EQ(op.useLocalStepDiagonals(), worst);
        EXPECT_EQ(threaded.op.useLocalStepDiagonals(test::executor().get()), worst);
        const std::vector<float> dense = denseFromRowOperator(op);
        Eigen::MatrixXd scaled(p.n, p.n);
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(threaded.op.diagonal(static_cast<int>(i)), op.diagonal(static_cast<int>(i)));
            ASSERT_GT(op.diagonal(static_cast<int>(i)), 0.0f) << "row " << i;
            for (std::size_t j = 0; j < n; ++j) {
                scaled(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
                    static_cast<double>(dense[i * n + j]) /
                    std::sqrt(static_cast<double>(op.diagonal(static_cast<int>(i))) *
                              static_cast<double>(op.diagonal(static_cast<int>(j))));
            }
        }
        const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(scaled, Eigen::EigenvaluesOnly);
        const double top = es.eigenvalues().maxCoeff();
        EXPECT_LE(top, 1.0 + 1e-4) << "P does not bound A: Jacobi at omega near 2 diverges";
        // Not a vacuous bound: P is within a small factor of what A needs.
        EXPECT_GE(top, 0.2) << "P far above A: the steps are needlessly short";
    }
}

// Bit-equal float vectors (NaN included), or the first index where they differ.
::testing::AssertionResult sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) {
        return ::testing::AssertionFailure() << "sizes " << a.size() << " and " << b.size();
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(b[i])) {
            return ::testing::AssertionFailure()
                   << "float " << i << ": " << a[i] << " and " << b[i];
        }
    }
    return ::testing::AssertionSuccess();
}

// The contact form handed each whole group's rows as they are made (beginContactForm,
// fillContactGroup, finishContactForm), without the operator holding them, is the operator
// buildBodyIndex makes from the same rows: the same layouts, diagonals, products and Jacobi
// iterates, bit for bit, with a tail of 0-7 contacts after the last whole group and products
// taken in pieces that start inside a group (the one-contact loops then read the frame from
// the group). The groups' own rows are either not held by the operator (as the assembler
// builds it: resizeContactForm) or NaN there (test::dropContactFormRows), so a path that
// still read them would throw or differ; holdAllRows then brings back the operator that holds
// every row, the rows after the groups kept.
TEST(RowOperator, ContactFormWithoutRowsIsTheRowsBuildBitForBit) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    for (const int contacts : {8, 37, 40, 100 + static_cast<int>(rng() % 300u)}) {
        SCOPED_TRACE(std::to_string(contacts) + " contacts");
        test::RowOperatorShape shape;
        shape.contacts = contacts;
        shape.friction = true;
        shape.sameBody = false;
        shape.inverseMasses = true;
        const LcpProblem p = test::rowOperatorProblem(shape, static_cast<unsigned>(rng()));
        ASSERT_TRUE(p.op.contactForm());
        for (const test::GroupRows mode : {test::GroupRows::kNotHeld, test::GroupRows::kNaN}) {
            SCOPED_TRACE(mode == test::GroupRows::kNotHeld ? "groups' rows not held"
                                                           : "groups' rows NaN");
            LcpProblem q = p;
#if !(defined(__AVX2__) && defined(__FMA__))
            // Without AVX2 the groups are not taken from outside: the caller writes the rows.
            EXPECT_FALSE(test::dropContactFormRows(q, test::executor().get(), mode));
            continue;
#endif
            ASSERT_TRUE(test::dropContactFormRows(q, test::executor().get(), mode));
            EXPECT_TRUE(p.op.hasRows());
            EXPECT_FALSE(q.op.hasRows());
            const int groupEnd =
                3 * RowOperator::kTripleGroup * (contacts / RowOperator::kTripleGroup);
            if (mode == test::GroupRows::kNotHeld) {
                // The groups' J and K are not held: 2 x 12 floats a row fewer, and asking for one
                // of those rows is an error, not a read past the storage.
                EXPECT_EQ(q.op.rowsHeldFrom(), groupEnd);
                EXPECT_EQ(p.op.bytes() - q.op.bytes(), 2 * sizeof(float) *
                                                           RowOperator::kJacobianFloats *
                                                           static_cast<std::size_t>(groupEnd));
                EXPECT_THROW((void)std::as_const(q.op).jacobian(groupEnd - 1), std::logic_error);
                EXPECT_THROW((void)q.op.weighted(0), std::logic_error);
                EXPECT_THROW(q.op.buildBodyIndex(), std::logic_error);
            }
            EXPECT_TRUE(q.op.contactForm());
            EXPECT_EQ(q.validate(), "");
            using Probe = RowOperatorProbe;
            EXPECT_TRUE(sameBits(Probe::jByTriple(q.op), Probe::jByTriple(p.op)));
            EXPECT_TRUE(sameBits(Probe::diagonals(q.op), Probe::diagonals(p.op)));
            EXPECT_TRUE(sameBits(Probe::contactArms(q.op), Probe::contactArms(p.op)));
            EXPECT_TRUE(sameBits(Probe::armByRun(q.op), Probe::armByRun(p.op)));
            EXPECT_EQ(Probe::bodyByTriple(q.op), Probe::bodyByTriple(p.op));
            EXPECT_EQ(Probe::runRow(q.op), Probe::runRow(p.op));
            EXPECT_EQ(q.op.bodyStart().size(), p.op.bodyStart().size());
            EXPECT_TRUE(std::equal(q.op.bodyEntries().begin(), q.op.bodyEntries().end(),
                                   p.op.bodyEntries().begin(), p.op.bodyEntries().end()));
            EXPECT_EQ(q.op.productBytes(), p.op.productBytes());

            std::uniform_real_distribution<float> value(-1.0f, 1.0f);
            std::vector<float> x(static_cast<std::size_t>(p.n));
            for (float& v : x) {
                v = value(rng);
            }
            const auto uSize = static_cast<std::size_t>(RowOperator::kBodyFloats * p.op.bodies());
            std::vector<float> uP(uSize), wP(x.size()), uQ(uSize), wQ(x.size());
            p.op.apply(x.data(), uP.data(), wP.data());
            q.op.apply(x.data(), uQ.data(), wQ.data());
            EXPECT_TRUE(sameBits(uQ, uP));
            EXPECT_TRUE(sameBits(wQ, wP));
            // Impulses from contact 3 on in pieces of 1-11 (a piece starting inside a group takes
            // the one-contact loop there), rows in pieces of 1-40 from row 5.
            std::vector<float> impP(p.op.impulseFloats()), impQ(q.op.impulseFloats());
            p.op.contactImpulses(x.data(), impP.data(), 3, contacts);
            for (int first = 3; first < contacts;) {
                const int last = std::min(contacts, first + 1 + static_cast<int>(rng() % 11u));
                q.op.contactImpulses(x.data(), impQ.data(), first, last);
                first = last;
            }
            EXPECT_TRUE(sameBits(impQ, impP));
            std::vector<float> rowsQ(x.size());
            for (int first = 5; first < p.n;) {
                const int last = std::min(p.n, first + 1 + static_cast<int>(rng() % 40u));
                q.op.applyRows(x.data(), uP.data(), rowsQ.data(), first, last);
                first = last;
            }
            std::fill(rowsQ.begin(), rowsQ.begin() + 5, 0.0f);
            std::vector<float> rowsP(x.size());
            p.op.applyRows(x.data(), uP.data(), rowsP.data(), 5, p.n);
            std::fill(rowsP.begin(), rowsP.begin() + 5, 0.0f);
            EXPECT_TRUE(sameBits(rowsQ, rowsP));

            // Projected Jacobi, 30 passes from zero, on three threads.
            auto solver = makeCpuLcpSolver(test::executor());
            LcpOptions o;
            o.omega = 0.3f;
            o.maxIterations = 30;
            o.tolerance = 0.0f;
            std::vector<float> xP(x.size(), 0.0f), xQ(x.size(), 0.0f);
            const LcpReport rP = solver->solve(p, xP, o);
            const LcpReport rQ = solver->solve(q, xQ, o);
            ASSERT_EQ(rP.error, "");
            ASSERT_EQ(rQ.error, "");
            EXPECT_EQ(rQ.iterations, rP.iterations);
            EXPECT_TRUE(sameBits(xQ, xP));

            if (mode == test::GroupRows::kNotHeld) {
                // With cfm changed the kept diagonals are stale, and a group row's cannot be
                // made again without its rows: an error, not a read outside the storage.
                if (groupEnd > 0) {
                    const float cfm = q.op.cfm();
                    q.op.setCfm(cfm + 1e-3f);
                    EXPECT_THROW((void)q.op.diagonal(0), std::logic_error);
                    q.op.setCfm(cfm);
                    EXPECT_EQ(q.op.diagonal(0), p.op.diagonal(0));
                }
                // The assembler's fallback: every row held again with the tail's rows in place,
                // the groups' written, and buildBodyIndex makes p's operator.
                q.op.holdAllRows();
                EXPECT_EQ(q.op.rowsHeldFrom(), 0);
                for (int r = 0; r < p.n; ++r) {
                    if (r >= groupEnd) {
                        EXPECT_TRUE(std::equal(q.op.jacobian(r).begin(), q.op.jacobian(r).end(),
                                               p.op.jacobian(r).begin()))
                            << "row " << r;
                        EXPECT_TRUE(std::equal(q.op.weighted(r).begin(), q.op.weighted(r).end(),
                                               p.op.weighted(r).begin()))
                            << "row " << r;
                    }
                    std::copy(p.op.jacobian(r).begin(), p.op.jacobian(r).end(),
                              q.op.jacobian(r).begin());
                    std::copy(p.op.weighted(r).begin(), p.op.weighted(r).end(),
                              q.op.weighted(r).begin());
                }
                q.op.buildBodyIndex(test::executor().get());
                EXPECT_TRUE(q.op.hasRows());
                EXPECT_EQ(q.validate(), "");
                EXPECT_TRUE(sameBits(Probe::jByTriple(q.op), Probe::jByTriple(p.op)));
                EXPECT_TRUE(sameBits(Probe::armByRun(q.op), Probe::armByRun(p.op)));
                EXPECT_EQ(q.op.bytes(), p.op.bytes());
            }
        }
    }
}

// What reads an operator's J and K refuses one built without them: Gauss-Seidel (an error
// report), the double-precision product, the local step scales (a logic error), validation
// once cfm changed (the kept diagonals are then stale and cannot be recomputed). A group or a
// tail contact whose frame is not orthonormal, or a contact naming one body on both sides,
// is not of the contact form: the build without rows says so (the caller then writes the
// rows).
TEST(RowOperator, OperatorWithoutRowsIsRefusedWhereRowsAreRead) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    test::RowOperatorShape shape;
    shape.contacts = 29;  // 3 groups and 5 contacts after them
    shape.friction = true;
    shape.sameBody = false;
    shape.inverseMasses = true;
    const LcpProblem p = test::rowOperatorProblem(shape, seed);
    ASSERT_TRUE(p.op.contactForm());
    LcpProblem q = p;
#if !(defined(__AVX2__) && defined(__FMA__))
    GTEST_SKIP() << "without AVX2 no operator is built without rows (the build writes them)";
#endif
    ASSERT_TRUE(test::dropContactFormRows(q));
    auto solver = makeCpuLcpSolver(test::executor());
    LcpOptions gs;
    gs.method = LcpMethod::kGaussSeidel;
    gs.omega = kGaussSeidelOmega;
    std::vector<float> x(static_cast<std::size_t>(p.n), 0.0f);
    EXPECT_EQ(solver->solve(p, x, gs).error, "");
    std::fill(x.begin(), x.end(), 0.0f);
    EXPECT_NE(solver->solve(q, x, gs).error.find("Gauss-Seidel reads the operator's J and K"),
              std::string::npos);
    std::vector<double> w;
    EXPECT_NO_THROW(applyRowOperatorDouble(p.op, x, w));
    EXPECT_THROW(applyRowOperatorDouble(q.op, x, w), std::logic_error);
    EXPECT_THROW(q.op.localStepBound(0), std::logic_error);
    {
        LcpProblem r = q;
        EXPECT_THROW(r.op.useLocalStepDiagonals(), std::logic_error);
        r.op.setCfm(2.0f * r.op.cfm());
        EXPECT_NE(r.validate().find("without rows"), std::string::npos) << r.validate();
    }
    // One contact's normal row scaled by 1.01 (its frame no longer orthonormal): in a group,
    // then after the last one; then a contact naming one body on both sides.
    for (const int contact : {4, 26}) {
        LcpProblem bad = p;
        for (int c = 0; c < RowOperator::kJacobianFloats; ++c) {
            bad.op.jacobian(3 * contact)[static_cast<std::size_t>(c)] *= 1.01f;
        }
        EXPECT_FALSE(test::dropContactFormRows(bad)) << "contact " << contact;
        EXPECT_FALSE(bad.op.contactForm()) << "contact " << contact;
    }
    for (const int contact : {4, 26}) {
        LcpProblem bad = p;
        const std::int32_t b = bad.op.body(3 * contact, 0) >= 0 ? bad.op.body(3 * contact, 0) : 0;
        for (int r = 0; r < 3; ++r) {
            bad.op.setBodies(3 * contact + r, b, b);
        }
        EXPECT_FALSE(test::dropContactFormRows(bad)) << "contact " << contact;
    }
}

}  // namespace
}  // namespace ww::lcp
