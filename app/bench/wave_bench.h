// The `water` suite of `wavewall bench` (issue 4, section 5): Crank–Nicolson wave steps
// (warm-started CG, dt = 2x the explicit limit, rain falling) per second at 256^2 ...
// 2048x1024 on the CPU and the GPU — the last row of Krüger & Westermann's Table 44-1 —
// with mean CG iterations per step and warm vs cold start; and Bajaj et al.'s ms per
// explicit wave step on 512^2 (their Table 4).
#pragma once

#include "app/bench/bench.h"

namespace ww::wave {

/// Prints the tables to stdout and adds one record per measurement (opts.quick: smallest
/// size only; opts.gpu: GPU rows too, a GL context must be current).
void runWaterBench(const bench::Options& opts, bench::Recorder& recorder);

}  // namespace ww::wave
