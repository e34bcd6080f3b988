/* kcbp_view_emit (view.h): a view written as the page and the glTF file
 * the options ask for. Apart from view.c, which the writers (html.c, glb.c)
 * stand on: this stands on them. */
#include "cli.h"
#include "view.h"

int kcbp_view_emit(const kcbp_view *v, const char *path_html, const char *path_glb)
{
    kcbp_error err = {0};
    if (path_html && kcbp_html_write(path_html, v, &err) != KCBP_OK)
        return kcbp_view_fail(&err);
    if (path_glb && kcbp_glb_write(path_glb, v, &err) != KCBP_OK) {
        if (path_html)
            kcbp_view_remove_partial(path_html); /* nothing half done */
        return kcbp_view_fail(&err);
    }
    return KCBP_EXIT_OK;
}
