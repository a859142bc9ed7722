// Buffer layouts shared by the LCP kernels, mirrored in solver/lcp/lcp_gpu_layout.h with
// static_asserts (std430). The matrix of a block uses the vec4 row-block layout of
// docs/linalg.md: texel (rb, j) = A[4rb .. 4rb+3][j] lives at matrixOffset + j * rowBlocks + rb.

// One row of a problem: w = (A x)_i + b, bounds, 1 / A_ii, friction (normal < 0: none).
struct LcpRow {
    float b;
    float lo;
    float hi;
    float invDiag;  // 1 / A_ii; both rows of a disc pair 1 / max(A_ff, A_gg)
    float mu;
    int normal;  // index of the normal row within the same block, or -1
    int pair;    // LCP_PAIR_NONE, LCP_PAIR_FIRST (partner: the next row), LCP_PAIR_SECOND
    float pad1;
};

// Disc pairs (lcp_gpu_layout.h, kPair*): the host places each pair at rows (2m, 2m + 1), so
// both rows lie in one vec4 and the invocation owning it projects them together.
#define LCP_PAIR_NONE 0
#define LCP_PAIR_FIRST 1
#define LCP_PAIR_SECOND 2

// One independent block (island) of a batch.
struct LcpBlockDesc {
    uint n;
    uint rowBlocks;      // ceil(n / 4)
    uint matrixOffset;   // in vec4 texels
    uint vectorOffset;   // in floats (rows and x)
    uint historyOffset;  // in floats
    uint maxIterations;
    float divergenceFloor;
    uint pad0;
};

struct LcpBlockResult {
    uint iterations;
    float residual;
    uint status;  // LCP_CONVERGED, LCP_ITERATION_LIMIT, LCP_DIVERGED
    uint pad0;
};

// Control word of the one-dispatch-per-iteration path.
struct LcpControl {
    uint stopAt;     // LCP_NONE, or the iteration whose iterate is the answer
    uint status;
    float minResidual[2];  // smallest checked residual, written by dispatch t into [t % 2]
    uint restartAt[2];     // Chebyshev schedule start, written by dispatch t into [t % 2]
    uint pad0;
    uint pad1;
};

// Matrix-free batches (lcp_mf_*.comp; lcp_gpu_layout.h, Mf*): every index batch-wide.
struct LcpMfRow {
    float b;
    float lo;
    float hi;
    float scale;  // omega / A_ii; both rows of a disc pair omega / max(A_ff, A_gg)
    float mu;
    int normal;   // the friction row's normal row, or -1
    int partner;  // the other row of its disc pair, or -1
    uint block;
    int bodyA;  // body of side A, or -1 (static / none)
    int bodyB;
    float pad0;
    float pad1;
};

struct LcpMfBody {
    int entryBegin;  // entries of the rows acting on the body, rows ascending
    int entryEnd;
    uint block;
    uint pad0;
};

struct LcpMfEntry {
    vec4 k0;  // K_{row,side} lin xyz, ang x
    vec2 k1;  // K_{row,side} ang yz
    uint row;
    uint pad0;
};

struct LcpMfBlock {
    uint rowOffset;
    uint rows;
    uint residualOffset;  // r(x^t) at residualOffset + t
    uint maxIterations;
    float divergenceFloor;
    float cfm;
    uint stopAt;  // LCP_NONE, or the iteration whose iterate is the answer
    uint status;
    float minResidual[2];  // written by pass t into [t % 2]
    uint restartAt[2];     // written by pass t into [t % 2]
    float residual;        // r(x^stopAt)
    uint pad0;
    uint pad1;
    uint pad2;
};

#define LCP_CONVERGED 0u
#define LCP_ITERATION_LIMIT 1u
#define LCP_DIVERGED 2u
#define LCP_NONE 0xffffffffu
#define LCP_INF_BITS 0x7f800000u
// Chebyshev restart: the residual rose by more than 1 % (lcp_common.h, kChebyshevRestartRise).
#define LCP_RESTART_RISE 1.01

// Whether iterate t's residual r is tested (lcp_common.h, testsIterate): every checkEvery-th, the
// last, a non-finite one, and with acceleration any that meets the tolerance (r is then computed
// every pass), so that the backends stop at the same iterate.
bool lcpTestsIterate(uint t, uint checkEvery, uint maxIterations, float r, float tolerance,
                     bool accelerated) {
    return t == maxIterations || isnan(r) || isinf(r) || t % checkEvery == 0u ||
           (accelerated && tolerance > 0.0 && r <= tolerance);
}

// Residual bits of row i: |x - clamp(x - w, lo, hi)|, or +inf when w is not finite (so that
// atomicMax over uint bits of non-negative floats keeps the largest, and NaN is never lost).
uint lcpResidualBits(float xi, float w, float lo, float hi) {
    if (isnan(w) || isinf(w) || isnan(xi) || isinf(xi)) {
        return LCP_INF_BITS;
    }
    return floatBitsToUint(abs(xi - clamp(xi - w, lo, hi)));
}

// Projection onto the disc ||v|| <= radius: v scaled by radius / ||v|| when outside (the
// formula of projectDisc in lcp_common.h, so that CPU and GPU iterates agree).
vec2 lcpDisc(vec2 v, float radius) {
    const float len = sqrt(v.x * v.x + v.y * v.y);
    return len > radius ? v * (radius / len) : v;
}

// Residual bits of a disc pair: max over its rows of |x - Proj_disc(x - w)|, +inf as above.
uint lcpPairResidualBits(vec2 xi, vec2 w, float radius) {
    if (any(isnan(w)) || any(isinf(w)) || any(isnan(xi)) || any(isinf(xi))) {
        return LCP_INF_BITS;
    }
    const vec2 d = abs(xi - lcpDisc(xi - w, radius));
    return floatBitsToUint(max(d.x, d.y));
}
