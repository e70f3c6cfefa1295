#include "sys/status.h"

int nb_status_exit_code(int status)
{
    switch (status) {
    case NB_OK: return NB_EXIT_OK;
    case NB_EINPUT: return NB_EXIT_INPUT;
    case NB_EUSAGE: return NB_EXIT_USAGE;
    case NB_EFAULT: return NB_EXIT_FAULT;
    case NB_EBATCH: return NB_EXIT_BATCH;
    default: return NB_EXIT_SYSTEM;
    }
}
