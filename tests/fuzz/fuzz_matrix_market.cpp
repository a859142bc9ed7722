// libFuzzer target: the Matrix Market reader must return a value or an Error for any bytes —
// never crash, hang or allocate without bound. Built by scripts/fuzz.sh (clang, libFuzzer).
#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <string>

#include "solver/io/matrix_market.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = "/tmp/ww_fuzz_mm_" + std::to_string(::getpid()) + ".mtx";
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) {
        return 0;
    }
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    auto m = ww::io::readMatrixMarket(path);
    if (m.ok()) {
        // Entries must be inside the announced shape.
        for (std::size_t k = 0; k < m->nnz(); ++k) {
            if (m->row[k] < 0 || m->row[k] >= m->rows || m->col[k] < 0 || m->col[k] >= m->cols) {
                __builtin_trap();
            }
        }
        if (static_cast<long long>(m->rows) * m->cols <= (1 << 20)) {
            (void)m->toDense();
        }
    }
    (void)ww::io::readMatrixMarketVector(path, -1);
    return 0;
}
