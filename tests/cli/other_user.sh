# A second account for the shared-directory tests (issue 35), sourced after lib.sh.
# The victim is this process (root in CI); the other user is `nobody`, run through
# setpriv (util-linux) with no supplementary groups. SHARED is a 1777 directory, as a
# cluster's /tmp is, where the other user plants files before the victim's command.
#   need_other_user || finish    # prints a visible SKIP when there is no second account
#   as_other CMD...              # runs CMD as nobody:nogroup
#   owner_of PATH                # the owner's user name (stat, no link followed)
OTHER_USER=nobody
OTHER_GROUP=$(id -gn nobody 2>/dev/null || echo nogroup)

need_other_user() {
  if [[ $(id -u) != 0 ]]; then skip "second account" "needs root to run commands as $OTHER_USER (CI runs as root)"; return 1; fi
  if ! command -v setpriv >/dev/null || ! id "$OTHER_USER" >/dev/null 2>&1; then
    skip "second account" "needs setpriv (util-linux) and the account $OTHER_USER"; return 1
  fi
  return 0
}

as_other() { setpriv --reuid="$OTHER_USER" --regid="$OTHER_GROUP" --clear-groups -- "$@"; }

owner_of() { stat -c %U -- "$1"; }

# The work directory stays private to the victim but traversable, so that the other
# user reaches SHARED inside it (and nothing else: names in WORK are not listable).
chmod 711 "$WORK"
SHARED="$WORK/shared"
mkdir -p "$SHARED" && chmod 1777 "$SHARED"
