#include "solver/io/matrix_market.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <new>
#include <sstream>

namespace ww::io {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

Error fileError(const std::string& path, int line, const std::string& what) {
    return inputError(path + ":" + std::to_string(line) + ": " + what);
}

// Parses a whole token as a finite-or-infinite double; false for trailing junk or NaN.
bool parseDouble(const std::string& tok, double& out) {
    if (tok.empty()) {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    out = std::strtod(tok.c_str(), &end);
    // Overflow to ±inf is accepted on purpose: bound files may write infinity as 1e300.
    return end == tok.c_str() + tok.size() && !std::isnan(out);
}

bool parseInt(const std::string& tok, long long& out) {
    if (tok.empty()) {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    out = std::strtoll(tok.c_str(), &end, 10);
    return end == tok.c_str() + tok.size() && errno == 0;
}

// Reads the next non-comment, non-blank line's tokens; returns false at end of file.
bool nextDataLine(std::istream& in, int& lineNo, std::vector<std::string>& tokens) {
    std::string line;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '%') {
            continue;
        }
        std::istringstream s(line);
        tokens.clear();
        for (std::string t; s >> t;) {
            tokens.push_back(t);
        }
        return true;
    }
    return false;
}

constexpr long long kMaxDimension = 1 << 24;

// Bytes left in `in` after its current position, or -1 when that is unknown (not a regular
// file: a pipe, a device).
long long bytesLeft(const std::string& path, std::istream& in) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        return -1;
    }
    const auto size = std::filesystem::file_size(path, ec);
    const std::streamoff at = in.tellg();
    if (ec || at < 0) {
        return -1;
    }
    return static_cast<long long>(size) - static_cast<long long>(at);
}

Result<SparseTriplets> read(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        return Error{ErrorKind::kIo, path + ": cannot open for reading (" + std::strerror(errno) +
                                         "); check the path"};
    }
    std::string header;
    if (!std::getline(in, header)) {
        return fileError(path, 1, "empty file; expected a '%%MatrixMarket matrix ...' header");
    }
    if (!header.empty() && header.back() == '\r') {
        header.pop_back();
    }
    std::istringstream hs(header);
    std::string banner, object, format, field, symmetry;
    hs >> banner >> object >> format >> field >> symmetry;
    if (banner != "%%MatrixMarket") {
        return fileError(path, 1,
                         "missing '%%MatrixMarket' banner; this is not a Matrix Market file");
    }
    object = lower(object);
    format = lower(format);
    field = lower(field);
    symmetry = lower(symmetry);
    if (object != "matrix") {
        return fileError(path, 1, "object '" + object + "' is not supported (only 'matrix')");
    }
    if (format != "coordinate" && format != "array") {
        return fileError(path, 1, "format '" + format + "' must be 'coordinate' or 'array'");
    }
    if (field != "real" && field != "integer" && field != "double") {
        return fileError(path, 1, "field '" + field + "' is not supported (use real or integer)");
    }
    if (symmetry != "general" && symmetry != "symmetric") {
        return fileError(path, 1,
                         "symmetry '" + symmetry + "' is not supported (use general or symmetric)");
    }
    const bool symmetric = symmetry == "symmetric";
    int lineNo = 1;
    std::vector<std::string> tok;
    if (!nextDataLine(in, lineNo, tok)) {
        return fileError(path, lineNo, "missing the size line after the header");
    }
    SparseTriplets m;
    m.wasDense = format == "array";
    long long rows = 0, cols = 0, entries = 0;
    const std::size_t sizeTokens = m.wasDense ? 2u : 3u;
    if (tok.size() != sizeTokens || !parseInt(tok[0], rows) || !parseInt(tok[1], cols) ||
        (!m.wasDense && !parseInt(tok[2], entries))) {
        return fileError(
            path, lineNo,
            m.wasDense ? "size line must be 'ROWS COLS'" : "size line must be 'ROWS COLS ENTRIES'");
    }
    if (rows <= 0 || cols <= 0 || rows > kMaxDimension || cols > kMaxDimension) {
        return fileError(path, lineNo,
                         "matrix size " + std::to_string(rows) + "x" + std::to_string(cols) +
                             " is out of range (1.." + std::to_string(kMaxDimension) + ")");
    }
    if (symmetric && rows != cols) {
        return fileError(path, lineNo, "a symmetric matrix must be square");
    }
    m.rows = static_cast<int>(rows);
    m.cols = static_cast<int>(cols);
    if (m.wasDense) {
        entries = symmetric ? rows * (rows + 1) / 2 : rows * cols;
    } else if (entries < 0 || entries > rows * cols) {
        return fileError(path, lineNo,
                         "entry count " + std::to_string(entries) + " is impossible for a " +
                             std::to_string(rows) + "x" + std::to_string(cols) + " matrix");
    }
    // Each entry has a line of its own of at least "v\n" (array) or "i j v\n" (coordinate)
    // (the last one may lack its newline), so a size line announcing more entries than the
    // rest of the file can hold is an error before anything is allocated for them.
    const long long minLine = m.wasDense ? 2 : 6;
    const long long left = bytesLeft(path, in);
    if (left >= 0 && entries > 0 && entries * minLine - 1 > left) {
        return fileError(path, lineNo,
                         "the size line announces " + std::to_string(entries) + " entries (" +
                             std::to_string(rows) + "x" + std::to_string(cols) + " " + format +
                             ") but only " + std::to_string(left) +
                             " bytes follow, too few for them; fix the size line or the file");
    }
    if (left >= 0) {
        m.row.reserve(static_cast<std::size_t>(entries));
        m.col.reserve(static_cast<std::size_t>(entries));
        m.value.reserve(static_cast<std::size_t>(entries));
    }

    // Array format walks column-major (lower triangle only when symmetric).
    long long ai = 0, aj = 0;
    for (long long k = 0; k < entries; ++k) {
        if (!nextDataLine(in, lineNo, tok)) {
            return fileError(path, lineNo,
                             "expected " + std::to_string(entries) +
                                 " entries but the file ends after " + std::to_string(k));
        }
        long long i = 0, j = 0;
        double v = 0.0;
        if (m.wasDense) {
            if (tok.size() != 1 || !parseDouble(tok[0], v)) {
                return fileError(
                    path, lineNo,
                    "expected one number, got '" + (tok.empty() ? std::string() : tok[0]) + "'");
            }
            i = ai;
            j = aj;
            if (++ai == rows) {
                ++aj;
                ai = symmetric ? aj : 0;
            }
        } else {
            if (tok.size() != 3 || !parseInt(tok[0], i) || !parseInt(tok[1], j) ||
                !parseDouble(tok[2], v)) {
                return fileError(path, lineNo,
                                 "expected 'ROW COL VALUE' (1-based integers and a number)");
            }
            if (i < 1 || i > rows || j < 1 || j > cols) {
                return fileError(path, lineNo,
                                 "index (" + std::to_string(i) + ", " + std::to_string(j) +
                                     ") is outside the " + std::to_string(rows) + "x" +
                                     std::to_string(cols) + " matrix");
            }
            if (symmetric && j > i) {
                return fileError(path, lineNo,
                                 "symmetric files store the lower triangle only; "
                                 "entry is above the diagonal");
            }
            --i;
            --j;
        }
        m.row.push_back(static_cast<int>(i));
        m.col.push_back(static_cast<int>(j));
        m.value.push_back(v);
        if (symmetric && i != j) {
            m.row.push_back(static_cast<int>(j));
            m.col.push_back(static_cast<int>(i));
            m.value.push_back(v);
        }
    }
    if (nextDataLine(in, lineNo, tok)) {
        return fileError(
            path, lineNo,
            "more entries than the " + std::to_string(entries) + " the size line announced");
    }
    return m;
}

}  // namespace

