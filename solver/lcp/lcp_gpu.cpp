// GPU backend of the LCP solver: projected Jacobi in compute shaders (see
// shaders/lcp_jacobi_block.comp and shaders/lcp_jacobi_step.comp for the equations).
//  - n <= kBlockMaxN and a short enough solve (gpu_layout::fitsOneDispatch): the whole solve
//    is ONE dispatch (one workgroup, barriers between iterations); a batch of such blocks
//    (islands) is also one dispatch, a workgroup each.
//  - otherwise: one fused dispatch (matvec + projection + residual) per iteration, plus one
//    that measures the residual of the final iterate; the stopping rule runs on the GPU, so
//    nothing is read back until the end.
// Either way the only readbacks are the results after the last dispatch.
// Disc friction pairs (lcp_solver.h) are projected by the invocation that owns their vec4, so
// each block's rows are permuted at upload to put every pair at rows (2m, 2m + 1): the pairs
// first, then the other rows in order. The matrix is re-laid out into vec4 row blocks anyway,
// so the permutation is folded into that copy; x is permuted up and back down.
// Matrix-free blocks (LcpProblem::op) go to GpuMatrixFreeBatch (lcp_gpu_matrix_free.h): all
// of a batch's together, two dispatches per iteration; a batch mixing both forms is split.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "solver/core/timer.h"
#include "solver/gpu/gl_objects.h"
#include "solver/gpu/shader_library.h"
#include "solver/lcp/lcp_common.h"
#include "solver/lcp/lcp_gpu_layout.h"
#include "solver/lcp/lcp_gpu_matrix_free.h"
#include "solver/linalg/gpu_layout.h"

