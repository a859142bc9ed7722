// State files carry a checksum: a file with any one byte changed is refused as corrupted
// (exit 2) instead of loading a state no run produced, and an intact one continues the run bit
// for bit. Fresh random positions and byte values each run (the seed is printed on failure).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "app/cli/scene_registry.h"
#include "app/cli/state_file.h"
#include "support/run_command.h"
#include "support/seed.h"

namespace ww::app {
namespace {

namespace fs = std::filesystem;

std::string readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeBytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

// The last "hash" line of a headless run's output.
std::string hashOf(const std::string& output) {
    const auto at = output.rfind("  hash      ");
    return at == std::string::npos ? std::string() : output.substr(at + 12, 16);
}

// One byte at `at` changed to another value.
std::string flipped(std::string bytes, std::size_t at, std::mt19937& rng) {
    const int x = std::uniform_int_distribution<int>(1, 255)(rng);
    bytes[at] = static_cast<char>(static_cast<unsigned char>(bytes[at]) ^ x);
    return bytes;
}

class StateFileCorruption : public testing::Test {
  protected:
    void SetUp() override {
        m_dir = fs::path(testing::TempDir()) / ("ww_corrupt_" + std::to_string(::getpid()));
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string file(const std::string& name) const { return (m_dir / name).string(); }

    fs::path m_dir;
};

// `headless --snapshot-load` of a wall state with one byte changed at fresh random positions
// exits 2 saying the file is corrupted; the intact file continues the run to the hash of the
// straight run.
TEST_F(StateFileCorruption, AChangedByteExits2AndTheIntactFileReproducesTheRun) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const std::string exe = WW_WAVEWALL_EXE;
    const std::string common = exe + " headless --backend cpu --scene wall --wall 4x3";
    const std::string saved = file("wall.bin");
    const auto first =
        test::runShell(common + " --event 0:shoot --steps 5 --snapshot-save " + saved);
    ASSERT_EQ(first.code, 0) << first.output;
    const std::string bytes = readBytes(saved);
    ASSERT_GT(bytes.size(), 100u);

    const auto resumed = test::runShell(common + " --steps 7 --snapshot-load " + saved);
    const auto straight = test::runShell(common + " --event 0:shoot --steps 12");
    ASSERT_EQ(resumed.code, 0) << resumed.output;
    ASSERT_EQ(straight.code, 0) << straight.output;
    ASSERT_FALSE(hashOf(straight.output).empty()) << straight.output;
    EXPECT_EQ(hashOf(resumed.output), hashOf(straight.output));

