// The CPU and GPU backends of CgSolver (see cg_solver.h): thin owners of the CG engines of
// cg_cpu.h and cg_gpu.h that check the input and turn a breakdown into an Error.
#include "solver/cg/cg_solver.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "solver/cg/cg_cpu.h"
#include "solver/cg/cg_gpu.h"
#include "solver/core/timer.h"
#include "solver/gpu/gpu_context.h"

namespace ww::cg {

Status checkCgInput(std::size_t n, std::size_t bSize, std::size_t xSize, const CgOptions& options) {
    if (bSize != n || xSize != n) {
        return inputError("cg: the matrix is " + std::to_string(n) + " x " + std::to_string(n) +
                          " but b has " + std::to_string(bSize) + " and x " +
                          std::to_string(xSize) + " entries; pass vectors of the matrix's size");
    }
    if (!(options.tolerance >= 0.0f) || !std::isfinite(options.tolerance)) {
        return inputError("cg: tolerance " + std::to_string(options.tolerance) +
                          " must be a finite relative residual >= 0 (0 runs maxIterations)");
    }
    if (options.maxIterations < 0 || options.checkEvery < 1) {
        return inputError("cg: maxIterations (" + std::to_string(options.maxIterations) +
                          ") must be >= 0 and checkEvery (" + std::to_string(options.checkEvery) +
                          ") >= 1");
    }
    return {};
}

namespace {

// A finished solve, or the kNumerical error of a breakdown.
Result<CgReport> settle(CgReport report) {
    if (report.status != CgStatus::kBreakdown) {
        return report;
    }
    return Error{ErrorKind::kNumerical,
                 "cg: broke down at iteration " + std::to_string(report.iterations) +
                     " (p.Ap <= 0 or not finite, residual " + std::to_string(report.residual) +
                     "): A is not symmetric positive definite or the values overflow float; "
                     "check A's symmetry and diagonal, or scale the system"};
}

// The four host-memory overloads of CgSolver, each forwarded to Derived::solveHost<Op>.
template <typename Derived, typename Base>
class HostOverloads : public Base {
  public:
    using Base::solve;
    Result<CgReport> solve(const StencilOperator& a, std::span<const float> b, std::span<float> x,
                           const CgOptions& o) override {
        return self().solveHost(a, b, x, o);
    }
    Result<CgReport> solve(const BandedOperator& a, std::span<const float> b, std::span<float> x,
                           const CgOptions& o) override {
        return self().solveHost(a, b, x, o);
    }
    Result<CgReport> solve(const CsrMatrix& a, std::span<const float> b, std::span<float> x,
                           const CgOptions& o) override {
        return self().solveHost(a, b, x, o);
    }
    Result<CgReport> solve(const DenseOperator& a, std::span<const float> b, std::span<float> x,
                           const CgOptions& o) override {
        return self().solveHost(a, b, x, o);
    }

  private:
    Derived& self() { return static_cast<Derived&>(*this); }
};

class CpuBackend final : public HostOverloads<CpuBackend, CgSolver> {
  public:
    explicit CpuBackend(std::shared_ptr<const exec::Executor> executor)
        : m_engine(std::move(executor)) {}
    Backend backend() const override { return Backend::kCpu; }

    template <typename Op>
    Result<CgReport> solveHost(const Op& a, std::span<const float> b, std::span<float> x,
                               const CgOptions& o) {
        if (Status st = checkCgInput(a.size(), b.size(), x.size(), o); !st) {
            return st.error();
        }
        return settle(m_engine.solve(a, b, x, o));
    }

  private:
    CpuCgSolver m_engine;
};

class GpuBackend final : public HostOverloads<GpuBackend, GpuCgBackend> {
  public:
    explicit GpuBackend(const gpu::ShaderLibrary& shaders) : m_shaders(&shaders) {}
    Backend backend() const override { return Backend::kGpu; }
    using HostOverloads::solve;

    Result<CgReport> solve(const GpuOperator& op, const gpu::Buffer& b, gpu::Buffer& x,
                           const CgOptions& o) override {
        const std::size_t n = op.size();
        if (Status st = checkCgInput(n, n, n, o); !st) {
            return st.error();
        }
        if (b.bytes() < n * sizeof(float) || x.bytes() < n * sizeof(float)) {
            return inputError("cg: the operator has " + std::to_string(n) +
                              " unknowns but the b and x buffers hold " +
                              std::to_string(b.bytes() / sizeof(float)) + " and " +
                              std::to_string(x.bytes() / sizeof(float)) + " floats");
        }
        auto engine = engineFor(op);
        if (!engine) {
            return engine.error();
        }
        auto report = engine.value()->solve(op, b, x, o);
        if (!report) {
            return report.error();
        }
        return settle(std::move(report).value());
    }

