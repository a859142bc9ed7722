// GPU matrices, vectors and the operation set (see gpu_dense.h and shaders/linalg_*.comp).
#include "solver/linalg/gpu_dense.h"

#include <algorithm>
#include <limits>

#include "solver/gpu/shader_library.h"
#include "solver/linalg/gpu_layout.h"

namespace ww::linalg {

namespace {

std::string shape(int r, int c) {
    return std::to_string(r) + "x" + std::to_string(c);
}

Error mismatch(const std::string& what) {
    return inputError("dimension mismatch: " + what);
}

// Elementwise operation codes of linalg_elementwise.comp.
enum Op : unsigned { kCopy, kAdd, kAccumulate, kScale, kMax, kMad, kMadTo, kMadElem, kMadad };

constexpr std::uint32_t kMaxGroupsX = 65535;  // the minimum GL guarantees per dimension

}  // namespace

// The buffer is allocated with its contents (zeros, or the values and a zero tail) in one
// glNamedBufferData, never cleared and then written: on NVIDIA's driver (580, H100, EGL) a
// buffer of more than 64 KiB cleared with glClearNamedBufferData and then filled with
// glNamedBufferSubData read as zeros in the next dispatch (every product with such a matrix
// came out zero; GpuDense.ProductsAtTileEdgesMatchDouble lists the shapes).
Result<GpuVector> GpuVector::create(int n) {
    return fromHost(std::vector<float>(static_cast<std::size_t>(std::max(n, 0))), n);
}

Result<GpuVector> GpuVector::fromHost(std::span<const float> values) {
    return fromHost(values, static_cast<int>(values.size()));
}

Result<GpuVector> GpuVector::fromHost(std::span<const float> values, int n) {
    if (n < 0) {
        return inputError("negative vector length " + std::to_string(n));
    }
    std::vector<float> padded(std::max<std::size_t>(paddedLength(n), 4), 0.0f);
    std::copy(values.begin(), values.end(), padded.begin());
    auto buffer = gpu::Buffer::create(padded.size() * sizeof(float), padded.data(), "vector");
    if (!buffer) {
        return buffer.error();
    }
    GpuVector v;
    v.m_n = n;
    v.m_buffer = std::move(buffer).value();
    return v;
}

Status GpuVector::upload(std::span<const float> values) {
    if (values.size() != static_cast<std::size_t>(m_n)) {
        return mismatch("uploading " + std::to_string(values.size()) +
                        " values into a GPU vector of " + std::to_string(m_n));
    }
    m_buffer.upload(values);
    return {};
}

Vector GpuVector::download() const {
    return m_buffer.download<float>(static_cast<std::size_t>(m_n));
}

Result<GpuMatrix> GpuMatrix::create(int rows, int cols) {
    if (rows < 0 || cols < 0) {
        return inputError("negative matrix shape " + shape(rows, cols));
    }
    const std::size_t floats = gpuMatrixFloats(rows, cols);
    if (floats > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
        return Error{ErrorKind::kGpuLimit, "matrix " + shape(rows, cols) + " is too large"};
    }
    auto storage = GpuVector::create(static_cast<int>(floats));
    if (!storage) {
        return Error{storage.error().kind,
                     "matrix " + shape(rows, cols) + ": " + storage.error().message};
    }
    GpuMatrix m;
    m.m_rows = rows;
    m.m_cols = cols;
    m.m_storage = std::move(storage).value();
    return m;
}

Result<GpuMatrix> GpuMatrix::fromHost(const Matrix& host) {
    if (host.rows < 0 || host.cols < 0) {
        return inputError("negative matrix shape " + shape(host.rows, host.cols));
    }
    const std::size_t floats = gpuMatrixFloats(host.rows, host.cols);
    if (floats > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
        return Error{ErrorKind::kGpuLimit, "matrix " + shape(host.rows, host.cols) + " is too large"};
    }
    std::vector<float> packed(floats);
    packRowBlocks(host.data.data(), host.rows, host.cols, packed.data());
    auto storage = GpuVector::fromHost(packed);
    if (!storage) {
        return Error{storage.error().kind,
                     "matrix " + shape(host.rows, host.cols) + ": " + storage.error().message};
    }
    GpuMatrix m;
    m.m_rows = host.rows;
    m.m_cols = host.cols;
    m.m_storage = std::move(storage).value();
    return m;
}

Status GpuMatrix::upload(const Matrix& host) {
    if (host.rows != m_rows || host.cols != m_cols) {
        return mismatch("uploading a " + shape(host.rows, host.cols) + " matrix into a " +
                        shape(m_rows, m_cols) + " GPU matrix");
    }
    std::vector<float> packed(gpuMatrixFloats(m_rows, m_cols));
    packRowBlocks(host.data.data(), m_rows, m_cols, packed.data());
    return m_storage.upload(packed);
}

Matrix GpuMatrix::download() const {
    const auto packed = m_storage.download();
    Matrix m(m_rows, m_cols);
    unpackRowBlocks(packed.data(), m_rows, m_cols, m.data.data());
    return m;
}

Result<GpuOps> GpuOps::create(const gpu::ShaderLibrary& shaders) {
    GpuOps ops;
    const std::pair<const char*, gpu::Program*> programs[] = {
        {"linalg_elementwise.comp", &ops.m_elementwise}, {"linalg_dot.comp", &ops.m_dot},
        {"linalg_matvec.comp", &ops.m_matVec},           {"linalg_matvec_t.comp", &ops.m_matTVec},
        {"linalg_matmat.comp", &ops.m_matMat},           {"linalg_matmat_t.comp", &ops.m_matTMat}};
    for (const auto& [file, program] : programs) {
        auto p = shaders.build(gpu::ProgramSpec::computeStage(file));
        if (!p) {
            return p.error();
        }
        *program = std::move(p).value();
    }
    return ops;
}

Status GpuOps::elementwise(unsigned op, float s, GpuVector& y, const GpuVector& a,
                           const GpuVector* b, const GpuVector* c, const GpuVector* d) {
    for (const GpuVector* v : {&a, b, c, d}) {
        if (v != nullptr && v->size() != y.size()) {
            return mismatch("elementwise operands of lengths " + std::to_string(v->size()) +
                            " and " + std::to_string(y.size()));
        }
    }
    m_elementwise.use();
    m_elementwise.set("uCount", static_cast<unsigned>(y.size()));
    m_elementwise.set("uOp", op);
    m_elementwise.set("uS", s);
    y.buffer().bind(0);
    a.buffer().bind(1);
    (b ? b : &a)->buffer().bind(2);
    (c ? c : &a)->buffer().bind(3);
    (d ? d : &a)->buffer().bind(4);
    const auto groups = std::clamp<std::uint32_t>(
        gpu::groupsFor(static_cast<std::size_t>(y.size()), 256), 1, kMaxGroupsX);
    auto status = gpu::dispatch(m_elementwise, groups);
    gpu::barrier();
    return status;
}

Status GpuOps::copy(const GpuVector& a, GpuVector& y) {
    return elementwise(kCopy, 0, y, a);
}
Status GpuOps::add(const GpuVector& a, const GpuVector& b, GpuVector& y) {
    return elementwise(kAdd, 0, y, a, &b);
}
Status GpuOps::accumulate(const GpuVector& a, GpuVector& y) {
    return elementwise(kAccumulate, 0, y, a);
}
Status GpuOps::scale(const GpuVector& a, float s, GpuVector& y) {
    return elementwise(kScale, s, y, a);
}
Status GpuOps::maxScalar(const GpuVector& a, float s, GpuVector& y) {
    return elementwise(kMax, s, y, a);
}
Status GpuOps::mad(const GpuVector& a, float s, GpuVector& y) {
    return elementwise(kMad, s, y, a);
}
Status GpuOps::madTo(const GpuVector& a, const GpuVector& b, float s, GpuVector& y) {
    return elementwise(kMadTo, s, y, a, &b);
}
Status GpuOps::madElem(const GpuVector& a, const GpuVector& b, GpuVector& y) {
    return elementwise(kMadElem, 0, y, a, &b);
}
Status GpuOps::madad(const GpuVector& a, const GpuVector& b, const GpuVector& c, const GpuVector& d,
                     GpuVector& y) {
    return elementwise(kMadad, 0, y, a, &b, &c, &d);
}

Status GpuOps::dot(const GpuVector& a, const GpuVector& b, GpuVector& result) {
    if (a.size() != b.size() || result.size() < 1) {
        return mismatch("dot of lengths " + std::to_string(a.size()) + " and " +
                        std::to_string(b.size()) + " into a result of " +
                        std::to_string(result.size()));
    }
    m_dot.use();
    m_dot.set("uCount", static_cast<unsigned>(a.size()));
    a.buffer().bind(0);
    b.buffer().bind(1);
    result.buffer().bind(2);
    auto status = gpu::dispatch(m_dot, 1);
    gpu::barrier();
    return status;
}

Status GpuOps::matVec(const GpuMatrix& a, const GpuVector& x, GpuVector& y) {
    if (auto msg = checkMatVec(a.rows(), a.cols(), static_cast<std::size_t>(x.size()),
                               static_cast<std::size_t>(y.size()));
        !msg.empty()) {
        return inputError(msg);
    }
    m_matVec.use();
    m_matVec.set("uRows", static_cast<unsigned>(a.rows()));
    m_matVec.set("uCols", static_cast<unsigned>(a.cols()));
    m_matVec.set("uRowBlocks", static_cast<unsigned>(a.rowBlocks()));
    a.storage().buffer().bind(0);
    x.buffer().bind(1);
    y.buffer().bind(2);
    auto status =
        gpu::dispatch(m_matVec, gpu::groupsFor(static_cast<std::size_t>(a.rowBlocks()),
                                               m_matVec.localSize()[0]));
    gpu::barrier();
    return status;
}

Status GpuOps::matTVec(const GpuMatrix& a, const GpuVector& x, GpuVector& y) {
    if (auto msg = checkMatVec(a.cols(), a.rows(), static_cast<std::size_t>(x.size()),
                               static_cast<std::size_t>(y.size()));
        !msg.empty()) {
        return inputError("transposed product: " + msg);
    }
    const auto perRow =
        std::min<std::uint32_t>(static_cast<std::uint32_t>(std::max(a.cols(), 1)), kMaxGroupsX);
    const auto rows = gpu::groupsFor(static_cast<std::size_t>(a.cols()), static_cast<int>(perRow));
    m_matTVec.use();
    m_matTVec.set("uRowBlocks", static_cast<unsigned>(a.rowBlocks()));
    m_matTVec.set("uColsPerRow", static_cast<unsigned>(perRow));
    m_matTVec.set("uCols", static_cast<unsigned>(a.cols()));
    a.storage().buffer().bind(0);
    x.buffer().bind(1);
    y.buffer().bind(2);
    auto status = gpu::dispatch(m_matTVec, perRow, std::max<std::uint32_t>(rows, 1));
    gpu::barrier();
    return status;
}

Status GpuOps::matMat(const GpuMatrix& a, const GpuMatrix& b, GpuMatrix& c) {
    if (a.cols() != b.rows() || c.rows() != a.rows() || c.cols() != b.cols()) {
        return mismatch("C = A B with A " + shape(a.rows(), a.cols()) + ", B " +
                        shape(b.rows(), b.cols()) + ", C " + shape(c.rows(), c.cols()));
    }
    m_matMat.use();
    m_matMat.set("uRowBlocksA", static_cast<unsigned>(a.rowBlocks()));
    m_matMat.set("uInner", static_cast<unsigned>(a.cols()));
    m_matMat.set("uRowBlocksB", static_cast<unsigned>(b.rowBlocks()));
    m_matMat.set("uColsB", static_cast<unsigned>(b.cols()));
    a.storage().buffer().bind(0);
    b.storage().buffer().bind(1);
    c.storage().buffer().bind(2);
    auto status = gpu::dispatch(m_matMat, gpu::groupsFor(static_cast<std::size_t>(b.cols()), 16),
                                gpu::groupsFor(static_cast<std::size_t>(a.rowBlocks()), 16));
    gpu::barrier();
    return status;
}

Status GpuOps::matTMat(const GpuMatrix& a, const GpuMatrix& b, GpuMatrix& c) {
    if (a.rows() != b.rows() || c.rows() != a.cols() || c.cols() != b.cols()) {
        return mismatch("C = A^T B with A " + shape(a.rows(), a.cols()) + ", B " +
                        shape(b.rows(), b.cols()) + ", C " + shape(c.rows(), c.cols()));
    }
    m_matTMat.use();
    m_matTMat.set("uRows", static_cast<unsigned>(a.rows()));
    m_matTMat.set("uRowBlocksAB", static_cast<unsigned>(a.rowBlocks()));
    m_matTMat.set("uColsA", static_cast<unsigned>(a.cols()));
    m_matTMat.set("uRowBlocksC", static_cast<unsigned>(c.rowBlocks()));
    m_matTMat.set("uColsB", static_cast<unsigned>(b.cols()));
    a.storage().buffer().bind(0);
    b.storage().buffer().bind(1);
    c.storage().buffer().bind(2);
    auto status = gpu::dispatch(m_matTMat, gpu::groupsFor(static_cast<std::size_t>(b.cols()), 16),
                                gpu::groupsFor(static_cast<std::size_t>(c.rowBlocks()), 16));
    gpu::barrier();
    return status;
}

}  // namespace ww::linalg
