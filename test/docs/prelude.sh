# Sourced first by each page's shell session (test/docs/shell-session.ts; docs/docs-tests.md):
# how the commands of a page reach the built server, in the page's own temp dir.
# Set by the harness: DOCS_REPO (the checkout), DOCS_WORK (the page's dir, the cwd), DOCS_NODE
# (node), DOCS_MAIN (the built server's main.js: a copy of dist/, test/support/built-copy.ts),
# DOCS_STATUS (the fd number for unit statuses).

set -o pipefail
__docs_dir="$DOCS_WORK/.docs"
__docs_servers=0
__DOCS_PORT=6443

# One unit (a command of the page): sourced here, so variables and `cd` carry over to the next.
__docs_unit() {
  __DOCS_UNIT=$1
  source "$__docs_dir/unit-$1.sh" >"$__docs_dir/unit-$1.out" 2>&1 </dev/null
  echo "status $1 $?" >&"$DOCS_STATUS"
}

# Stops every process listed in the file $1 (SIGTERM, then SIGKILL after $2 seconds), and empties it.
__docs_stop_listed() {
  local pid i
  [ -s "$1" ] || return 0
  for pid in $(cat "$1"); do kill -TERM "$pid" 2>/dev/null; done
  for pid in $(cat "$1"); do
    for ((i = 0; i < $2 * 10; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  : >"$1"
}

# A server start (`npm start`, `platform-apiserver` without a subcommand): in the background, as
# in a second terminal, on a free port; returns once it printed its ready line (that line is the
# command's output) or exited (its stderr is). A page's earlier server is stopped first, as a
# reader stops it before starting it again with other flags. Load shedding is off unless the page
# sets it: the test machine is busy with other tests.
__docs_server() {
  __docs_stop_listed "$__docs_dir/servers" 20
  local n=$((++__docs_servers)) i
  local log="$__docs_dir/server-$n"
  "$DOCS_NODE" "$DOCS_MAIN" --max-event-loop-delay 0 "$@" --secure-port 0 >"$log.out" 2>"$log.err" </dev/null {DOCS_STATUS}>&- &
  local pid=$!
  echo "$pid" >>"$__docs_dir/servers"
  for ((i = 0; i < 900; i++)); do
    if grep -q 'ready at' "$log.out"; then
      grep 'ready at' "$log.out"
      __DOCS_PORT=$(sed -n 's|.*ready at https://[^ ]*:\([0-9][0-9]*\) .*|\1|p' "$log.out")
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid"
      local code=$?
      grep -v '^{' "$log.err" >&2
      return "$code"
    fi
    sleep 0.1
  done
  echo "docs test: the server printed no ready line within 90 s" >&2
  return 1
}

# `npm run cluster`: scripts/cluster.ts (what the npm script runs) in the background; returns once
# it printed its summary (the command's output). Its temp dir is where
# /tmp/platform-cluster-XXXX in later commands points.
__docs_cluster() {
  local log="$__docs_dir/cluster" i
  (cd "$DOCS_REPO" && exec "$DOCS_NODE" --import tsx scripts/cluster.ts) >"$log.out" 2>"$log.err" </dev/null {DOCS_STATUS}>&- &
  local pid=$!
  echo "$pid" >>"$__docs_dir/clusters"
  for ((i = 0; i < 2400; i++)); do
    if grep -q 'Ctrl-C stops everything' "$log.out"; then
      __DOCS_CLUSTER_DIR=$(sed -n 's/^cluster: files under \([^ ]*\).*/\1/p' "$log.err" | head -n 1)
      echo "$__DOCS_CLUSTER_DIR" >"$__docs_dir/cluster-dir"
      cat "$log.out"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid"
      local code=$?
      cat "$log.err" >&2
      return "$code"
    fi
    sleep 0.1
  done
  echo "docs test: npm run cluster printed no summary within 240 s" >&2
  return 1
}

# A command that runs until interrupted (`kubectl get -w`, `trust-anchors --watch`): run until the
# harness has seen what the page shows it print (it creates the stop file), at most 30 s, then
# stopped, as the reader stops it with Ctrl-C. Its own failure before that is the unit's status.
__docs_for_a_while() {
  local stop="$__docs_dir/unit-$__DOCS_UNIT.stop" i
  env "$@" {DOCS_STATUS}>&- &
  local pid=$!
  for ((i = 0; i < 300; i++)); do
    [ -e "$stop" ] && break
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid"
      return $?
    fi
    sleep 0.1
  done
  kill -TERM "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}

npm() {
  case "${1:-}" in
  ci) return 0 ;; # the harness runs against this checkout, installed and built
  start)
    shift
    [ "${1:-}" = "--" ] && shift
    __docs_server "$@"
    ;;
  run)
    case "${2:-}" in
    cluster) __docs_cluster ;;
    build) return 0 ;; # built before the pages run
    *)
      echo "docs test: npm run ${2:-} is not mapped (test/docs/prelude.sh); mark its block <!-- not-run: reason -->" >&2
      return 127
      ;;
    esac
    ;;
  *)
    echo "docs test: npm ${1:-} is not mapped (test/docs/prelude.sh); mark its block <!-- not-run: reason -->" >&2
    return 127
    ;;
  esac
}

# The bin the package installs; without a subcommand it starts a server.
platform-apiserver() {
  case "${1:-}" in
  "" | -*)
    case "${1:-}" in
    --version | -V | --help | -h) command platform-apiserver "$@" ;;
    *) __docs_server "$@" ;;
    esac
    ;;
  *) command platform-apiserver "$@" ;;
  esac
}

# The end of the page: every server and cluster it started stops.
__docs_stop_all() {
  __docs_stop_listed "$__docs_dir/servers" 20
  __docs_stop_listed "$__docs_dir/clusters" 60
  echo "stopped" >&"$DOCS_STATUS"
}