std::vector<double> SparseTriplets::toDense() const {
    std::vector<double> d(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols), 0.0);
    for (std::size_t k = 0; k < value.size(); ++k) {
        d[static_cast<std::size_t>(row[k]) * static_cast<std::size_t>(cols) +
          static_cast<std::size_t>(col[k])] += value[k];
    }
    return d;
}

Result<SparseTriplets> readMatrixMarket(const std::string& path) {
    try {
        return read(path);
    } catch (const std::bad_alloc&) {
        // The header is checked against the file's size before anything is allocated, so this
        // is a matrix as large as the file says that does not fit in this process's memory.
        return inputError(path +
                          ": not enough memory to hold this matrix; use a smaller one or "
                          "raise the memory limit (ulimit -v)");
    }
}

Result<std::vector<double>> readMatrixMarketVector(const std::string& path, int expectedSize) {
    Result<SparseTriplets> m = readMatrixMarket(path);
    if (!m) {
        return m.error();
    }
    if (m->rows != 1 && m->cols != 1) {
        return inputError(path + ": expected a vector (n x 1), got a " + std::to_string(m->rows) +
                          "x" + std::to_string(m->cols) + " matrix");
    }
    const int n = std::max(m->rows, m->cols);
    if (expectedSize >= 0 && n != expectedSize) {
        return inputError(path + ": vector has " + std::to_string(n) +
                          " entries but the matrix has " + std::to_string(expectedSize) +
                          " rows; sizes must match");
    }
    try {
        return m->toDense();
    } catch (const std::bad_alloc&) {
        return inputError(path + ": not enough memory for a vector of " + std::to_string(n) +
                          " entries; use a smaller one or raise the memory limit (ulimit -v)");
    }
}

Status writeMatrixMarketArray(const std::string& path, int rows, int cols,
                              const std::vector<double>& rowMajor) {
    std::ofstream out(path);
    if (!out) {
        return Error{ErrorKind::kIo,
                     path + ": cannot open for writing (" + std::strerror(errno) + ")"};
    }
    out << "%%MatrixMarket matrix array real general\n" << rows << " " << cols << "\n";
    char buf[40];
    for (int j = 0; j < cols; ++j) {  // the array format is column-major
        for (int i = 0; i < rows; ++i) {
            std::snprintf(buf, sizeof buf, "%.9g\n",
                          rowMajor[static_cast<std::size_t>(i) * cols + j]);
            out << buf;
        }
    }
    if (!out) {
        return Error{ErrorKind::kIo, path + ": write failed"};
    }
    return {};
}

Status writeMatrixMarketVector(const std::string& path, const std::vector<double>& values) {
    return writeMatrixMarketArray(path, static_cast<int>(values.size()), 1, values);
}

Status checkWritable(const std::string& path, const char* what) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path p(path);
    if (fs::is_directory(p, ec)) {
        return Error{ErrorKind::kIo,
                     std::string(what) + " path '" + path + "' is a folder; give a file name"};
    }
    const bool existed = fs::exists(p, ec);
    {
        std::ofstream probe(path, std::ios::app);
        if (!probe) {
            return Error{ErrorKind::kIo, std::string(what) + " path '" + path +
                                             "' is not writable (" + std::strerror(errno) +
                                             "); choose another location"};
        }
    }
    if (!existed) {
        fs::remove(p, ec);
    }
    return {};
}

}  // namespace ww::io
