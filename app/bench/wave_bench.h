// The `water` suite of `wavewall bench`: Krüger & Westermann's Table 44-1 wave row at the
// chapter's six sizes — Crank–Nicolson steps per second (warm-started CG to the default
// tolerance, dt = 2x the explicit limit, rain) on the CPU and the GPU, and the demo's frame
// rate (one GPU step plus the surface drawn offscreen) beside the chapter's fps; warm vs cold
// CG start; and Bajaj et al.'s Table 4, ms per explicit step on 512^2 averaged over the first
// 2000 steps with the paper's walls (Dirichlet at x = 0 and max, Neumann at y = 0 and max),
// with and without the per-step readback.
#pragma once

#include "app/bench/bench.h"

namespace ww::wave {

/// Prints the tables to stdout and adds one record per measurement (opts.quick: smallest
/// size only; opts.gpu: GPU rows too, a GL context must be current).
void runWaterBench(const bench::Options& opts, bench::Recorder& recorder);

}  // namespace ww::wave
