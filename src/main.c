/* nb: argv -> command, and the only exit.
 *
 *   argv -> options -> one of: -help, -version, the listings (cli/info),
 *   -mess (mess/), -batch (cli/batch), -sweep (sweep/), or one run-and-record step
 *   (cli/run: code -> events -> measurement -> record)
 *
 * Every command returns a status and fills an nb_error; main prints the
 * error (nb_error_print) and turns the status into the exit code
 * (sys/status.h), after everything acquired has been released. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/batch.h"
#include "cli/info.h"
#include "cli/options.h"
#include "cli/run.h"
#include "events/evdb.h"
#include "measure/session.h"
#include "mess/mess.h"
#include "report/fingerprint.h"
#include "report/output.h"
#include "sweep/sweep.h"
#include "sys/cpu.h"
#include "sys/error.h"
#include "sys/privilege.h"
#include "sys/restore.h"
#include "sys/status.h"
#include "sys/version.h"

/* Pin nb to -cpu (default: the CPU it starts on) before reading CPUID, so
 * that on hybrid parts the table matches the core the benchmark runs on. */
static int pin_cpu(long cpu, int *pinned, nb_error *err)
{
    if (cpu < 0) {
        cpu = sched_getcpu();
        if (cpu < 0)
            cpu = 0;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return nb_error_set(err, NB_EUSAGE, "-cpu %ld: cannot run there (%s)", cpu,
                            errno == EINVAL ? "no such online CPU" : strerror(errno));
    *pinned = (int)cpu;
    return 0;
}

static int print_help(void)
{
    options_print_help(stdout);
    printf("\nExit codes:\n");
#define NB_X(name, code, text) printf("  %d  %s\n", code, text);
    NB_EXIT_LIST(NB_X)
#undef NB_X
    return NB_OK;
}

/* -cpu_info: CPUID, the table and the backend nb would use. */
static int cpu_info_cmd(const nb_options *o, const cpu_info *cpu, const char *uarch)
{
    nb_error why;
    nb_error_clear(&why);
    const char *be = bench_backend_name(o, cpu, &why);
    info_cpu(stdout, cpu, uarch, be ? be : "none");
    if (why.message[0])
        printf("backends refused: %s\n", why.message);
    return NB_OK;
}

/* One benchmark: a run-and-record step with a session of its own. */
static int single_run(const nb_options *o, const cpu_info *cpu, const char *uarch,
                      const nb_fingerprint *fp, nb_error *err)
{
    nb_out out;
    out_init(&out, o->output, stdout, false);
    run_env env = {.cpu = cpu, .uarch = uarch, .fp = fp, .out = &out};
    int rc = run_and_record(&env, o, err);
    out_free(&out);
    return rc;
}

/* nb -mess [-mess_* options]. */
static int mess_cmd(int argc, char **argv, nb_error *err)
{
    mess_options m;
    mess_options_defaults(&m);
    int rc = options_parse_mess(argc, argv, 1, &m, err);
    if (rc)
        return rc;
    if (m.help) {
        options_print_mess_help(stdout);
        return NB_OK;
    }
    return mess_main(&m, err);
}

/* Everything after the options: the machine, then the command. */
static int command(const nb_options *o, nb_error *err)
{
    if (o->list_uarchs) {
        info_list_uarchs(stdout);
        return NB_OK;
    }
    int rc, pinned = -1;
    if ((rc = pin_cpu(o->cpu, &pinned, err)) != 0)
        return rc;
    cpu_info cpu;
    cpu_detect(&cpu);
    const char *uarch = NULL;
    if ((rc = evdb_select(&cpu, o->uarch, &uarch, err)) != 0)
        return rc;
    if (o->cpu_info)
        return cpu_info_cmd(o, &cpu, uarch);
    if (o->list_events) {
        if (!uarch)
            return nb_error_set(err, NB_EUSAGE, "-list_events: no event table covers this CPU "
                                "(name one with -uarch; see -list_uarchs)");
        info_list_events(stdout, uarch, o->list_events_filter);
        return NB_OK;
    }
    nb_fingerprint fp;
    fingerprint_read(&fp, &cpu, uarch, pinned, "");
    if (o->batch)
        return batch_main(o, &cpu, uarch, &fp, err);
    if (o->sweep || o->sweep_list)
        return sweep_main(o, &cpu, &fp, err);
    return single_run(o, &cpu, uarch, &fp, err);
}

static int nb_main(int argc, char **argv, nb_error *err)
{
    int rc = privilege_check(err);   /* setuid/setgid, capabilities */
    if (rc)
        return rc;
    if (argc < 2) {
        fprintf(stderr, "usage: nb -asm \"<code>\" [options]   (nb -help lists them)\n");
        return NB_EUSAGE;
    }
    /* -mess is its own command with its own options. */
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-mess") == 0 || strcmp(argv[i], "--mess") == 0)
            return mess_cmd(argc, argv, err);
    nb_options o;
    options_defaults(&o);
    rc = options_parse(argc, argv, 1, &o, err);
    if (rc)
        return rc;
    if (o.help)
        return print_help();
    if (o.version) {
        printf("nb %s\n", NB_VERSION);
        return NB_OK;
    }
    return command(&o, err);
}

/* A standard stream nb was started without (closed descriptor 0, 1 or 2)
 * is held by /dev/null, opened for the other direction for 0 and 1: the
 * number is not handed to a file nb opens (whose contents the results would
 * then overwrite), and reading stdin or writing stdout fails with EBADF, which
 * is reported. */
static void hold_std_fds(void)
{
    static const int flags[3] = {O_WRONLY, O_RDONLY, O_WRONLY};
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int got = open("/dev/null", flags[fd]);
            if (got >= 0 && got != fd)   /* not the lowest free number: cannot be */
                close(got);
        }
}

/* What nb wrote to standard output must have arrived: a write error not
 * reported yet (-help, the listings, -mess into a full disk) is the error
 * (a closed pipe's is quiet: whoever read is gone). */
static int check_stdout(int st, nb_error *err)
{
    errno = 0;
    if (st != NB_OK || (fflush(stdout) == 0 && !ferror(stdout)))
        return st;
    if (errno == EPIPE)
        return NB_ESYSTEM;
    return nb_error_set(err, NB_ESYSTEM, "cannot write to standard output: %s",
                        errno ? strerror(errno) : "an earlier write failed");
}

int main(int argc, char **argv)
{
    hold_std_fds();
    /* From here on, a signal that would end nb says so and restores. */
    restore_install_signals();
    nb_error err;
    nb_error_clear(&err);
    int st = check_stdout(nb_main(argc, argv, &err), &err);
    if (st && err.status)
        nb_error_print(stderr, &err);
    return nb_status_exit_code(st);
}
