/* kcbp_model_load: a model from a mesh file. Beside the loaders rather than
 * in collide.c, so that the pair test does not depend on any file format. */
#include <kcbp/collide.h>

#include <string.h>

#include <kcbp/mesh_io.h>

kcbp_status kcbp_model_load(kcbp_model *model, const char *obj_path, const kcbp_model_options *opts,
                            kcbp_error *err)
{
    kcbp_mesh mesh;
    memset(model, 0, sizeof *model);
    kcbp_status st = kcbp_mesh_load(obj_path, &mesh, err);
    if (st != KCBP_OK)
        return st;
    return kcbp_model_build(model, &mesh, opts, err);
}
