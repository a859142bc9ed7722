// The `cg` suite of `wavewall bench`: time per CG iteration on the Crank–Nicolson system of
// the wave model (c dt / h = 2) at 256^2 ... 2048x1024 on the CPU and the GPU, with Eigen's
// ConjugateGradient on the same SparseMatrix and a triad bandwidth bound measured in the same
// run; Krüger & Westermann's Table 44-1 vector operations (sum reduce, dot product,
// vector-vector op) at the chapter's six sizes, CPU and GPU on the same data, beside the
// chapter's numbers; Göddeke's MFLOP/s-by-size table for nine-banded Jacobi; and the GPU
// readback period (CgOptions::checkEvery) sweep behind its default.
#pragma once

#include "app/bench/bench.h"

namespace ww::cg {

/// Bytes the fused matrix-free CPU CG moves per unknown and iteration: direction pass (read
/// r, p; write p) 12 + update pass (read x, p, r; write x, r; A p recomputed) 20.
inline constexpr double kCgBytesPerUnknown = 32.0;

/// Prints the tables to stdout and adds one record per measurement. With opts.quick only
/// the smallest size runs; with opts.gpu (a current GL context) the GPU rows run too.
void runCgBench(const bench::Options& opts, bench::Recorder& recorder);

/// Triad a = b + s c over `floats` elements on the CPU kernels' threads: GB/s counting 12
/// bytes/element.
double measureTriadGBps(const exec::Executor& ex, std::size_t floats, int repeats);

}  // namespace ww::cg
