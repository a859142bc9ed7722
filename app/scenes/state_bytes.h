// Bytes of a saved scene state (`headless --snapshot-save` / `--snapshot-load`): trivially
// copyable values and vectors of them, appended in order and read back with bounds checks,
// so a truncated or foreign file is an error, never an overrun. Native byte order and float
// layout: a snapshot is for the machine (and build) that wrote it.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ww::app {

class ByteWriter {
  public:
    template <typename T>
    void put(const T& value) {
        static_assert(std::is_trivially_copyable_v<T>);
        m_bytes.append(reinterpret_cast<const char*>(&value), sizeof(T));
    }
    template <typename T>
    void putVector(const std::vector<T>& values) {
        static_assert(std::is_trivially_copyable_v<T>);
        put(static_cast<std::uint64_t>(values.size()));
        if (!values.empty()) {  // an empty vector's data() may be null
            m_bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
        }
    }
    std::string take() { return std::move(m_bytes); }

  private:
    std::string m_bytes;
};

class ByteReader {
  public:
    explicit ByteReader(std::string_view bytes) : m_bytes(bytes) {}
    /// False (and nothing read) when fewer than sizeof(T) bytes are left.
    template <typename T>
    bool get(T& value) {
        static_assert(std::is_trivially_copyable_v<T>);
        if (m_bytes.size() - m_at < sizeof(T)) {
            return false;
        }
        std::memcpy(&value, m_bytes.data() + m_at, sizeof(T));
        m_at += sizeof(T);
        return true;
    }
    template <typename T>
    bool getVector(std::vector<T>& values) {
        std::uint64_t n = 0;
        if (!get(n) || n > (m_bytes.size() - m_at) / sizeof(T)) {
            return false;
        }
        values.resize(static_cast<std::size_t>(n));
        if (n > 0) {  // memcpy with a null pointer is undefined even for 0 bytes
            std::memcpy(values.data(), m_bytes.data() + m_at, values.size() * sizeof(T));
        }
        m_at += values.size() * sizeof(T);
        return true;
    }
    bool atEnd() const { return m_at == m_bytes.size(); }

  private:
    std::string_view m_bytes;
    std::size_t m_at = 0;
};

}  // namespace ww::app
