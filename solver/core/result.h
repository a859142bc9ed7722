// Recoverable errors as values: Result<T> holds either a T or an Error that says what went
// wrong, where, and what to do about it. Used wherever user input, files or the GL driver
// can fail; programmer errors stay assertions.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace ww {

/// What kind of failure an Error reports; the CLI maps it to an exit code (docs/cli.md).
enum class ErrorKind {
    kInput,           ///< bad flag, file or value supplied by the user (exit 2)
    kIo,              ///< a file could not be read or written (exit 2)
    kGpuUnavailable,  ///< no usable GL 4.3 context (exit 3 when the GPU was demanded)
    kGpuLimit,        ///< a size exceeds what the GPU can hold (exit 2)
    kShader,          ///< a shader failed to compile or link
    kNumerical,       ///< a solver diverged or did not converge (exit 1)
};

struct Error {
    ErrorKind kind = ErrorKind::kInput;
    std::string message;
};

inline Error inputError(std::string message) {
    return {ErrorKind::kInput, std::move(message)};
}

/// Either a value or an Error. Check ok() before value().
template <typename T>
class [[nodiscard]] Result {
  public:
    Result(T value) : m_data(std::move(value)) {}      // NOLINT: implicit by design
    Result(Error error) : m_data(std::move(error)) {}  // NOLINT: implicit by design

    bool ok() const { return std::holds_alternative<T>(m_data); }
    explicit operator bool() const { return ok(); }

    T& value() & {
        assert(ok());
        return std::get<T>(m_data);
    }
    const T& value() const& {
        assert(ok());
        return std::get<T>(m_data);
    }
    T&& value() && {
        assert(ok());
        return std::get<T>(std::move(m_data));
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }

    const Error& error() const {
        assert(!ok());
        return std::get<Error>(m_data);
    }

  private:
    std::variant<T, Error> m_data;
};

/// Result of an operation with no value: success or an Error.
class [[nodiscard]] Status {
  public:
    Status() = default;
    Status(Error error) : m_error(std::move(error)), m_ok(false) {}  // NOLINT: implicit
    bool ok() const { return m_ok; }
    explicit operator bool() const { return m_ok; }
    const Error& error() const {
        assert(!m_ok);
        return m_error;
    }

  private:
    Error m_error;
    bool m_ok = true;
};

}  // namespace ww
