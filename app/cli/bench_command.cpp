// `wavewall bench`: runs the benchmark suites of the solver modules and prints their tables
// (each suite prints its own, in the style of the paper it follows); --json writes the machine,
// the GL renderer and every record with its same-run baselines (docs/benchmarks.md).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "app/bench/capacity_bench.h"
#include "app/bench/cg_bench.h"
#include "app/bench/lcp_bench.h"
#include "app/bench/splash_bench.h"
#include "app/bench/wall_bench.h"
#include "app/bench/wave_bench.h"
#include "app/cli/commands.h"
#include "app/cli/gpu_session.h"
#include "app/cli/thread_option.h"
#include "app/scenes/scene_params.h"
#include "app/scenes/wall/wall_params.h"
#include "solver/io/matrix_market.h"

namespace ww::app {

namespace {

struct BenchValues {
    std::string suite = "all";
    int repeat = 5;
    std::string json;
    std::string backend = "auto";
    std::string shaderDir;
    bool quick = false;
    std::string threads;
    bench::CapacityLimits capacity;
    std::string walls;            ///< --walls: empty = bench::kDefaultPeerWalls
    std::string wallIterations;   ///< --wall-iterations: empty = the default cap only
    double wallLocalSteps = 0.0;  ///< --wall-local-steps: 0 = no local-step rows
};

constexpr int kMaxWallIterations = 10000;

/// --wall-iterations: a comma-separated list of LCP iteration caps, each in [1, 10000].
Result<std::vector<int>> wallIterations(const BenchValues& v) {
    std::vector<int> caps;
    if (v.wallIterations.empty()) {
        return caps;
    }
    for (std::size_t b = 0; b <= v.wallIterations.size();) {
        const std::size_t e = std::min(v.wallIterations.find(',', b), v.wallIterations.size());
        const std::string item = v.wallIterations.substr(b, e - b);
        b = e + 1;
        char* end = nullptr;
        const long n = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || end == nullptr || *end != '\0' || n < 1 || n > kMaxWallIterations) {
            return inputError("--wall-iterations " + v.wallIterations + ": '" + item +
                              "' is not an iteration count in [1, " +
                              std::to_string(kMaxWallIterations) + "] (give a list such as 10,20)");
        }
        if (std::find(caps.begin(), caps.end(), static_cast<int>(n)) != caps.end()) {
            return inputError("--wall-iterations " + v.wallIterations + ": " + item +
                              " is given twice");
        }
        caps.push_back(static_cast<int>(n));
    }
    return caps;
}

/// --walls: a comma-separated list of CxR walls for the wall suite's engine comparison, each
/// checked as `headless --wall` checks one (the brick limit and this machine's memory).
Result<std::vector<bench::WallSize>> peerWalls(const BenchValues& v) {
    if (v.walls.empty()) {
        return bench::kDefaultPeerWalls;
    }
    std::vector<bench::WallSize> walls;
    const double physical =
        static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    for (std::size_t b = 0; b <= v.walls.size();) {
        const std::size_t e = std::min(v.walls.find(',', b), v.walls.size());
        const std::string item = v.walls.substr(b, e - b);
        b = e + 1;
        bench::WallSize size;
        if (Status st = parseSize(item, "walls", size.cols, size.rows); !st) {
            return st.error();
        }
        const long long bricks = static_cast<long long>(size.cols) * size.rows;
        if (bricks > kMaxWallBricks) {
            return inputError("--walls " + item + " has " + std::to_string(bricks) +
                              " bricks; at most " + std::to_string(kMaxWallBricks) +
                              " are supported");
        }
        if (Status st = checkWallMemory("--walls " + item, bricks, physical); !st) {
            return st.error();
        }
        walls.push_back(size);
    }
    return walls;
}

/// --threads: one count, or for --suite capacity a comma-separated list (default there: 1 and
/// the count every other suite gets). Each count is checked as every command checks one.
Result<std::vector<int>> threadCounts(const BenchValues& v) {
    std::vector<std::string> items;
    for (std::size_t b = 0; b <= v.threads.size();) {
        const std::size_t e = std::min(v.threads.find(',', b), v.threads.size());
        items.push_back(v.threads.substr(b, e - b));
        b = e + 1;
    }
    if (v.threads.empty()) {
        items = {""};
    }
    if (items.size() > 1 && v.suite != "capacity") {
        return inputError("--threads " + v.threads +
                          ": a list of thread counts is for --suite capacity only; give one count");
    }
    std::vector<int> counts;
    if (v.threads.empty() && v.suite == "capacity") {
        counts.push_back(1);
    }
    for (const std::string& item : items) {
        if (items.size() > 1 && item.empty()) {
            return inputError("--threads " + v.threads + ": an empty entry in the list");
        }
        Result<int> n = resolveThreadCount(item);
        if (!n) {
            return n.error();
        }
        if (std::find(counts.begin(), counts.end(), *n) == counts.end()) {
            counts.push_back(*n);
        }
    }
    return counts;
}

std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    }
    return "unknown";
}

