MODULES += runtime
runtime_C := runtime/error.c
runtime_CU :=
