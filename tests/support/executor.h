// The executor the solver tests run on: three threads, more than this 2-core machine has, so
// the parallel paths (chunks on several threads, oversubscribed) are the ones tested.
#pragma once

#include <memory>

#include "solver/exec/executor.h"

namespace ww::test {

inline std::shared_ptr<const exec::Executor> executor() {
    static const auto shared = std::make_shared<const exec::Executor>(3);
    return shared;
}

}  // namespace ww::test