int runBench(const BenchValues& v) {
    if (v.repeat < 1 || v.repeat > 1000) {
        return reportError(inputError("--repeat must be in [1, 1000]"));
    }
    if (!v.json.empty()) {
        if (Status s = io::checkWritable(v.json, "--json"); !s) {
            return reportError(s.error());
        }
    }
    if (Status s = bench::checkCapacityLimits(v.capacity); !s) {
        return reportError(s.error());
    }
    Result<std::vector<int>> counts = threadCounts(v);
    if (!counts) {
        return reportError(counts.error());
    }
    Result<std::vector<bench::WallSize>> walls = peerWalls(v);
    if (!walls) {
        return reportError(walls.error());
    }
    Result<std::vector<int>> iterationCaps = wallIterations(v);
    if (!iterationCaps) {
        return reportError(iterationCaps.error());
    }
    // NaN fails both comparisons, so it is refused too.
    if (!(v.wallLocalSteps >= 0.0 && v.wallLocalSteps < 2.0)) {
        char given[32];
        std::snprintf(given, sizeof given, "%g", v.wallLocalSteps);
        return reportError(inputError(std::string("--wall-local-steps ") + given +
                                      ": the local steps' omega must lie in [0, 2) (1.9 is the "
                                      "tested value; 0 = no local-step rows)"));
    }
    GpuSession gpu;
    Result<Backend> backend = selectBackend(v.backend, v.shaderDir, gpu);
    if (!backend) {
        return reportError(backend.error());
    }
    bench::Options opts;
    opts.executor = sharedExecutor(counts->back());
    for (int n : *counts) {
        opts.capacityExecutors.push_back(sharedExecutor(n));
    }
    opts.capacity = v.capacity;
    opts.peerWalls = *walls;
    opts.peerWallIterations = *iterationCaps;
    opts.peerWallLocalSteps = static_cast<float>(v.wallLocalSteps);
    opts.repeats = v.repeat;
    opts.gpu = *backend == Backend::kGpu;
    opts.quick = v.quick;
    const std::string renderer =
        gpu.available() ? gpu::GpuContext::current()->info().renderer : "none";
    const unsigned cores = std::thread::hardware_concurrency();
    std::printf("wavewall bench: %s, %u cores, %d threads; GL: %s; median of %d repeats%s\n",
                cpuModel().c_str(), cores, opts.executor->threads(), renderer.c_str(), v.repeat,
                v.quick ? " (quick sizes)" : "");

    using Suite = std::function<void(const bench::Options&, bench::Recorder&)>;
    const std::vector<std::pair<std::string, Suite>> suites = {
        {"ops", lcp::runOpsBench},
        {"lcp", lcp::runLcpBench},
        {"cg", cg::runCgBench},
        {"wall", rigid::runWallBench},
        {"water", wave::runWaterBench},
        {"splash", splash::runSplashBench},
        {"capacity", bench::runCapacityBench}};
    bench::Recorder recorder;
    for (const auto& [name, run] : suites) {
        if (v.suite == name || (v.suite == "all" && name != "capacity")) {
            std::printf("\n== suite %s ==\n", name.c_str());
            std::fflush(stdout);
            run(opts, recorder);
        }
    }

    if (!v.json.empty()) {
        nlohmann::json records = nlohmann::json::array();
        for (const bench::Record& r : recorder.records()) {
            nlohmann::json baselines = nlohmann::json::array();
            for (const bench::Baseline& b : r.baselines) {
                baselines.push_back({{"name", b.name}, {"median_ms", b.medianMs}});
            }
            nlohmann::json metrics = nlohmann::json::object();
            for (const auto& [k, x] : r.metrics) {
                metrics[k] = x;
            }
            records.push_back({{"suite", r.suite},
                               {"name", r.name},
                               {"size", r.size},
                               {"backend", r.backend},
                               {"median_ms", r.medianMs},
                               {"repeats", r.repeats},
                               {"baselines", baselines},
                               {"metrics", metrics}});
        }
        const nlohmann::json doc = {{"machine", {{"cpu", cpuModel()}, {"cores", cores}}},
                                    {"threads", opts.executor->threads()},
                                    {"renderer", renderer},
                                    {"repeats", v.repeat},
                                    {"quick", v.quick},
                                    {"records", records}};
        std::ofstream out(v.json);
        out << doc.dump(2) << "\n";
        if (!out) {
            return reportError(Error{ErrorKind::kIo, v.json + ": write failed"});
        }
        std::printf("\nwrote %zu records to %s\n", recorder.records().size(), v.json.c_str());
    }
    return kExitOk;
}

}  // namespace

