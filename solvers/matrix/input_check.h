/* Checks on user input (files, partitions): like TL_CHECK, but the error
 * line names only the input and the reason, not the C condition, since the
 * reader of "A.mtx:7: ..." is a user, not a developer. */
#ifndef TL_INPUT_CHECK_H
#define TL_INPUT_CHECK_H

#include "runtime/error.h"

#define TL_INPUT_CHECK(cond, code, ...)                                                            \
    do {                                                                                           \
        if (!(cond)) return TL_FAIL((code), __VA_ARGS__);                                          \
    } while (0)
#define TL_INPUT_CHECKGOTO(cond, code, res, label, ...)                                            \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            (res) = TL_FAIL((code), __VA_ARGS__);                                                  \
            goto label;                                                                            \
        }                                                                                          \
    } while (0)

#endif
