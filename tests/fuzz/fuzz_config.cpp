// libFuzzer target: config files — JSON parsing, key lookup and type checks of the option
// table, over options of every type the commands register — must answer with an Error, never
// crash. (Range validation of scene settings is covered by tests/app; linking the solvers
// into a clang fuzzer build is left out to keep this target self-contained.)
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <string>

#include "app/cli/option_table.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = "/tmp/ww_fuzz_cfg_" + std::to_string(::getpid()) + ".json";
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) {
        return 0;
    }
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    CLI::App app("fuzz");
    ww::app::OptionTable table(app);
    std::string scene = "wall", wall = "10x6", warm = "on";
    int steps = 1;
    float omega = 0.3f;
    double dt = 0.0;
    std::uint64_t seed = 1;
    table.add("scene", scene, "", {"wall", "water"});
    table.add("wall", wall, "");
    table.add("warm-start", warm, "", {"on", "off"});
    table.add("steps", steps, "");
    table.add("omega", omega, "");
    table.add("dt", dt, "");
    table.add("seed", seed, "");
    app.parse(std::vector<std::string>{});
    (void)table.applyConfig(path);
    return 0;
}
