/* Test driver for the -mess command while main.c does not dispatch to it:
 * `mess_driver [options]` == `nb -mess [options]` (exit status simplified:
 * 0, or 1 for any error, 2 for a usage error). */
#include "mess/mess.h"
#include "sys/status.h"

int main(int argc, char **argv)
{
    nb_error err;
    nb_error_clear(&err);
    int st = mess_main(argc, argv, 1, &err);
    if (err.status)
        nb_error_print(stderr, &err);
    return st == 0 ? 0 : st == NB_EUSAGE ? 2 : 1;
}
