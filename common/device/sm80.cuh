// The PTX wrappers of the sm_80 generation (Ampere on, also Hopper), one header per chapter that
// teaches them: cp.async (chapter 10, device/ch10_cp_async.cuh), ldmatrix and mma.sync m16n8k16
// (chapter 11, device/ch11_mma_ldmatrix.cuh). A chapter includes the one it uses; this header
// includes both.
#pragma once

#include "device/ch10_cp_async.cuh"
#include "device/ch11_mma_ldmatrix.cuh"