    Status prepare(const GpuOperator& op) override {
        auto engine = engineFor(op);
        if (!engine) {
            return engine.error();
        }
        return {};
    }

  private:
    friend class HostOverloads<GpuBackend, GpuCgBackend>;
    static GpuOperator toGpu(const StencilOperator& a) { return GpuOperator::fromStencil(a); }
    template <typename Op>
    static Result<GpuOperator> toGpu(const Op& a) {
        return GpuOperator::upload(a);
    }

    template <typename Op>
    Result<CgReport> solveHost(const Op& a, std::span<const float> b, std::span<float> x,
                               const CgOptions& o) {
        if (Status st = checkCgInput(a.size(), b.size(), x.size(), o); !st) {
            return st.error();
        }
        gpu::GpuContext* ctx = gpu::GpuContext::current();
        if (ctx == nullptr) {
            return Error{ErrorKind::kGpuUnavailable,
                         "cg: the GPU backend lost its GL 4.3 context; make it current again"};
        }
        Stopwatch upload;
        Result<GpuOperator> op = toGpu(a);
        if (!op) {
            return op.error();
        }
        if (auto engine = engineFor(op.value()); !engine) {
            return engine.error();
        }
        if (Status st = vectorsFor(a.size()); !st) {
            return st.error();
        }
        m_b.upload(b);
        m_x.upload(std::span<const float>(x.data(), x.size()));
        ctx->finish();
        const double uploadMs = upload.elapsedMs();
        auto report = solve(op.value(), m_b, m_x, o);
        m_x.download(x.data(), x.size_bytes());
        if (!report) {
            return report.error();
        }
        report->uploadMs = uploadMs;
        return report;
    }

    // The engine for op's kind and size, built on first use (one per kind).
    Result<GpuCgSolver*> engineFor(const GpuOperator& op) {
        for (Engine& e : m_engines) {
            if (e.kind == op.kind() && e.solver.size() == op.size()) {
                return &e.solver;
            }
        }
        auto made = GpuCgSolver::create(*m_shaders, op);
        if (!made) {
            return made.error();
        }
        for (Engine& e : m_engines) {
            if (e.kind == op.kind()) {
                e.solver = std::move(made).value();
                return &e.solver;
            }
        }
        m_engines.push_back({op.kind(), std::move(made).value()});
        return &m_engines.back().solver;
    }

    Status vectorsFor(std::size_t n) {
        const std::size_t bytes = std::max<std::size_t>(n, 1) * sizeof(float);
        if (m_b.valid() && m_b.bytes() == bytes) {
            return {};
        }
        auto bb = gpu::Buffer::create(bytes, nullptr, "cg b");
        if (!bb) {
            return bb.error();
        }
        auto xb = gpu::Buffer::create(bytes, nullptr, "cg x");
        if (!xb) {
            return xb.error();
        }
        m_b = std::move(bb).value();
        m_x = std::move(xb).value();
        return {};
    }

    struct Engine {
        GpuOperator::Kind kind;
        GpuCgSolver solver;
    };
    const gpu::ShaderLibrary* m_shaders;
    std::vector<Engine> m_engines;  ///< one per operator kind, of the last size solved
    gpu::Buffer m_b;                ///< host solves: b and x on the GPU
    gpu::Buffer m_x;
};

}  // namespace

std::unique_ptr<CgSolver> makeCpuCgSolver(std::shared_ptr<const exec::Executor> executor) {
    return std::make_unique<CpuBackend>(std::move(executor));
}

Result<std::unique_ptr<GpuCgBackend>> makeGpuCgSolver(const gpu::ShaderLibrary& shaders) {
    if (gpu::GpuContext::current() == nullptr) {
        return Error{ErrorKind::kGpuUnavailable,
                     "cg: the GPU backend needs a current GL 4.3 context (none is current); "
                     "use the CPU backend or create a context first"};
    }
    return std::unique_ptr<GpuCgBackend>(std::make_unique<GpuBackend>(shaders));
}

}  // namespace ww::cg
