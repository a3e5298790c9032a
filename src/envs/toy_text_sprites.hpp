// Primitive-drawn stand-ins for the sprites Gymnasium's toy-text pictures use (we cannot
// copy its images): the elf walker, the start stool. Each fits a w x h cell at (x, y).
#pragma once

#include <vector>

#include "meadow/scene.hpp"

namespace meadow::envs {

enum class Facing { Left, Down, Right, Up };

void draw_elf(std::vector<Shape>& out, double x, double y, double w, double h, Facing facing);
void draw_stool(std::vector<Shape>& out, double x, double y, double w, double h);

}  // namespace meadow::envs
