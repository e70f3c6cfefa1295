#!/usr/bin/env bash
# nb with file capabilities, run by an unprivileged user (issue 17, item 3):
#   cap_dac_read_search+ep  refused before anything is read (exit 2), and
#                           `-asm @/etc/shadow` shows nothing of the file;
#   cap_perfmon+ep          allowed (what the perf backend needs): files are
#                           opened with the user's rights (/etc/shadow:
#                           permission denied, nothing of it shown), a run
#                           works, and the measuring process holds no
#                           capability while the benchmark code runs.
# Needs root (to setcap and to switch to nobody), setcap and setpriv, and a
# file system that honours file capabilities; skips with the reason if not.
set -u
cd "$(dirname "$0")/../.."
NB=${NB:-build/nb}
skip() { echo "$*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "not root: cannot setcap or run as another user"
command -v setcap > /dev/null || skip "no setcap (Debian package libcap2-bin)"
command -v setpriv > /dev/null || skip "no setpriv (util-linux)"
head -c 300 "$NB" 2>/dev/null | grep -q valgrind && skip "under valgrind (a wrapper script)"
file -L "$NB" 2>/dev/null | grep -q 'ELF' || skip "$NB is not an executable file"
user=nobody
id "$user" > /dev/null 2>&1 || skip "no user $user"
[ -r /etc/shadow ] || skip "no /etc/shadow to protect"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
as_user() { setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups --inh-caps=-all "$@"; }
# file capabilities honoured here?  (a nosuid mount ignores them)
cp "$(command -v cat)" "$tmp/cat"
setcap cap_dac_read_search+ep "$tmp/cat" 2>/dev/null || skip "setcap does not work on $tmp"
as_user "$tmp/cat" /etc/shadow > /dev/null 2>&1 || skip "file capabilities are not honoured on $tmp"
first=$(head -c 40 /etc/shadow | cut -d: -f1-2)

fails=0 mark=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { [ $fails -eq $mark ] && echo "ok  $*"; mark=$fails; }
no_shadow() {   # LABEL FILE: nothing of /etc/shadow in FILE
    grep -qF "$first" "$2" && fail "$1: shows /etc/shadow: $(head -c 300 "$2")"
}

cp "$NB" "$tmp/nb"
chmod 755 "$tmp/nb"
setcap cap_dac_read_search+ep "$tmp/nb"
(cd "$tmp" && as_user ./nb -asm @/etc/shadow > out 2> err)
rc=$?
[ $rc -eq 2 ] || fail "cap_dac_read_search: exit $rc, want 2: $(head -c 300 "$tmp/err")"
grep -q 'refusing to run with capabilities nb does not need (cap_dac_read_search)' "$tmp/err" ||
    fail "cap_dac_read_search: not refused: $(head -c 300 "$tmp/err")"
no_shadow "cap_dac_read_search" "$tmp/err"
no_shadow "cap_dac_read_search (stdout)" "$tmp/out"
ok "cap_dac_read_search: $(head -1 "$tmp/err")"

setcap cap_perfmon+ep "$tmp/nb" 2>/dev/null || { echo "note: no cap_perfmon in this kernel's setcap"; exit $((fails ? 1 : 0)); }
(cd "$tmp" && as_user ./nb -asm @/etc/shadow > out 2> err)
rc=$?
[ $rc -ne 0 ] && grep -q 'Permission denied' "$tmp/err" ||
    fail "cap_perfmon, -asm @/etc/shadow: exit $rc: $(head -c 300 "$tmp/err")"
no_shadow "cap_perfmon" "$tmp/err"
ok "cap_perfmon, -asm @/etc/shadow: $(head -1 "$tmp/err")"
(cd "$tmp" && as_user ./nb -backend tsc -config /dev/null -asm "add rax, rbx" > out 2> err) ||
    fail "cap_perfmon: a run failed: $(cat "$tmp/err")"

# the measuring process of the capable nb, while the code runs
(cd "$tmp" && exec setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups \
    ./nb -backend tsc -config /dev/null -timeout 30 -asm "l: jmp l" > out 2> err) &
pid=$!
child=""
for _ in $(seq 100); do
    child=$(cat "/proc/$pid/task/$pid/children" 2>/dev/null | tr -d ' ')
    [ -n "$child" ] && [ "$(sed -n 's/^Seccomp:[[:space:]]*//p' "/proc/$child/status")" = 2 ] && break
    sleep 0.05
done
if [ -z "$child" ]; then
    fail "cap_perfmon: no measuring process seen: $(cat "$tmp/err")"
else
    parent_caps=$(sed -n 's/^CapPrm:[[:space:]]*//p' "/proc/$pid/status")
    for k in CapEff CapPrm CapInh CapAmb; do
        v=$(sed -n "s/^$k:[[:space:]]*//p" "/proc/$child/status")
        [ "$v" = 0000000000000000 ] || fail "cap_perfmon: the measuring process has $k $v"
    done
    ok "cap_perfmon: nb holds $parent_caps, its measuring process none"
fi
kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null

[ $fails -eq 0 ] || exit 1
echo pass
