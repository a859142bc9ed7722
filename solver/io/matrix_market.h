// Matrix Market (https://math.nist.gov/MatrixMarket/formats.html) reading and writing for the
// `lcp` and `cg` commands: `coordinate` (sparse triplets) and `array` (dense, column-major)
// formats, `real` or `integer` fields, `general` or `symmetric` symmetry. Symmetric files store
// the lower triangle; reading mirrors it. Every malformed input is an Error naming file and line.
#pragma once

#include <string>
#include <vector>

#include "solver/core/result.h"

namespace ww::io {

/// A matrix as read: triplets (0-based, symmetric entries already mirrored).
struct SparseTriplets {
    int rows = 0;
    int cols = 0;
    std::vector<int> row;
    std::vector<int> col;
    std::vector<double> value;
    bool wasDense = false;  ///< the file used the `array` format

    std::size_t nnz() const { return value.size(); }
    /// Row-major dense copy (rows*cols); duplicate coordinate entries are summed.
    std::vector<double> toDense() const;
};

Result<SparseTriplets> readMatrixMarket(const std::string& path);
/// Reads a vector: an n×1 (or 1×n) matrix in either format; `expectedSize` < 0 accepts any size,
/// otherwise a different size is an error that names both sizes.
Result<std::vector<double>> readMatrixMarketVector(const std::string& path, int expectedSize = -1);
/// Writes a dense rows×cols matrix given row-major as an `array` (column-major) file.
Status writeMatrixMarketArray(const std::string& path, int rows, int cols,
                              const std::vector<double>& rowMajor);
/// Writes a dense n×1 array (`%%MatrixMarket matrix array real general`).
Status writeMatrixMarketVector(const std::string& path, const std::vector<double>& values);
/// Checks that `path` can be created or overwritten (the parent folder exists and is writable)
/// without leaving a file behind; used to reject bad output paths before a run starts.
Status checkWritable(const std::string& path, const char* what);

}  // namespace ww::io
