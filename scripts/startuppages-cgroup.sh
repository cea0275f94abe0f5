#!/bin/bash
# The start-up pages in a memory cgroup (docs/deploy.md, "Memory: the executable's start-up
# pages"): the collector on its embedded default with the demo engines, once as it ships and
# once with OTELCOL_MODELPLANE_STARTUP_PAGES=keep, each in a cgroup v1 memory cgroup of its own,
# from its own copy of bin/otelcol-modelplane read back from disk. Prints the cgroup's figures
# 40 s after start, then 30 s under a 48 MiB limit. Needs root and cgroup v1's memory
# controller at /sys/fs/cgroup/memory; run `make build` first. Takes about 3 minutes.
set -u
cd "$(dirname "$0")/.."
bin/demo-engines -expositions testdata/exposition > /dev/null 2>&1 &
demo=$!
trap 'kill $demo 2>/dev/null' EXIT
sleep 1
for v in keep release; do
  cg=/sys/fs/cgroup/memory/otelcol-modelplane-$v
  rmdir "$cg" 2>/dev/null; mkdir -p "$cg"
  cp bin/otelcol-modelplane "/tmp/otelcol-modelplane-$v"; sync
  python3 -c "import os;fd=os.open('/tmp/otelcol-modelplane-$v',os.O_RDONLY);os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED)"
  bash -c "echo \$\$ > $cg/cgroup.procs; exec env OTELCOL_MODELPLANE_STARTUP_PAGES=$v /tmp/otelcol-modelplane-$v" > /dev/null 2>&1 &
  pid=$!
  sleep 40
  st() { awk -v p="$1" '$1==p{printf "%s=%.1fMiB ", p, $2/1048576}' "$cg/memory.stat"; }
  echo "$v at 40 s: usage=$(awk '{printf "%.1fMiB", $1/1048576}' "$cg/memory.usage_in_bytes") $(st rss)$(st cache)$(st mapped_file)$(st active_file)$(st inactive_file)VmRSS=$(awk '/VmRSS/{print $2}' /proc/$pid/status)kB majflt=$(awk '{print $12}' /proc/$pid/stat)"
  echo $((48 * 1048576)) > "$cg/memory.limit_in_bytes"
  sleep 30
  echo "$v 30 s under a limit of 48 MiB: usage=$(awk '{printf "%.1fMiB", $1/1048576}' "$cg/memory.usage_in_bytes") $(st mapped_file)VmRSS=$(awk '/VmRSS/{print $2}' /proc/$pid/status)kB majflt=$(awk '{print $12}' /proc/$pid/stat)"
  kill $pid; wait $pid 2>/dev/null
  rmdir "$cg"; rm -f "/tmp/otelcol-modelplane-$v"
done
