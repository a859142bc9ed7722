// Runs the real `wavewall` executable and checks its exit codes and messages.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

#include "support/gpu_fixture.h"

namespace ww {
namespace {

struct CommandResult {
    int code = -1;
    std::string output;  // stdout and stderr
};

CommandResult run(const std::string& args, const std::string& env = "") {
    const std::string cmd = env + " " WW_WAVEWALL_EXE " " + args + " 2>&1";
    CommandResult r;
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) {
        return r;
    }
    std::array<char, 4096> buf{};
    while (fgets(buf.data(), buf.size(), p) != nullptr) {
        r.output += buf.data();
    }
    const int status = pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

TEST(Cli, HelpListsSubcommands) {
    CommandResult r = run("--help");
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.output.find("info"), std::string::npos) << r.output;
}

TEST(Cli, UnknownFlagExits2WithMessage) {
    CommandResult r = run("--no-such-flag");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.output.find("--no-such-flag"), std::string::npos) << r.output;
}

TEST(Cli, InfoRunsTheComputeSelfTest) {
    WW_REQUIRE_GPU();
    CommandResult r = run("info");
    EXPECT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("self-test"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("-> ok"), std::string::npos) << r.output;
}

TEST(Cli, MissingShaderFolderExits2) {
    CommandResult r = run("info --shader-dir /nonexistent/shaders");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("/nonexistent/shaders"), std::string::npos) << r.output;
}

TEST(Cli, NoGlExits3WithTheReason) {
    // Pointing EGL's vendor-library search at an empty list leaves no driver at all.
    CommandResult r = run("info", "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent.json");
    EXPECT_EQ(r.code, 3) << r.output;
    EXPECT_NE(r.output.find("Tried"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ww
