// GPU conjugate gradients and Jacobi (see cg_gpu.h for the dispatch structure).
#include "solver/cg/cg_gpu.h"

#include <algorithm>
#include <string>

#include "solver/core/timer.h"

namespace ww::cg {

namespace {

constexpr int kLocalSize = 256;
constexpr int kElems = 4;  // elements per invocation: fewer, fuller workgroups on llvmpipe

enum Binding : unsigned {
    kScalars = 0,
    kPartials = 1,
    kX = 2,
    kR = 3,
    kPIn = 4,
    kPOut = 5,
    kQ = 6,
    kB = 7,
    kHistory = 8,
    kInvDiag = 13,
};

// Uploads v into dst (at least 4 bytes, GL rejects empty buffers).
template <typename T>
Status uploadInto(gpu::Buffer& dst, const std::vector<T>& v, const char* what) {
    auto b = gpu::Buffer::create(std::max<std::size_t>(v.size() * sizeof(T), 4), v.data(), what);
    if (!b) {
        return b.error();
    }
    dst = std::move(b).value();
    return {};
}

}  // namespace

// ---- GpuOperator -------------------------------------------------------------------------

GpuOperator GpuOperator::fromStencil(const StencilOperator& op) {
    GpuOperator g;
    g.m_kind = Kind::kStencil;
    g.m_n = op.size();
    g.m_nx = op.nx();
    g.m_ny = op.ny();
    g.m_alpha = op.alpha();
    g.m_neumannX = neumannX(op.boundary());
    g.m_neumannY = neumannY(op.boundary());
    return g;
}

Result<GpuOperator> GpuOperator::upload(const BandedOperator& op) {
    if (op.offsets().size() > 16) {
        return inputError("GPU banded operator: at most 16 bands");
    }
    GpuOperator g;
    g.m_kind = Kind::kBanded;
    g.m_n = op.size();
    g.m_offsets = op.offsets();
    if (Status st = uploadInto(g.m_data0, op.bandData(), "cg bands"); !st) {
        return st.error();
    }
    return g;
}

Result<GpuOperator> GpuOperator::upload(const CsrMatrix& op) {
    GpuOperator g;
    g.m_kind = Kind::kCsr;
    g.m_n = op.size();
    for (Status st : {uploadInto(g.m_data0, op.rowPointers(), "cg csr row pointers"),
                      uploadInto(g.m_data1, op.columns(), "cg csr columns"),
                      uploadInto(g.m_data2, op.values(), "cg csr values")}) {
        if (!st) {
            return st.error();
        }
    }
    return g;
}

Result<GpuOperator> GpuOperator::upload(const DenseOperator& op) {
    GpuOperator g;
    g.m_kind = Kind::kDense;
    g.m_n = op.size();
    if (Status st = uploadInto(g.m_data0, op.values(), "cg dense matrix"); !st) {
        return st.error();
    }
    return g;
}

const char* GpuOperator::define() const {
    switch (m_kind) {
        case Kind::kStencil:
            return "OP_STENCIL";
        case Kind::kBanded:
            return "OP_BANDED";
        case Kind::kCsr:
            return "OP_CSR";
        case Kind::kDense:
            return "OP_DENSE";
    }
    return "OP_STENCIL";
}

void GpuOperator::bind(const gpu::Program& program) const {
    program.use();
    program.set("uN", static_cast<unsigned>(m_n));
    switch (m_kind) {
        case Kind::kStencil:
            program.set("uNx", m_nx);
            program.set("uNy", m_ny);
            program.set("uStencilAlpha", m_alpha);
            program.set("uNeumannX", m_neumannX ? 1 : 0);
            program.set("uNeumannY", m_neumannY ? 1 : 0);
            break;
        case Kind::kBanded:
            program.set("uBandCount", static_cast<int>(m_offsets.size()));
            for (std::size_t d = 0; d < m_offsets.size(); ++d) {
                const std::string name = "uOffsets[" + std::to_string(d) + "]";
                program.set(name.c_str(), m_offsets[d]);
            }
            m_data0.bind(10);
            break;
        case Kind::kCsr:
            m_data0.bind(10);
            m_data1.bind(11);
            m_data2.bind(12);
            break;
        case Kind::kDense:
            m_data0.bind(10);
            break;
    }
}

// ---- GpuCgSolver -------------------------------------------------------------------------

Result<GpuCgSolver> GpuCgSolver::create(const gpu::ShaderLibrary& library, const GpuOperator& op,
                                        bool recomputeStencilProduct) {
    GpuCgSolver s;
    s.m_n = op.size();
    s.m_groups = gpu::groupsFor(s.m_n, kLocalSize * kElems);
    std::vector<std::pair<std::string, std::string>> defs = {
        {op.define(), "1"},
        {"LOCAL_SIZE", std::to_string(kLocalSize)},
        {"ELEMS", std::to_string(kElems)}};
    std::vector<std::pair<std::string, std::string>> updateDefs = {
        {"LOCAL_SIZE", std::to_string(kLocalSize)}, {"ELEMS", std::to_string(kElems)}};
    if (op.kind() == GpuOperator::Kind::kStencil && recomputeStencilProduct) {
        defs.emplace_back("RECOMPUTE_AP", "1");
        updateDefs = defs;
    }
    auto init = library.build(gpu::ProgramSpec::computeStage("cg_init.comp", defs));
    if (!init) {
        return init.error();
    }
    auto direction = library.build(gpu::ProgramSpec::computeStage("cg_direction.comp", defs));
    if (!direction) {
        return direction.error();
    }
    auto update = library.build(gpu::ProgramSpec::computeStage("cg_update.comp", updateDefs));
    if (!update) {
        return update.error();
    }
    s.m_init = std::move(init).value();
    s.m_direction = std::move(direction).value();
    s.m_update = std::move(update).value();

    const GpuCgScalars zero{};
    const std::size_t vecBytes = std::max<std::size_t>(s.m_n, 1) * sizeof(float);
    struct Alloc {
        gpu::Buffer* buffer;
        std::size_t bytes;
        const void* data;
        const char* what;
    };
    const Alloc allocs[] = {
        {&s.m_scalars, sizeof(GpuCgScalars), &zero, "cg scalars"},
        {&s.m_partials, 2 * s.m_groups * sizeof(float), nullptr, "cg partial sums"},
        {&s.m_r, vecBytes, nullptr, "cg r"},
        {&s.m_p[0], vecBytes, nullptr, "cg p"},
        {&s.m_p[1], vecBytes, nullptr, "cg p"},
        {&s.m_q, vecBytes, nullptr, "cg q"},
        {&s.m_history, sizeof(float), nullptr, "cg history"},
    };
    for (const Alloc& a : allocs) {
        auto buf = gpu::Buffer::create(a.bytes, a.data, a.what);
        if (!buf) {
            return buf.error();
        }
        *a.buffer = std::move(buf).value();
    }
    return s;
}

Result<CgReport> GpuCgSolver::solve(const GpuOperator& op, const gpu::Buffer& b, gpu::Buffer& x,
                                    const CgOptions& options) {
    Stopwatch clock;
    if (op.size() != m_n || b.bytes() < m_n * sizeof(float) || x.bytes() < m_n * sizeof(float)) {
        return inputError("GPU CG: operator of size " + std::to_string(op.size()) +
                          " or vector buffers do not match the solver's size " +
                          std::to_string(m_n));
    }
    const std::size_t capacity =
        options.recordHistory ? static_cast<std::size_t>(options.maxIterations) + 1 : 0;
    if (capacity > m_historyCapacity) {
        auto h = gpu::Buffer::create(capacity * sizeof(float), nullptr, "cg history");
        if (!h) {
            return h.error();
        }
        m_history = std::move(h).value();
        m_historyCapacity = capacity;
    }
    const auto historyCap = static_cast<unsigned>(options.recordHistory ? capacity : 0);

    m_scalars.bind(kScalars);
    m_partials.bind(kPartials);
    x.bind(kX);
    m_r.bind(kR);
    m_q.bind(kQ);
    b.bind(kB);
    m_history.bind(kHistory);

    op.bind(m_init);
    m_init.set("uTolerance", options.tolerance);
    m_init.set("uHistoryCapacity", historyCap);
    m_init.set("uFinal", 0);
    op.bind(m_direction);
    op.bind(m_update);
    m_update.set("uN", static_cast<unsigned>(m_n));
    m_update.set("uHistoryCapacity", historyCap);

    m_p[0].bind(kPIn);
    if (Status st = gpu::dispatch(m_init, m_groups); !st) {
        return st.error();
    }
    gpu::barrier();

    GpuCgScalars scalars{};
    m_scalars.download(&scalars, sizeof scalars);
    const int checkEvery = std::max(1, options.checkEvery);
    int k = 0;
    while (scalars.status == 0 && k < options.maxIterations) {
        m_p[k % 2].bind(kPIn);
        m_p[(k + 1) % 2].bind(kPOut);
        if (Status st = gpu::dispatch(m_direction, m_groups); !st) {
            return st.error();
        }
        gpu::barrier();
        if (Status st = gpu::dispatch(m_update, m_groups); !st) {
            return st.error();
        }
        gpu::barrier();
        ++k;
        if (k % checkEvery == 0 || k == options.maxIterations) {
            m_scalars.download(&scalars, sizeof scalars);
        }
    }
    // The true residual, one reduction after the loop (r itself is left as CG's).
    m_init.use();
    m_init.set("uFinal", 1);
    if (Status st = gpu::dispatch(m_init, m_groups); !st) {
        return st.error();
    }
    gpu::barrier();
    m_scalars.download(&scalars, sizeof scalars);

    CgReport report;
    report.iterations = static_cast<int>(scalars.iterations);
    report.residual = scalars.residual;
    report.status = scalars.status == 1   ? CgStatus::kConverged
                    : scalars.status == 2 ? CgStatus::kBreakdown
                                          : CgStatus::kIterationLimit;
    if (options.recordHistory) {
        report.history = m_history.download<float>(static_cast<std::size_t>(report.iterations) + 1);
    }
    settleTrueResidual(report, scalars.trueResidual, options);
    report.solveMs = clock.elapsedMs();
    return report;
}

Result<CgReport> GpuCgSolver::solve(const GpuOperator& op, std::span<const float> b,
                                    std::span<float> x, const CgOptions& options) {
    if (b.size() != m_n || x.size() != m_n) {
        return inputError("GPU CG: b has " + std::to_string(b.size()) + " and x " +
                          std::to_string(x.size()) + " entries, expected " + std::to_string(m_n));
    }
    if (!m_b.valid()) {
        auto bb =
            gpu::Buffer::create(std::max<std::size_t>(m_n, 1) * sizeof(float), nullptr, "cg b");
        auto xb =
            gpu::Buffer::create(std::max<std::size_t>(m_n, 1) * sizeof(float), nullptr, "cg x");
        if (!bb) {
            return bb.error();
        }
        if (!xb) {
            return xb.error();
        }
        m_b = std::move(bb).value();
        m_x = std::move(xb).value();
    }
    m_b.upload(b);
    m_x.upload(std::span<const float>(x.data(), x.size()));
    gpu::barrier();
    auto report = solve(op, m_b, m_x, options);
    if (report) {
        m_x.download(x.data(), x.size_bytes());
    }
    return report;
}

// ---- GpuJacobi ---------------------------------------------------------------------------

Result<GpuJacobi> GpuJacobi::create(const gpu::ShaderLibrary& library, const BandedOperator& op,
                                    std::span<const float> b, std::span<const float> x0) {
    GpuJacobi j;
    auto g = GpuOperator::upload(op);
    if (!g) {
        return g.error();
    }
    j.m_op = std::move(g).value();
    auto program =
        library.build(gpu::ProgramSpec::computeStage("cg_jacobi.comp", {{"OP_BANDED", "1"}}));
    if (!program) {
        return program.error();
    }
    j.m_program = std::move(program).value();
    const std::vector<float> inv = op.inverseDiagonal();
    auto bb = gpu::Buffer::fromSpan(b, "jacobi b");
    auto ib = gpu::Buffer::fromSpan(std::span<const float>(inv), "jacobi inverse diagonal");
    auto x0b = gpu::Buffer::fromSpan(x0, "jacobi x");
    auto x1b = gpu::Buffer::create(x0.size_bytes(), nullptr, "jacobi x");
    for (const auto* r : {&bb, &ib, &x0b, &x1b}) {
        if (!*r) {
            return r->error();
        }
    }
    j.m_b = std::move(bb).value();
    j.m_invDiag = std::move(ib).value();
    j.m_x[0] = std::move(x0b).value();
    j.m_x[1] = std::move(x1b).value();
    return j;
}

Status GpuJacobi::run(int sweeps) {
    m_op.bind(m_program);
    m_b.bind(kB);
    m_invDiag.bind(kInvDiag);
    const std::uint32_t groups = gpu::groupsFor(m_op.size(), 256);
    for (int s = 0; s < sweeps; ++s) {
        m_x[m_current].bind(kX);
        m_x[1 - m_current].bind(kPOut);
        if (Status st = gpu::dispatch(m_program, groups); !st) {
            return st;
        }
        gpu::barrier();
        m_current = 1 - m_current;
    }
    return {};
}

std::vector<float> GpuJacobi::solution() const {
    return m_x[m_current].download<float>(m_op.size());
}

}  // namespace ww::cg
