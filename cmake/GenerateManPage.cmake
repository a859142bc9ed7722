# Run as a script (cmake -P): writes OUTPUT, the manual page that `EXE --man` prints
# (app/cli/man_page.h). Fails the build when the binary fails or prints nothing. In a
# sanitizer build the leak check is off here: the page is the output, and the tests check leaks
# (with scripts/lsan.supp for the GL drivers' allocations).
execute_process(COMMAND "${CMAKE_COMMAND}" -E env ASAN_OPTIONS=detect_leaks=0 "${EXE}" --man
                OUTPUT_VARIABLE page
                ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR page STREQUAL "")
    message(FATAL_ERROR "GenerateManPage: '${EXE} --man' failed (exit ${rc}): ${err}")
endif()
file(WRITE "${OUTPUT}.tmp" "${page}")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
