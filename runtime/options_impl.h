/* Internal to the option parser (options.c, options_values.c,
 * options_store.c, options_help.c): what its parts give each other.
 * Named *_impl.h so that make install leaves it out. */
#ifndef TL_RUNTIME_OPTIONS_IMPL_H
#define TL_RUNTIME_OPTIONS_IMPL_H

#include <stddef.h>

#include "runtime/options.h"

/* options_values.c */

/* A FLAG's value ("1|yes|true|on", "0|no|false|off") into *out: 0, or -1 for other text. */
int tl_opts_parse_bool(const char *text, int *out);
/* ENUM: the index of the entry of o's table named `text`, or -1. */
int tl_opts_enum_index(const tl_option *o, const char *text);

/* options_store.c */

/* The field of o in its group g's destination struct. */
void *tl_opts_field(const tl_optgroup *g, const tl_option *o);
/* `text` stored into o's field when valid, else the reason in `why` and nothing stored. */
tl_status tl_opts_store(const tl_optgroup *g, const tl_option *o, const char *text, char *why, size_t nwhy);

#endif
