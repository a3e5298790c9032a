// Frames (meadow/scene.hpp) to and from NumPy (height, width, 3) uint8 arrays.
#pragma once

#include <cstdint>

#include <nanobind/ndarray.h>

#include "meadow/scene.hpp"

namespace meadow::python {

using FrameArray = nanobind::ndarray<nanobind::numpy, uint8_t, nanobind::shape<-1, -1, 3>>;
using FrameInput = nanobind::ndarray<const uint8_t, nanobind::shape<-1, -1, 3>, nanobind::c_contig,
                                     nanobind::device::cpu>;

FrameArray frame_array(Frame frame);          // takes the pixels, no copy
Frame frame_from_array(const FrameInput& a);  // copies

}  // namespace meadow::python
