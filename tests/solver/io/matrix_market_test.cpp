#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "solver/io/matrix_market.h"
#include "support/seed.h"

namespace ww {
namespace {

namespace fs = std::filesystem;

class MatrixMarketTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("ww_mm_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string write(const std::string& name, const std::string& text) {
        const std::string p = (m_dir / name).string();
        std::ofstream(p) << text;
        return p;
    }
    // Expects reading `text` to fail with a message naming the file and `line`.
    void expectError(const std::string& text, int line, const std::string& fragment) {
        const std::string p = write("bad.mtx", text);
        auto r = io::readMatrixMarket(p);
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_EQ(r.error().kind, ErrorKind::kInput);
        EXPECT_NE(r.error().message.find(p + ":" + std::to_string(line) + ":"), std::string::npos)
            << r.error().message;
        EXPECT_NE(r.error().message.find(fragment), std::string::npos) << r.error().message;
    }
    fs::path m_dir;
};

TEST_F(MatrixMarketTest, ReadsCoordinateGeneral) {
    auto r = io::readMatrixMarket(write("a.mtx",
                                        "%%MatrixMarket matrix coordinate real general\n"
                                        "% comment\n3 2 3\n1 1 1.5\n3 2 -2\n2 1 4e-1\n"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->rows, 3);
    EXPECT_EQ(r->cols, 2);
    ASSERT_EQ(r->nnz(), 3u);
    const std::vector<double> d = r->toDense();
    EXPECT_EQ(d, (std::vector<double>{1.5, 0, 0.4, 0, 0, -2}));
}

TEST_F(MatrixMarketTest, SymmetricIsMirrored) {
    auto r = io::readMatrixMarket(write("s.mtx",
                                        "%%MatrixMarket matrix coordinate real symmetric\n"
                                        "2 2 2\n1 1 4\n2 1 -1\n"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->toDense(), (std::vector<double>{4, -1, -1, 0}));
}

TEST_F(MatrixMarketTest, ArrayIsColumnMajor) {
    auto r = io::readMatrixMarket(
        write("d.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->toDense(), (std::vector<double>{1, 3, 2, 4}));
    auto s = io::readMatrixMarket(
        write("ds.mtx", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n"));
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->toDense(), (std::vector<double>{1, 2, 2, 3}));
}

TEST_F(MatrixMarketTest, MalformedInputsNameFileAndLine) {
    expectError("hello\n", 1, "banner");
    expectError("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1\n", 1, "complex");
    expectError("%%MatrixMarket matrix coordinate real general\n2 2\n", 2, "ROWS COLS ENTRIES");
    expectError("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n", 3, "outside");
    expectError("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n", 3,
                "ROW COL VALUE");
    // (The comment makes the file long enough for two entries: else the size line is the error.)
    expectError("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n% no second entry\n",
                4, "ends after 1");
    expectError("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n", 4,
                "more entries");
    expectError("%%MatrixMarket matrix coordinate real general\n-2 2 1\n1 1 1\n", 2,
                "out of range");
    expectError("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", 3,
                "lower triangle");
    expectError("%%MatrixMarket matrix array real general\n2 1\n1\nnan\n", 4, "one number");
}

// A file of a few bytes announcing a 300000x1006 array made the reader reserve 2.4 GB before a
// single number (std::bad_alloc under a 2 GB address-space limit). A size line announcing more
// entries than the rest of the file can hold is an error at that line before any allocation.
TEST_F(MatrixMarketTest, SizeLineBeyondTheFileIsAnError) {
    expectError("%%MatrixMarket matrix array real general\n300000 1006\n1\n2\n", 2,
                "announces 301800000 entries");
    expectError("%%MatrixMarket matrix coordinate real general\n100 100 40\n1 1 1\n2 2 1\n", 2,
                "announces 40 entries");
    expectError("%%MatrixMarket matrix array real symmetric\n1000 1000\n1\n", 2,
                "announces 500500 entries");
    // The shortest lines that hold the announced entries, the last without its newline, pass.
    auto a = io::readMatrixMarket(
        write("tight.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3"));
    ASSERT_TRUE(a.ok()) << a.error().message;
    EXPECT_EQ(a->toDense(), (std::vector<double>{1, 2, 3}));
    auto c = io::readMatrixMarket(
        write("tightc.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 5\n2 2 7"));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->toDense(), (std::vector<double>{5, 0, 0, 7}));
}

TEST_F(MatrixMarketTest, VectorSizeMismatchIsReported) {
    const std::string p =
        write("b.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n");
    auto ok = io::readMatrixMarketVector(p, 3);
    ASSERT_TRUE(ok.ok());
    auto bad = io::readMatrixMarketVector(p, 4);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("3 entries"), std::string::npos) << bad.error().message;
}

TEST_F(MatrixMarketTest, VectorRoundTripOnRandomValues) {
    std::mt19937 rng(ww::test::freshSeed());
    std::uniform_real_distribution<double> dist(-1e6, 1e6);
    std::vector<double> v(257);
    for (double& x : v) {
        x = dist(rng);
    }
    const std::string p = (m_dir / "x.mtx").string();
    ASSERT_TRUE(io::writeMatrixMarketVector(p, v).ok());
    auto back = io::readMatrixMarketVector(p, 257);
    ASSERT_TRUE(back.ok()) << back.error().message;
    for (std::size_t i = 0; i < v.size(); ++i) {
        // Written with 9 significant digits: float precision is what the solvers use.
        EXPECT_NEAR((*back)[i], v[i], 1e-8 * std::abs(v[i]));
    }
}

TEST_F(MatrixMarketTest, UnwritablePathsAreRejectedUpFront) {
    EXPECT_FALSE(io::checkWritable("/nonexistent-dir/out.json", "trace").ok());
    EXPECT_FALSE(io::checkWritable(m_dir.string(), "trace").ok());
    const std::string fresh = (m_dir / "new.json").string();
    EXPECT_TRUE(io::checkWritable(fresh, "trace").ok());
    EXPECT_FALSE(fs::exists(fresh)) << "the check must not leave a file behind";
}

}  // namespace
}  // namespace ww
