/* nb privilege: what nb refuses to run with.
 *
 * nb runs arbitrary machine code and reads the files it is given, so it
 * must not carry privileges the person running it does not have: setuid or
 * setgid (anyone would run code as the file's owner), or file capabilities
 * beyond what a backend needs (`setcap cap_dac_read_search+ep nb` let an
 * unprivileged user read /etc/shadow through `-asm @/etc/shadow`).  A user
 * who is not root may hold CAP_PERFMON (the perf backend) and CAP_SYS_RAWIO
 * (the msr backend), neither of which opens a file the user could not;
 * anything else is refused before an option is read.  Root runs with
 * root's rights, as the user asked.  The measuring process drops every
 * capability before benchmark code runs (measure/sandbox.h). */
#ifndef NB_SYS_PRIVILEGE_H
#define NB_SYS_PRIVILEGE_H

#include "sys/error.h"

/* 0, or NB_EUSAGE with the reason in *err. */
int privilege_check(nb_error *err);

#endif
