# shellcheck shell=bash disable=SC2034  # RGC_TRACE_* are the caller's outputs
# rgc_trace.sh — sourced by shell tests that record one librgc program under
# a real LTTng session (the shell counterpart of rgc_trace.py). The session
# daemon comes from the CTest fixture (tests/support/sessiond_fixture.sh).
#
#   rgc_trace_require_tools                 exit 77 without lttng/babeltrace2
#   rgc_trace_open SESSION DIR LOG SUBBUF [EXCLUDE]
#       session SESSION writing to DIR/trace: one user-space channel of 8
#       SUBBUF sub-buffers, rgc:* events but EXCLUDE (comma-separated), vpid
#       and vtid contexts; lttng's output goes to LOG
#   rgc_trace_run OUT ERR PROGRAM [ARGS...]
#       runs PROGRAM (stdout to OUT, stderr to ERR) with the session recording
#       only its vpid, then stops the session; sets RGC_TRACE_PID and
#       RGC_TRACE_RC (PROGRAM's exit status)
#   rgc_trace_text TEXT ERRTEXT             babeltrace2 --clock-seconds text
#   rgc_trace_close                         destroy the session (for EXIT traps)
#
# Every function but the last returns 1 with a one-line reason in
# RGC_TRACE_ERROR; the caller reports it and fails. Only the process started
# here is stopped, by its PID.

RGC_TRACE_SESSION='' RGC_TRACE_DIR='' RGC_TRACE_LOG=/dev/null RGC_TRACE_ERROR=''

rgc_trace_require_tools() {
  command -v lttng >/dev/null && command -v babeltrace2 >/dev/null && return 0
  echo "SKIP: lttng or babeltrace2 is not installed"
  exit 77
}

_rgc_lttng() {  # lttng ARGS..., its output appended to the log
  lttng "$@" >>"$RGC_TRACE_LOG" 2>&1 && return 0
  RGC_TRACE_ERROR="lttng $1 failed: $(tail -1 "$RGC_TRACE_LOG")"
  return 1
}

rgc_trace_open() {
  local exclude=${5:-}
  RGC_TRACE_SESSION=$1 RGC_TRACE_DIR=$2 RGC_TRACE_LOG=$3
  if ! lttng list >/dev/null 2>&1; then
    RGC_TRACE_ERROR="no LTTng session daemon answers (the lttng_daemon CTest fixture starts one)"
    return 1
  fi
  _rgc_lttng create "$RGC_TRACE_SESSION" --output="$RGC_TRACE_DIR/trace" || return 1
  _rgc_lttng enable-channel -u --session="$RGC_TRACE_SESSION" --subbuf-size="$4" --num-subbuf=8 rgc \
    || return 1
  _rgc_lttng enable-event -u --session="$RGC_TRACE_SESSION" -c rgc 'rgc:*' ${exclude:+--exclude="$exclude"} \
    || return 1
  _rgc_lttng add-context -u --session="$RGC_TRACE_SESSION" -c rgc -t vpid -t vtid
}

rgc_trace_run() {
  local out=$1 err=$2 gate="$RGC_TRACE_DIR/start-gate"
  shift 2
  # The program waits behind a FIFO until its PID is the only one tracked;
  # exec keeps that PID.
  rm -f "$gate"
  mkfifo "$gate" || { RGC_TRACE_ERROR="mkfifo $gate failed"; return 1; }
  ( read -r _ <"$gate" && exec "$@" ) >"$out" 2>"$err" &
  RGC_TRACE_PID=$!
  if ! _rgc_lttng track -u --session="$RGC_TRACE_SESSION" --vpid="$RGC_TRACE_PID" \
     || ! _rgc_lttng start "$RGC_TRACE_SESSION"; then
    kill "$RGC_TRACE_PID" 2>/dev/null
    wait "$RGC_TRACE_PID" 2>/dev/null
    return 1
  fi
  echo go >"$gate"
  wait "$RGC_TRACE_PID"
  RGC_TRACE_RC=$?
  _rgc_lttng stop "$RGC_TRACE_SESSION"
}

rgc_trace_text() {
  if ! babeltrace2 --clock-seconds "$RGC_TRACE_DIR/trace" >"$1" 2>"$2"; then
    RGC_TRACE_ERROR="babeltrace2 failed: $(head -1 "$2")"
    return 1
  fi
  # a lossy trace proves nothing
  if grep -qi 'discarded' "$2" "$1"; then
    RGC_TRACE_ERROR="the trace lost events: $(grep -i -m1 -h discarded "$2" "$1" | head -1)"
    return 1
  fi
}

rgc_trace_close() {
  [ -n "$RGC_TRACE_SESSION" ] && lttng destroy "$RGC_TRACE_SESSION" >/dev/null 2>&1
  return 0
}
