// Runs a shell command for tests that drive the real executable: its exit code and its stdout
// and stderr together.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace ww::test {

struct CommandResult {
    int code = -1;       ///< exit status; -1 if it could not run or died from a signal
    std::string output;  ///< stdout and stderr
};

inline CommandResult runShell(const std::string& cmd) {
    CommandResult r;
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    if (p == nullptr) {
        return r;
    }
    std::array<char, 4096> buf{};
    while (fgets(buf.data(), buf.size(), p) != nullptr) {
        r.output += buf.data();
    }
    const int status = pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

}  // namespace ww::test
