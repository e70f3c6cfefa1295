#include "sys/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sys/error.h"
#include "sys/status.h"

int file_open_status(int errnum, nb_error *err)
{
    if (errnum != EMFILE && errnum != ENFILE && errnum != ENOMEM)
        return NB_EINPUT;
    struct rlimit r;
    if (err && errnum == EMFILE && getrlimit(RLIMIT_NOFILE, &r) == 0)
        snprintf(err->advice, sizeof err->advice, "nb may have %llu files open at once (ulimit "
                 "-n) and needs a few more", (unsigned long long)r.rlim_cur);
    if (err)
        err->status = NB_ESYSTEM;
    return NB_ESYSTEM;
}

int file_read_all(const char *path, size_t max, bool text, char **out,
                  size_t *len, nb_error *err)
{
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        int e = errno;
        nb_error_set(err, NB_EINPUT, "%s: cannot open: %s", path, strerror(e));
        return file_open_status(e, err);
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    int rc = 0;
    while (buf) {
        if (n == cap) {
            if (cap >= max) {
                rc = nb_error_set(err, NB_EINPUT, "%s: larger than the limit of %zu bytes", path,
                                  max);
                break;
            }
            cap = cap * 2 > max ? max : cap * 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = nb_error_set(err, NB_EINPUT, "%s: %s", path, strerror(errno ? errno : EIO));
            break;
        }
    }
    if (!is_stdin)
        fclose(f);
    if (!buf)
        return nb_error_set(err, NB_ENOMEM, "%s: out of memory", path);
    if (rc == 0 && text && memchr(buf, '\0', n)) {
        rc = nb_error_set(err, NB_EINPUT, "%s: binary file (NUL byte at offset %zu)", path,
                          (size_t)((char *)memchr(buf, '\0', n) - buf));
    }
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return 0;
}

bool file_read_line(const char *root, const char *path, char *buf, size_t len)
{
    char full[512];
    snprintf(full, sizeof full, "%s%s", root, path);
    FILE *f = fopen(full, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = '\0';
    return ok;
}
