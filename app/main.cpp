// wavewall: the command-line entry point. Subcommands are registered by app/cli/*; this file
// only parses, maps errors to the exit codes of docs/cli.md, and runs the chosen action.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "app/cli/build_info.h"
#include "app/cli/commands.h"
#include "app/cli/gpu_session.h"
#include "app/cli/man_page.h"

int main(int argc, char** argv) {
    using namespace ww::app;
    CLI::App app{
        "wavewall: a rigid-body wall collapsing under projected-Jacobi LCP solves and an "
        "implicit (Crank-Nicolson + conjugate gradients) water surface, on the GPU (OpenGL "
        "compute) or the CPU.",
        "wavewall"};
    app.require_subcommand(0, 1);
    app.set_version_flag(
        "--version", [] { return versionText(); },
        "Print the version and what this build holds (GPU, SIMD, benchmark peers) and exit");
    // Hidden (no group): the build writes the manual page with it (app/cli/man_page.h).
    bool man = false;
    app.add_flag("--man", man, "Print the manual page (roff) and exit")->group("");

    std::map<CLI::App*, CommandAction> actions;
    auto add = [&](CommandAction action) {
        actions[app.get_subcommands({}).back()] = std::move(action);
    };
    add(registerHeadlessCommand(app));
    add(registerLcpCommand(app));
    add(registerCgCommand(app));
    add(registerBenchCommand(app));
    add(registerInfoCommand(app));
    add(registerDemoCommand(app));

    // `demo` is the default command (docs/cli.md: wavewall [demo] ...): with no subcommand
    // name first, the arguments are the demo's.
    std::vector<char*> args(argv, argv + argc);
    static char demoName[] = "demo";
    const std::string first = argc > 1 ? argv[1] : "";
    if (first.empty() || (first[0] == '-' && first != "-h" && first != "--help" &&
                          first != "--help-all" && first != "--version" && first != "--man")) {
        args.insert(args.begin() + 1, demoName);
    }

    try {
        app.parse(static_cast<int>(args.size()), args.data());
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "wavewall: error: %s\nRun 'wavewall --help' for the usage.\n",
                     e.what());
        return kExitUsage;
    }
    if (man) {
        std::printf("%s", manPage(app, wavewallVersion()).c_str());
        return kExitOk;
    }
    for (auto& [cmd, action] : actions) {
        if (cmd->parsed()) {
            return action();
        }
    }
    std::printf("%s", app.help().c_str());
    return kExitOk;
}
