/* nb gdb: -debug under gdb.  The parent finds gdb and runs it on the
 * measuring process; the child lets it attach and waits for it. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "asm/asm.h"
#include "harness/codegen.h"
#include "sys/cpu.h"
#include "measure/fault.h"
#include "pmu/advice.h"
#include "sys/restore.h"
#include "measure/worker.h"
#include "measure/sandbox.h"
#include "measure/stats.h"
#include "sys/status.h"
#include "lib/clock.h"
#include "sys/error.h"
#include "measure/worker_shared.h"


/* -debug under gdb: let gdb attach (Yama may require the permission), and
 * wait until it has, at most 30 s. */
void wait_for_tracer(void)
{
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    for (int i = 0; i < 3000; i++) {
        char buf[4096];
        FILE *f = fopen("/proc/self/status", "r");
        long tracer = 0;
        if (f) {
            while (fgets(buf, sizeof buf, f))
                if (sscanf(buf, "TracerPid: %ld", &tracer) == 1)
                    break;
            fclose(f);
        }
        if (tracer > 0)
            return;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
}

/* gdb on PATH, if stdin is a terminal to run it on; else NULL. */
const char *find_gdb(char *buf, size_t len)
{
    const char *path = getenv("PATH");
    if (!isatty(0) || !path)
        return NULL;
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(buf, len, "%.*s/gdb", (int)n, path);
        if (n && access(buf, X_OK) == 0)
            return buf;
        path += n + (path[n] == ':');
    }
    return NULL;
}

/* Start gdb on the child and wait until the user leaves it. */
pid_t run_gdb(const char *gdb, pid_t child)
{
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)child);
    nb_note("-debug: gdb attaches to the measuring process %s; it stops at the int3 "
            "right before the second counter read of every run (try `info all-registers`, "
            "`x/4gx $r14`; `continue` runs on, `quit` leaves gdb and lets the run finish)", pid);
    fflush(stderr);
    pid_t g = fork();
    if (g == 0) {
        execl(gdb, "gdb", "-q", "-p", pid, "-ex", "continue", (char *)NULL);
        _exit(127);
    }
    return g > 0 ? g : 0;
}

void end_gdb(pid_t g)
{
    if (g > 0)
        while (waitpid(g, NULL, 0) < 0 && errno == EINTR) {
        }
}
