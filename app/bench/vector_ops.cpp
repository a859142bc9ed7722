// The Table 44-1 vector operations (see vector_ops.h).
#include "app/bench/vector_ops.h"

#include <string>
#include <utility>

#include "solver/cg/cg_gpu.h"
#include "solver/cg/vector_kernels.h"

namespace ww::bench {

namespace {

// Work per invocation of the reduction kernels (vector_sum.comp, cg_dot.comp): a workgroup
// of kLocal invocations covers kLocal * kElems elements.
constexpr int kLocal = 256;
constexpr int kElems = 4;

}  // namespace

double vectorSum(const exec::Executor& ex, std::span<const float> a) {
    const float* base = a.data();
    return cg::detail::blockedSum(ex, a.size(), [base](std::size_t i0, std::size_t i1) {
        // Block-local pointer and an int index, as the CG kernels' dot product: GCC vectorizes
        // the closure's pointer with a size_t index into gathers.
        const float* pa = base + i0;
        const int len = static_cast<int>(i1 - i0);
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int i = 0; i < len; ++i) {
            s += pa[i];
        }
        return s;
    });
}

double vectorDot(const exec::Executor& ex, std::span<const float> a, std::span<const float> b) {
    return cg::detail::dot(ex, a.data(), b.data(), a.size());
}

void vectorAxpby(const exec::Executor& ex, std::span<const float> a, std::span<float> b,
                 float beta) {
    cg::detail::direction(ex, a.data(), b.data(), beta, a.size());
}

Result<GpuVectorOps> GpuVectorOps::create(const gpu::ShaderLibrary& library,
                                          std::span<const float> a, std::span<const float> b) {
    if (a.size() != b.size() || a.empty()) {
        return inputError("GpuVectorOps: a and b must have the same, non-zero length (got " +
                          std::to_string(a.size()) + " and " + std::to_string(b.size()) + ")");
    }
    GpuVectorOps ops;
    ops.m_n = a.size();
    const std::vector<std::pair<std::string, std::string>> reduceDefines = {
        {"LOCAL_SIZE", std::to_string(kLocal)}, {"ELEMS", std::to_string(kElems)}};
    auto sum = library.build(gpu::ProgramSpec::computeStage("vector_sum.comp", reduceDefines));
    auto dot = library.build(gpu::ProgramSpec::computeStage("cg_dot.comp", reduceDefines));
    auto axpby = library.build(gpu::ProgramSpec::computeStage("cg_direction_only.comp"));
    const cg::GpuCgScalars zero{};
    const std::uint32_t groups = gpu::groupsFor(ops.m_n, kLocal * kElems);
    auto scalars = gpu::Buffer::create(sizeof zero, &zero, "vector ops scalars");
    auto partials = gpu::Buffer::create(groups * sizeof(float), nullptr, "vector ops partials");
    auto ga = gpu::Buffer::fromSpan(a, "vector ops a");
    auto gb = gpu::Buffer::fromSpan(b, "vector ops b");
    for (const Error* e : {sum ? nullptr : &sum.error(), dot ? nullptr : &dot.error(),
                           axpby ? nullptr : &axpby.error(), scalars ? nullptr : &scalars.error(),
                           partials ? nullptr : &partials.error(), ga ? nullptr : &ga.error(),
                           gb ? nullptr : &gb.error()}) {
        if (e != nullptr) {
            return *e;
        }
    }
    ops.m_sum = std::move(sum).value();
    ops.m_dot = std::move(dot).value();
    ops.m_axpby = std::move(axpby).value();
    ops.m_scalars = std::move(scalars).value();
    ops.m_partials = std::move(partials).value();
    ops.m_a = std::move(ga).value();
    ops.m_b = std::move(gb).value();
    return ops;
}

void GpuVectorOps::sum() {
    m_scalars.bind(0);
    m_partials.bind(1);
    m_a.bind(2);
    m_sum.use();
    m_sum.set("uN", static_cast<unsigned>(m_n));
    (void)gpu::dispatch(m_sum, gpu::groupsFor(m_n, kLocal * kElems));
    gpu::barrier();
}

void GpuVectorOps::dot() {
    m_scalars.bind(0);
    m_partials.bind(1);
    m_a.bind(2);
    m_b.bind(3);
    m_dot.use();
    m_dot.set("uN", static_cast<unsigned>(m_n));
    (void)gpu::dispatch(m_dot, gpu::groupsFor(m_n, kLocal * kElems));
    gpu::barrier();
}

void GpuVectorOps::axpby(float beta) {
    m_a.bind(3);
    m_b.bind(4);
    m_axpby.use();
    m_axpby.set("uN", static_cast<unsigned>(m_n));
    m_axpby.set("uBeta", beta);
    (void)gpu::dispatch(m_axpby, gpu::groupsFor(m_n, 256));
    gpu::barrier();
}

float GpuVectorOps::readScalar() const {
    return m_scalars.download<cg::GpuCgScalars>(1)[0].rho;
}

std::vector<float> GpuVectorOps::readB() const {
    return m_b.download<float>(m_n);
}

}  // namespace ww::bench
