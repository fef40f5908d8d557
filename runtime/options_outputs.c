/* A command's output options: a string option's value by name, and every
 * output checked before the work (two at one path, one the file system
 * refuses, one given an empty name). */
#include "runtime/options.h"

#include <stdio.h>
#include <string.h>

#include "runtime/out.h"

const char *tl_opts_string_of(const tl_optspec *spec, const char *name)
{
    for (size_t g = 0; g < spec->ngroups; g++)
        for (size_t i = 0; i < spec->groups[g].nopts; i++) {
            const tl_option *o = &spec->groups[g].opts[i];
            if (o->type == TL_OPT_STRING && !strcmp(o->name, name))
                return *(const char *const *)((const char *)spec->groups[g].dst + o->offset);
        }
    return NULL;
}

/* The path of string option o in spec's group g, or NULL */
static const char *string_at(const tl_optspec *spec, size_t g, const tl_option *o)
{
    return *(const char *const *)((const char *)spec->groups[g].dst + o->offset);
}

/* The outputs named in `files` or `folders` (which == 0: files, 1:
 * folders), fn called with each set one's --name and path until it
 * answers non-zero, which it returns */
static int each_output(const tl_optspec *spec, const char *files, const char *folders,
                       int (*fn)(const tl_optspec *, const char *what, const char *path, int folder, void *),
                       void *arg)
{
    for (size_t g = 0; g < spec->ngroups; g++)
        for (size_t i = 0; i < spec->groups[g].nopts; i++) {
            const tl_option *o = &spec->groups[g].opts[i];
            int folder = tl_opts_choice_index(folders, o->name) >= 0;
            if (o->type != TL_OPT_STRING || (!folder && tl_opts_choice_index(files, o->name) < 0)) continue;
            const char *path = string_at(spec, g, o);
            if (!path) continue;
            char what[64];
            snprintf(what, sizeof what, "--%s", o->name);
            int rc = fn(spec, what, path, folder, arg);
            if (rc) return rc;
        }
    return 0;
}

static int output_clashes(const tl_optspec *spec, const char *what, const char *path, int folder, void *seen)
{
    return !folder && tl_out_set_add(seen, spec->program, what, path) ? 2 : 0;
}

static int output_unwritable(const tl_optspec *spec, const char *what, const char *path, int folder, void *arg)
{
    (void)spec;
    (void)arg;
    return tl_out_check_as(what, folder ? tl_out_check_folder : tl_out_check, path) != TL_OK;
}

/* each_output's answer to the first output given an empty name: 1 for a
 * file, 2 for a folder (its name into *arg) */
static int output_empty(const tl_optspec *spec, const char *what, const char *path, int folder, void *arg)
{
    (void)spec;
    if (*path) return 0;
    snprintf(arg, 64, "%s", what + 2);
    return folder ? 2 : 1;
}

const char *tl_opts_empty_output(const tl_optspec *spec, const char *files, const char *folders, int *folder,
                                 char name[64])
{
    int rc = each_output(spec, files, folders, output_empty, name);
    if (folder) *folder = rc == 2;
    return rc ? name : NULL;
}

int tl_opts_outputs_refused(const tl_optspec *spec, const char *files, const char *folders)
{
    /* the clash first: it is the command line's whatever the file system
     * holds (two outputs at one path under a folder that cannot be made
     * are still two outputs at one path) */
    tl_out_set seen = {0};
    int rc = each_output(spec, files, folders, output_clashes, &seen);
    return rc ? rc : each_output(spec, files, folders, output_unwritable, NULL);
}
