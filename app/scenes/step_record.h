// What one step of a scene did, as typed fields: per-phase times and the solver statistics.
// The panel, the trace recorder, --check, the summary and the tests read the fields; the
// descriptor tables list what is present, in display order, for the consumers that show every
// statistic by name (the trace's CSV columns and args, the panel's lists).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ww::app {

/// Wall-clock time of each phase of one step, ms; a phase the scene does not have stays unset.
struct StepPhases {
    std::optional<double> rhs;         ///< water: sources and the Crank–Nicolson right-hand side
    std::optional<double> collide;     ///< rigid: broad and narrow phase, warm start
    std::optional<double> assemble;    ///< rigid: islands, A = J M⁻¹ Jᵀ and b
    std::optional<double> solve;       ///< the scene's solve: LCP (wall, splash) or CG (water)
    std::optional<double> integrate;   ///< rigid: velocities and positions
    std::optional<double> coupling;    ///< splash: buoyancy, drag, displaced volume
    std::optional<double> waterRhs;    ///< splash: the water's right-hand side
    std::optional<double> waterSolve;  ///< splash: the water's CG solve
    /// water: whole-state diagnostics (the energy) on the steps that evaluate them, else 0
    std::optional<double> diagnostics;
};

/// The solver statistics of one step; a statistic the scene does not report stays unset.
struct SolverStats {
    std::optional<int> n;          ///< LCP rows, all blocks
    std::optional<int> nBlockMax;  ///< LCP rows of the largest block
    std::optional<int> contacts;
    std::optional<int> islands;
    std::optional<double> iterations;        ///< the scene's solver: LCP mean (wall), CG (water)
    std::optional<double> lcpIterations;     ///< splash: LCP iterations, mean over blocks
    std::optional<double> residual;          ///< the scene's solver: LCP natural map, N s (wall);
                                             ///< CG ‖r‖/‖b‖ (water)
    std::optional<double> lcpResidual;       ///< splash: LCP natural-map residual, N s
    std::optional<int> cgIterations;         ///< splash: the water's CG iterations
    std::optional<double> cgResidual;        ///< splash: the water's CG residual
    std::optional<double> trueResidual;      ///< water: ‖b − Ax‖/‖b‖ recomputed
    std::optional<double> energy;            ///< water: discrete energy
    std::optional<int> drops;                ///< water: drops added this step
    std::optional<double> penetration;       ///< m, deepest contact before correction
    std::optional<double> maxSpeed;          ///< m/s, fastest brick
    std::optional<double> maxDrift;          ///< m, farthest brick from its start
    std::optional<double> submergedM3;       ///< splash: volume under water
    std::optional<double> volumeDriftRel;    ///< splash: (W − W0)/W0
    std::optional<double> levelCorrectionM;  ///< splash: uniform correction this step
    std::optional<double> lcpUploadMs;       ///< GPU LCP: packing and upload, ms (in solve)
    std::optional<double> omega;             ///< wall: the Jacobi relaxation the step used
    std::optional<double> lambdaMax;         ///< wall: the λ_max(D⁻¹A) estimate that capped it
};

/// What one step did. The panel, the trace recorder, --check and the summary all read it.
struct StepRecord {
    double stepMs = 0;
    StepPhases phases;
    SolverStats stats;
    std::vector<float> residualHistory;  ///< last solve's residual per iteration, if recorded
};

/// A phase by name (the trace's slice names, CSV columns and summary keys).
struct PhaseDescriptor {
    const char* name;
    std::optional<double> StepPhases::*member;
};
inline constexpr PhaseDescriptor kPhaseDescriptors[] = {
    {"rhs", &StepPhases::rhs},
    {"collide", &StepPhases::collide},
    {"assemble", &StepPhases::assemble},
    {"solve", &StepPhases::solve},
    {"integrate", &StepPhases::integrate},
    {"coupling", &StepPhases::coupling},
    {"water_rhs", &StepPhases::waterRhs},
    {"water_solve", &StepPhases::waterSolve},
    {"diagnostics", &StepPhases::diagnostics},
};

/// A statistic by name and unit; `read` gives it as a double when present.
struct StatDescriptor {
    const char* name;
    const char* unit;  ///< "" when a count or ratio
    std::optional<double> (*read)(const SolverStats&);
};

namespace detail {
template <auto Member>
std::optional<double> readStat(const SolverStats& s) {
    const auto& v = s.*Member;
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}
}  // namespace detail

inline constexpr StatDescriptor kStatDescriptors[] = {
    {"n", "", detail::readStat<&SolverStats::n>},
    {"n_block_max", "", detail::readStat<&SolverStats::nBlockMax>},
    {"contacts", "", detail::readStat<&SolverStats::contacts>},
    {"islands", "", detail::readStat<&SolverStats::islands>},
    {"iterations", "", detail::readStat<&SolverStats::iterations>},
    {"lcp_iterations", "", detail::readStat<&SolverStats::lcpIterations>},
    {"residual", "", detail::readStat<&SolverStats::residual>},
    {"lcp_residual", "N s", detail::readStat<&SolverStats::lcpResidual>},
    {"cg_iterations", "", detail::readStat<&SolverStats::cgIterations>},
    {"cg_residual", "", detail::readStat<&SolverStats::cgResidual>},
    {"true_residual", "", detail::readStat<&SolverStats::trueResidual>},
    {"energy", "", detail::readStat<&SolverStats::energy>},
    {"drops", "", detail::readStat<&SolverStats::drops>},
    {"penetration", "m", detail::readStat<&SolverStats::penetration>},
    {"max_speed", "m/s", detail::readStat<&SolverStats::maxSpeed>},
    {"max_drift", "m", detail::readStat<&SolverStats::maxDrift>},
    {"submerged_m3", "m^3", detail::readStat<&SolverStats::submergedM3>},
    {"volume_drift_rel", "", detail::readStat<&SolverStats::volumeDriftRel>},
    {"level_correction_m", "m", detail::readStat<&SolverStats::levelCorrectionM>},
    {"lcp_upload_ms", "ms", detail::readStat<&SolverStats::lcpUploadMs>},
    {"omega", "", detail::readStat<&SolverStats::omega>},
    {"lambda_max", "", detail::readStat<&SolverStats::lambdaMax>},
};

/// Calls f(name, ms) for each phase the step has, in display order.
template <typename F>
void forEachPhase(const StepPhases& p, F&& f) {
    for (const PhaseDescriptor& d : kPhaseDescriptors) {
        if (const std::optional<double>& v = p.*d.member) {
            f(d.name, *v);
        }
    }
}

/// Calls f(descriptor, value) for each statistic the step has, in display order.
template <typename F>
void forEachStat(const SolverStats& s, F&& f) {
    for (const StatDescriptor& d : kStatDescriptors) {
        if (const std::optional<double> v = d.read(s)) {
            f(d, *v);
        }
    }
}

/// The present phases and statistics as (name, value) pairs, in display order (the demo's
/// frame trace, which records any scene's values by name).
inline void namedStepValues(const StepRecord& r,
                            std::vector<std::pair<std::string, double>>& phasesMs,
                            std::vector<std::pair<std::string, double>>& values) {
    phasesMs.clear();
    values.clear();
    forEachPhase(r.phases, [&](const char* name, double ms) { phasesMs.emplace_back(name, ms); });
    forEachStat(r.stats,
                [&](const StatDescriptor& d, double v) { values.emplace_back(d.name, v); });
}

}  // namespace ww::app
