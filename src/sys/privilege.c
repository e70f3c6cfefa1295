/* nb privilege: see privilege.h. */
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys/privilege.h"

/* The capabilities' names, by number (as capabilities(7) spells them). */
static const char *const g_cap_names[] = {
    "cap_chown", "cap_dac_override", "cap_dac_read_search", "cap_fowner", "cap_fsetid",
    "cap_kill", "cap_setgid", "cap_setuid", "cap_setpcap", "cap_linux_immutable",
    "cap_net_bind_service", "cap_net_broadcast", "cap_net_admin", "cap_net_raw",
    "cap_ipc_lock", "cap_ipc_owner", "cap_sys_module", "cap_sys_rawio", "cap_sys_chroot",
    "cap_sys_ptrace", "cap_sys_pacct", "cap_sys_admin", "cap_sys_boot", "cap_sys_nice",
    "cap_sys_resource", "cap_sys_time", "cap_sys_tty_config", "cap_mknod", "cap_lease",
    "cap_audit_write", "cap_audit_control", "cap_setfcap", "cap_mac_override",
    "cap_mac_admin", "cap_syslog", "cap_wake_alarm", "cap_block_suspend", "cap_audit_read",
    "cap_perfmon", "cap_bpf", "cap_checkpoint_restore",
};
#define N_NAMES (sizeof g_cap_names / sizeof g_cap_names[0])

/* What a backend may need: perf (kernel counting, paranoid > 1) and msr. */
#define CAP_ALLOWED ((UINT64_C(1) << 38) | (UINT64_C(1) << CAP_SYS_RAWIO))   /* 38: cap_perfmon */

/* Every capability this process holds or could raise (permitted,
 * effective, inheritable, ambient), one bit each. */
static uint64_t held_capabilities(void)
{
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
    memset(d, 0, sizeof d);
    if (syscall(SYS_capget, &hdr, d) != 0)
        return 0;
    uint64_t held = 0;
    for (int i = 0; i < 2; i++)
        held |= (uint64_t)(d[i].permitted | d[i].effective | d[i].inheritable) << (32 * i);
    for (int c = 0; c < 64; c++)
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0) == 1)
            held |= UINT64_C(1) << c;
    return held;
}

int privilege_check(nb_error *err)
{
    if (getuid() != geteuid() || getgid() != getegid())
        return nb_error_set(err, NB_EUSAGE, "refusing to run setuid/setgid: nb runs arbitrary "
                            "code by design");
    if (getuid() == 0)
        return 0;
    uint64_t extra = held_capabilities() & ~CAP_ALLOWED;
    if (!extra)
        return 0;
    char names[512] = "";
    size_t used = 0;
    for (int c = 0; c < 64 && used < sizeof names; c++) {
        if (!(extra >> c & 1))
            continue;
        int n = c < (int)N_NAMES ? snprintf(names + used, sizeof names - used, "%s%s",
                                            used ? ", " : "", g_cap_names[c])
                                 : snprintf(names + used, sizeof names - used, "%scapability %d",
                                            used ? ", " : "", c);
        used += n > 0 ? (size_t)n : 0;
    }
    return nb_error_set(err, NB_EUSAGE, "refusing to run with capabilities nb does not need "
                        "(%s): nb runs arbitrary code and reads the files it is given with "
                        "them; a backend needs at most cap_perfmon (perf) or cap_sys_rawio "
                        "(msr)", names);
}
