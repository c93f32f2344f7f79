// The Hopper (sm_90a) PTX wrappers, one header per chapter that teaches them: 12 wgmma and its
// descriptors (device/ch12_wgmma.cuh), 13 TMA loads, mbarriers and tensor maps
// (device/ch13_tma_mbarrier.cuh), 14 setmaxnreg (device/ch14_setmaxnreg.cuh), 15 clusters,
// multicast and TMA stores (device/ch15_cluster_multicast.cuh), 16 the narrower wgmma tiles
// (device/ch16_wgmma_narrow.cuh). A chapter includes the ones it uses; this header includes all.
#pragma once

#include "device/ch12_wgmma.cuh"
#include "device/ch13_tma_mbarrier.cuh"
#include "device/ch14_setmaxnreg.cuh"
#include "device/ch15_cluster_multicast.cuh"
#include "device/ch16_wgmma_narrow.cuh"
