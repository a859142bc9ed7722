// Matrix-free projected Jacobi on the GPU for a batch of blocks (lcp_gpu_matrix_free.h).
// Per iterate t = 0 .. T (T the batch's largest maxIterations), two dispatches cover every
// block:
//   lcp_mf_gather.comp  u_b = sum_{i on b} K_{i,side} x_i^t     (kMfGatherLanes per body)
//   lcp_mf_rows.comp    w = J u + cfm x + b, r(x^t), x^{t+1}, the stopping rule (one per row)
// then one more row pass that checks the last iterate of every block still running and
// lcp_mf_finish.comp, which gathers every block's answer into one plane of x. The host enqueues
// all of them up front and reads back twice at the end (the block states and x; the residual
// history too when asked), so the readbacks do not depend on the iteration count.
#include "solver/lcp/lcp_gpu_matrix_free.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "solver/core/timer.h"
#include "solver/gpu/shader_library.h"
#include "solver/lcp/lcp_common.h"

namespace ww::lcp {

namespace gl = gpu_layout;

namespace {

/// Rows (or body entries) per chunk of pack()'s loops.
constexpr std::size_t kPackChunk = 4096;
constexpr int kU = RowOperator::kBodyFloats;

LcpStatus toStatus(std::uint32_t s) {
    return s == gl::kConverged  ? LcpStatus::kConverged
           : s == gl::kDiverged ? LcpStatus::kDiverged
                                : LcpStatus::kIterationLimit;
}

LcpReport failed(const Status& s) {
    LcpReport rep;
    rep.status = LcpStatus::kDiverged;
    rep.residual = kInfinity;
    rep.error = s.error().message;
    return rep;
}

bool allFinite(std::span<const float> v) {
    return std::all_of(v.begin(), v.end(), [](float f) { return std::isfinite(f); });
}

}  // namespace

Status ensureBuffer(gpu::Buffer& buffer, std::size_t bytes, const char* what) {
    bytes = std::max<std::size_t>(bytes, 16);
    if (buffer.valid() && buffer.bytes() >= bytes) {
        return {};
    }
    // Multiples of 16 bytes: Buffer::clear() (glClearBufferData with R32UI) needs whole words.
    const std::size_t grown = (bytes + bytes / 2 + 15) / 16 * 16;
    auto created = gpu::Buffer::create(grown, nullptr, what);
    if (!created) {
        // The head room may be what does not fit: try the exact size before giving up.
        created = gpu::Buffer::create((bytes + 15) / 16 * 16, nullptr, what);
        if (!created) {
            return created.error();
        }
    }
    buffer = std::move(created).value();
    return {};
}

std::string checkMatrixFreeIndex(const RowOperator& op) {
    if (op.bodies() < 0 || op.bodyStart().size() != static_cast<std::size_t>(op.bodies()) + 1) {
        return {};  // validate() names these before it walks the index
    }
    if (op.bodyStart().front() != 0) {
        return "the matrix-free operator's body index is stale (bodyStart[0] = " +
               std::to_string(op.bodyStart().front()) + ", not 0; call buildBodyIndex)";
    }
    for (int b = 0; b < op.bodies(); ++b) {
        if (op.bodyStart()[static_cast<std::size_t>(b) + 1] <
            op.bodyStart()[static_cast<std::size_t>(b)]) {
            return "the matrix-free operator's body index is stale (bodyStart decreases at body " +
                   std::to_string(b) + "; call buildBodyIndex)";
        }
    }
    return {};
}

std::string checkMatrixFreeRows(const RowOperator& op) {
    std::size_t sides = 0;
    for (int i = 0; i < op.rows(); ++i) {
        sides += (op.body(i, 0) >= 0 ? 1u : 0u) + (op.body(i, 1) >= 0 ? 1u : 0u);
    }
    if (sides != op.bodyEntries().size()) {
        return "the matrix-free operator's body index has " +
               std::to_string(op.bodyEntries().size()) + " entries for " + std::to_string(sides) +
               " row sides on bodies (stale; call buildBodyIndex)";
    }
    for (int b = 0; b < op.bodies(); ++b) {
        const std::int32_t begin = op.bodyStart()[static_cast<std::size_t>(b)];
        const std::int32_t end = op.bodyStart()[static_cast<std::size_t>(b) + 1];
        for (std::int32_t e = begin + 1; e < end; ++e) {
            if (op.bodyEntries()[static_cast<std::size_t>(e)] <=
                op.bodyEntries()[static_cast<std::size_t>(e) - 1]) {
                return "the matrix-free operator's body index lists body " + std::to_string(b) +
                       "'s rows out of order (stale; call buildBodyIndex)";
            }
        }
        // One invocation sums a body's rows in a loop; llvmpipe ends shader loops silently after
        // ~65535 trips (lcp_gpu_layout.h).
        if (end - begin >= gl::kLoopTripLimit) {
            return "body " + std::to_string(b) + " carries " + std::to_string(end - begin) +
                   " rows, more than the GPU path's " + std::to_string(gl::kLoopTripLimit) +
                   " per body; split the body's contacts or use --backend cpu";
        }
    }
    return {};
}

Result<GpuMatrixFreeBatch> GpuMatrixFreeBatch::create(const gpu::ShaderLibrary& shaders) {
    GpuMatrixFreeBatch batch;
    for (auto [file, program] : {std::pair{"lcp_mf_gather.comp", &batch.m_gather},
                                 std::pair{"lcp_mf_rows.comp", &batch.m_rowsPass},
                                 std::pair{"lcp_mf_finish.comp", &batch.m_finish}}) {
        auto built = shaders.build(gpu::ProgramSpec::computeStage(
            file, {{"LCP_MF_THREADS", std::to_string(gl::kMfThreads)},
                   {"LCP_MF_GATHER_LANES", std::to_string(gl::kMfGatherLanes)}}));
        if (!built) {
            return built.error();
        }
        *program = std::move(built).value();
        if (program->localSize()[0] != gl::kMfThreads) {
            return Error{ErrorKind::kShader, std::string(file) + " has a workgroup of " +
                                                 std::to_string(program->localSize()[0]) +
                                                 ", lcp_gpu_layout.h expects kMfThreads"};
        }
    }
    return batch;
}

GpuMatrixFreeBatch::Totals GpuMatrixFreeBatch::pack(std::span<const LcpProblem* const> blocks,
                                                    std::span<const float> x, const LcpOptions& o) {
    Totals all;
    for (const LcpProblem* p : blocks) {
        all.rows += static_cast<std::size_t>(p->n);
        all.bodies += static_cast<std::size_t>(p->op.bodies());
        all.entries += p->op.bodyEntries().size();
        const int maxIt = iterationCount(*p, o);
        all.residuals += static_cast<std::size_t>(maxIt) + 1;
        all.longest = std::max(all.longest, maxIt);
    }
    const std::size_t rows = all.rows;
    m_xPlanes.resize(static_cast<std::size_t>(gl::kMfIteratePlanes) * rows);
    m_blocks.resize(blocks.size());
    // Where the arrays are written: straight into the mapped staging buffer (upload() then
    // copies them into the device buffers by DMA), or into host vectors that upload() hands
    // to glBufferSubData where the context cannot map one.
    const auto aligned = [](std::size_t bytes) { return (bytes + 255) / 256 * 256; };
    m_sections.rows = 0;
    m_sections.jacobian = aligned(m_sections.rows + rows * sizeof(gl::MfRow));
    m_sections.x = aligned(m_sections.jacobian + rows * 4 * sizeof(float) * gl::kMfJacobianPlanes);
    m_sections.bodies = aligned(m_sections.x + rows * sizeof(float));
    m_sections.entries = aligned(m_sections.bodies + all.bodies * sizeof(gl::MfBody));
    m_sections.end = aligned(m_sections.entries + all.entries * sizeof(gl::MfEntry));
    m_staged = false;
    if (m_stagingUsable) {
        m_stagingFence.wait();  // the last solve's copies out of it have been executed
        if (!m_staging.valid() || m_staging.bytes() < m_sections.end) {
            m_staging = {};
            auto created = gpu::Buffer::createStaging(m_sections.end + m_sections.end / 2,
                                                      "matrix-free LCP staging");
            if (created) {
                m_staging = std::move(created).value();
            } else {
                m_stagingUsable = false;  // glBufferSubData from here on
            }
        }
        m_staged = m_staging.valid() && m_staging.mapped() != nullptr;
    }
    gl::MfRow* rowsOut = nullptr;
    float* jacobianOut = nullptr;
    float* xOut = nullptr;
    gl::MfBody* bodiesOut = nullptr;
    gl::MfEntry* entriesOut = nullptr;
    if (m_staged) {
        auto* base = static_cast<std::byte*>(m_staging.mapped());
        rowsOut = reinterpret_cast<gl::MfRow*>(base + m_sections.rows);
        jacobianOut = reinterpret_cast<float*>(base + m_sections.jacobian);
        xOut = reinterpret_cast<float*>(base + m_sections.x);
        bodiesOut = reinterpret_cast<gl::MfBody*>(base + m_sections.bodies);
        entriesOut = reinterpret_cast<gl::MfEntry*>(base + m_sections.entries);
    } else {
        m_rows.resize(rows);
        m_jacobianPlanes.resize(static_cast<std::size_t>(gl::kMfJacobianPlanes) * 4 * rows);
        m_bodies.resize(all.bodies);
        m_entries.resize(all.entries);
        rowsOut = m_rows.data();
        jacobianOut = m_jacobianPlanes.data();
        xOut = m_xPlanes.data();
        bodiesOut = m_bodies.data();
        entriesOut = m_entries.data();
    }
    std::size_t r0 = 0, b0 = 0, e0 = 0, res0 = 0;
    for (std::size_t k = 0; k < blocks.size(); ++k) {
        const LcpProblem& p = *blocks[k];
        const RowOperator& op = p.op;
        const auto n = static_cast<std::size_t>(p.n);
        std::vector<int>& partner = m_partner;
        partner.assign(n, -1);
        for (const FrictionPair& q : frictionPairs(p)) {
            partner[static_cast<std::size_t>(q.first)] = q.second;
            partner[static_cast<std::size_t>(q.second)] = q.first;
        }
        auto global = [](std::size_t offset, int local) {
            return local < 0 ? -1
                             : static_cast<std::int32_t>(offset + static_cast<std::size_t>(local));
        };
        // Rows, bodies and entries in fixed chunks, on the executor's threads where there is
        // one (what each writes is its own: the same bytes on any thread count).
        const auto chunked = [&](std::size_t count, std::size_t perChunk, auto&& fill) {
            const auto chunks = exec::chunkCount(static_cast<std::ptrdiff_t>(count),
                                                 static_cast<std::ptrdiff_t>(perChunk));
            exec::forChunks(
                m_executor, chunks,
                [&](std::ptrdiff_t c) {
                    const std::size_t first = static_cast<std::size_t>(c) * perChunk;
                    fill(first, std::min(count, first + perChunk));
                },
                static_cast<std::ptrdiff_t>(40 * count));
        };
        chunked(n, kPackChunk, [&](std::size_t firstRow, std::size_t lastRow) {
            for (std::size_t i = firstRow; i < lastRow; ++i) {
                gl::MfRow& row = rowsOut[r0 + i];
                row.b = p.b[i];
                row.lo = p.lo[i];
                row.hi = p.hi[i];
                // The CPU's stepScale: omega / A_ii, a pair's rows omega / max(A_ff, A_gg).
                float d = op.diagonal(static_cast<int>(i));
                if (partner[i] >= 0) {
                    d = std::max(d, op.diagonal(partner[i]));
                }
                row.scale = o.omega / d;
                row.mu = p.hasFriction() ? p.mu[i] : 0.0f;
                row.normal = global(r0, p.hasFriction() ? p.frictionNormal[i] : -1);
                row.partner = global(r0, partner[i]);
                row.block = static_cast<std::uint32_t>(k);
                row.bodyA = global(b0, op.body(static_cast<int>(i), 0));
                row.bodyB = global(b0, op.body(static_cast<int>(i), 1));
                row.pad0 = row.pad1 = 0.0f;
                const float* j = op.jacobian(static_cast<int>(i)).data();
                for (int c = 0; c < gl::kMfJacobianPlanes; ++c) {
                    std::copy_n(j + 4 * c, 4,
                                jacobianOut + 4 * (static_cast<std::size_t>(c) * rows + r0 + i));
                }
            }
        });
        for (std::size_t b = 0; b < static_cast<std::size_t>(op.bodies()); ++b) {
            bodiesOut[b0 + b] = {static_cast<std::int32_t>(e0) + op.bodyStart()[b],
                                 static_cast<std::int32_t>(e0) + op.bodyStart()[b + 1],
                                 static_cast<std::uint32_t>(k), 0};
        }
        chunked(op.bodyEntries().size(), kPackChunk,
                [&](std::size_t firstEntry, std::size_t lastEntry) {
                    for (std::size_t e = firstEntry; e < lastEntry; ++e) {
                        const auto entry = static_cast<std::size_t>(op.bodyEntries()[e]);
                        const float* kr =
                            op.weighted(static_cast<int>(entry >> 1)).data() + kU * (entry & 1);
                        gl::MfEntry& out = entriesOut[e0 + e];
                        std::copy_n(kr, 4, out.k0);
                        std::copy_n(kr + 4, 2, out.k1);
                        out.row = static_cast<std::uint32_t>(r0 + (entry >> 1));
                        out.pad0 = 0;
                    }
                });
        const int maxIt = iterationCount(p, o);
        m_blocks[k] = {static_cast<std::uint32_t>(r0),
                       static_cast<std::uint32_t>(n),
                       static_cast<std::uint32_t>(res0),
                       static_cast<std::uint32_t>(maxIt),
                       divergenceFloor(p),
                       op.cfm(),
                       gl::kNone,
                       gl::kIterationLimit,
                       {kInfinity, kInfinity},
                       {0, 0},
                       0.0f,
                       0,
                       0,
                       0};
        // x^0 in the first plane; upload() copies it into the others on the GPU.
        std::copy_n(x.data() + r0, n, xOut + r0);
        r0 += n;
        b0 += static_cast<std::size_t>(op.bodies());
        e0 += op.bodyEntries().size();
        res0 += static_cast<std::size_t>(maxIt) + 1;
    }
    return all;
}

Status GpuMatrixFreeBatch::upload(const Totals& sizes, const LcpOptions& o) {
    // Indices in the kernels are 32-bit: the largest is a plane offset of x or J.
    constexpr std::size_t kMaxIndex = std::numeric_limits<std::int32_t>::max();
    if (gl::kMfIteratePlanes * sizes.rows > kMaxIndex || sizes.entries > kMaxIndex ||
        sizes.residuals > kMaxIndex || gl::kMfBodyPlanes * sizes.bodies > kMaxIndex) {
        return Error{ErrorKind::kGpuLimit, "the matrix-free batch (" + std::to_string(sizes.rows) +
                                               " rows, " + std::to_string(sizes.bodies) +
                                               " bodies) exceeds the GPU path's 32-bit "
                                               "indices; solve fewer or smaller islands at once"};
    }
    auto put = [](gpu::Buffer& buffer, const void* data, std::size_t bytes, const char* what) {
        Status s = ensureBuffer(buffer, bytes, what);
        if (s && bytes > 0) {
            buffer.upload(data, bytes);
        }
        return s;
    };
    chebyshevWeights(o, sizes.longest, m_weights);
    if (m_weights.empty()) {
        m_weights.assign(1, 1.0f);  // a valid binding; not read
    }
    // The staged sections are copied by the GPU; otherwise the host vectors are uploaded.
    const std::size_t rowBytes = sizes.rows * sizeof(gl::MfRow);
    const std::size_t jacobianBytes = sizes.rows * 4 * sizeof(float) * gl::kMfJacobianPlanes;
    const std::size_t bodyBytes = sizes.bodies * sizeof(gl::MfBody);
    const std::size_t entryBytes = sizes.entries * sizeof(gl::MfEntry);
    const auto move = [&](gpu::Buffer& buffer, std::size_t section, const void* data,
                          std::size_t bytes, const char* what) {
        if (!m_staged) {
            return put(buffer, data, bytes, what);
        }
        Status st = ensureBuffer(buffer, bytes, what);
        if (st && bytes > 0) {
            buffer.copyFrom(m_staging, bytes, section, 0);
        }
        return st;
    };
    Status s = move(m_rowBuffer, m_sections.rows, m_rows.data(), rowBytes, "matrix-free LCP rows");
    if (s)
        s = move(m_jacobian, m_sections.jacobian, m_jacobianPlanes.data(), jacobianBytes,
                 "matrix-free LCP Jacobians");
    // x^0 in both iterate planes (x^{-1} = x^0 for the accelerated step) and the good one:
    // moved once, copied on the GPU.
    if (s)
        s = ensureBuffer(m_x, m_xPlanes.size() * 4, "matrix-free LCP x");
    if (s && sizes.rows > 0) {
        if (m_staged) {
            m_x.copyFrom(m_staging, sizes.rows * 4, m_sections.x, 0);
        } else {
            m_x.upload(m_xPlanes.data(), sizes.rows * 4);
        }
        for (int plane = 1; plane < gl::kMfIteratePlanes; ++plane) {
            m_x.copyFrom(m_x, sizes.rows * 4, 0, static_cast<std::size_t>(plane) * sizes.rows * 4);
        }
    }
    if (s)
        s = put(m_blockBuffer, m_blocks.data(), m_blocks.size() * sizeof(gl::MfBlock),
                "matrix-free LCP blocks");
    if (s)
        s = move(m_bodyBuffer, m_sections.bodies, m_bodies.data(), bodyBytes,
                 "matrix-free LCP bodies");
    if (s)
        s = move(m_entryBuffer, m_sections.entries, m_entries.data(), entryBytes,
                 "matrix-free LCP body entries (K)");
    if (m_staged) {
        m_stagingFence.place();
    }
    if (s)
        s = put(m_weightBuffer, m_weights.data(), m_weights.size() * 4, "LCP weights");
    if (s)
        s = ensureBuffer(m_u, static_cast<std::size_t>(gl::kMfBodyPlanes) * 16 * sizes.bodies,
                         "matrix-free LCP body sums");
    if (s)
        s = ensureBuffer(m_residual, sizes.residuals * 4, "matrix-free LCP residuals");
    if (s)
        m_residual.clear();
    return s;
}

Status GpuMatrixFreeBatch::iterate(const Totals& sizes, const LcpOptions& o, int& dispatches) {
    const auto rows = static_cast<unsigned>(sizes.rows);
    const auto bodies = static_cast<unsigned>(sizes.bodies);
    m_gather.use();
    m_gather.set("uRows", rows);
    m_gather.set("uBodies", bodies);
    m_rowsPass.use();
    m_rowsPass.set("uRows", rows);
    m_rowsPass.set("uBodies", bodies);
    m_rowsPass.set("uTolerance", o.tolerance);
    m_rowsPass.set("uGrowth", o.divergenceGrowth);
    m_rowsPass.set("uCheckEvery", static_cast<unsigned>(std::max(1, o.checkEvery)));
    m_rowsPass.set("uAccelerate", o.chebyshevRho > 0.0f ? 1u : 0u);
    m_finish.use();
    m_finish.set("uRows", rows);
    // Bindings 0 and 1 differ between the passes (lcp_mf_gather.comp: bodies, entries;
    // lcp_mf_rows.comp: rows, J); 2 .. 6 are common.
    m_u.bind(2);
    m_x.bind(3);
    m_blockBuffer.bind(4);
    m_residual.bind(5);
    m_weightBuffer.bind(6);
    const auto rowGroups = gpu::groupsFor(sizes.rows, gl::kMfThreads);
    const auto bodyGroups =
        gpu::groupsFor(sizes.bodies * static_cast<std::size_t>(gl::kMfGatherLanes), gl::kMfThreads);
    // The passes read their group counts from m_control, which the row pass zeroes once every
    // block has stopped: the passes queued after that cost the GPU almost nothing.
    const gl::MfControl control{
        {bodyGroups, 1, 1}, {rowGroups, 1, 1}, static_cast<std::uint32_t>(m_blocks.size()), 0};
    if (Status s = ensureBuffer(m_control, sizeof control, "matrix-free LCP dispatch control");
        !s) {
        return s;
    }
    m_control.upload(&control, sizeof control);
    m_control.bind(7);
    // t = longest + 1 only checks the last iterates (no gather needed).
    for (int t = 0; t <= sizes.longest + 1; ++t) {
        if (t <= sizes.longest && bodies > 0) {
            m_bodyBuffer.bind(0);
            m_entryBuffer.bind(1);
            m_gather.set("uT", static_cast<unsigned>(t));
            if (Status s = gpu::dispatchIndirect(m_gather, m_control,
                                                 offsetof(gl::MfControl, gather), bodyGroups);
                !s) {
                return s;
            }
            gpu::barrier();
            ++dispatches;
        }
        m_rowBuffer.bind(0);
        m_jacobian.bind(1);
        m_rowsPass.set("uT", static_cast<unsigned>(t));
        if (Status s = gpu::dispatchIndirect(m_rowsPass, m_control, offsetof(gl::MfControl, rows),
                                             rowGroups);
            !s) {
            return s;
        }
        gpu::indirectBarrier();
        ++dispatches;
    }
    if (Status s = gpu::dispatch(m_finish, rowGroups); !s) {
        return s;
    }
    gpu::barrier();
    ++dispatches;
    return {};
}

std::vector<LcpReport> GpuMatrixFreeBatch::solve(std::span<const LcpProblem* const> blocks,
                                                 std::span<float> x, const LcpOptions& o) {
    Stopwatch uploadClock;
    const Totals sizes = pack(blocks, x, o);
    if (Status s = upload(sizes, o); !s) {
        return std::vector<LcpReport>(blocks.size(), failed(s));
    }
    const double uploadMs = uploadClock.elapsedMs();

    Stopwatch solveClock;
    int dispatches = 0;
    if (Status s = iterate(sizes, o, dispatches); !s) {
        return std::vector<LcpReport>(blocks.size(), failed(s));
    }
    m_blockBuffer.download(m_blocks.data(), m_blocks.size() * sizeof(gl::MfBlock));
    const std::size_t goodOffset = static_cast<std::size_t>(gl::kMfGoodPlane) * sizes.rows;
    m_x.download(m_xPlanes.data() + goodOffset, sizes.rows * 4, goodOffset * 4);
    std::vector<float> history;
    if (o.recordHistory) {
        history = m_residual.download<float>(sizes.residuals);
    }
    const int readbacks = o.recordHistory ? 3 : 2;

    std::vector<LcpReport> reports(blocks.size());
    for (std::size_t k = 0; k < blocks.size(); ++k) {
        const gl::MfBlock& d = m_blocks[k];
        LcpReport& rep = reports[k];
        auto xk = x.subspan(d.rowOffset, d.rows);
        const std::span<const float> answer(m_xPlanes.data() + goodOffset + d.rowOffset, d.rows);
        rep.iterations = static_cast<int>(d.stopAt);
        rep.residual = d.residual;
        rep.status = toStatus(d.status);
        if (rep.status == LcpStatus::kDiverged) {
            // The last checked finite iterate (or the guess), and its residual as the CPU gives it.
            if (allFinite(answer)) {
                std::copy(answer.begin(), answer.end(), xk.begin());
            }
            rep.residual = static_cast<float>(naturalResidual(*blocks[k], xk));
        } else {
            std::copy(answer.begin(), answer.end(), xk.begin());
        }
        if (o.recordHistory) {
            const auto first = history.begin() + d.residualOffset;
            rep.history.assign(first, first + rep.iterations + 1);
        }
        rep.dispatches = dispatches;
        rep.readbacks = readbacks;
        rep.uploadMs = uploadMs;
    }
    const double solveMs = solveClock.elapsedMs();
    for (auto& rep : reports) {
        rep.solveMs = solveMs;
    }
    return reports;
}

}  // namespace ww::lcp
