// PTX wrappers taught in chapter 14: setmaxnreg, which moves registers between the warpgroups of a
// block (the producer gives, the consumers take).
#pragma once

// wgmma and setmaxnreg exist in code built for exactly sm_90a (meson.build's hopper_arch_args); a
// device pass for any other target would assemble nothing useful, so it stops here, loudly.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "ch14_setmaxnreg.cuh is sm_90a code: build with -gencode=arch=compute_90a,code=sm_90a"
#endif

namespace sm90 {

// The warpgroup's registers per thread rise to, or fall to, REGS (a multiple of 8, 24..256).
template <int REGS>
__device__ inline void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
}
template <int REGS>
__device__ inline void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
}

}  // namespace sm90
