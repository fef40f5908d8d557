/* Provenance fields shared by manifests and traces. */
#include "runtime/provenance.h"

#include <stdio.h>
#include <string.h>

#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"

const char *tl_provenance_commit(char *buf, size_t n)
{
    if (!strncmp(TL_GIT_COMMIT, "unknown", 7))
        snprintf(buf, n, "unknown (built outside a git checkout and without .trilap-commit)");
    else if (strstr(TL_GIT_COMMIT, "-dirty"))
        snprintf(buf, n, "%s (the build tree had uncommitted changes)", TL_GIT_COMMIT);
    else
        snprintf(buf, n, "%s", TL_GIT_COMMIT);
    return buf;
}

void tl_provenance_driver_module(char *buf, size_t n)
{
    if (n) buf[0] = '\0';
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f) return;
    char line[256];
    /* "NVRM version: NVIDIA UNIX [Open ]Kernel Module for x86_64  580.95.05  Release ...":
     * the first token shaped like a version (digits, a dot, digits) */
    if (fgets(line, sizeof line, f)) {
        char *save = NULL;
        for (char *t = strtok_r(line, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
            unsigned a = 0, b = 0;
            char c = 0;
            if (sscanf(t, "%u.%u%c", &a, &b, &c) >= 2 && t[0] >= '0' && t[0] <= '9') {
                snprintf(buf, n, "%s", t);
                break;
            }
        }
    }
    fclose(f);
}