CommandAction registerBenchCommand(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "bench",
        "Benchmark suites with same-run baselines (other backend, Eigen/OpenBLAS, "
        "memory bandwidth)");
    auto v = std::make_shared<BenchValues>();
    cmd->add_option("--suite", v->suite,
                    "Which suite (all: every suite but capacity, a search that takes minutes)")
        ->check(CLI::IsMember({"ops", "lcp", "cg", "wall", "water", "splash", "capacity", "all"}))
        ->capture_default_str();
    cmd->add_option("--repeat", v->repeat, "Timed repetitions per measurement (median)")
        ->capture_default_str();
    cmd->add_option("--json", v->json, "Write every record as JSON");
    cmd->add_option("--backend", v->backend,
                    "gpu measures the GPU columns beside the CPU baselines; cpu skips them; auto "
                    "(docs/cli.md) measures them on a hardware GPU only, not on a software "
                    "rasterizer such as llvmpipe")
        ->check(CLI::IsMember({"cpu", "gpu", "auto"}))
        ->capture_default_str();
    cmd->add_option("--shader-dir", v->shaderDir, "Load shaders from this folder");
    cmd->add_option("--threads", v->threads,
                    "CPU threads (default: WAVEWALL_THREADS, else every hardware thread); "
                    "--suite capacity takes a list such as 1,2 (default: 1 and that count)");
    cmd->add_option("--frame-ms", v->capacity.frameMs,
                    "capacity: the frame budget a step's p95 must stay within, ms")
        ->capture_default_str();
    cmd->add_option("--max-bricks", v->capacity.maxBricks,
                    "capacity: the largest wall the search tries, bricks")
        ->capture_default_str();
    cmd->add_option("--max-grid", v->capacity.maxGrid,
                    "capacity: the largest square water grid side the search tries")
        ->capture_default_str();
    cmd->add_option("--walls", v->walls,
                    "wall: the walls the engines are compared on, a list such as 70x50,100x100 "
                    "(default 10x6,20x20,40x25; each run stops after 120 s)");
    cmd->add_option("--wall-iterations", v->wallIterations,
                    "wall: also run our engine on those walls with these LCP iteration caps, a "
                    "list such as 10,20 (rows wavewall-cpu-iN: the speed a shallower solve buys "
                    "and the overlap it costs)");
    cmd->add_option("--wall-local-steps", v->wallLocalSteps,
                    "wall: also run our engine with Jacobi's local step scales at this omega in "
                    "(0, 2), at its default cap and each --wall-iterations cap (rows "
                    "wavewall-cpu-local[-iN]); 0 = none")
        ->capture_default_str();
    cmd->add_flag("--quick", v->quick, "Smallest sizes only (a smoke test of the suites)");
    return [v]() { return runBench(*v); };
}

}  // namespace ww::app
