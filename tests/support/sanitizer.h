#pragma once

// Whether this test binary (and the wavewall executable of the same build) runs under
// AddressSanitizer: g++ defines __SANITIZE_ADDRESS__, clang answers __has_feature. Under ASan the
// allocator is ASan's (glibc's heap count does not see it) and freed memory stays resident in
// its quarantine, so heap and RSS measurements mean nothing there.
#if defined(__SANITIZE_ADDRESS__)
#define WW_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WW_TEST_UNDER_ASAN 1
#endif
#endif
#ifndef WW_TEST_UNDER_ASAN
#define WW_TEST_UNDER_ASAN 0
#endif
