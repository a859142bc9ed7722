#version 430
// The paper's elementwise operations (Moravanszky 2003, section 3) over float arrays:
//   0 copy y = a          1 add y = a + b        2 accumulate y += a    3 scale y = s a
//   4 max y = max(a, s)   5 mad y += s a         6 madTo y = a + s b    7 madElem y += a .* b
//   8 madad y = a + (b + c) .* d
// One kernel with the operation as a uniform: every variant is one fused multiply-add pass.
// Unused inputs are bound to `a` by the host. Grid-stride loop: any length in one dispatch.
layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer A { float a[]; };
layout(std430, binding = 2) readonly buffer B { float b[]; };
layout(std430, binding = 3) readonly buffer C { float c[]; };
layout(std430, binding = 4) readonly buffer D { float d[]; };

uniform uint uCount;
uniform uint uOp;
uniform float uS;

void main() {
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < uCount; i += stride) {
        float v;
        switch (uOp) {
            case 0u: v = a[i]; break;
            case 1u: v = a[i] + b[i]; break;
            case 2u: v = y[i] + a[i]; break;
            case 3u: v = uS * a[i]; break;
            case 4u: v = max(a[i], uS); break;
            case 5u: v = fma(uS, a[i], y[i]); break;
            case 6u: v = fma(uS, b[i], a[i]); break;
            case 7u: v = fma(a[i], b[i], y[i]); break;
            default: v = fma(b[i] + c[i], d[i], a[i]); break;
        }
        y[i] = v;
    }
}
