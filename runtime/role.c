#include "runtime/role.h"

#include <string.h>

static const char *const tl_role_names[TL_ROLE_COUNT] = {
    [TL_ROLE_COMPUTE] = "compute", [TL_ROLE_P2P] = "p2p",   [TL_ROLE_COLL] = "coll",
    [TL_ROLE_COPY] = "copy",       [TL_ROLE_HOST] = "host", [TL_ROLE_OTHER] = "other",
};

const char *tl_role_name(tl_role r)
{
    if (r == TL_ROLE_NONE) return "none";
    return r >= 0 && r < TL_ROLE_COUNT ? tl_role_names[r] : "?";
}

tl_status tl_role_parse(const char *s, tl_role *out)
{
    for (int i = 0; i < TL_ROLE_COUNT; i++)
        if (s && strcmp(s, tl_role_names[i]) == 0) {
            *out = (tl_role)i;
            return TL_OK;
        }
    return TL_ERR_PARSE;
}
