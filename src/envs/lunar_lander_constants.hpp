// Gymnasium 1.4.0 lunar_lander.py constants (facts of the game, shared by the env, its
// picture and the heuristic). Lengths are in pixels unless divided by kScale.
#pragma once

#include <array>

namespace meadow::envs::lunar {

inline constexpr double kFps = 50;
inline constexpr double kScale = 30.0;  // pixels per metre
inline constexpr double kMainEnginePower = 13.0;
inline constexpr double kSideEnginePower = 0.6;
inline constexpr double kInitialRandom = 1000.0;
inline constexpr std::array<std::array<double, 2>, 6> kLanderPoly{
    {{-14, +17}, {-17, 0}, {-17, -10}, {+17, -10}, {+17, 0}, {+14, +17}}};
inline constexpr double kLegAway = 20, kLegDown = 18, kLegW = 2, kLegH = 8;
inline constexpr double kLegSpringTorque = 40;
inline constexpr double kSideEngineHeight = 14, kSideEngineAway = 12;
inline constexpr double kMainEngineYLocation = 4;
inline constexpr double kViewportW = 600, kViewportH = 400;
inline constexpr double kW = kViewportW / kScale, kH = kViewportH / kScale;

}  // namespace meadow::envs::lunar
