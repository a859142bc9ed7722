// The thread count of the CPU solvers: `--threads N`, config key `threads`, environment
// WAVEWALL_THREADS, else every hardware thread (in that order of precedence; docs/cli.md).
// Every command resolves it here and gets its executor from sharedExecutor(), the process's
// one explicit factory of executors: commands and scenes that ask for the same count share
// one executor (one thread pool) instead of each starting its own.
#pragma once

#include <memory>
#include <string>

#include "solver/core/result.h"
#include "solver/exec/executor.h"

namespace ww::app {

/// Resolves the thread count: `given` (the --threads flag or config key, empty when neither
/// was given), else WAVEWALL_THREADS, else Executor::hardwareThreads(). A value that is not a
/// positive integer up to 1024 is an input error naming where it came from. More threads than
/// cores is allowed.
Result<int> resolveThreadCount(const std::string& given);

/// The process's executor with `threads` threads, created on first use and shared while
/// anyone holds it.
std::shared_ptr<const exec::Executor> sharedExecutor(int threads);

/// resolveThreadCount then sharedExecutor.
Result<std::shared_ptr<const exec::Executor>> executorFor(const std::string& given);

}  // namespace ww::app
