// Shared layouts of the GPU conjugate-gradient kernels (mirrored in solver/cg/cg_gpu.h with
// static_asserts) and the deterministic workgroup reduction.
//
// Scalars live on the GPU (Krüger & Westermann's 1x1 "single float" texture): the kernels
// read and write them, the CPU reads the block every k iterations at most.
// A dispatch's reduction: every workgroup writes its partial sum (fixed tree order) to
// uPartials[group]; the last workgroup to finish (atomic ticket) adds all partials in index
// order. The result is bit-identical run to run whatever order the workgroups ran in.

#define CG_RUNNING 0u
#define CG_CONVERGED 1u
#define CG_BREAKDOWN 2u

layout(std430, binding = 0) coherent buffer CgScalars {
    float sAlpha;      // rho / (p.Ap) of the current iteration
    float sBeta;       // rho_new / rho_old for the next direction
    float sRho;        // r.r
    float sPq;         // p.Ap
    float sBb;         // b.b
    float sResidual;   // sqrt(rho / b.b)
    float sTolerance;
    uint sIterations;
    uint sStatus;
    uint sTicket;      // workgroups done in the current dispatch
    float sTrueResidual;  // ||b - A x|| / ||b||, written by cg_init with uFinal = 1
    uint sPad1;
};

layout(std430, binding = 1) coherent buffer CgPartials { float uPartials[]; };

#ifndef LOCAL_SIZE
#define LOCAL_SIZE 256
#endif
#ifndef ELEMS
#define ELEMS 4
#endif

shared float shSum[LOCAL_SIZE];
shared float shSum2[LOCAL_SIZE];
shared uint shTicket;

// Tree-reduces shSum (and shSum2) in a fixed order; the result is in element 0.
void reduceShared(bool two) {
    for (uint s = LOCAL_SIZE / 2u; s > 0u; s >>= 1u) {
        barrier();
        if (gl_LocalInvocationIndex < s) {
            shSum[gl_LocalInvocationIndex] += shSum[gl_LocalInvocationIndex + s];
            if (two) {
                shSum2[gl_LocalInvocationIndex] += shSum2[gl_LocalInvocationIndex + s];
            }
        }
    }
    barrier();
}

// Publishes this workgroup's partial(s) and returns true in the last workgroup, where
// shSum[0] (and shSum2[0]) then hold the totals over all workgroups, summed in index order.
bool finishReduction(float mine, float mine2, bool two) {
    uint lid = gl_LocalInvocationIndex;
    uint groups = gl_NumWorkGroups.x;
    shSum[lid] = mine;
    shSum2[lid] = mine2;
    reduceShared(two);
    if (lid == 0u) {
        uPartials[gl_WorkGroupID.x] = shSum[0];
        if (two) {
            uPartials[groups + gl_WorkGroupID.x] = shSum2[0];
        }
        memoryBarrierBuffer();
        shTicket = atomicAdd(sTicket, 1u);
    }
    barrier();
    if (shTicket != groups - 1u) {
        return false;
    }
    memoryBarrierBuffer();
    float a = 0.0;
    float b = 0.0;
    for (uint k = lid; k < groups; k += LOCAL_SIZE) {
        a += uPartials[k];
        if (two) {
            b += uPartials[groups + k];
        }
    }
    shSum[lid] = a;
    shSum2[lid] = b;
    reduceShared(two);
    if (lid == 0u) {
        sTicket = 0u;
    }
    return true;
}

uint elementIndex(uint e) {
    return (gl_WorkGroupID.x * ELEMS + e) * LOCAL_SIZE + gl_LocalInvocationIndex;
}