    const std::string bad = file("wall_changed.bin");
    for (int k = 0; k < 6; ++k) {
        const std::size_t at = std::uniform_int_distribution<std::size_t>(0, bytes.size() - 1)(rng);
        writeBytes(bad, flipped(bytes, at, rng));
        const auto r = test::runShell(common + " --steps 2 --snapshot-load " + bad);
        EXPECT_EQ(r.code, 2) << "byte " << at << " of " << bytes.size() << "\n" << r.output;
        EXPECT_NE(r.output.find("--snapshot-load"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("corrupted"), std::string::npos)
            << "byte " << at << " of " << bytes.size() << "\n"
            << r.output;
    }
}

// In process, every byte of a state of each scene changed in turn (to a fresh random other
// value): each is refused as corrupted and leaves the scene's state as it was.
TEST_F(StateFileCorruption, EveryChangedByteOfEverySceneIsRefused) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    SceneOptionValues v;
    v.wall = "3x2";
    v.grid = "16x16";
    v.poolSize = 6;
    v.threads = std::string("1");  // not operator=(const char*): GCC 12 -Wrestrict false positive
    for (const std::string name : {"wall", "water", "splash"}) {
        SCOPED_TRACE(name);
        auto scene = makeScene(name, v, seed);
        ASSERT_TRUE(scene.ok()) << scene.error().message;
        StepRecord rec;
        for (int i = 0; i < 3; ++i) {
            (*scene)->step(rec);
        }
        const std::string path = file(name + ".bin");
        ASSERT_TRUE(saveStateFile(**scene, path).ok());
        const std::string bytes = readBytes(path);
        const std::string before = (*scene)->stateHash();
        int refused = 0;
        for (std::size_t at = 0; at < bytes.size(); ++at) {
            const Status s = loadStateBytes(**scene, flipped(bytes, at, rng), path);
            if (!s.ok() && s.error().message.find("corrupted") != std::string::npos) {
                ++refused;
            } else {
                ADD_FAILURE() << "byte " << at << " of " << bytes.size() << ": "
                              << (s.ok() ? "loaded" : s.error().message);
            }
        }
        EXPECT_EQ(refused, static_cast<int>(bytes.size()));
        EXPECT_EQ((*scene)->stateHash(), before) << "a refused file changes nothing";
        EXPECT_TRUE(loadStateBytes(**scene, bytes, path).ok());
    }
}

// A file in an older format, built as that version wrote it: magic, version, then (from
// version 3) FNV-1a over everything after the checksum, then the body.
std::string olderFile(std::uint32_t version, const std::string& current) {
    const std::size_t bodyAt = 8 + 4 + 8;
    const std::string body = current.substr(bodyAt);
    std::string out = current.substr(0, 8);
    out.append(reinterpret_cast<const char*>(&version), sizeof version);
    if (version >= 3) {
        const std::uint64_t sum = fnv1a64(body);
        out.append(reinterpret_cast<const char*>(&sum), sizeof sum);
    }
    return out + body;
}

// Files of versions 2 (no checksum), 3 (no manifold anchors) and 4 (a checksum that left the
// version out) are refused naming both versions and what to do; a current file whose version
// bytes alone changed to one of those numbers is refused as corrupted, not as old.
TEST_F(StateFileCorruption, AnOlderVersionIsRefusedNamingBoth) {
    SceneOptionValues v;
    v.wall = "3x2";
    v.threads = std::string("1");  // as above
    auto scene = makeScene("wall", v, 1);
    ASSERT_TRUE(scene.ok()) << scene.error().message;
    const std::string current = encodeStateFile("wall", (*scene)->saveState()->serialize());
    ASSERT_TRUE(loadStateBytes(**scene, current, "new.bin").ok());
    const struct {
        std::uint32_t version;
        const char* why;
    } older[] = {{2, "checksum"}, {3, "manifolds"}, {4, "covered the version"}};
    for (const auto& o : older) {
        SCOPED_TRACE("version " + std::to_string(o.version));
        const Status s = loadStateBytes(**scene, olderFile(o.version, current), "old.bin");
        ASSERT_FALSE(s.ok());
        for (const std::string& says : {std::string("--snapshot-load old.bin"),
                                       "version " + std::to_string(o.version), std::string(o.why),
                                       std::string("version 5"), std::string("--snapshot-save")}) {
            EXPECT_NE(s.error().message.find(says), std::string::npos) << s.error().message;
        }
        EXPECT_EQ(s.error().message.find("is corrupted:"), std::string::npos) << s.error().message;

        std::string relabelled = current;
        relabelled[8] = static_cast<char>(o.version);  // little-endian u32 after the magic
        const Status r = loadStateBytes(**scene, relabelled, "old.bin");
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message.find("is corrupted:"), std::string::npos) << r.error().message;
        EXPECT_NE(r.error().message.find("reads " + std::to_string(o.version)), std::string::npos)
            << r.error().message;
    }
    // An old file with a changed body byte is corrupted under its own version's checksum.
    std::string old4 = olderFile(4, current);
    old4.back() = static_cast<char>(old4.back() ^ 0x10);
    const Status c = loadStateBytes(**scene, old4, "old.bin");
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message.find("is corrupted:"), std::string::npos) << c.error().message;
}

}  // namespace
}  // namespace ww::app
