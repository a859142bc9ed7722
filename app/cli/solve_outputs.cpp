#include "app/cli/solve_outputs.h"

#include <utility>

#include "app/cli/option_table.h"
#include "solver/io/matrix_market.h"

namespace ww::app {

void SolveOutputs::addOptions(CLI::App& cmd) {
    cmd.add_option("--backend", backend, "cpu, gpu or auto")
        ->check(CLI::IsMember({"cpu", "gpu", "auto"}))
        ->capture_default_str();
    cmd.add_option("--shader-dir", shaderDir, "Load shaders from this folder");
    cmd.add_option("--threads", threads,
                   "CPU threads (default: WAVEWALL_THREADS, else every hardware thread)");
    cmd.add_option("--solution", solution, "Write x (Matrix Market array)");
    cmd.add_option("--json", json, "Write a JSON report");
}

Status SolveOutputs::checkWritable() const {
    for (const auto& [path, what] :
         {std::pair{&solution, "--solution"}, std::pair{&json, "--json"}}) {
        if (!path->empty()) {
            if (Status s = io::checkWritable(*path, what); !s) {
                return s;
            }
        }
    }
    return {};
}

Status SolveOutputs::write(const std::vector<float>& x, const nlohmann::json& report) const {
    if (!solution.empty()) {
        if (Status s =
                io::writeMatrixMarketVector(solution, std::vector<double>(x.begin(), x.end()));
            !s) {
            return s;
        }
    }
    return json.empty() ? Status{} : writeJsonFile(json, report);
}

}  // namespace ww::app
