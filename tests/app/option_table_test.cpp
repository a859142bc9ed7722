#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "app/cli/option_table.h"

namespace ww {
namespace {

namespace fs = std::filesystem;

struct Fixture {
    CLI::App app{"test"};
    app::OptionTable table{app};
    float omega = 0.1f;
    int steps = 10;
    std::string mode = "islands";
    std::string warm = "on";
    Fixture() {
        table.add("omega", omega, "relaxation");
        table.add("steps", steps, "steps");
        table.add("lcp-mode", mode, "mode", {"dense", "islands"});
        table.add("warm-start", warm, "warm", {"on", "off"});
    }
    void parse(std::vector<std::string> args) {
        std::reverse(args.begin(), args.end());
        app.parse(args);
    }
};

std::string writeConfig(const std::string& text) {
    const fs::path p = fs::temp_directory_path() /
                       ("ww_cfg_" + std::to_string(::getpid()) + "_" +
                        ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".json");
    std::ofstream(p) << text;
    return p.string();
}

TEST(OptionTable, FileFillsAndFlagsOverride) {
    Fixture f;
    f.parse({"--omega", "0.7"});
    const std::string path = writeConfig(
        "{\n  \"omega\": 0.3,\n  \"steps\": 250,\n  \"lcp-mode\": \"dense\",\n  \"warm-start\": "
        "false\n}\n");
    Status s = f.table.applyConfig(path);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_FLOAT_EQ(f.omega, 0.7f);  // the flag wins
    EXPECT_EQ(f.steps, 250);
    EXPECT_EQ(f.mode, "dense");
    EXPECT_EQ(f.warm, "off");
    fs::remove(path);
}

// What the user gave (a scene's own default for a shared key applies to the keys not given):
// the flags and the keys the file set, not the options left at their defaults.
TEST(OptionTable, GivenKeysAreTheFlagsAndTheKeysOfTheFile) {
    Fixture f;
    f.parse({"--omega", "0.7"});
    EXPECT_EQ(f.table.givenKeys(), (std::set<std::string>{"omega"}));
    const std::string path = writeConfig("{\n  \"steps\": 250,\n  \"omega\": 0.3\n}\n");
    Status s = f.table.applyConfig(path);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(f.table.givenKeys(), (std::set<std::string>{"omega", "steps"}));
    fs::remove(path);
}

TEST(OptionTable, UnknownKeyNamesFileLineAndKey) {
    Fixture f;
    f.parse({});
    const std::string path = writeConfig("{\n  \"steps\": 5,\n  \"omgea\": 0.3\n}\n");
    Status s = f.table.applyConfig(path);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::kInput);
    EXPECT_NE(s.error().message.find(path + ":3:"), std::string::npos) << s.error().message;
    EXPECT_NE(s.error().message.find("omgea"), std::string::npos) << s.error().message;
    fs::remove(path);
}

TEST(OptionTable, WrongTypesAndValuesAreRejected) {
    for (const std::string& body :
         {std::string("{\"steps\": \"many\"}"), std::string("{\"steps\": 2.5}"),
          std::string("{\"omega\": \"fast\"}"), std::string("{\"lcp-mode\": \"sparse\"}"),
          std::string("[1, 2]")}) {
        Fixture f;
        f.parse({});
        const std::string path = writeConfig(body);
        Status s = f.table.applyConfig(path);
        EXPECT_FALSE(s.ok()) << body;
        fs::remove(path);
    }
}

TEST(OptionTable, MalformedJsonReportsLineAndColumn) {
    Fixture f;
    f.parse({});
    const std::string path = writeConfig("{\n  \"steps\": 5,\n  \"omega\": ,\n}\n");
    Status s = f.table.applyConfig(path);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find(path + ":3:"), std::string::npos) << s.error().message;
    EXPECT_NE(s.error().message.find("malformed JSON"), std::string::npos);
    fs::remove(path);
}

// A key given twice would keep its last value without a word: refused, naming the key and the
// line of its second occurrence; a nested object may repeat its own keys' names (a later check
// refuses the unknown key). A folder is said to be one, not reported as malformed JSON.
TEST(OptionTable, AKeyGivenTwiceAndAFolderAreRefusedSayingSo) {
    Fixture f;
    f.parse({});
    const std::string path =
        writeConfig("{\n  \"steps\": 5,\n  \"omega\": 0.2,\n  \"steps\": 7\n}\n");
    Status s = f.table.applyConfig(path);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find(path + ":4: key \"steps\" is given twice"), std::string::npos)
        << s.error().message;
    fs::remove(path);

    Fixture g;
    g.parse({});
    const std::string once = writeConfig("{\"steps\": 5, \"omega\": 0.2}");
    EXPECT_TRUE(g.table.applyConfig(once).ok());
    fs::remove(once);

    Fixture h;
    h.parse({});
    const fs::path dir = fs::temp_directory_path();
    s = h.table.applyConfig(dir.string() + "/");
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("is a folder"), std::string::npos) << s.error().message;
}

// A value of the right type that a later check refuses (a wall size "10") is reported at the
// file and line that gave it; the same option given as a flag is not (the flag overrides the
// file), and a message naming no option from the file is left as it is.
TEST(OptionTable, ALaterChecksErrorNamesTheFileAndLineThatGaveTheValue) {
    Fixture f;
    f.parse({"--omega", "0.7"});
    const std::string path =
        writeConfig("{\n  \"omega\": 0.3,\n  \"lcp-mode\": \"dense\",\n  \"steps\": 3\n}\n");
    ASSERT_TRUE(f.table.applyConfig(path).ok());
    const Error steps = f.table.locate(inputError("--steps 3 must be at least 10"));
    EXPECT_EQ(steps.message, path + ":4: key \"steps\": --steps 3 must be at least 10");
    EXPECT_EQ(steps.kind, ErrorKind::kInput);
    // Named after another option: the first one that came from the file is located.
    EXPECT_EQ(f.table.locate(inputError("with --threads 4, --lcp-mode dense is refused")).message,
              path + ":3: key \"lcp-mode\": with --threads 4, --lcp-mode dense is refused");
    // A prefix of a key's name is not that key.
    EXPECT_EQ(f.table.locate(inputError("--step 3")).message, "--step 3");
    // --omega came from the command line, not the file.
    EXPECT_EQ(f.table.locate(inputError("--omega 0.7 is too large")).message,
              "--omega 0.7 is too large");
    EXPECT_EQ(f.table.locate(inputError("no option here")).message, "no option here");
    fs::remove(path);
}

// Found by fuzz_config: a number beyond a double's range made nlohmann::json throw
// out_of_range, which nothing caught (std::terminate).
TEST(OptionTable, NumberBeyondDoubleRangeIsAnInputError) {
    for (const char* number : {"1e616", "-1e400"}) {
        Fixture f;
        f.parse({});
        const std::string path =
            writeConfig(std::string("{\n  \"steps\": 5,\n  \"omega\": ") + number + "\n}\n");
        Status s = f.table.applyConfig(path);
        ASSERT_FALSE(s.ok()) << number;
        EXPECT_EQ(s.error().kind, ErrorKind::kInput);
        EXPECT_NE(s.error().message.find(path + ":3:"), std::string::npos) << s.error().message;
        EXPECT_NE(s.error().message.find(number), std::string::npos) << s.error().message;
        fs::remove(path);
    }
}

}  // namespace
}  // namespace ww
