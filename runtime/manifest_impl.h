/* Between the manifest's text (manifest.c) and its blocks beside a
 * results file (manifest_run.c). */
#ifndef TL_MANIFEST_IMPL_H
#define TL_MANIFEST_IMPL_H

#include <stddef.h>

#include "runtime/ctx.h"

/* The manifest's lines, `after_command` (NULL: none) right after the
 * `command:` line, `extra` at the end: a string to free on rank 0, NULL on
 * the others. Collective (every rank's host and GPU are gathered). */
tl_status tl_manifest_text(tl_ctx *ctx, const char *after_command, const char *extra, char **out, size_t *len);

#endif
