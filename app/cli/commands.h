// The subcommands of `wavewall` (docs/cli.md). Each register function adds its subcommand and
// options to the CLI11 app and returns the action to run when that subcommand was chosen;
// the action returns the process exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace ww::app {

using CommandAction = std::function<int()>;

CommandAction registerInfoCommand(CLI::App& app);
CommandAction registerHeadlessCommand(CLI::App& app);
CommandAction registerLcpCommand(CLI::App& app);
CommandAction registerCgCommand(CLI::App& app);
CommandAction registerBenchCommand(CLI::App& app);
CommandAction registerDemoCommand(CLI::App& app);

}  // namespace ww::app
