// The compute kernel of helper_inject_target: an ordinary CUDA program's
// kernel, nothing trilap about it.
#include <cuda_runtime.h>

__global__ void helper_scale_kernel(double *x, double a, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = a * x[i] + 1.0;
}

extern "C" int helper_scale(double *d_x, double a, size_t n, cudaStream_t s)
{
    helper_scale_kernel<<<256, 256, 0, s>>>(d_x, a, n);
    return (int)cudaPeekAtLastError();
}
