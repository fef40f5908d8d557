/* MPI error reporting for TL_MPI (the other wrappers need no helper). */
#include "runtime/check.h"

#include <stdio.h>

#if TL_HAVE_MPI
tl_status tl_mpi_report(int code, const char *file, int line, const char *expr)
{
    char msg[MPI_MAX_ERROR_STRING + 1] = "";
    int len = 0;
    if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "MPI error %d", code);
    return tl_error_report(TL_ERR_MPI, file, line, expr, "%s", msg);
}
#else
/* ISO C forbids an empty translation unit */
typedef int tl_check_no_mpi;
#endif
