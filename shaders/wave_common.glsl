// Shared by the wave kernels: grid uniforms and the 5-point Laplacian without 1/h^2, with
// ghost cells 0 (Dirichlet) or a copy of the boundary cell (Neumann), chosen per axis.
// Equations: solver/wave/wave_kernels.h.
uniform int uNx;
uniform int uNy;
uniform int uNeumannX;  // ghost columns (x = -1, nx)
uniform int uNeumannY;  // ghost rows (y = -1, ny)
uniform float uA;  // c^2 dt^2 / (4 h^2)
uniform float uG;  // gamma dt / 2

#define WAVE_LAPLACIAN(NAME, BUF)                                              \
    float NAME(int i, int j) {                                                 \
        int k = j * uNx + i;                                                   \
        float c = BUF[k];                                                      \
        float gx = uNeumannX != 0 ? c : 0.0;                                   \
        float gy = uNeumannY != 0 ? c : 0.0;                                   \
        float l = i > 0 ? BUF[k - 1] : gx;                                     \
        float r = i + 1 < uNx ? BUF[k + 1] : gx;                               \
        float d = j > 0 ? BUF[k - uNx] : gy;                                   \
        float u = j + 1 < uNy ? BUF[k + uNx] : gy;                             \
        return l + r + d + u - 4.0 * c;                                        \
    }

// Mirrors ww::wave::Impulse (solver/wave/wave_kernels.h).
struct WaveImpulse {
    float xM;
    float yM;
    float amplitude;
    float radiusM;
    uint bothLevels;
    uint pad0;
    uint pad1;
    uint pad2;
};
