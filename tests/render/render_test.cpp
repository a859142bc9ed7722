// Headless rendering of DrawData through the offscreen target, checked for content: brick
// pixels where the bricks are, a water surface that changes with a bump, shadows on the
// ground, GPU-buffer and CPU-upload water paths agreeing, not blank, not black.
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "render/capture.h"
#include "render/renderer.h"
#include "solver/gpu/gl_objects.h"
#include "support/gpu_fixture.h"
#include "support/seed.h"
#include "test_scene.h"

namespace ww::render {
namespace {

// llvmpipe shades every pixel on the CPU: small images keep the suite fast.
constexpr int kW = 320;
constexpr int kH = 200;

Renderer& sharedRenderer() {
    static Renderer renderer;
    if (!renderer.initialized()) {
        RendererOptions options;
        options.shadowMapSize = 1024;
        Status s = renderer.init(options);
        EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    }
    return renderer;
}

std::string outPath(const std::string& name) {
    const char* dir = std::getenv("WW_RENDER_TEST_OUT");
    // Without a folder given, one per test run (ctest's process id): two runs of the suite on
    // one machine never count or overwrite each other's files.
    const std::filesystem::path base =
        dir != nullptr ? std::filesystem::path(dir)
                       : std::filesystem::path(testing::TempDir()) /
                             ("wavewall-tests-" + std::to_string(::getppid()));
    std::filesystem::create_directories(base);
    return (base / name).string();
}

Image renderOrDie(const DrawData& data, const Camera& camera, const std::string& png) {
    auto image = renderToImage(sharedRenderer(), data, camera, kW, kH);
    EXPECT_TRUE(image.ok()) << (image.ok() ? "" : image.error().message);
    if (!image.ok()) {
        return {};
    }
    EXPECT_TRUE(writePng(*image, outPath(png)).ok());
    return std::move(image).value();
}

bool isBrick(glm::u8vec4 p) {
    // Bricks are red-orange: red dominates green and blue clearly even in shadow; sky, ground
    // and water are grey or blue-green.
    return p.r > 50 && p.r > p.g * 1.35f && p.r > p.b * 1.6f;
}

double meanLuma(const Image& im) {
    double sum = 0.0;
    for (std::size_t k = 0; k < im.rgba.size(); k += 4) {
        sum += 0.299 * im.rgba[k] + 0.587 * im.rgba[k + 1] + 0.114 * im.rgba[k + 2];
    }
    return sum / (static_cast<double>(im.width) * im.height);
}

// Not blank (a single colour) and not black: enough distinct colours (5 bits per channel)
// and a mean luma that a lit scene has. Measured: sky + ground alone ~24 distinct colours,
// a wall or a pool several hundred; a black, cleared or failed frame has 1.
void expectLooksLikeAFrame(const Image& im, int minDistinct = 50) {
    ASSERT_GT(im.width, 0);
    EXPECT_GT(meanLuma(im), 40.0);
    std::vector<bool> seen(1 << 15, false);
    int distinct = 0;
    for (std::size_t k = 0; k < im.rgba.size(); k += 4) {
        const int key =
            (im.rgba[k] >> 3) << 10 | (im.rgba[k + 1] >> 3) << 5 | (im.rgba[k + 2] >> 3);
        if (!seen[key]) {
            seen[key] = true;
            ++distinct;
        }
    }
    EXPECT_GT(distinct, minDistinct);
}

Camera wallCamera(float yaw) {
    OrbitCamera orbit({0.0f, 1.2f, 0.0f}, 9.0f, yaw, 0.25f);
    return orbit.camera();
}

void checkWall(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> yawDist(-0.7f, 0.7f);
    const float yaw = yawDist(rng);
    DrawData data;
    const glm::vec3 half(0.25f, 0.15f, 0.2f);
    data.boxes = test::makeWall(8, 6, half);
    const Camera cam = wallCamera(yaw);
    const Image im = renderOrDie(data, cam, "wall.png");
    ASSERT_EQ(im.width, kW);
    expectLooksLikeAFrame(im);
    // The centre of each brick's front face (facing +z, towards the camera) is brick red.
    int hits = 0;
    for (const BoxInstance& b : data.boxes) {
        const glm::vec3 face = b.position + glm::vec3(0.0f, 0.0f, half.z);
        const glm::vec3 px = cam.project(face, {kW, kH});
        const glm::u8vec4 p = im.at(static_cast<int>(px.x), static_cast<int>(px.y));
        EXPECT_TRUE(isBrick(p)) << "brick at (" << b.position.x << ", " << b.position.y
                                << ") pixel " << px.x << "," << px.y << " rgb " << int(p.r) << " "
                                << int(p.g) << " " << int(p.b) << " seed " << seed;
        hits += isBrick(p) ? 1 : 0;
    }
    EXPECT_EQ(hits, static_cast<int>(data.boxes.size()));
    // And nowhere else: well above the wall and beside it, no brick pixels.
    const glm::vec3 above = cam.project({0.0f, 3.0f, 0.0f}, {kW, kH});
    EXPECT_FALSE(isBrick(im.at(static_cast<int>(above.x), static_cast<int>(above.y))));
    const glm::vec3 beside = cam.project({4.0f, 0.0f, 2.0f}, {kW, kH});
    if (beside.x >= 0 && beside.x < kW && beside.y >= 0 && beside.y < kH) {
        EXPECT_FALSE(isBrick(im.at(static_cast<int>(beside.x), static_cast<int>(beside.y))));
    }
}

TEST(Renderer, WallFixedView) {
    WW_REQUIRE_GPU();
    checkWall(1u);
}

TEST(Renderer, WallRandomView) {
    WW_REQUIRE_GPU();
    checkWall(ww::test::freshSeed());
}

// Overlay colours no lit surface produces: saturated magenta lines, saturated green points.
bool isOverlayLine(glm::u8vec4 p) {
    return p.r > 200 && p.g < 60 && p.b > 200;
}
bool isOverlayPoint(glm::u8vec4 p) {
    return p.r < 60 && p.g > 200 && p.b < 60;
}

int countPixels(const Image& im, bool (*pred)(glm::u8vec4)) {
    int n = 0;
    for (int y = 0; y < im.height; ++y) {
        for (int x = 0; x < im.width; ++x) {
            n += pred(im.at(x, y)) ? 1 : 0;
        }
    }
    return n;
}

// Random lines and points over a box: each line's midpoint and each point's centre shows the
// overlay colour (points also inside the box: overlays are drawn without depth test); with
// the overlay off (no lines, no points) not one pixel has either colour.
void checkOverlay(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> ux(-2.0f, 2.0f), uy(0.2f, 2.4f), uz(-1.0f, 1.0f);
    const Camera cam = wallCamera(0.3f);
    const glm::ivec2 size(kW, kH);
    auto inside = [&](glm::vec3 w, float marginPx) {
        const glm::vec3 px = cam.project(w, size);
        return px.x > marginPx && px.x < kW - marginPx && px.y > marginPx && px.y < kH - marginPx;
    };
    DrawData off;
    off.boxes.push_back({{0.0f, 1.0f, 0.0f}, {1.0f, 0.0f, 0.0f, 0.0f}, glm::vec3(0.5f)});
    DrawData on = off;
    on.lineWidthPx = 5.0f;
    on.pointSizePx = 9.0f;
    on.points.push_back({{0.0f, 1.0f, 0.0f}, {0.0f, 1.0f, 0.0f, 1.0f}});  // the box's centre
    while (on.points.size() < 6) {
        const glm::vec3 p(ux(rng), uy(rng), uz(rng));
        if (inside(p, 8.0f)) {
            on.points.push_back({p, {0.0f, 1.0f, 0.0f, 1.0f}});
        }
    }
    while (on.lines.size() < 8) {
        const glm::vec3 a(ux(rng), uy(rng), uz(rng));
        const glm::vec3 b(ux(rng), uy(rng), uz(rng));
        const glm::vec3 mid = 0.5f * (a + b);
        bool clear = inside(a, 2.0f) && inside(b, 2.0f);
        // Points are drawn after lines: keep midpoints away from every point's disc.
        for (const OverlayPoint& p : on.points) {
            clear = clear && glm::length(glm::vec2(cam.project(mid, size)) -
                                         glm::vec2(cam.project(p.position, size))) > 10.0f;
        }
        if (clear) {
            on.lines.push_back({a, b, {1.0f, 0.0f, 1.0f, 1.0f}});
        }
    }
    const Image imOn = renderOrDie(on, cam, "overlay_on.png");
    const Image imOff = renderOrDie(off, cam, "overlay_off.png");
    ASSERT_EQ(imOn.width, kW);
    ASSERT_EQ(imOff.width, kW);
    EXPECT_EQ(sharedRenderer().stats().overlayLines, 0);
    for (const OverlayLine& l : on.lines) {
        const glm::vec3 px = cam.project(0.5f * (l.from + l.to), size);
        const glm::u8vec4 p = imOn.at(static_cast<int>(px.x), static_cast<int>(px.y));
        EXPECT_TRUE(isOverlayLine(p))
            << "line midpoint " << px.x << "," << px.y << " rgb " << int(p.r) << " " << int(p.g)
            << " " << int(p.b) << " seed " << seed;
    }
    for (const OverlayPoint& q : on.points) {
        const glm::vec3 px = cam.project(q.position, size);
        const glm::u8vec4 p = imOn.at(static_cast<int>(px.x), static_cast<int>(px.y));
        EXPECT_TRUE(isOverlayPoint(p)) << "point " << px.x << "," << px.y << " rgb " << int(p.r)
                                       << " " << int(p.g) << " " << int(p.b) << " seed " << seed;
    }
    EXPECT_EQ(countPixels(imOff, isOverlayLine), 0) << "seed " << seed;
    EXPECT_EQ(countPixels(imOff, isOverlayPoint), 0) << "seed " << seed;
}

TEST(Renderer, OverlayLinesAndPointsShowOnlyWhenGiven) {
    WW_REQUIRE_GPU();
    const unsigned seed = ww::test::freshSeed();  // WAVEWALL_TEST_SEED replays it
    std::printf("overlay seed %u\n", seed);
    checkOverlay(seed);
}

TEST(Renderer, EmptySceneHasNoBrickPixels) {
    WW_REQUIRE_GPU();
    DrawData data;
    const Image im = renderOrDie(data, wallCamera(0.3f), "empty.png");
    expectLooksLikeAFrame(im, 10);
    int bricks = 0;
    for (int y = 0; y < im.height; ++y) {
        for (int x = 0; x < im.width; ++x) {
            bricks += isBrick(im.at(x, y)) ? 1 : 0;
        }
    }
    EXPECT_EQ(bricks, 0);
}

void checkShadow(float halfExtentM, bool farProjectile) {
    DrawData data;
    BoxInstance b;
    b.position = {0.0f, 1.5f, 0.0f};
    b.halfExtents = glm::vec3(halfExtentM);
    data.boxes.push_back(b);
    if (farProjectile) {
        // A sphere 300 m away must not stretch the shadow map over 360 m (0.35 m per texel
        // at 1024²), which would lose the shadow of a 0.3 m box.
        data.spheres.push_back({{300.0f, 40.0f, -200.0f}, 0.2f, glm::vec4(1.0f)});
    }
    const Camera cam = OrbitCamera({0.0f, 0.5f, 0.0f}, 8.0f, 0.0f, 0.9f).camera();
    const Image im = renderOrDie(data, cam, farProjectile ? "shadow_far.png" : "shadow.png");
    auto luma = [&](glm::vec3 p) {
        const glm::u8vec4 c = im.at(static_cast<int>(p.x), static_cast<int>(p.y));
        return 0.299 * c.r + 0.587 * c.g + 0.114 * c.b;
    };
    // Shadows of the box centre and of a point 60% of the way to the top corner away from the
    // sun (+x, −z): along −sun down to y = 0. The second lands where the ground is farthest
    // from the light, past the centre ray's ground point, so it is lost if the shadow map's
    // depth range stops there.
    const glm::vec3 sun = sunDirection();
    const glm::vec3 farTip = b.position + 0.6f * halfExtentM * glm::vec3(1.0f, 1.0f, -1.0f);
    for (const glm::vec3 caster : {b.position, farTip}) {
        const glm::vec3 shadow = caster - sun * (caster.y / sun.y);
        const glm::vec3 mirror = {-shadow.x, 0.0f, -shadow.z};  // same distance, lit side
        const glm::vec3 ps = cam.project(shadow, {kW, kH});
        const glm::vec3 pl = cam.project(mirror, {kW, kH});
        // Direct sun is over half of the ground's light in shade(); 0.8 leaves room for grid
        // lines and the PCF edge.
        EXPECT_LT(luma(ps), 0.8 * luma(pl)) << "shadow of (" << caster.x << ", " << caster.y << ", "
                                            << caster.z << ") at pixel " << ps.x << "," << ps.y;
    }
}

TEST(Renderer, BoxCastsShadowOnGround) {
    WW_REQUIRE_GPU();
    checkShadow(0.5f, false);
}

TEST(Renderer, FarProjectileDoesNotWashOutShadows) {
    WW_REQUIRE_GPU();
    checkShadow(0.15f, true);
}

struct Pool {
    int nx = 96;
    int ny = 96;
    float h = 0.06f;
    float base = 0.4f;
};

DrawData poolData(const Pool& pool, std::span<const float> heights) {
    DrawData data;
    data.water.nx = pool.nx;
    data.water.ny = pool.ny;
    data.water.cellSizeM = pool.h;
    data.water.baseHeightM = pool.base;
    data.water.heightsCpu = heights;
    data.water.enabled = true;
    data.water.poolWalls = false;  // the test's own rim
    data.boxes = test::poolRim(pool.nx, pool.ny, pool.h, pool.base + 0.1f);
    return data;
}

TEST(Renderer, WaterBumpChangesTheSurface) {
    WW_REQUIRE_GPU();
    const unsigned seed = ww::test::freshSeed();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> where(-1.0f, 1.0f);
    const Pool pool;
    const Camera cam = OrbitCamera({0.0f, 0.3f, 0.0f}, 7.0f, 0.4f, 0.6f).camera();
    const std::vector<float> flat(static_cast<std::size_t>(pool.nx) * pool.ny, 0.0f);
    const std::vector<float> bump =
        test::gaussianBump(pool.nx, pool.ny, pool.h, where(rng), where(rng), 0.25f, 0.35f);
    const Image a = renderOrDie(poolData(pool, flat), cam, "water_flat.png");
    const Image b = renderOrDie(poolData(pool, bump), cam, "water_bump.png");
    expectLooksLikeAFrame(a);
    expectLooksLikeAFrame(b);
    EXPECT_EQ(sharedRenderer().stats().waterVertices, pool.nx * pool.ny);
    EXPECT_FALSE(sharedRenderer().stats().waterFromSolverBuffer);
    int changed = 0;
    for (std::size_t k = 0; k < a.rgba.size(); k += 4) {
        const int d = std::abs(a.rgba[k] - b.rgba[k]) + std::abs(a.rgba[k + 1] - b.rgba[k + 1]) +
                      std::abs(a.rgba[k + 2] - b.rgba[k + 2]);
        changed += d > 12 ? 1 : 0;
    }
    // A bump of σ = 0.35 m covers ~1.5 m² of a 32 m² pool seen from 7 m: ~1% of the frame at
    // least, counting only clear changes (> 12 levels summed over RGB).
    EXPECT_GT(changed, kW * kH / 100) << "seed " << seed;

    // Water is blue-green, not brick and not grey ground.
    const glm::vec3 c = cam.project({0.0f, pool.base, 0.0f}, {kW, kH});
    const glm::u8vec4 p0 = a.at(static_cast<int>(c.x), static_cast<int>(c.y));
    EXPECT_GT(p0.g + p0.b, 2 * p0.r);
}

// Mean red over mean blue of the pixels inside the pool's projected interior (the middle
// half of each side, away from the walls).
double redOverBlue(const Image& im, const Camera& cam, float halfM, float y) {
    double r = 0.0;
    double b = 0.0;
    for (float x = -0.5f * halfM; x <= 0.5f * halfM; x += 0.05f * halfM) {
        for (float z = -0.5f * halfM; z <= 0.5f * halfM; z += 0.05f * halfM) {
            const glm::vec3 p = cam.project({x, y, z}, {kW, kH});
            const glm::u8vec4 px = im.at(static_cast<int>(p.x), static_cast<int>(p.y));
            r += px.r;
            b += px.b;
        }
    }
    return r / std::max(b, 1.0);
}

// The water look: the tiled floor shows through a flat surface (grout lines cross a row of
// pixels through the pool, 0.5 m apart), deeper water is bluer (absorption grows with the
// path), and the renderer's own stone walls stand where the pool ends.
TEST(Renderer, PoolShowsItsFloorThroughTheWaterAndItsWalls) {
    WW_REQUIRE_GPU();
    Pool pool;
    const float halfM = 0.5f * static_cast<float>(pool.nx - 1) * pool.h;
    const Camera cam = OrbitCamera({0.0f, 0.3f, 0.0f}, 6.0f, 0.4f, 0.9f).camera();
    const std::vector<float> flat(static_cast<std::size_t>(pool.nx) * pool.ny, 0.0f);
    pool.base = 0.3f;
    DrawData shallow = poolData(pool, flat);
    shallow.boxes.clear();
    shallow.water.poolWalls = true;
    const Image a = renderOrDie(shallow, cam, "pool_shallow.png");
    expectLooksLikeAFrame(a);

    // Grout lines: dips of the green channel along the image row through the pool's centre,
    // each darker than the tile either side by a clear margin (10 levels; tiles and grout
    // differ by ~50 levels in green at this depth).
    const glm::vec3 centre = cam.project({0.0f, pool.base, 0.0f}, {kW, kH});
    const glm::vec3 left = cam.project({-0.8f * halfM, pool.base, 0.0f}, {kW, kH});
    const glm::vec3 right = cam.project({0.8f * halfM, pool.base, 0.0f}, {kW, kH});
    const int row = static_cast<int>(centre.y);
    int dips = 0;
    const int x0 = static_cast<int>(std::min(left.x, right.x));
    const int x1 = static_cast<int>(std::max(left.x, right.x));
    for (int x = x0 + 3; x < x1 - 3; ++x) {
        const int g = a.at(x, row).g;
        if (g + 10 < a.at(x - 3, row).g && g + 10 < a.at(x + 3, row).g && g <= a.at(x - 1, row).g &&
            g < a.at(x + 1, row).g) {
            ++dips;
        }
    }
    // 1.6 x 2.85 m of floor at 0.5 m tiles: 5 or 6 lines cross the row (fewer where one is
    // thinner than a pixel); none without the floor.
    EXPECT_GE(dips, 3) << "row " << row << " from x " << x0 << " to " << x1;

    pool.base = 1.5f;
    const Camera deepCam = OrbitCamera({0.0f, 1.5f, 0.0f}, 6.0f, 0.4f, 0.9f).camera();
    DrawData deep = poolData(pool, flat);
    deep.boxes.clear();
    deep.water.poolWalls = true;
    const Image b = renderOrDie(deep, deepCam, "pool_deep.png");
    // Absorption takes red first: 1.2 m more water lowers red against blue clearly (the
    // shallow pool's ratio is ~0.6, the deep one's below 0.4 with sigma_red = 0.7/m).
    const double shallowRatio = redOverBlue(a, cam, halfM, 0.3f);
    const double deepRatio = redOverBlue(b, deepCam, halfM, 1.5f);
    EXPECT_LT(deepRatio, 0.85 * shallowRatio) << shallowRatio << " vs " << deepRatio;

    // The walls: the top of the +x wall is stone (bright, warm grey); without them that pixel
    // is the ground beside the pool.
    const std::array<BoxInstance, 4> walls = poolWalls(shallow.water);
    const glm::vec3 top = walls[1].position + glm::vec3(0.0f, walls[1].halfExtents.y, 0.0f);
    const glm::vec3 p = cam.project(top, {kW, kH});
    shallow.water.poolWalls = false;
    const Image none = renderOrDie(shallow, cam, "pool_no_walls.png");
    const glm::u8vec4 stone = a.at(static_cast<int>(p.x), static_cast<int>(p.y));
    const glm::u8vec4 ground = none.at(static_cast<int>(p.x), static_cast<int>(p.y));
    EXPECT_GT(stone.r, stone.b) << "stone is warm";
    EXPECT_GT(stone.r + stone.g + stone.b, ground.r + ground.g + ground.b + 60);
}

TEST(Renderer, SolverBufferAndCpuUploadDrawTheSame) {
    WW_REQUIRE_GPU();
    const Pool pool;
    const Camera cam = OrbitCamera({0.0f, 0.3f, 0.0f}, 6.0f, -0.3f, 0.5f).camera();
    const std::vector<float> u = test::ripples(pool.nx, pool.ny, pool.h, 0.4f, -0.3f, 0.05f, 0.5f);
    const Image cpu = renderOrDie(poolData(pool, u), cam, "water_cpu.png");

    auto buffer = gpu::Buffer::fromSpan(std::span<const float>(u), "test heights");
    ASSERT_TRUE(buffer.ok());
    DrawData data = poolData(pool, {});
    data.water.heightBuffer = buffer->handle();
    const Image gpu = renderOrDie(data, cam, "water_gpu.png");
    EXPECT_TRUE(sharedRenderer().stats().waterFromSolverBuffer);
    ASSERT_EQ(cpu.rgba.size(), gpu.rgba.size());
    // Same heights, same shaders, same GL state: the images are bit-identical.
    EXPECT_EQ(cpu.rgba, gpu.rgba);
}

TEST(Renderer, CoarseMeshSamplesBilinearly) {
    WW_REQUIRE_GPU();
    // A grid larger than the mesh cap: the vertex count is capped and the frame still shows
    // the bump.
    Renderer renderer;
    RendererOptions options;
    options.maxWaterMesh = 64;
    options.shadowMapSize = 512;
    ASSERT_TRUE(renderer.init(options).ok());
    Pool pool;
    pool.nx = 200;
    pool.ny = 150;
    pool.h = 0.03f;
    const std::vector<float> bump =
        test::gaussianBump(pool.nx, pool.ny, pool.h, 0.0f, 0.0f, 0.3f, 0.4f);
    const Camera cam = OrbitCamera({0.0f, 0.3f, 0.0f}, 6.0f, 0.2f, 0.5f).camera();
    auto im = renderToImage(renderer, poolData(pool, bump), cam, kW, kH);
    ASSERT_TRUE(im.ok());
    EXPECT_EQ(renderer.stats().waterVertices, 64 * 64);
    expectLooksLikeAFrame(*im);
}

TEST(Renderer, MsaaSmoothsEdgesOnly) {
    WW_REQUIRE_GPU();
    DrawData data;
    data.boxes = test::makeWall(4, 3, glm::vec3(0.3f, 0.2f, 0.2f));
    data.boxes[5].orientation = glm::angleAxis(0.4f, glm::vec3(0.0f, 0.0f, 1.0f));
    const Camera cam = wallCamera(0.35f);
    Renderer& r = sharedRenderer();
    r.setMsaaSamples(0);
    const Image aliased = renderOrDie(data, cam, "msaa_off.png");
    r.setMsaaSamples(4);
    const Image smooth = renderOrDie(data, cam, "msaa_on.png");
    int differ = 0;
    for (std::size_t k = 0; k < aliased.rgba.size(); k += 4) {
        differ += aliased.rgba[k] != smooth.rgba[k] || aliased.rgba[k + 1] != smooth.rgba[k + 1] ||
                  aliased.rgba[k + 2] != smooth.rgba[k + 2];
    }
    // Multisampling changes edge pixels (tens to hundreds of them) and leaves the interior
    // of surfaces alone (shading runs once per pixel at its centre either way); grid lines
    // and shadow edges add a little, far below 10% of the frame.
    EXPECT_GT(differ, 50);
    EXPECT_LT(differ, kW * kH / 10);
}

TEST(Renderer, AutoMsaaFollowsTheRendererKind) {
    WW_REQUIRE_GPU();
    Renderer r;
    RendererOptions options;
    options.msaaSamples = kAutoMsaa;
    options.shadowMapSize = 256;
    ASSERT_TRUE(r.init(options).ok());
    const std::string name = test::sharedGpu()->info().renderer;
    const bool software =
        name.find("llvmpipe") != std::string::npos || name.find("softpipe") != std::string::npos;
    EXPECT_EQ(r.options().msaaSamples, software ? 0 : 4) << name;
}

int clearlyDifferentPixels(const Image& a, const Image& b) {
    int n = 0;
    for (std::size_t k = 0; k < a.rgba.size(); k += 4) {
        n += (std::abs(a.rgba[k] - b.rgba[k]) + std::abs(a.rgba[k + 1] - b.rgba[k + 1]) +
              std::abs(a.rgba[k + 2] - b.rgba[k + 2])) > 12;
    }
    return n;
}

// renderScale 0.5: the scene is drawn into a target of half the width and height (a quarter
// of the pixels) and upscaled into the full-size destination: the same picture at a lower
// resolution. Every brick's face centre is still brick red, and the image is close to the
// full-size one (mean difference a few levels, from softer edges) but not identical.
TEST(Renderer, RenderScaleDrawsAtAFractionAndUpscales) {
    WW_REQUIRE_GPU();
    Renderer scaled;
    RendererOptions options;
    options.shadowMapSize = 1024;
    options.msaaSamples = 4;
    options.renderScale = 0.5f;
    ASSERT_TRUE(scaled.init(options).ok());
    DrawData data;
    const glm::vec3 half(0.25f, 0.15f, 0.2f);
    data.boxes = test::makeWall(8, 6, half);
    const Camera cam = wallCamera(0.2f);
    auto low = renderToImage(scaled, data, cam, kW, kH);
    ASSERT_TRUE(low.ok()) << low.error().message;
    EXPECT_EQ(scaled.stats().targetWidth, kW / 2);
    EXPECT_EQ(scaled.stats().targetHeight, kH / 2);
    ASSERT_EQ(low->width, kW);
    ASSERT_EQ(low->height, kH);
    EXPECT_TRUE(writePng(*low, outPath("render_scale_half.png")).ok());
    const Image full = renderOrDie(data, cam, "render_scale_full.png");
    EXPECT_EQ(sharedRenderer().stats().targetWidth, kW);
    expectLooksLikeAFrame(*low);
    for (const BoxInstance& b : data.boxes) {
        const glm::vec3 px = cam.project(b.position + glm::vec3(0.0f, 0.0f, half.z), {kW, kH});
        EXPECT_TRUE(isBrick(low->at(static_cast<int>(px.x), static_cast<int>(px.y))))
            << "brick at " << px.x << "," << px.y;
    }
    double diff = 0.0;
    for (std::size_t k = 0; k < full.rgba.size(); ++k) {
        diff += std::abs(full.rgba[k] - low->rgba[k]);
    }
    diff /= static_cast<double>(full.rgba.size());
    EXPECT_GT(diff, 0.0);
    // Measured ~1-2 levels: edges and the ground grid soften; 8 would be a different picture.
    EXPECT_LT(diff, 8.0);
}

TEST(Renderer, CoarseMeshKeepsSmallWavesThroughPerPixelNormals) {
    WW_REQUIRE_GPU();
    // Ripples 8 cells long on a 200 × 200 grid, drawn with a full mesh and with a 64 × 64
    // mesh (3 cells per mesh cell, which alone would smear them out).
    Pool pool;
    pool.nx = 200;
    pool.ny = 200;
    pool.h = 0.03f;
    const std::vector<float> u =
        test::ripples(pool.nx, pool.ny, pool.h, 0.3f, -0.2f, 0.03f, 8.0f * pool.h);
    const std::vector<float> flat(u.size(), 0.0f);
    const Camera cam = OrbitCamera({0.0f, 0.3f, 0.0f}, 5.0f, 0.3f, 0.7f).camera();
    auto draw = [&](int maxMesh, std::span<const float> heights, const char* png) {
        Renderer r;
        RendererOptions options;
        options.maxWaterMesh = maxMesh;
        options.shadowMapSize = 512;
        EXPECT_TRUE(r.init(options).ok());
        auto im = renderToImage(r, poolData(pool, heights), cam, kW, kH);
        EXPECT_TRUE(im.ok());
        EXPECT_TRUE(writePng(*im, outPath(png)).ok());
        return std::move(im).value();
    };
    const Image fine = draw(512, u, "ripples_fine.png");
    const Image coarse = draw(64, u, "ripples_coarse.png");
    const Image still = draw(512, flat, "ripples_flat.png");
    const int waves = clearlyDifferentPixels(fine, still);
    const int meshError = clearlyDifferentPixels(fine, coarse);
    // The ripples change a large part of the pool; the coarse mesh differs from the fine one
    // only where its bilinear geometry shifts the surface a little (measured: 5810 vs 220
    // pixels; with vertex normals on the coarse mesh the ripples would vanish).
    EXPECT_GT(waves, kW * kH / 50);
    EXPECT_LT(meshError, waves / 3) << "waves " << waves << " mesh error " << meshError;
}

TEST(Renderer, ZeroViewportDrawsNothingAndSucceeds) {
    WW_REQUIRE_GPU();
    DrawData data;
    data.boxes = test::makeWall(2, 2, glm::vec3(0.3f));
    Status s = sharedRenderer().render(data, wallCamera(0.0f), {0, 0, 0, 0, 0});
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(sharedRenderer().stats().drawCalls, 0);
}

TEST(Renderer, MissingHeightsIsAnInputError) {
    WW_REQUIRE_GPU();
    DrawData data;
    data.water = {8, 8, 0.1f, 0.2f, 0, {}, true};
    auto im = renderToImage(sharedRenderer(), data, wallCamera(0.0f), 64, 64);
    ASSERT_FALSE(im.ok());
    EXPECT_EQ(im.error().kind, ErrorKind::kInput);
}

TEST(Renderer, PngRoundTripWritesAFile) {
    WW_REQUIRE_GPU();
    DrawData data;
    data.boxes = test::makeWall(3, 2, glm::vec3(0.3f));
    const std::string path = outPath("roundtrip.png");
    std::filesystem::remove(path);
    ASSERT_TRUE(renderToPng(sharedRenderer(), data, wallCamera(0.2f), 96, 64, path).ok());
    EXPECT_GT(std::filesystem::file_size(path), 100u);
    auto back = readPng(path);
    ASSERT_TRUE(back.ok());
    auto direct = renderToImage(sharedRenderer(), data, wallCamera(0.2f), 96, 64);
    ASSERT_TRUE(direct.ok());
    EXPECT_EQ(back->rgba, direct->rgba);  // PNG is lossless: the file holds the frame exactly
    EXPECT_FALSE(readPng(outPath("does-not-exist.png")).ok());
    EXPECT_FALSE(
        renderToPng(sharedRenderer(), data, wallCamera(0.2f), 96, 64, "/nonexistent-dir/x.png")
            .ok());
}

// cheapShading (the low level): one shadow tap and, on a water mesh coarser than the grid,
// normals per pixel at the nearest grid sample. Waves two mesh cells long (along x or z,
// random phase, seed printed), which vertex normals cannot follow, show on the coarse mesh
// as they do with full shading's bilinear normals. The
// wall with its shadows looks as with full shading (a few levels apart where the one tap's
// shadow edges are harder) but not identically (the define reached the shaders).
TEST(Renderer, CheapShadingKeepsWavesAndTheLook) {
    WW_REQUIRE_GPU();
    const char* fixed = std::getenv("WW_CHEAP_SHADING_SEED");
    const unsigned seed =
        fixed ? static_cast<unsigned>(std::strtoul(fixed, nullptr, 10)) : ww::test::freshSeed();
    std::printf("cheap shading seed %u\n", seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> angle(0.0f, 6.2831853f);
    auto makeRenderer = [](bool cheap) {
        auto r = std::make_unique<Renderer>();
        RendererOptions options;
        options.shadowMapSize = 1024;
        options.maxWaterMesh = 64;
        options.cheapShading = cheap;
        EXPECT_TRUE(r->init(options).ok());
        return r;
    };
    const std::unique_ptr<Renderer> cheap = makeRenderer(true);
    const std::unique_ptr<Renderer> full = makeRenderer(false);
    auto draw = [](Renderer& r, const DrawData& data, const Camera& cam) {
        auto im = renderToImage(r, data, cam, kW, kH);
        EXPECT_TRUE(im.ok());
        return im.ok() ? std::move(im).value() : Image{};
    };

    // A 200² pool on a 64² mesh (about 3 cells per mesh cell), plane waves two mesh cells
    // (6.3 grid cells) long, 5 mm high, along x or z: central differences over a mesh cell
    // see neighbours half a wave apart, equal heights, so vertex normals would stay upright.
    Pool pool;
    pool.nx = 200;
    pool.ny = 200;
    pool.h = 0.03f;
    const float meshCellM = pool.h * static_cast<float>(pool.nx - 1) / 63.0f;
    const float waveNumber = 6.2831853f / (2.0f * meshCellM);
    const bool alongX = std::uniform_int_distribution<int>(0, 1)(rng) == 0;
    const float phase = angle(rng);
    std::vector<float> u(static_cast<std::size_t>(pool.nx) * pool.ny);
    for (int j = 0; j < pool.ny; ++j) {
        for (int i = 0; i < pool.nx; ++i) {
            const float along = static_cast<float>(alongX ? i : j) * pool.h;
            u[static_cast<std::size_t>(j) * pool.nx + i] =
                0.005f * std::cos(waveNumber * along + phase);
        }
    }
    const std::vector<float> flat(u.size(), 0.0f);
    const Camera poolCam = OrbitCamera({0.0f, 0.3f, 0.0f}, 5.0f, 0.3f, 0.7f).camera();
    const Image waves = draw(*cheap, poolData(pool, u), poolCam);
    const Image still = draw(*cheap, poolData(pool, flat), poolCam);
    EXPECT_TRUE(writePng(waves, outPath("cheap_shading_ripples.png")).ok());
    // Full shading (bilinear normals per pixel) is the reference. The waves change about as
    // much of the picture with nearest-sample normals as with bilinear ones, and the two
    // pictures of the waves are closer to each other than to the flat pool (measured, four
    // seeds: cheap vs flat 37500-39700 pixels, full vs flat 35800-38700, cheap vs full
    // 13300-13700, the nearest sample's steps; with vertex normals cheap vs flat was 8-707 and
    // cheap vs full 36400-36700).
    const Image fullWaves = draw(*full, poolData(pool, u), poolCam);
    const Image fullStill = draw(*full, poolData(pool, flat), poolCam);
    const int fullVsStill = clearlyDifferentPixels(fullWaves, fullStill);
    EXPECT_GT(fullVsStill, kW * kH / 50) << "seed " << seed;
    EXPECT_GT(clearlyDifferentPixels(waves, still), fullVsStill / 2) << "seed " << seed;
    EXPECT_LT(clearlyDifferentPixels(waves, fullWaves), fullVsStill / 2) << "seed " << seed;

    DrawData wall;
    wall.boxes = test::makeWall(8, 6, glm::vec3(0.25f, 0.15f, 0.2f));
    const Camera wallCam = wallCamera(0.2f);
    const Image cheapWall = draw(*cheap, wall, wallCam);
    const Image fullWall = draw(*full, wall, wallCam);
    EXPECT_TRUE(writePng(cheapWall, outPath("cheap_shading_wall.png")).ok());
    double diff = 0.0;
    for (std::size_t k = 0; k < fullWall.rgba.size(); ++k) {
        diff += std::abs(fullWall.rgba[k] - cheapWall.rgba[k]);
    }
    diff /= static_cast<double>(fullWall.rgba.size());
    EXPECT_GT(diff, 0.0);
    // Only shadow edges differ (one 2x2 tap against four; measured 0.001 levels on average); 8
    // would be a different picture, as in RenderScaleDrawsAtAFractionAndUpscales.
    EXPECT_LT(diff, 8.0);
}

// A frame whose boxes, spheres and light are those of the last frame keeps the shadow map and
// the instance buffers; any change redraws them. Each frame must equal what a fresh renderer
// draws of the same data, bit for bit: a stale shadow (a moved brick whose old shadow stayed)
// or boxes read from the wrong buffer (the water's heights share binding 0) would differ.
TEST(Renderer, UnchangedCastersKeepTheShadowMapAndChangesRedrawIt) {
    WW_REQUIRE_GPU();
    const char* fixed = std::getenv("WW_SHADOW_KEEP_SEED");
    const unsigned seed =
        fixed ? static_cast<unsigned>(std::strtoul(fixed, nullptr, 10)) : ww::test::freshSeed();
    std::printf("shadow keep seed %u\n", seed);
    std::mt19937 rng(seed);
    RendererOptions options;
    options.shadowMapSize = 1024;
    Renderer kept;
    ASSERT_TRUE(kept.init(options).ok());
    auto fresh = [&](const DrawData& data, const Camera& cam) {
        Renderer r;
        EXPECT_TRUE(r.init(options).ok());
        auto im = renderToImage(r, data, cam, kW, kH);
        EXPECT_TRUE(im.ok());
        return im.ok() ? std::move(im).value() : Image{};
    };
    auto drawKept = [&](const DrawData& data, const Camera& cam) {
        auto im = renderToImage(kept, data, cam, kW, kH);
        EXPECT_TRUE(im.ok());
        return im.ok() ? std::move(im).value() : Image{};
    };

    Pool pool;
    std::uniform_real_distribution<float> centre(-1.5f, 1.5f);
    const std::vector<float> u0 =
        test::ripples(pool.nx, pool.ny, pool.h, centre(rng), centre(rng), 0.03f, 0.4f);
    const std::vector<float> u1 =
        test::ripples(pool.nx, pool.ny, pool.h, centre(rng), centre(rng), 0.03f, 0.4f);
    DrawData data = poolData(pool, u0);
    const std::vector<BoxInstance> wall = test::makeWall(4, 3, glm::vec3(0.25f, 0.15f, 0.2f));
    for (BoxInstance b : wall) {
        b.position += glm::vec3(0.0f, pool.base + 0.2f, 0.0f);
        data.boxes.push_back(b);
    }
    const Camera cam = OrbitCamera({0.0f, 0.5f, 0.0f}, 7.0f, 0.4f, 0.5f).camera();

    const Image first = drawKept(data, cam);
    EXPECT_FALSE(kept.stats().shadowPassSkipped);
    EXPECT_TRUE(kept.stats().instancesUploaded);
    EXPECT_EQ(first.rgba, fresh(data, cam).rgba) << "seed " << seed;

    // Same bodies, other heights: shadow map and instances kept, the boxes still bound.
    data.water.heightsCpu = u1;
    const Image second = drawKept(data, cam);
    EXPECT_TRUE(kept.stats().shadowPassSkipped);
    EXPECT_FALSE(kept.stats().instancesUploaded);
    EXPECT_EQ(second.rgba, fresh(data, cam).rgba) << "seed " << seed;

    // One brick moved by a random offset: both redrawn.
    std::uniform_int_distribution<std::size_t> pick(0, data.boxes.size() - 1);
    std::uniform_real_distribution<float> offset(0.3f, 0.8f);
    data.boxes[pick(rng)].position += glm::vec3(offset(rng), offset(rng), 0.0f);
    const Image moved = drawKept(data, cam);
    EXPECT_FALSE(kept.stats().shadowPassSkipped);
    EXPECT_TRUE(kept.stats().instancesUploaded);
    EXPECT_EQ(moved.rgba, fresh(data, cam).rgba) << "seed " << seed;
    EXPECT_NE(moved.rgba, second.rgba);
}

// A wall at rest moves by micrometres each step: its shadow map is kept while every brick stays
// within kShadowKeepTexels texels of where the map drew it (the bodies themselves are drawn
// where they are), and redrawn once one moves farther. A random brick, random directions.
TEST(Renderer, ShadowMapKeptForSubTexelMovesOnly) {
    WW_REQUIRE_GPU();
    const char* fixed = std::getenv("WW_SHADOW_JITTER_SEED");
    const unsigned seed =
        fixed ? static_cast<unsigned>(std::strtoul(fixed, nullptr, 10)) : ww::test::freshSeed();
    std::printf("shadow jitter seed %u\n", seed);
    std::mt19937 rng(seed);
    RendererOptions options;
    options.shadowMapSize = 512;
    Renderer r;
    ASSERT_TRUE(r.init(options).ok());
    DrawData data;
    data.boxes = test::makeWall(6, 4, glm::vec3(0.25f, 0.15f, 0.2f));
    const Camera cam = wallCamera(0.2f);
    ASSERT_TRUE(renderToImage(r, data, cam, kW, kH).ok());
    EXPECT_FALSE(r.stats().shadowPassSkipped);

    // The light's square view spans the wall's bounding sphere (and 5 %), over 512 texels.
    glm::vec3 lo(1e30f);
    glm::vec3 hi(-1e30f);
    for (const BoxInstance& b : data.boxes) {
        const float reach = glm::length(b.halfExtents);
        lo = glm::min(lo, b.position - glm::vec3(reach));
        hi = glm::max(hi, b.position + glm::vec3(reach));
    }
    const float texelM = 1.05f * glm::length(hi - lo) / 512.0f;
    std::uniform_int_distribution<std::size_t> pick(0, data.boxes.size() - 1);
    std::uniform_real_distribution<float> coord(-1.0f, 1.0f);
    auto randomDirection = [&] {
        glm::vec3 d(coord(rng), coord(rng), coord(rng));
        return glm::length(d) > 1e-3f ? glm::normalize(d) : glm::vec3(1.0f, 0.0f, 0.0f);
    };
    const std::size_t brick = pick(rng);
    const glm::vec3 rest = data.boxes[brick].position;
    // A tenth of a texel: kept. The jitter of a resting wall is far smaller.
    data.boxes[brick].position = rest + randomDirection() * (0.1f * texelM);
    ASSERT_TRUE(renderToImage(r, data, cam, kW, kH).ok());
    EXPECT_TRUE(r.stats().shadowPassSkipped) << "seed " << seed;
    EXPECT_TRUE(r.stats().instancesUploaded);
    // Two texels: redrawn.
    data.boxes[brick].position = rest + randomDirection() * (2.0f * texelM);
    ASSERT_TRUE(renderToImage(r, data, cam, kW, kH).ok());
    EXPECT_FALSE(r.stats().shadowPassSkipped) << "seed " << seed;
}

TEST(RenderQuality, AutoIsLowOnSoftwareRasterizersOnly) {
    for (const char* software :
         {"llvmpipe (LLVM 15.0.6, 256 bits)", "softpipe", "Mesa swrast", "SwiftShader Device"}) {
        EXPECT_TRUE(isSoftwareRenderer(software)) << software;
        EXPECT_EQ(resolveQuality(RenderQuality::kAuto, software), RenderQuality::kLow);
        EXPECT_EQ(rendererOptionsFor(RenderQuality::kAuto, software).msaaSamples, 0);
    }
    for (const char* hardware : {"NVIDIA GeForce RTX 3080/PCIe/SSE2", "AMD Radeon RX 6800",
                                 "Mesa Intel(R) UHD Graphics 620 (KBL GT2)"}) {
        EXPECT_FALSE(isSoftwareRenderer(hardware)) << hardware;
        EXPECT_EQ(resolveQuality(RenderQuality::kAuto, hardware), RenderQuality::kHigh);
        EXPECT_EQ(rendererOptionsFor(RenderQuality::kAuto, hardware).msaaSamples, 4);
    }
    // An explicit level wins over the renderer.
    EXPECT_EQ(resolveQuality(RenderQuality::kHigh, "llvmpipe"), RenderQuality::kHigh);
    const RendererOptions low = rendererOptionsFor(RenderQuality::kLow, "");
    const RendererOptions high = rendererOptionsFor(RenderQuality::kHigh, "");
    EXPECT_LT(low.shadowMapSize, high.shadowMapSize);
    EXPECT_LT(low.maxWaterMesh, high.maxWaterMesh);
    EXPECT_TRUE(low.cheapShading);
    EXPECT_FALSE(high.cheapShading);
}

// The low level draws the demo's 256² pool with at most kLowWaterMesh² vertices (64²: one- and
// two-pixel triangles were most of the water's cost on llvmpipe) and the high level with one
// vertex per sample.
TEST(RenderQuality, LowLevelDrawsTheWaterOnACoarseMesh) {
    WW_REQUIRE_GPU();
    Pool pool;
    pool.nx = 256;
    pool.ny = 256;
    pool.h = 10.0f / 256.0f;
    const std::vector<float> flat(static_cast<std::size_t>(pool.nx) * pool.ny, 0.0f);
    const Camera cam = OrbitCamera({0.0f, 0.3f, 0.0f}, 12.0f, 0.3f, 0.7f).camera();
    for (RenderQuality q : {RenderQuality::kLow, RenderQuality::kHigh}) {
        Renderer r;
        ASSERT_TRUE(r.init(rendererOptionsFor(q, "")).ok());
        ASSERT_TRUE(renderToImage(r, poolData(pool, flat), cam, kW, kH).ok());
        const int side = q == RenderQuality::kLow ? 64 : 256;
        EXPECT_EQ(r.stats().waterVertices, side * side) << toString(q);
    }
}

}  // namespace
}  // namespace ww::render
