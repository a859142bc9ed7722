# ww_configure_target(<target>): the warning and optimization flags every wavewall target uses.
function(ww_configure_target target)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                             -Wno-sign-conversion)
    # GCC 12 reports -Wmaybe-uninitialized false positives inside libstdc++ (std::regex,
    # std::function) and nlohmann::json when inlining, more so under sanitizers; real
    # uninitialized reads are caught by -Wuninitialized, the sanitizers and the tests. Clang
    # (the sanitizer and fuzz build) has no such option and warns about it in every file.
    target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
    if(WW_WERROR)
        target_compile_options(${target} PRIVATE -Werror)
    endif()
    if(WW_NATIVE AND NOT WW_SANITIZE)
        target_compile_options(${target} PRIVATE -march=native)
    endif()
    # The source root in the build; installed targets get include/wavewall instead
    # (cmake/WavewallInstall.cmake).
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>)
endfunction()
