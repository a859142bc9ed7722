// The manual page wavewall(1), written in roff from the CLI11 app itself: every subcommand and
// option with its help text, type and default, so the page cannot drift from `--help`. The
// build runs `wavewall --man` (a hidden flag) to make build/app/wavewall.1, which is installed
// as share/man/man1/wavewall.1 (docs/install.md).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace ww::app {

/// Text escaped for roff: backslashes as \e, every '-' as \- (the page is about flags), and a
/// line that would start with '.' or '\'' (a request) starting with \& instead.
std::string roffEscape(const std::string& text);

/// The page of `app` (the top-level `wavewall` app with its subcommands registered) for
/// version `version`. Hidden options and subcommands (empty group) are left out.
std::string manPage(const CLI::App& app, const std::string& version);

}  // namespace ww::app
