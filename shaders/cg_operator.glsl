// y_i = (A v)_i for the operator selected by a define, reading v through vecIn(j), which the
// including kernel defines first (the CG direction kernel reads r_j + beta p_j there, so
// the new direction is never stored before it is used). Equations: solver/cg/operators.h.
//   OP_STENCIL  (I - alpha L) on nx x ny, Dirichlet or Neumann per axis (matrix-free)
//   OP_BANDED   band d at offset uOffsets[d]: A(i, i + off) = bands[d n + i]
//   OP_CSR      compressed rows
//   OP_DENSE    row-major n x n

uniform uint uN;

#if defined(OP_STENCIL)
uniform int uNx;
uniform int uNy;
uniform float uStencilAlpha;
uniform int uNeumannX;  // ghost columns (x = -1, nx) mirror the boundary cell, else 0
uniform int uNeumannY;  // ghost rows (y = -1, ny) likewise

float applyA(uint i) {
    int ix = int(i % uint(uNx));
    int iy = int(i / uint(uNx));
    float c = vecIn(i);
    float s = 0.0;
    float kx = 0.0;  // neighbours outside the grid, per axis
    float ky = 0.0;
    if (ix > 0) { s += vecIn(i - 1u); } else { kx += 1.0; }
    if (ix + 1 < uNx) { s += vecIn(i + 1u); } else { kx += 1.0; }
    if (iy > 0) { s += vecIn(i - uint(uNx)); } else { ky += 1.0; }
    if (iy + 1 < uNy) { s += vecIn(i + uint(uNx)); } else { ky += 1.0; }
    // A mirrored ghost cancels against the centre: it drops one from the diagonal.
    float diag = 1.0 + uStencilAlpha * (4.0 - (uNeumannX != 0 ? kx : 0.0) -
                                        (uNeumannY != 0 ? ky : 0.0));
    return diag * c - uStencilAlpha * s;
}
#elif defined(OP_BANDED)
layout(std430, binding = 10) readonly buffer Bands { float bands[]; };
uniform int uBandCount;
uniform int uOffsets[16];

float applyA(uint i) {
    float s = 0.0;
    for (int d = 0; d < uBandCount; ++d) {
        int j = int(i) + uOffsets[d];
        if (j >= 0 && j < int(uN)) {
            s += bands[uint(d) * uN + i] * vecIn(uint(j));
        }
    }
    return s;
}
#elif defined(OP_CSR)
layout(std430, binding = 10) readonly buffer RowPtr { uint rowPtr[]; };
layout(std430, binding = 11) readonly buffer Cols { uint cols[]; };
layout(std430, binding = 12) readonly buffer Vals { float vals[]; };

float applyA(uint i) {
    float s = 0.0;
    for (uint k = rowPtr[i]; k < rowPtr[i + 1u]; ++k) {
        s += vals[k] * vecIn(cols[k]);
    }
    return s;
}
#elif defined(OP_DENSE)
layout(std430, binding = 10) readonly buffer Dense { float dense[]; };

float applyA(uint i) {
    float s = 0.0;
    for (uint j = 0u; j < uN; ++j) {
        s += dense[i * uN + j] * vecIn(j);
    }
    return s;
}
#else
#error "define OP_STENCIL, OP_BANDED, OP_CSR or OP_DENSE"
#endif
