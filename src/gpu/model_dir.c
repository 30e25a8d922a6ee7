/*
 * Where the GPU models are: the models directory (an explicit one, GF_MODELS_DIR, or the
 * one found beside this code: the source tree's for a build-tree binary, else the one
 * installed beside it, else the configured install path; decided once per process) and
 * the list of the models it holds (gf_gpu_list, sorted by name).
 */
#define _GNU_SOURCE /* dladdr: where this code was loaded from, to find its models */
#include "gpu/gpu.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"


/* The file holding this code: the shared library when it is one, else the executable
 * it was linked into (dladdr names the main program by its argv[0], which may be
 * relative or found on PATH, so /proc/self/exe is asked instead). */
static int self_path(char *out, size_t n)
{
    Dl_info di;
    char tmp[PATH_MAX];
    if (dladdr((void *)&gf_gpu_models_dir, &di) && di.dli_fname && strstr(di.dli_fname, ".so") &&
        realpath(di.dli_fname, tmp)) {
        snprintf(out, n, "%s", tmp);
        return 0;
    }
    ssize_t len = readlink("/proc/self/exe", tmp, sizeof tmp - 1);
    if (len <= 0)
        return -1;
    tmp[len] = 0;
    snprintf(out, n, "%s", tmp);
    return 0;
}

/* (CMakeLists.txt defines these; a build without it, such as the fuzz harnesses', gets
 * the default install layout and no build tree) */
#ifndef GF_INSTALL_MODELS_DIR
#define GF_INSTALL_MODELS_DIR "/usr/local/share/gpuforecast/models"
#endif
#ifndef GF_BUILD_DIR
#define GF_BUILD_DIR ""
#endif
#ifndef GF_SOURCE_MODELS_DIR
#define GF_SOURCE_MODELS_DIR "models"
#endif
#ifndef GF_MODELS_FROM_BINDIR
#define GF_MODELS_FROM_BINDIR "../share/gpuforecast/models"
#endif
#ifndef GF_MODELS_FROM_LIBDIR
#define GF_MODELS_FROM_LIBDIR "../share/gpuforecast/models"
#endif

static char self_models[PATH_MAX + 64];
static pthread_once_t self_models_once = PTHREAD_ONCE_INIT;

/* Decided once: the source tree's models/ for a binary or library inside the build tree
 * it came from; else the models installed beside it (bin/ or lib/ -> share/gpuforecast/
 * models, so a moved prefix still finds its own); else the configured install path. */
static void find_self_models(void)
{
    char self[PATH_MAX];
    snprintf(self_models, sizeof self_models, "%s", GF_INSTALL_MODELS_DIR);
    if (self_path(self, sizeof self) != 0)
        return;
    char *slash = strrchr(self, '/');
    if (!slash)
        return;
    int is_lib = strstr(slash, ".so") != NULL;
    *slash = 0; /* self is now the folder */
    size_t nb = strlen(GF_BUILD_DIR);
    if (nb > 0 && strncmp(self, GF_BUILD_DIR, nb) == 0 && (self[nb] == 0 || self[nb] == '/')) {
        if (access(GF_SOURCE_MODELS_DIR, R_OK) == 0)
            snprintf(self_models, sizeof self_models, "%s", GF_SOURCE_MODELS_DIR);
        return;
    }
    char rel[PATH_MAX + 64];
    snprintf(rel, sizeof rel, "%s/%s", self, is_lib ? GF_MODELS_FROM_LIBDIR : GF_MODELS_FROM_BINDIR);
    char real[PATH_MAX];
    if (realpath(rel, real) && access(real, R_OK) == 0)
        snprintf(self_models, sizeof self_models, "%s", real);
}

const char *gf_gpu_models_dir(const char *models_dir)
{
    if (models_dir && *models_dir)
        return models_dir;
    const char *env = getenv("GF_MODELS_DIR");
    if (env && *env)
        return env;
    pthread_once(&self_models_once, find_self_models);
    return self_models;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

gf_status gf_gpu_list(const char *models_dir, char ***names, size_t *n, gf_error *err)
{
    const char *dir = gf_gpu_models_dir(models_dir);
    *names = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return gf_error_set(err, GF_ERR_IO, dir, 0, "cannot open the models directory: %s",
                            strerror(errno));
    char **v = NULL;
    size_t cnt = 0, cap = 0;
    struct dirent *e;
    gf_status s = GF_OK;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".ini") != 0 || e->d_name[0] == '.')
            continue;
        if (cnt == cap) {
            size_t nc = cap ? cap * 2 : 16;
            char **p = realloc(v, nc * sizeof *p);
            if (!p) {
                s = GF_ERR_NOMEM;
                break;
            }
            v = p;
            cap = nc;
        }
        v[cnt] = strndup(e->d_name, len - 4);
        if (!v[cnt]) {
            s = GF_ERR_NOMEM;
            break;
        }
        cnt++;
    }
    closedir(d);
    if (s != GF_OK) {
        gf_gpu_list_free(v, cnt);
        return gf_error_set(err, s, dir, 0, "out of memory listing GPU models");
    }
    if (cnt)
        qsort(v, cnt, sizeof *v, cmp_str);
    *names = v;
    *n = cnt;
    return GF_OK;
}

void gf_gpu_list_free(char **names, size_t n)
{
    if (!names)
        return;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

