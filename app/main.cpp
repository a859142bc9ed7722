// wavewall: the command-line entry point. Subcommands are registered by app/cli/*; this file
// only parses, maps errors to the exit codes of docs/cli.md, and runs the chosen action.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>

#include "app/cli/commands.h"
#include "app/cli/gpu_session.h"

int main(int argc, char** argv) {
    using namespace ww::app;
    CLI::App app{
        "wavewall: a rigid-body wall collapsing under projected-Jacobi LCP solves and an "
        "implicit (Crank-Nicolson + conjugate gradients) water surface, on the GPU (OpenGL "
        "compute) or the CPU.",
        "wavewall"};
    app.require_subcommand(0, 1);
    app.set_version_flag("--version", "wavewall 0.1.0");

    std::map<CLI::App*, CommandAction> actions;
    auto add = [&](CommandAction action) { actions[app.get_subcommands({}).back()] = std::move(action); };
    add(registerHeadlessCommand(app));
    add(registerLcpCommand(app));
    add(registerCgCommand(app));
    add(registerInfoCommand(app));

    try {
        app.parse(argc, argv);
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
    for (auto& [cmd, action] : actions) {
        if (cmd->parsed()) {
            return action();
        }
    }
    std::printf("%s", app.help().c_str());
    return kExitOk;
}
