#!/usr/bin/env bash
# release.sh bump|check CORE STABLE CONTRIB: the collector release the distribution builds on,
# which the Makefile names once (CORE, STABLE, CONTRIB). `bump` moves every collector and
# contrib module of builder-config.yaml and go.mod's direct requirements to it and tidies;
# `check` fails, naming the line, where either names another release.
set -euo pipefail
mode=$1 core=$2 stable=$3 contrib=$4

# The version a module path gets: contrib's, or the collector's stable (v1) or unstable (v0).
want() {
  case "$1" in
    github.com/open-telemetry/opentelemetry-collector-contrib/*) echo "$contrib" ;;
    go.opentelemetry.io/collector/*) case "$2" in v1.*) echo "$stable" ;; *) echo "$core" ;; esac ;;
  esac
}

# lines FILE: "path version lineno" for each collector or contrib module the file names
# (builder-config.yaml's gomod entries, go.mod's direct requirements).
lines() {
  case "$1" in
    builder-config.yaml) awk '$1 == "-" && $2 == "gomod:" && NF >= 4 {print $3, $4, NR}' "$1" ;;
    go.mod) awk '/^require \(/{r=1; next} r && /^\)/{r=0} r && !/\/\/ indirect/ {print $1, $2, NR}' "$1" ;;
  esac | grep -E '^(go.opentelemetry.io/collector/|github.com/open-telemetry/opentelemetry-collector-contrib/)' || true
}

status=0
for f in builder-config.yaml go.mod; do
  while read -r path ver n; do
    w=$(want "$path" "$ver")
    [ "$ver" = "$w" ] && continue
    if [ "$mode" = bump ]; then
      sed -i "${n}s#$path $ver#$path $w#" "$f"
    else
      echo "$f:$n: $path $ver, but the Makefile's release is $w (make bump-release)"
      status=1
    fi
  done < <(lines "$f")
done
if [ "$mode" = bump ]; then
  go mod tidy
elif [ $status -eq 0 ]; then
  echo "builder-config.yaml and go.mod are on collector $core / $stable, contrib $contrib"
fi
exit $status
