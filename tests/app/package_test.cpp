// What an installed wavewall relies on: the manual page the build generates from the option
// tables (app/cli/man_page.h), `wavewall --version` (app/cli/build_info.h) and `--config NAME`
// finding a preset (app/cli/option_table.h). scripts/install-check.sh checks the install itself.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/man_page.h"
#include "support/run_command.h"

namespace ww {
namespace {

using test::CommandResult;

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The text of one command's section of the page: from its .SS heading to the next heading.
std::string sectionOf(const std::string& page, const std::string& command) {
    const std::string heading = ".SS \"wavewall " + command + "\"\n";
    const std::size_t begin = page.find(heading);
    if (begin == std::string::npos) {
        return {};
    }
    std::size_t end = page.find("\n.S", begin + heading.size());
    return page.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// Whether an option heading (.TP, then "\fB-h, --name\fR ...") of `section` names --name; the
// name ends at "\fR" or "," so that --check does not match --check-every.
bool headsOption(const std::string& section, const std::string& name) {
    const std::string flag = app::roffEscape("--" + name);
    return section.find(flag + "\\fR") != std::string::npos ||
           section.find(flag + ",") != std::string::npos;
}

// Every subcommand as main() registers them, on a fresh app.
struct AllCommands {
    CLI::App root{"wavewall test app", "wavewall"};
    AllCommands() {
        app::registerHeadlessCommand(root);
        app::registerLcpCommand(root);
        app::registerCgCommand(root);
        app::registerBenchCommand(root);
        app::registerInfoCommand(root);
        app::registerDemoCommand(root);
    }
};

// The page the build wrote (build/app/wavewall.1, installed as share/man/man1/wavewall.1)
// lists every visible option of `headless` in the headless section, with its help text.
TEST(ManPage, EveryHeadlessOptionIsInTheGeneratedPage) {
    const std::string page = readFile(WW_MAN_PAGE);
    ASSERT_FALSE(page.empty()) << "no manual page at " << WW_MAN_PAGE;
    AllCommands all;
    const CLI::App* headless = all.root.get_subcommand("headless");
    const std::string section = sectionOf(page, "headless");
    ASSERT_FALSE(section.empty()) << "no section \"wavewall headless\" in " << WW_MAN_PAGE;
    int checked = 0;
    for (const CLI::Option* opt : headless->get_options()) {
        if (opt->get_group().empty()) {
            continue;  // hidden
        }
        for (const std::string& name : opt->get_lnames()) {
            EXPECT_TRUE(headsOption(section, name))
                << "--" << name << " is missing from the headless section";
            EXPECT_NE(section.find(app::roffEscape(opt->get_description())), std::string::npos)
                << "the help text of --" << name << " is missing: " << opt->get_description();
            ++checked;
        }
    }
    // headless has dozens of options (scene, solver, water, outputs); a handful means the
    // registration under test is not the real one.
    EXPECT_GT(checked, 40);
}

// Every subcommand has its section, and every option of each appears in it.
TEST(ManPage, EveryCommandHasItsSectionWithEveryOption) {
    const std::string page = readFile(WW_MAN_PAGE);
    AllCommands all;
    for (const CLI::App* sub : all.root.get_subcommands({})) {
        const std::string section = sectionOf(page, sub->get_name());
        ASSERT_FALSE(section.empty()) << "no section for `wavewall " << sub->get_name() << "`";
        for (const CLI::Option* opt : sub->get_options()) {
            for (const std::string& name :
                 opt->get_group().empty() ? std::vector<std::string>{} : opt->get_lnames()) {
                EXPECT_TRUE(headsOption(section, name)) << sub->get_name() << " --" << name;
            }
        }
    }
    EXPECT_NE(page.find(".TH WAVEWALL 1 \"\" \"wavewall " WW_PROJECT_VERSION "\""),
              std::string::npos)
        << "the title line does not carry the project's version";
}

// Roff: a line must not start with a request character, backslashes and dashes are escaped.
TEST(ManPage, RoffEscapeKeepsTextFromBeingRead) {
    EXPECT_EQ(app::roffEscape(".x\n'y\\z -a"), "\\&.x\n\\&'y\\ez \\-a");
}

// The first line is the version of project() in CMakeLists.txt; then one "field: value" line
// per feature, each value as this build has it.
TEST(Version, PrintsTheVersionAndTheBuildsFeatures) {
    const CommandResult r = test::runShell(WW_WAVEWALL_EXE " --version");
    ASSERT_EQ(r.code, 0) << r.output;
    std::istringstream lines(r.output);
    std::string first;
    std::getline(lines, first);
    EXPECT_EQ(first, "wavewall " WW_PROJECT_VERSION);
    std::map<std::string, std::string> fields;
    for (std::string line; std::getline(lines, line);) {
        const std::size_t colon = line.find(": ");
        ASSERT_NE(colon, std::string::npos) << "not a field line: " << line;
        fields[line.substr(0, colon)] = line.substr(colon + 2);
    }
    for (const char* key : {"build type", "compiler", "gpu", "simd", "threads", "eigen", "openblas",
                            "bullet", "ode"}) {
        EXPECT_EQ(fields.count(key), 1u) << "no \"" << key << ":\" line in\n" << r.output;
    }
    EXPECT_EQ(fields["build type"], WW_BUILD_TYPE_EXPECTED);
    EXPECT_NE(fields["gpu"].find("OpenGL 4.3"), std::string::npos) << fields["gpu"];
    EXPECT_NE(fields["gpu"].find("EGL"), std::string::npos) << fields["gpu"];
    // This test is compiled with the flags of solver/lcp/lcp_cpu.cpp (ww_configure_target), so
    // the same macros pick the kernels' width.
#if defined(__AVX512F__)
    const std::string simd = "avx512";
#elif defined(__AVX2__) && defined(__FMA__)
    const std::string simd = "avx2";
#else
    const std::string simd = "scalar";
#endif
    EXPECT_EQ(fields["simd"].substr(0, fields["simd"].find(' ')), simd) << fields["simd"];
    EXPECT_EQ(fields["eigen"].rfind("compiled in " WW_EIGEN_VERSION_EXPECTED, 0), 0u)
        << fields["eigen"];
    // pkg-config found them (tests/app/CMakeLists.txt), so app/bench compiled them in.
    EXPECT_EQ(fields["bullet"].rfind("compiled in", 0) == 0, WW_BULLET_FOUND != 0)
        << fields["bullet"];
    EXPECT_EQ(fields["ode"].rfind("compiled in", 0) == 0, WW_ODE_FOUND != 0) << fields["ode"];
}

// `--config NAME` (no '/', no such file here) reads the preset NAME.json of the assets
// folder, the same run as the preset's full path; an unknown name lists the presets.
TEST(ConfigPreset, ANameFindsThePresetFromAnyFolder) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("ww_preset_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string cd = "cd " + dir.string() + " && ";
    const std::string source = std::getenv("WAVEWALL_SOURCE_DIR");
    const std::string run = " headless --steps 3 --backend cpu --config ";
    const CommandResult byName = test::runShell(cd + WW_WAVEWALL_EXE + run + "pyramid");
    const CommandResult byPath =
        test::runShell(cd + WW_WAVEWALL_EXE + run + source + "/assets/pyramid.json");
    ASSERT_EQ(byName.code, 0) << byName.output;
    ASSERT_EQ(byPath.code, 0) << byPath.output;
    auto hashLine = [](const std::string& out) {
        const std::size_t at = out.find("hash ");
        return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
    };
    EXPECT_FALSE(hashLine(byPath.output).empty()) << byPath.output;
    EXPECT_EQ(hashLine(byName.output), hashLine(byPath.output));
    // The pyramid (8-brick base: 36 bricks and the ground), not the default 10 x 6 wall.
    EXPECT_NE(byName.output.find("bodies           37"), std::string::npos) << byName.output;

    const CommandResult unknown = test::runShell(cd + WW_WAVEWALL_EXE + run + "no_such_preset");
    EXPECT_EQ(unknown.code, 2) << unknown.output;
    EXPECT_NE(unknown.output.find("no_such_preset: cannot open config file"), std::string::npos)
        << unknown.output;
    EXPECT_NE(unknown.output.find("pyramid, slide"), std::string::npos) << unknown.output;
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ww
