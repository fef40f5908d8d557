// Kernels of known duration for the probe tests: a spin on the global
// timer (one thread, so it occupies one SM and nothing else), and an empty
// kernel for counting records.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" __global__ void tl_test_spin_kernel(uint64_t ns)
{
    uint64_t t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

extern "C" __global__ void tl_test_empty_kernel(void) {}

extern "C" int tl_test_spin(uint64_t ns, cudaStream_t s)
{
    tl_test_spin_kernel<<<1, 1, 0, s>>>(ns);
    return (int)cudaPeekAtLastError();
}

extern "C" int tl_test_empty(cudaStream_t s)
{
    tl_test_empty_kernel<<<1, 32, 0, s>>>();
    return (int)cudaPeekAtLastError();
}
