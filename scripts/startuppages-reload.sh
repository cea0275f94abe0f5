#!/bin/bash
# The start-up pages after a reload (docs/deploy.md): BINARY on its embedded default with no
# engine; the demo engines start at 35 s, the collector finds them and reloads. Prints the
# executable's pages mapped (RssFile) before the engines and 40 s after them. Run it with
# bin/otelcol-modelplane and with a build of an earlier commit to compare; the ports of the
# embedded default (9464, 8888) and the demo engines (8000, 30000, 9400) must be free.
set -u
bin=${1:?usage: scripts/startuppages-reload.sh BINARY}
cd "$(dirname "$0")/.."
python3 -c "import os;fd=os.open('$bin',os.O_RDONLY);os.fsync(fd);os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED)"
"$bin" > /dev/null 2>&1 &
pid=$!
sleep 35
before=$(awk '/RssFile/{print $2}' /proc/$pid/status)
bin/demo-engines -expositions testdata/exposition > /dev/null 2>&1 &
demo=$!
sleep 40
after=$(awk '/RssFile/{print $2}' /proc/$pid/status)
echo "$bin: executable pages mapped before the engines ${before} kB, 40 s after them ${after} kB"
kill $pid $demo; wait 2>/dev/null
