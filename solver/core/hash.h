// Deterministic state hashes (64-bit FNV-1a over the raw bytes of float arrays), printed by
// headless runs so that two runs of one scene, seed and backend can be compared bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

namespace ww {

class StateHash {
  public:
    void add(const void* data, std::size_t bytes) {
        const auto* p = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < bytes; ++i) {
            m_value ^= p[i];
            m_value *= 0x100000001b3ull;
        }
    }
    template <typename T>
    void add(std::span<const T> values) {
        add(values.data(), values.size_bytes());
    }
    std::uint64_t value() const { return m_value; }
    std::string hex() const {
        char buf[17];
        std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(m_value));
        return buf;
    }

  private:
    std::uint64_t m_value = 0xcbf29ce484222325ull;
};

}  // namespace ww
