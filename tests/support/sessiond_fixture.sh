#!/usr/bin/env bash
# sessiond_fixture.sh start|stop STATEDIR — the CTest fixture behind every test
# labelled "lttng": `start` launches lttng-sessiond when none answers and
# records its PID; `stop` stops that daemon by its PID (never one it did not
# start). Tests that find no daemon at all would otherwise have to skip.
set -u
cmd=$1 state=$2
pidfile=$state/sessiond.pid
mkdir -p "$state"
case $cmd in
start)
  # Started by an earlier run of this fixture (ctest --repeat runs the setup
  # again before the cleanup): keep its PID so that `stop` still stops it.
  if [ -f "$pidfile" ] && [ "$(cat "/proc/$(cat "$pidfile")/comm" 2>/dev/null)" = lttng-sessiond ] &&
     lttng list >/dev/null 2>&1; then
    echo "using lttng-sessiond (pid $(cat "$pidfile")) started earlier by this fixture"
    exit 0
  fi
  rm -f "$pidfile"
  if lttng list >/dev/null 2>&1; then
    echo "a session daemon already answers; using it"
    exit 0
  fi
  command -v lttng-sessiond >/dev/null || { echo "lttng-sessiond is not installed"; exit 1; }
  setsid lttng-sessiond >"$state/sessiond.log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  for _ in $(seq 1 100); do
    lttng list >/dev/null 2>&1 && { echo "started lttng-sessiond (pid $(cat "$pidfile"))"; exit 0; }
    sleep 0.1
  done
  echo "lttng-sessiond did not answer within 10 s:"; cat "$state/sessiond.log"
  kill "$(cat "$pidfile")" 2>/dev/null; rm -f "$pidfile"
  exit 1
  ;;
stop)
  [ -f "$pidfile" ] || exit 0
  pid=$(cat "$pidfile"); rm -f "$pidfile"
  kill -TERM "$pid" 2>/dev/null || exit 0
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
  exit 0
  ;;
*) echo "usage: $0 start|stop STATEDIR"; exit 2 ;;
esac
