#include "app/cli/thread_option.h"

#include <cerrno>
#include <cstdlib>
#include <map>
#include <mutex>

namespace ww::app {

namespace {

// Far above any machine's hardware threads; a larger count is a typo, not a request.
constexpr int kMaxThreads = 1024;

// A positive decimal integer (no sign, no spaces, no trailing text), or 0.
int parsePositive(const std::string& text) {
    if (text.empty() || text.size() > 9 ||
        text.find_first_not_of("0123456789") != std::string::npos) {
        return 0;
    }
    return std::atoi(text.c_str());
}

}  // namespace

Result<int> resolveThreadCount(const std::string& given) {
    if (!given.empty()) {
        const int n = parsePositive(given);
        if (n <= 0 || n > kMaxThreads) {
            return inputError("--threads (config key threads): '" + given +
                              "' is not a thread count; give an integer from 1 to " +
                              std::to_string(kMaxThreads));
        }
        return n;
    }
    if (const char* env = std::getenv("WAVEWALL_THREADS"); env != nullptr && *env != '\0') {
        const int n = parsePositive(env);
        if (n <= 0 || n > kMaxThreads) {
            return inputError(std::string("WAVEWALL_THREADS: '") + env +
                              "' is not a thread count; set an integer from 1 to " +
                              std::to_string(kMaxThreads) + ", or unset it");
        }
        return n;
    }
    return exec::Executor::hardwareThreads();
}

std::shared_ptr<const exec::Executor> sharedExecutor(int threads) {
    static std::mutex mutex;
    static std::map<int, std::weak_ptr<const exec::Executor>> made;
    std::lock_guard<std::mutex> lock(mutex);
    std::weak_ptr<const exec::Executor>& slot = made[threads];
    std::shared_ptr<const exec::Executor> ex = slot.lock();
    if (!ex) {
        ex = std::make_shared<const exec::Executor>(threads);
        slot = ex;
    }
    return ex;
}

Result<std::shared_ptr<const exec::Executor>> executorFor(const std::string& given) {
    Result<int> n = resolveThreadCount(given);
    if (!n) {
        return n.error();
    }
    return sharedExecutor(n.value());
}

}  // namespace ww::app
