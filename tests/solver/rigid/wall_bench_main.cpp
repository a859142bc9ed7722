// Stand-alone runner of the `wall` benchmark suite (what `wavewall bench --suite wall`
// calls), for use before the CLI is wired: wall_bench [--quick] [--gpu] [--repeat K].
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "solver/gpu/gpu_context.h"
#include "solver/rigid/wall_bench.h"

int main(int argc, char** argv) {
    ww::bench::Options opts;
    bool wantGpu = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) {
            opts.quick = true;
        } else if (std::strcmp(argv[i], "--gpu") == 0) {
            wantGpu = true;
        } else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            opts.repeats = std::stoi(argv[++i]);
        }
    }
    std::unique_ptr<ww::gpu::GpuContext> ctx;
    if (wantGpu) {
        auto r = ww::gpu::GpuContext::createHeadless();
        if (!r) {
            std::fprintf(stderr, "no GPU context: %s\n", r.error().message.c_str());
            return 3;
        }
        ctx = std::move(r).value();
        std::printf("GPU: %s\n", ctx->info().summary().c_str());
        opts.gpu = true;
    }
    ww::bench::Recorder recorder;
    ww::rigid::runWallBench(opts, recorder);
    std::printf("%zu records\n", recorder.records().size());
    return 0;
}
