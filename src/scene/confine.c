/* Confining a scene's files to a root folder (confine.h). */
#include "confine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Removes ".", ".." and repeated slashes from the absolute path p, in place
 * (".." at the root stays at the root). */
static void normalise(char *p)
{
    char *out = p; /* p[0] == '/' */
    for (const char *in = p; *in;) {
        while (*in == '/')
            in++;
        const char *seg = in;
        while (*in && *in != '/')
            in++;
        size_t n = (size_t)(in - seg);
        if (n == 0 || (n == 1 && seg[0] == '.'))
            continue;
        if (n == 2 && seg[0] == '.' && seg[1] == '.') {
            while (out > p && *--out != '/')
                ;
            continue;
        }
        *out++ = '/';
        memmove(out, seg, n);
        out += n;
    }
    if (out == p)
        *out++ = '/';
    *out = '\0';
}

static bool inside_root(const char *root, const char *p)
{
    size_t n = strlen(root);
    if (n == 1) /* "/" */
        return true;
    return !strncmp(p, root, n) && (p[n] == '/' || p[n] == '\0');
}

kcbp_status kcbp_confine_check(const char *root, const char *base, const char *path, const char *joined,
                               const char *name, bool *inside, kcbp_error *err)
{
    size_t nb = strlen(base), nm = strlen(path);
    char *abs = malloc(nb + nm + 2);
    if (!abs)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", name);
    if (path[0] == '/')
        memcpy(abs, path, nm + 1);
    else {
        memcpy(abs, base, nb);
        abs[nb] = '/';
        memcpy(abs + nb + 1, path, nm + 1);
    }
    normalise(abs);
    bool ok = inside_root(root, abs);
    free(abs);
    char *real = NULL;
    if (ok && !(real = realpath(joined, NULL)) && errno != ENOMEM) {
        *inside = true; /* inside, but missing or unreadable: the reader says so */
        return KCBP_OK;
    }
    if (ok && !real)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", name);
    *inside = ok && inside_root(root, real);
    free(real);
    return KCBP_OK;
}
