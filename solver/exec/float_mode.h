// The calling thread's floating-point mode, and subnormal numbers flushed to zero.
//
// Many x86 cores compute with subnormal floats (|x| < 1.2e-38) through a microcode assist, tens
// of times slower than with normal ones. The implicit water's solution has exponentially small
// tails across the whole pool, so its stencil and CG passes meet them: a 1024^2 step with rain
// ran 2.6 times slower on an Intel Xeon (docs/wave.md, "Subnormal numbers"). The solvers' steps run
// with subnormals flushed to zero (FlushSubnormals); no quantity of theirs means anything at
// 1e-38 (heights in m, impulses in N s). The executor's threads take the mode of the thread
// that hands them work (FloatModeScope), so results stay the same on any thread count.
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

namespace ww::exec {

/// The calling thread's floating-point control word: x86-64's MXCSR, AArch64's FPCR; 0 where
/// neither.
inline std::uint64_t floatMode() {
#if defined(__x86_64__) || defined(_M_X64)
    return _mm_getcsr();
#elif defined(__aarch64__)
    std::uint64_t fpcr = 0;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    return fpcr;
#else
    return 0;
#endif
}

/// Sets the calling thread's control word to a value floatMode returned.
inline void setFloatMode(std::uint64_t mode) {
#if defined(__x86_64__) || defined(_M_X64)
    _mm_setcsr(static_cast<unsigned>(mode));
#elif defined(__aarch64__)
    __asm__ volatile("msr fpcr, %0" : : "r"(mode));
#else
    (void)mode;
#endif
}

/// The control word's bits that flush subnormals: x86-64's FTZ (results) and DAZ (operands),
/// AArch64's FZ (both); 0 where neither.
inline constexpr std::uint64_t kFlushSubnormalBits =
#if defined(__x86_64__) || defined(_M_X64)
    0x8040;
#elif defined(__aarch64__)
    std::uint64_t{1} << 24;
#else
    0;
#endif

/// For its lifetime the calling thread's mode is `mode`; the mode it found is restored after.
class FloatModeScope {
  public:
    explicit FloatModeScope(std::uint64_t mode) : m_saved(floatMode()), m_set(mode) {
        if (m_set != m_saved) {
            setFloatMode(m_set);
        }
    }
    ~FloatModeScope() {
        if (m_set != m_saved) {
            setFloatMode(m_saved);
        }
    }
    FloatModeScope(const FloatModeScope&) = delete;
    FloatModeScope& operator=(const FloatModeScope&) = delete;

  private:
    std::uint64_t m_saved;
    std::uint64_t m_set;
};

/// For its lifetime the calling thread flushes subnormal results to zero and reads subnormal
/// operands as zero (the rest of its mode unchanged), and so do the executor's threads it hands
/// work to. Nests.
class FlushSubnormals {
  public:
    FlushSubnormals() : m_scope(floatMode() | kFlushSubnormalBits) {}

  private:
    FloatModeScope m_scope;
};

}  // namespace ww::exec