namespace ww::lcp {

namespace {

namespace gl = gpu_layout;

Status ensure(gpu::Buffer& buffer, std::size_t bytes, const char* what) {
    return ensureBuffer(buffer, bytes, what);
}

LcpStatus toStatus(std::uint32_t s) {
    return s == gl::kConverged  ? LcpStatus::kConverged
           : s == gl::kDiverged ? LcpStatus::kDiverged
                                : LcpStatus::kIterationLimit;
}

// The GPU row order of p: order[new] = old row, every disc pair at (2m, 2m + 1). Empty (the
// identity) when p has no disc pairs.
std::vector<int> gpuRowOrder(const LcpProblem& p) {
    const auto pairs = frictionPairs(p);
    std::vector<int> order;
    if (pairs.empty()) {
        return order;
    }
    std::vector<bool> placed(static_cast<std::size_t>(p.n), false);
    for (const FrictionPair& q : pairs) {
        order.push_back(q.first);
        order.push_back(q.second);
        placed[static_cast<std::size_t>(q.first)] = placed[static_cast<std::size_t>(q.second)] =
            true;
    }
    for (int i = 0; i < p.n; ++i) {
        if (!placed[static_cast<std::size_t>(i)]) {
            order.push_back(i);
        }
    }
    return order;
}

// Rows of p in the GPU order (padded to whole vec4s).
void appendRows(const LcpProblem& p, const std::vector<int>& order, std::vector<gl::Row>& rows) {
    const auto n = static_cast<std::size_t>(p.n);
    std::vector<int> position(order.empty() ? 0 : n);  // old row -> new row
    for (std::size_t k = 0; k < order.size(); ++k) {
        position[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
    }
    for (std::size_t k = 0; k < n; ++k) {
        const auto ui = order.empty() ? k : static_cast<std::size_t>(order[k]);
        gl::Row r{};
        r.b = p.b[ui];
        r.lo = p.lo[ui];
        r.hi = p.hi[ui];
        r.invDiag = 1.0f / p.a[ui * n + ui];
        const int normal = p.hasFriction() ? p.frictionNormal[ui] : -1;
        r.normal =
            normal >= 0 && !order.empty() ? position[static_cast<std::size_t>(normal)] : normal;
        r.mu = p.hasFriction() ? p.mu[ui] : 0.0f;
        r.pair = gl::kPairNone;
        rows.push_back(r);
    }
    // The pairs lead the order: rows (2m, 2m + 1) while both name the same normal.
    const std::size_t first = rows.size() - n;
    for (std::size_t k = 0; k + 1 < order.size(); k += 2) {
        gl::Row& f = rows[first + k];
        gl::Row& g = rows[first + k + 1];
        if (f.normal < 0 || f.normal != g.normal) {
            break;
        }
        f.pair = gl::kPairFirst;
        g.pair = gl::kPairSecond;
        f.invDiag = g.invDiag = std::min(f.invDiag, g.invDiag);  // 1 / max(A_ff, A_gg)
    }
    rows.resize(rows.size() + (linalg::paddedLength(p.n) - n), gl::Row{0, 0, 0, 0, 0, -1, 0, 0});
}

// packRowBlocks of A with rows and columns in `order` (empty: as they are).
void packMatrix(const LcpProblem& p, const std::vector<int>& order, float* out) {
    if (order.empty()) {
        linalg::packRowBlocks(p.a.data(), p.n, p.n, out);
        return;
    }
    const auto n = static_cast<std::size_t>(p.n);
    const int rowBlocks = linalg::rowBlocksOf(p.n);
    std::fill_n(out, linalg::gpuMatrixFloats(p.n, p.n), 0.0f);
    for (int i = 0; i < p.n; ++i) {
        const float* row =
            p.a.data() + static_cast<std::size_t>(order[static_cast<std::size_t>(i)]) * n;
        for (int j = 0; j < p.n; ++j) {
            out[linalg::gpuIndex(rowBlocks, i, j)] = row[order[static_cast<std::size_t>(j)]];
        }
    }
}

// x in the GPU order into `out` (n entries), and back.
void permuteIn(std::span<const float> x, const std::vector<int>& order, float* out) {
    for (std::size_t k = 0; k < x.size(); ++k) {
        out[k] = x[order.empty() ? k : static_cast<std::size_t>(order[k])];
    }
}
void permuteOut(const float* in, const std::vector<int>& order, std::span<float> x) {
    for (std::size_t k = 0; k < x.size(); ++k) {
        x[order.empty() ? k : static_cast<std::size_t>(order[k])] = in[k];
    }
}

bool allFinite(std::span<const float> v) {
    return std::all_of(v.begin(), v.end(), [](float f) { return std::isfinite(f); });
}

class GpuLcpSolver final : public LcpSolver {
  public:
    GpuLcpSolver(gpu::Program blockSmall, gpu::Program block, gpu::Program step,
                 GpuMatrixFreeBatch matrixFree, std::shared_ptr<const exec::Executor> executor)
        : m_blockSmall(std::move(blockSmall)),
          m_block(std::move(block)),
          m_step(std::move(step)),
          m_matrixFree(std::move(matrixFree)),
          m_executor(std::move(executor)) {
        m_matrixFree.setExecutor(m_executor.get());
    }

    const char* backendName() const override { return "gpu"; }

    std::string unsupported(const LcpOptions& o) const override {
        if (o.method != LcpMethod::kJacobi) {
            return "the GPU backend implements projected Jacobi only (Gauss-Seidel is "
                   "sequential by nature); use the CPU backend";
        }
        return {};
    }

    LcpReport solve(const LcpProblem& p, std::span<float> x, const LcpOptions& o) override {
        LcpReport rep;
        rep.error = checkGpuInput(p, x.size(), o);
        if (!rep.error.empty()) {
            rep.status = LcpStatus::kDiverged;
            rep.residual = kInfinity;
            return rep;
        }
        if (p.n == 0) {
            rep.status = LcpStatus::kConverged;
            return rep;
        }
        const LcpProblem* one[] = {&p};
        if (p.matrixFree()) {
            return m_matrixFree.solve(one, x, o).front();
        }
        if (o.gpuSingleDispatch && gl::fitsOneDispatch(p.n, iterationCount(p, o))) {
            return solveBlocks(one, x, o).front();
        }
        return solveLarge(p, x, o);
    }

    std::vector<LcpReport> solveBatch(std::span<const LcpProblem> blocks, std::span<float> x,
                                      const LcpOptions& o) override {
        if (blocks.empty()) {
            return {};
        }
        std::size_t total = 0;
        std::string error;
        for (const auto& b : blocks) {
            total += static_cast<std::size_t>(std::max(b.n, 0));
        }
        if (total != x.size()) {
            error = "x has " + std::to_string(x.size()) + " entries, the blocks " +
                    std::to_string(total);
        }
        for (std::size_t k = 0; k < blocks.size() && error.empty(); ++k) {
            error = checkGpuInput(blocks[k], static_cast<std::size_t>(blocks[k].n), o);
            if (!error.empty()) {
                error = "block " + std::to_string(k) + ": " + error;
            }
        }
        if (!error.empty()) {
            std::vector<LcpReport> reports(blocks.size());
            for (auto& r : reports) {
                r.status = LcpStatus::kDiverged;
                r.residual = kInfinity;
                r.error = error;
            }
            return reports;
        }
        // Small dense blocks share one dispatch; dense blocks too large for a workgroup go
        // alone; the matrix-free blocks are iterated together.
        std::vector<std::size_t> offsets(blocks.size() + 1, 0);
        for (std::size_t k = 0; k < blocks.size(); ++k) {
            offsets[k + 1] = offsets[k] + static_cast<std::size_t>(blocks[k].n);
        }
        std::vector<LcpReport> reports(blocks.size());
        std::vector<std::size_t> small, matrixFree;
        for (std::size_t k = 0; k < blocks.size(); ++k) {
            if (blocks[k].matrixFree()) {
                matrixFree.push_back(k);
            } else if (o.gpuSingleDispatch &&
                       gl::fitsOneDispatch(blocks[k].n, iterationCount(blocks[k], o))) {
                small.push_back(k);
            } else {
                reports[k] =
                    solveLarge(blocks[k], x.subspan(offsets[k], offsets[k + 1] - offsets[k]), o);
            }
        }
        solveSubset(blocks, offsets, small, x, reports,
                    [&](std::span<const LcpProblem* const> sub, std::span<float> xs) {
                        return solveBlocks(sub, xs, o);
                    });
        solveSubset(blocks, offsets, matrixFree, x, reports,
                    [&](std::span<const LcpProblem* const> sub, std::span<float> xs) {
                        return m_matrixFree.solve(sub, xs, o);
                    });
        return reports;
    }

  private:
    std::string checkGpuInput(const LcpProblem& p, std::size_t xSize, const LcpOptions& o) const {
        if (std::string why = unsupported(o); !why.empty()) {
            return why;
        }
        if (!p.matrixFree()) {
            return checkInput(p, xSize, o);
        }
        if (!p.op.hasRows()) {
            return "the GPU solver uploads the operator's J and K rows, and this one was built in "
                   "the contact form without them: assemble it with its rows";
        }
        std::string why = checkMatrixFreeIndex(p.op);
        if (why.empty()) {
            why = checkInput(p, xSize, o);
        }
        if (why.empty()) {
            why = checkMatrixFreeRows(p.op);
        }
        return why;
    }

    // Solves the blocks `subset` of a batch together through `solveSome` (their unknowns
    // gathered from x and scattered back), filling their reports.
    template <typename SolveSome>
    static void solveSubset(std::span<const LcpProblem> blocks,
                            const std::vector<std::size_t>& offsets,
                            const std::vector<std::size_t>& subset, std::span<float> x,
                            std::vector<LcpReport>& reports, SolveSome&& solveSome) {
        if (subset.empty()) {
            return;
        }
        std::vector<const LcpProblem*> sub;
        std::vector<float> xs;
        for (std::size_t k : subset) {
            sub.push_back(&blocks[k]);
            xs.insert(xs.end(), x.begin() + static_cast<std::ptrdiff_t>(offsets[k]),
                      x.begin() + static_cast<std::ptrdiff_t>(offsets[k + 1]));
        }
        auto subReports = solveSome(sub, xs);
        std::size_t off = 0;
        for (std::size_t s = 0; s < subset.size(); ++s) {
            const std::size_t k = subset[s];
            const std::size_t n = offsets[k + 1] - offsets[k];
            std::copy_n(xs.begin() + static_cast<std::ptrdiff_t>(off), n,
                        x.begin() + static_cast<std::ptrdiff_t>(offsets[k]));
            off += n;
            reports[k] = std::move(subReports[s]);
        }
    }

    Status upload(gpu::Buffer& buffer, const void* data, std::size_t bytes, const char* what) {
        if (auto s = ensure(buffer, bytes, what); !s) {
            return s;
        }
        buffer.upload(data, bytes);
        return {};
    }

    static LcpReport failed(const Status& s) {
        LcpReport rep;
        rep.status = LcpStatus::kDiverged;
        rep.residual = kInfinity;
        rep.error = s.error().message;
        return rep;
    }

    std::vector<LcpReport> solveBlocks(std::span<const LcpProblem* const> blocks,
                                       std::span<float> x, const LcpOptions& o) {
        Stopwatch uploadClock;
        m_rows.clear();
        m_descs.clear();
        m_orders.resize(blocks.size());
        std::size_t texels = 0, vector = 0, history = 0;
        for (std::size_t k = 0; k < blocks.size(); ++k) {
            const auto& p = *blocks[k];
            m_orders[k] = gpuRowOrder(p);
            gl::BlockDesc d{};
            d.n = static_cast<std::uint32_t>(p.n);
            d.rowBlocks = static_cast<std::uint32_t>(linalg::rowBlocksOf(p.n));
            d.matrixOffset = static_cast<std::uint32_t>(texels);
            d.vectorOffset = static_cast<std::uint32_t>(vector);
            d.historyOffset = static_cast<std::uint32_t>(history);
            d.maxIterations = static_cast<std::uint32_t>(iterationCount(p, o));
            d.divergenceFloor = divergenceFloor(p);
            m_descs.push_back(d);
            texels += linalg::gpuMatrixFloats(p.n, p.n) / 4;
            vector += linalg::paddedLength(p.n);
            history += o.recordHistory ? static_cast<std::size_t>(d.maxIterations) + 1 : 0;
            appendRows(p, m_orders[k], m_rows);
        }
        m_packed.resize(texels * 4);
        m_xPadded.assign(vector, 0.0f);
        std::size_t xOff = 0;
        for (std::size_t k = 0; k < blocks.size(); ++k) {
            const auto& p = *blocks[k];
            packMatrix(p, m_orders[k], m_packed.data() + std::size_t{m_descs[k].matrixOffset} * 4);
            permuteIn(x.subspan(xOff, static_cast<std::size_t>(p.n)), m_orders[k],
                      m_xPadded.data() + m_descs[k].vectorOffset);
            xOff += static_cast<std::size_t>(p.n);
        }
        Status s = upload(m_matrix, m_packed.data(), m_packed.size() * 4, "LCP matrices");
        if (s)
            s = upload(m_rowBuffer, m_rows.data(), m_rows.size() * sizeof(gl::Row), "LCP rows");
        if (s)
            s = upload(m_x, m_xPadded.data(), m_xPadded.size() * 4, "LCP x");
        if (s)
            s = upload(m_blocks, m_descs.data(), m_descs.size() * sizeof(gl::BlockDesc),
                       "LCP blocks");
        if (s)
            s = ensure(m_history, history * 4, "LCP history");
        if (s)
            s = ensure(m_results, blocks.size() * sizeof(gl::BlockResult), "LCP results");
        if (!s) {
            return std::vector<LcpReport>(blocks.size(), failed(s));
        }
        const double uploadMs = uploadClock.elapsedMs();

        Stopwatch solveClock;
        // Small blocks use a narrower workgroup: idle invocations still cost at every barrier.
        int largest = 0;
        for (const LcpProblem* p : blocks) {
            largest = std::max(largest, p->n);
        }
        const gpu::Program& program =
            largest <= 4 * gl::kBlockThreadsSmall ? m_blockSmall : m_block;
        program.use();
        program.set("uOmega", o.omega);
        program.set("uTolerance", o.tolerance);
        program.set("uGrowth", o.divergenceGrowth);
        program.set("uCheckEvery", static_cast<unsigned>(std::max(1, o.checkEvery)));
        program.set("uRecordHistory", o.recordHistory ? 1u : 0u);
        int longest = 0;
        for (const auto& d : m_descs) {
            longest = std::max(longest, static_cast<int>(d.maxIterations));
        }
        chebyshevWeights(o, longest, m_weights);
        program.set("uAccelerate", m_weights.empty() ? 0u : 1u);
        if (m_weights.empty()) {
            m_weights.assign(1, 1.0f);  // a valid binding; not read
        }
        if (s = upload(m_weightBuffer, m_weights.data(), m_weights.size() * 4, "LCP weights"); !s) {
            return std::vector<LcpReport>(blocks.size(), failed(s));
        }
        m_weightBuffer.bind(6);
        m_matrix.bind(0);
        m_rowBuffer.bind(1);
        m_x.bind(2);
        m_blocks.bind(3);
        m_history.bind(4);
        m_results.bind(5);
        s = gpu::dispatch(program, static_cast<std::uint32_t>(blocks.size()));
        if (!s) {
            return std::vector<LcpReport>(blocks.size(), failed(s));
        }
        gpu::barrier();
        // The solve's device work is done here; the downloads below would wait for it anyway.
        gpu::finish();
        const double gpuMs = solveClock.elapsedMs();
        const auto results = m_results.download<gl::BlockResult>(blocks.size());
        m_x.download(m_xPadded.data(), m_xPadded.size() * 4);
        std::vector<float> hist;
        if (o.recordHistory) {
            hist = m_history.download<float>(history);
        }
        const double solveMs = solveClock.elapsedMs();

        std::vector<LcpReport> reports(blocks.size());
        xOff = 0;
        for (std::size_t k = 0; k < blocks.size(); ++k) {
            const auto& d = m_descs[k];
            auto& rep = reports[k];
            rep.iterations = static_cast<int>(results[k].iterations);
            rep.residual = results[k].residual;
            rep.status = d.n == 0 ? LcpStatus::kConverged : toStatus(results[k].status);
            rep.uploadMs = uploadMs;
            rep.solveMs = solveMs;
            rep.gpuMs = gpuMs;
            rep.dispatches = 1;
            rep.readbacks = o.recordHistory ? 3 : 2;
            if (o.recordHistory) {
                const auto first = hist.begin() + d.historyOffset;
                rep.history.assign(first, first + rep.iterations + 1);
            }
            permuteOut(m_xPadded.data() + d.vectorOffset, m_orders[k], x.subspan(xOff, d.n));
            xOff += d.n;
        }
        return reports;
    }

    LcpReport solveLarge(const LcpProblem& p, std::span<float> x, const LcpOptions& o) {
        Stopwatch uploadClock;
        LcpReport rep;
        const int maxIt = iterationCount(p, o);
        const int rowBlocks = linalg::rowBlocksOf(p.n);
        m_packed.resize(linalg::gpuMatrixFloats(p.n, p.n));
        const std::vector<int> order = gpuRowOrder(p);
        packMatrix(p, order, m_packed.data());
        m_rows.clear();
        appendRows(p, order, m_rows);
        m_xPadded.assign(linalg::paddedLength(p.n), 0.0f);
        permuteIn(x, order, m_xPadded.data());
        const std::size_t vecBytes = m_xPadded.size() * 4;
        const gl::Control control{gl::kNone, gl::kIterationLimit, {0.0f, 0.0f}, {0, 0}, 0, 0};
        Status s = upload(m_matrix, m_packed.data(), m_packed.size() * 4, "LCP matrix");
        if (s)
            s = upload(m_rowBuffer, m_rows.data(), m_rows.size() * sizeof(gl::Row), "LCP rows");
        if (s)
            s = upload(m_x, m_xPadded.data(), vecBytes, "LCP x");
        if (s)
            s = upload(m_x2, m_xPadded.data(), vecBytes, "LCP x'");
        if (s)
            s = upload(m_good, m_xPadded.data(), vecBytes, "LCP last good x");
        if (s)
            s = upload(m_control, &control, sizeof control, "LCP control");
        if (s)
            s = ensure(m_residual, (static_cast<std::size_t>(maxIt) + 1) * 4, "LCP residuals");
        if (!s) {
            return failed(s);
        }
        m_residual.clear();
        rep.uploadMs = uploadClock.elapsedMs();

        Stopwatch solveClock;
        m_step.use();
        m_step.set("uN", static_cast<unsigned>(p.n));
        m_step.set("uRowBlocks", static_cast<unsigned>(rowBlocks));
        m_step.set("uOmega", o.omega);
        m_step.set("uTolerance", o.tolerance);
        m_step.set("uGrowth", o.divergenceGrowth);
        m_step.set("uFloor", divergenceFloor(p));
        m_step.set("uCheckEvery", static_cast<unsigned>(std::max(1, o.checkEvery)));
        m_matrix.bind(0);
        m_rowBuffer.bind(1);
        m_residual.bind(4);
        m_control.bind(5);
        m_good.bind(6);
        const auto groups = gpu::groupsFor(static_cast<std::size_t>(rowBlocks), gl::kStepRowBlocks);
        chebyshevWeights(o, maxIt, m_weights);
        m_step.set("uAccelerate", m_weights.empty() ? 0u : 1u);
        if (m_weights.empty()) {
            m_weights.assign(1, 1.0f);  // a valid binding; not read
        }
        if (s = upload(m_weightBuffer, m_weights.data(), m_weights.size() * 4, "LCP weights"); !s) {
            return failed(s);
        }
        m_weightBuffer.bind(7);
        for (int t = 0; t <= maxIt; ++t) {
            // Ping-pong: dispatch t reads x^t from buffer t % 2.
            (t % 2 == 0 ? m_x : m_x2).bind(2);
            (t % 2 == 0 ? m_x2 : m_x).bind(3);
            m_step.set("uT", static_cast<unsigned>(t));
            if (s = gpu::dispatch(m_step, groups); !s) {
                return failed(s);
            }
            gpu::barrier();
            ++rep.dispatches;
        }
        gpu::finish();  // the readbacks below would wait for the same completion
        rep.gpuMs = solveClock.elapsedMs();
        gl::Control done{};
        m_control.download(&done, sizeof done);
        const bool stopped = done.stopAt != gl::kNone;
        const auto last = stopped ? static_cast<int>(done.stopAt) : maxIt;
        const auto residuals =
            m_residual.download<std::uint32_t>(static_cast<std::size_t>(last) + 1);
        rep.readbacks = 3;
        float r = 0.0f;
        std::memcpy(&r, &residuals.back(), sizeof r);
        rep.iterations = last;
        rep.residual = r;
        LcpStatus status = stopped ? toStatus(done.status) : LcpStatus::kIterationLimit;
        if (!stopped) {
            // The final iterate's checks, as the CPU does them at t == maxIterations.
            const float minRes = done.minResidual[maxIt % 2];
            if (!std::isfinite(r) ||
                (r > o.divergenceGrowth * std::max(minRes, divergenceFloor(p)) &&
                 r > o.tolerance)) {
                status = LcpStatus::kDiverged;
            } else if (o.tolerance > 0.0f && r <= o.tolerance) {
                status = LcpStatus::kConverged;
            }
        }
        rep.status = status;
        const gpu::Buffer& result =
            status == LcpStatus::kDiverged ? m_good : (last % 2 == 0 ? m_x : m_x2);
        result.download(m_xPadded.data(), vecBytes);
        ++rep.readbacks;
        if (status == LcpStatus::kDiverged) {
            if (allFinite({m_xPadded.data(), static_cast<std::size_t>(p.n)})) {
                permuteOut(m_xPadded.data(), order, x);
            }  // else x keeps the guess
            rep.residual = static_cast<float>(naturalResidual(p, x));
        } else {
            permuteOut(m_xPadded.data(), order, x);
        }
        if (o.recordHistory) {
            rep.history.resize(residuals.size());
            std::memcpy(rep.history.data(), residuals.data(), residuals.size() * 4);
        }
        rep.solveMs = solveClock.elapsedMs();
        return rep;
    }

    gpu::Program m_blockSmall, m_block, m_step;
    GpuMatrixFreeBatch m_matrixFree;
    std::shared_ptr<const exec::Executor> m_executor;  ///< packs the matrix-free batch
    gpu::Buffer m_matrix, m_rowBuffer, m_x, m_x2, m_good, m_blocks, m_history, m_results,
        m_weightBuffer, m_residual, m_control;
    std::vector<float> m_packed, m_xPadded, m_weights;
    std::vector<gl::Row> m_rows;
    std::vector<gl::BlockDesc> m_descs;
    std::vector<std::vector<int>> m_orders;  ///< per block of a batch: gpuRowOrder
};

}  // namespace

Result<std::unique_ptr<LcpSolver>> makeGpuLcpSolver(
    const gpu::ShaderLibrary& shaders, std::shared_ptr<const exec::Executor> executor) {
    auto build = [&](int threads) {
        return shaders.build(gpu::ProgramSpec::computeStage(
            "lcp_jacobi_block.comp", {{"LCP_THREADS", std::to_string(threads)},
                                      {"LCP_BLOCK_MAX_N", std::to_string(gl::kBlockMaxN)}}));
    };
    auto blockSmall = build(gl::kBlockThreadsSmall);
    if (!blockSmall) {
        return blockSmall.error();
    }
    auto block = build(gl::kBlockThreads);
    if (!block) {
        return block.error();
    }
    auto step = shaders.build(gpu::ProgramSpec::computeStage(
        "lcp_jacobi_step.comp", {{"LCP_STEP_ROW_BLOCKS", std::to_string(gl::kStepRowBlocks)},
                                 {"LCP_STEP_SLICES", std::to_string(gl::kStepSlices)}}));
    if (!step) {
        return step.error();
    }
    auto matrixFree = GpuMatrixFreeBatch::create(shaders);
    if (!matrixFree) {
        return matrixFree.error();
    }
    return std::unique_ptr<LcpSolver>(std::make_unique<GpuLcpSolver>(
        std::move(blockSmall).value(), std::move(block).value(), std::move(step).value(),
        std::move(matrixFree).value(), std::move(executor)));
}

}  // namespace ww::lcp
