// Shared headless GPU context for tests. A test that needs the GPU calls
// WW_REQUIRE_GPU(): when no GL 4.3 context can be had it skips locally, but fails when
// CI=true or WW_REQUIRE_GPU=1 (scripts/gpu-check.sh on a GPU server), so a broken GL set-up can
// never pass silently there.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "solver/gpu/gpu_context.h"

namespace ww::test {

/// The process-wide headless context (created on first use), or nullptr with `why` set.
inline gpu::GpuContext* sharedGpu(std::string* why = nullptr) {
    static std::string reason;
    static std::unique_ptr<gpu::GpuContext> ctx = [] {
        auto r = gpu::GpuContext::createHeadless();
        if (!r) {
            reason = r.error().message;
            return std::unique_ptr<gpu::GpuContext>();
        }
        return std::move(r).value();
    }();
    if (ctx) {
        ctx->makeCurrent();
    }
    if (why != nullptr) {
        *why = reason;
    }
    return ctx.get();
}

inline bool envIsTrue(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && (std::strcmp(v, "true") == 0 || std::strcmp(v, "1") == 0);
}

inline bool runningInCi() { return envIsTrue("CI"); }

/// CI=true, or WW_REQUIRE_GPU=1: a missing GPU context is a failure, not a skip.
inline bool gpuRequired() { return runningInCi() || envIsTrue("WW_REQUIRE_GPU"); }

}  // namespace ww::test

#define WW_REQUIRE_GPU()                                            \
    do {                                                            \
        std::string wwWhy_;                                         \
        if (::ww::test::sharedGpu(&wwWhy_) == nullptr) {            \
            if (::ww::test::gpuRequired()) {                        \
                FAIL() << "CI=true or WW_REQUIRE_GPU=1 but no GPU context: " << wwWhy_; \
            }                                                       \
            GTEST_SKIP() << "no GPU context: " << wwWhy_;           \
        }                                                           \
    } while (0)
