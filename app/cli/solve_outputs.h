// What `wavewall lcp` and `wavewall cg` share around their solve: the backend and shader-folder
// options and the two outputs, the solution (a Matrix Market vector) and a JSON report, whose
// paths are checked for writability before any work (docs/cli.md).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "solver/core/result.h"

namespace ww::app {

struct SolveOutputs {
    std::string backend = "cpu";
    std::string shaderDir;
    std::string solution;  ///< --solution: x as a Matrix Market array, if set
    std::string json;      ///< --json: the report, if set
    std::string threads;   ///< --threads: CPU threads (empty: thread_option.h's default)

    /// Registers --backend, --shader-dir, --threads, --solution and --json on `cmd`.
    void addOptions(CLI::App& cmd);
    /// Fails (naming the option) when an output path cannot be written.
    Status checkWritable() const;
    /// Writes x and the report to the outputs that were asked for.
    Status write(const std::vector<float>& x, const nlohmann::json& report) const;
};

}  // namespace ww::app
