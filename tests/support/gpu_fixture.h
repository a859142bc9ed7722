// Shared headless GPU context for tests. A test that needs the GPU calls
// WW_REQUIRE_GPU(): when no GL 4.3 context can be had it skips locally, but fails when
// CI=true, so a broken GL set-up can never pass silently in CI.
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

inline bool runningInCi() {
    const char* ci = std::getenv("CI");
    return ci != nullptr && (std::strcmp(ci, "true") == 0 || std::strcmp(ci, "1") == 0);
}

}  // namespace ww::test

#define WW_REQUIRE_GPU()                                            \
    do {                                                            \
        std::string wwWhy_;                                         \
        if (::ww::test::sharedGpu(&wwWhy_) == nullptr) {            \
            if (::ww::test::runningInCi()) {                        \
                FAIL() << "CI=true but no GPU context: " << wwWhy_; \
            }                                                       \
            GTEST_SKIP() << "no GPU context: " << wwWhy_;           \
        }                                                           \
    } while (0)
