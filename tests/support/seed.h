// Seeds for the randomised tests: a fresh one per run, printed by the test on failure, and
// WAVEWALL_TEST_SEED=<seed> replays a failing run with the seed it printed (every test binary,
// every test that draws a seed).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>

namespace ww::test {

inline const char* fixedSeed() {
    return std::getenv("WAVEWALL_TEST_SEED");
}

/// A 32-bit seed: WAVEWALL_TEST_SEED if set, else a fresh one from the system's entropy.
inline unsigned freshSeed() {
    if (const char* fixed = fixedSeed()) {
        return static_cast<unsigned>(std::strtoul(fixed, nullptr, 10));
    }
    return std::random_device{}();
}

/// A 64-bit seed: WAVEWALL_TEST_SEED if set, else two fresh 32-bit draws.
inline std::uint64_t freshSeed64() {
    if (const char* fixed = fixedSeed()) {
        return static_cast<std::uint64_t>(std::strtoull(fixed, nullptr, 10));
    }
    std::random_device rd;
    const std::uint64_t high = rd();
    return (high << 32) ^ rd();
}

}  // namespace ww::test
