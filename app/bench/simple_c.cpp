// Plain scalar loops (see simple_c.h); no intrinsics, no pragmas, no library calls.
#include "app/bench/simple_c.h"

#include <vector>

namespace ww::bench::simple {

void copy(const float* a, float* c, int count) {
    for (int i = 0; i < count; ++i) {
        c[i] = a[i];
    }
}

void add(const float* a, const float* b, float* c, int count) {
    for (int i = 0; i < count; ++i) {
        c[i] = a[i] + b[i];
    }
}

void matVec(const float* a, const float* x, float* y, int n) {
    for (int i = 0; i < n; ++i) {
        float s = 0.0f;
        for (int j = 0; j < n; ++j) {
            s += a[i * n + j] * x[j];
        }
        y[i] = s;
    }
}

void matTVec(const float* a, const float* x, float* y, int n) {
    for (int j = 0; j < n; ++j) {
        y[j] = 0.0f;
    }
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            y[j] += a[i * n + j] * x[i];
        }
    }
}

void matMat(const float* a, const float* b, float* c, int n) {
    for (int i = 0; i < n; ++i) {
        float* ci = c + i * n;
        for (int j = 0; j < n; ++j) {
            ci[j] = 0.0f;
        }
        for (int k = 0; k < n; ++k) {
            const float aik = a[i * n + k];
            const float* bk = b + k * n;
            for (int j = 0; j < n; ++j) {
                ci[j] += aik * bk[j];
            }
        }
    }
}

void matTMat(const float* a, const float* b, float* c, int n) {
    for (int i = 0; i < n; ++i) {
        float* ci = c + i * n;
        for (int j = 0; j < n; ++j) {
            ci[j] = 0.0f;
        }
        for (int k = 0; k < n; ++k) {
            const float aki = a[k * n + i];
            const float* bk = b + k * n;
            for (int j = 0; j < n; ++j) {
                ci[j] += aki * bk[j];
            }
        }
    }
}

void conjugateGradients(const float* a, const float* b, float* x, int n, int iterations) {
    std::vector<float> r(b, b + n), p(b, b + n), q(static_cast<std::size_t>(n));
    float rr = 0.0f;
    for (int i = 0; i < n; ++i) {
        x[i] = 0.0f;
        rr += r[i] * r[i];
    }
    for (int k = 0; k < iterations && rr > 0.0f; ++k) {
        matVec(a, p.data(), q.data(), n);
        float pq = 0.0f;
        for (int i = 0; i < n; ++i) {
            pq += p[i] * q[i];
        }
        const float alpha = rr / pq;
        float rrNew = 0.0f;
        for (int i = 0; i < n; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            rrNew += r[i] * r[i];
        }
        const float beta = rrNew / rr;
        for (int i = 0; i < n; ++i) {
            p[i] = r[i] + beta * p[i];
        }
        rr = rrNew;
    }
}

void projectedJacobi(const float* a, const float* b, const float* lo, const float* hi, float omega,
                     float* x, int n, int iterations) {
    std::vector<float> w(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        x[i] = 0.0f;
    }
    for (int t = 0; t < iterations; ++t) {
        matVec(a, x, w.data(), n);
        for (int i = 0; i < n; ++i) {
            float v = x[i] - omega * (w[i] + b[i]) / a[i * n + i];
            v = v < lo[i] ? lo[i] : v;
            x[i] = v > hi[i] ? hi[i] : v;
        }
    }
}

}  // namespace ww::bench::simple
